// bench/mesh/compare/vector_meshes.hpp: contender (b), the std::vector +
// 32-bit index mesh (bench/mesh/vector_mesh.hpp), on std::allocator
// ("vector") or on huge pages ("vector_huge"), each part in its own child:
// one Loop level of the coarse soup (R rebuilds, only the subdivision
// timed); on the full soup normals and smooth10 (serial and `omp parallel
// for`), split_collapse with garbage_collection(); the deletion scenario
// of travpool_deletion.hpp, timed BEFORE any garbage collection (indices
// are still soup indices).
#pragma once

#include <string>

#include "common.hpp"
#include "vector_mesh.hpp"
#include "vector_mesh_loop.hpp"

namespace travpool::mesh::compare {

// The checksum of a per-vertex array (points or normals) over the live vertices.
template <class Mesh, class Array>
checksum live_checksum(const Mesh& m, const Array& values) {
  checksum s;
  for (std::size_t v = 0; v < m.vertex_slots(); ++v)
    if (!m.vertex_deleted(static_cast<typename Mesh::index>(v))) s.add(values[v]);
  return s;
}

// Normals and smooth10, serial and parallel, `runs` times each, starting
// from positions `pts`; keys prefix + "normals.serial" etc.
template <class Mesh>
void time_normals_smooth(Mesh& m, const soup_points& pts, int runs, const std::string& prefix, results& r) {
  auto reset = [&] { std::copy(pts.begin(), pts.end(), m.points().begin()); };
  std::vector<double> ns, no, ss, so;
  for (int i = 0; i < runs; ++i) {
    ns.push_back(timed([&] { m.compute_normals(false); }));
    no.push_back(timed([&] { m.compute_normals(true); }));
  }
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] { m.smooth(10, false); }));
    reset();
    so.push_back(timed([&] { m.smooth(10, true); }));
  }
  r[prefix + "normals.serial"] = median(ns), r[prefix + "normals.openmp"] = median(no);
  r[prefix + "smooth10.serial"] = median(ss), r[prefix + "smooth10.openmp"] = median(so);
}

template <class Mesh>
std::size_t vector_split_collapse(Mesh& m) {
  using index = typename Mesh::index;
  std::size_t refused = 0;
  const auto nf = static_cast<index>(m.n_faces());
  std::vector<index> added;
  added.reserve(nf);
  for (index f = 0; f < nf; ++f) {
    const index h = m.face_half(f);
    const vec3 c = m.points()[m.to(h)] + m.points()[m.to(m.next(h))] + m.points()[m.to(m.next(m.next(h)))];
    added.push_back(m.split(f, c * (1.0 / 3.0)));
  }
  for (index v : added) {
    index chosen = Mesh::invalid;
    m.for_out(v, [&](index h) {
      if (chosen == Mesh::invalid && m.is_collapse_ok(h)) chosen = h;
    });
    if (chosen == Mesh::invalid) {
      ++refused;
      continue;
    }
    m.collapse(chosen);
  }
  m.garbage_collection();
  return refused;
}

template <class Mesh>
results run_vector_deletion(const scenario& sc) {
  results r;
  Mesh m = Mesh::from_triangles(sc.pts, sc.tris);
  r["del.delete"] = timed([&] {
    for (const std::uint32_t f : sc.doomed) m.delete_face(f);
  });
  r["del.V"] = double(m.n_vertices()), r["del.E"] = double(m.n_edges()), r["del.F"] = double(m.n_faces());
  time_normals_smooth(m, sc.pts, sc.runs, "del.", r);
  // time_normals_smooth leaves the normals and the smoothed positions.
  add_sum(r, "del_normal_sum", live_checksum(m, m.vertex_normals()));
  add_sum(r, "del_smooth_sum", live_checksum(m, m.points()));
  for (std::size_t k = 0; k < sc.held.size(); ++k) {
    add_vec(r, "held." + std::to_string(k) + ".n", m.vertex_normals()[sc.held[k]]);
    add_vec(r, "held." + std::to_string(k) + ".p", m.points()[sc.held[k]]);
  }
  return r;
}

template <class Mesh>
results run_vector_loop(const scenario& sc) {
  results r;
  r["loop"] = time_loop(
      sc.runs, [&] { return Mesh::from_triangles(sc.coarse_pts, sc.coarse_tris); },
      [](Mesh& m) { bench::loop_subdivide(m); },
      [&](Mesh& m) {
        r["loop.V"] = double(m.n_vertices()), r["loop.E"] = double(m.n_edges()), r["loop.F"] = double(m.n_faces());
        add_sum(r, "loop_sum", live_checksum(m, m.points()));
      });
  return r;
}

template <class Mesh>
results run_vector(const scenario& sc) {
  results r;
  {
    Mesh m;
    r["build"] = timed([&] { m = Mesh::from_triangles(sc.pts, sc.tris); });
    time_normals_smooth(m, sc.pts, sc.runs, "", r);
    add_sum(r, "normal_sum", live_checksum(m, m.vertex_normals()));
    add_sum(r, "smooth_sum", live_checksum(m, m.points()));
    std::copy(sc.pts.begin(), sc.pts.end(), m.points().begin());
    std::size_t refused = 0;
    std::vector<double> t;
    for (int i = 0; i < sc.runs; ++i) t.push_back(timed([&] { refused += vector_split_collapse(m); }));
    add_sum(r, "final_sum", live_checksum(m, m.points()));
    r["split_collapse"] = median(t);
    r["V"] = double(m.n_vertices()), r["E"] = double(m.n_edges()), r["F"] = double(m.n_faces());
    r["refused"] = double(refused);
  }
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

}  // namespace travpool::mesh::compare
