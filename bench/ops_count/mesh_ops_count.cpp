// bench/ops_count/mesh_ops_count.cpp: a fixed amount of mesh editing for
// instruction counts under callgrind, one noinline function per edit kind:
// split every face at its centroid, collapse the new vertices back
// (split_collapse's two halves), split every edge at its midpoint, flip
// every flippable edge of a grid, one Loop step, and a serial decimation.
// -DWITH_PROPERTY adds a vertex, a halfedge, an edge and a face property
// without rules (an edit must not look at them); -DWITH_RULES (only for
// trees with property rules) gives them rules, to show what rules cost.
// Built and compared by bench/ops_count/mesh_compare.sh, not by CMake.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/decimate.hpp>
#include <travpool/mesh/mesh.hpp>

using namespace travpool::mesh;

static triangle_mesh grid(std::uint32_t n) {
  std::vector<vec3> p;
  std::vector<std::array<std::uint32_t, 3>> t;
  for (std::uint32_t j = 0; j <= n; ++j)
    for (std::uint32_t i = 0; i <= n; ++i) p.push_back({double(i), double(j), 0.01 * double((i * 7 + j * 13) % 5)});
  auto at = [n](std::uint32_t i, std::uint32_t j) { return j * (n + 1) + i; };
  for (std::uint32_t j = 0; j < n; ++j)
    for (std::uint32_t i = 0; i < n; ++i) {
      t.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      t.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  auto m = triangle_mesh::from_triangles(p, t);
#if defined(WITH_PROPERTY) || defined(WITH_RULES)
  auto vp = m.add_property<Vertex, double>("v", 1.0);
  auto hp = m.add_property<Halfedge, vec3>("uv");
  auto ep = m.add_property<Edge, float>("e");
  auto fp = m.add_property<Face, int>("f");
#ifdef WITH_RULES
  m.set_rule(vp, follow::interpolate);
  m.set_rule(hp, follow::interpolate);
  m.set_rule(ep, follow::copy_from_source);
  m.set_rule(fp, follow::copy_from_source);
#else
  (void)vp, (void)hp, (void)ep, (void)fp;
#endif
#endif
  return m;
}

[[gnu::noinline]] std::vector<Vertex> phase_split_face(triangle_mesh& m) {
  const std::vector<Face> faces(m.faces().begin(), m.faces().end());
  std::vector<Vertex> added;
  added.reserve(faces.size());
  for (const Face f : faces) {
    const auto c = m.corners(f);
    added.push_back(m.split(f, (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3.0)));
  }
  return added;
}

[[gnu::noinline]] std::size_t phase_collapse(triangle_mesh& m, const std::vector<Vertex>& added) {
  std::size_t n = 0;
  for (const Vertex v : added) {
    const Halfedge h = m.out(v);  // v -> a: undoes the split
    m.collapse(h);
    ++n;
  }
  return n;
}

[[gnu::noinline]] std::size_t phase_split_edge(triangle_mesh& m) {
  const std::vector<Edge> edges(m.edges().begin(), m.edges().end());
  for (const Edge e : edges) m.split(e, (m.position(m.to(e.halfedge(0))) + m.position(m.to(e.halfedge(1)))) * 0.5);
  return edges.size();
}

[[gnu::noinline]] std::size_t phase_flip(triangle_mesh& m) {
  const std::vector<Edge> edges(m.edges().begin(), m.edges().end());
  std::size_t n = 0;
  for (const Edge e : edges)
    if (m.is_flip_ok(e)) m.flip(e), ++n;
  return n;
}

[[gnu::noinline]] void phase_loop(triangle_mesh& m) { loop_subdivide(m); }

[[gnu::noinline]] std::size_t phase_decimate(triangle_mesh& m) {
  decimate_options o;
  o.target_faces = m.face_count() / 4;
  return decimate(m, o).collapses;
}

// One mesh at a time: each reserves address space for its columns, and
// valgrind's is smaller than the process's.
int main() {
  std::size_t c = 0, s = 0, f = 0, d = 0, faces = 0;
  {
    auto m = grid(60);
    const auto added = phase_split_face(m);
    c = phase_collapse(m, added);
    m.validate();
  }
  {
    auto m = grid(60);
    s = phase_split_edge(m);
    m.validate();
  }
  {
    auto m = grid(60);
    f = phase_flip(m);
    m.validate();
  }
  {
    auto m = grid(60);
    phase_loop(m);
    d = phase_decimate(m);
    m.validate();
    faces = m.face_count();
  }
  std::printf("collapsed %zu split %zu flipped %zu decimated %zu faces %zu\n", c, s, f, d, faces);
}
