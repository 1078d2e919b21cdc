// travpool/mesh/algorithms.hpp: the Sieger & Botsch mesh-benchmark operations
// on travpool::mesh::triangle_mesh, serial and parallel.
//
// Parallel loops run over the handle runs of the pools' partitions
// with OpenMP (partition(4 * threads), scheduled dynamically) or of the
// pools' TBB ranges (tbb::parallel_for(range(), ...)). Each element is computed from the
// same inputs in the same order as in the serial loop, so the parallel
// results equal the serial ones bit for bit.
//
// Neither OpenMP nor TBB is required. execution::openmp needs a build with
// OpenMP (-fopenmp, the CMake target travpool::openmp: _OPENMP defined);
// execution::tbb needs TRAVPOOL_MESH_TBB=1 and TBB linked (the CMake target
// travpool::mesh_tbb gives both). Without them those modes throw
// usage_error, rather than running serially unnoticed; available(how)
// tells which modes this build has.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef TRAVPOOL_MESH_TBB
#define TRAVPOOL_MESH_TBB 0
#endif
#if TRAVPOOL_MESH_TBB
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

#if defined(_OPENMP)
#include <omp.h>
#endif

// The backends this translation unit has, as the name of the inline
// namespace of everything below that depends on them (config.hpp).
#if TRAVPOOL_MESH_TBB && defined(_OPENMP)
#define TRAVPOOL_MESH_BACKEND backend_openmp_tbb
#elif TRAVPOOL_MESH_TBB
#define TRAVPOOL_MESH_BACKEND backend_tbb
#elif defined(_OPENMP)
#define TRAVPOOL_MESH_BACKEND backend_openmp
#else
#define TRAVPOOL_MESH_BACKEND backend_serial
#endif

#include <travpool/usage_error.hpp>

#include "mesh.hpp"
#include "soup.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

enum class execution { serial, openmp, tbb };

inline const char* to_string(execution e) noexcept {
  switch (e) {
    case execution::serial:
      return "serial";
    case execution::openmp:
      return "openmp";
    case execution::tbb:
      return "tbb";
  }
  return "?";
}

inline namespace TRAVPOOL_MESH_BACKEND {

// Returns: whether this build can run `how` (serial always; openmp with
// OpenMP enabled; tbb with TRAVPOOL_MESH_TBB=1).
constexpr bool available(execution how) noexcept {
  switch (how) {
    case execution::serial:
      return true;
    case execution::openmp:
#if defined(_OPENMP)
      return true;
#else
      return false;
#endif
    case execution::tbb:
      return TRAVPOOL_MESH_TBB != 0;
  }
  return false;
}

// Returns: the threads `how` runs on by default: omp_get_max_threads()
// for openmp, TBB's this_task_arena::max_concurrency() for tbb; 1 for
// serial or a mode this build lacks.
inline std::size_t default_threads(execution how) noexcept {
#if defined(_OPENMP)
  if (how == execution::openmp) return static_cast<std::size_t>(omp_get_max_threads());
#endif
#if TRAVPOOL_MESH_TBB
  if (how == execution::tbb) return static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
#endif
  (void)how;
  return 1;
}

// Calls f(handle) for every live element of `elements` (an element_range):
// serially, a bitmap word at a time; with OpenMP over
// elements.partition(4 * threads), scheduled dynamically; with TBB over
// elements.range(). Each part runs over its handle runs [first, last),
// so the inner loop is a plain index loop. f must not create or destroy
// elements and must be safe to run concurrently on distinct elements.
// Throws: usage_error if !available(how) (then f is not called).
template <class Handle, class F>
void for_each_element(const element_range<Handle>& elements, execution how, F&& f) {
  if (!available(how))
    throw usage_error(
        std::string("travpool::mesh: execution::") + to_string(how) +
        " is not in this build (OpenMP: compile with -fopenmp, as the CMake target travpool::openmp does; "
        "TBB: define TRAVPOOL_MESH_TBB=1 and link TBB, as the CMake target travpool::mesh_tbb does)");
  [[maybe_unused]] auto sweep_runs = [&](auto runs) {
    for (const auto s : runs)
      for (std::uint32_t h = s.first; h < s.last; ++h) f(Handle(h));
  };
  switch (how) {
    case execution::serial:
      elements.for_each(f);
      return;
    case execution::openmp: {
#if defined(_OPENMP)
      const int threads = omp_get_max_threads();
      if (threads > 1 && elements.bin_count() > 1) {
        // A few parts per thread, handed out dynamically: a thread slowed
        // down by other load does not hold up the others (as TBB's stealing).
        auto parts = elements.partition(4 * static_cast<std::size_t>(threads));
        const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (std::ptrdiff_t i = 0; i < n; ++i)
          sweep_runs(element_pool<Handle>::runs(parts[static_cast<std::size_t>(i)]));
        return;
      }
#endif
      elements.for_each(f);  // one thread, or one bin
      return;
    }
    case execution::tbb:
#if TRAVPOOL_MESH_TBB
      tbb::parallel_for(elements.range(), [&](const typename element_pool<Handle>::range_type& r) {
        sweep_runs(element_pool<Handle>::runs(r));
      });
#endif
      return;
  }
}

// --- circulators and barycenter ----------------------------------------------

struct circulation_counts {
  std::size_t vertex_vertices = 0;  // sum over vertices of |one-ring|
  std::size_t vertex_faces = 0;     // sum over vertices of incident faces
  std::size_t face_vertices = 0;    // sum over faces of corners
  friend bool operator==(const circulation_counts&, const circulation_counts&) = default;
};

// Runs the three circulators over the whole mesh (the benchmark's
// "circulators" operation).
inline circulation_counts circulate_all(const triangle_mesh& m) {
  circulation_counts c;
  m.vertices().for_each([&](Vertex v) {
    for ([[maybe_unused]] Vertex w : m.vertices_around(v)) ++c.vertex_vertices;
    for ([[maybe_unused]] Face f : m.faces_around(v)) ++c.vertex_faces;
  });
  m.faces().for_each([&](Face f) {
    for ([[maybe_unused]] Vertex v : m.vertices_of(f)) ++c.face_vertices;
  });
  return c;
}

// Sum of all positions: an order-independent checksum up to rounding.
inline vec3 position_sum(const triangle_mesh& m) {
  vec3 s;
  for (const Vertex v : m.vertices()) s += m.position(v);
  return s;
}

inline vec3 barycenter(const triangle_mesh& m) {
  const vec3 s = position_sum(m);
  return m.vertex_count() == 0 ? s : s * (1.0 / static_cast<double>(m.vertex_count()));
}

// --- normals -------------------------------------------------------------------

inline vec3 face_normal(const triangle_mesh& m, Face f) noexcept {
  const auto c = m.corners(f);
  const vec3& p0 = m.position(c[0]);
  return normalized(cross(m.position(c[1]) - p0, m.position(c[2]) - p0));
}

// Face normals: unit normals of the triangles. Vertex normals: the
// normalised sum of the incident faces' normals (as OpenMesh's
// update_vertex_normals). Reads face normals, so faces go first.
inline void compute_normals(triangle_mesh& m, execution how = execution::serial) {
  for_each_element(m.faces(), how, [&](Face f) { m.normal(f) = face_normal(m, f); });
  for_each_element(m.vertices(), how, [&](Vertex v) {
    vec3 n;
    for (const Face f : m.faces_around(v)) n += m.normal(f);
    m.normal(v) = normalized(n);
  });
}

// --- smoothing -----------------------------------------------------------------

// Uniform Laplacian smoothing, Jacobi style with two buffers (position and
// scratch, which is the normal's column: normals are stale afterwards):
// each iteration moves every interior vertex to the average of its
// neighbours as they were before the iteration. Boundary and isolated
// vertices stay.
inline void smooth(triangle_mesh& m, int iterations, execution how = execution::serial) {
  m.settle();  // out() on the boundary: it alone says whether v is
  for (int it = 0; it < iterations; ++it) {
    for_each_element(m.vertices(), how, [&](Vertex v) {
      if (m.is_isolated(v) || m.is_boundary(m.out(v))) {
        m.scratch(v) = m.position(v);
        return;
      }
      vec3 s;
      std::size_t n = 0;
      for (const Vertex w : m.vertices_around(v)) s += m.position(w), ++n;
      m.scratch(v) = s * (1.0 / static_cast<double>(n));
    });
    for_each_element(m.vertices(), how, [&](Vertex v) { m.position(v) = m.scratch(v); });
  }
}

// --- Loop subdivision ----------------------------------------------------------

// Loop's new position of vertex v, from the old positions: v itself if
// isolated, 3/4 v + 1/8 of its two boundary neighbours on the boundary,
// else (1 - n beta) v + beta * (sum of its n neighbours). Requires out()
// on the boundary (after low-level edits: m.settle() first).
inline vec3 loop_vertex_point(const triangle_mesh& m, Vertex v) {
  if (m.is_isolated(v)) return m.position(v);
  if (const Halfedge b = m.out(v); m.is_boundary(b)) {  // boundary: v -> next
    return 0.75 * m.position(v) + 0.125 * (m.position(m.to(b)) + m.position(m.from(m.prev(b))));
  }
  vec3 s;
  std::size_t n = 0;
  for (const Vertex w : m.vertices_around(v)) s += m.position(w), ++n;
  const double dn = static_cast<double>(n);
  const double t = 0.375 + 0.25 * std::cos(2 * std::numbers::pi / dn);
  const double beta = (0.625 - t * t) / dn;
  return (1.0 - dn * beta) * m.position(v) + beta * s;
}

// Loop's edge point of e: its midpoint on the boundary, else 3/8 of its
// ends and 1/8 of the two opposite corners.
inline vec3 loop_edge_point(const triangle_mesh& m, Edge e) {
  const Halfedge h0 = e.halfedge(0), h1 = e.halfedge(1);
  const vec3 &a = m.position(m.to(h0)), &b = m.position(m.to(h1));
  if (m.is_boundary(e)) return 0.5 * (a + b);
  return 0.375 * (a + b) + 0.125 * (m.position(m.to(m.next(h0))) + m.position(m.to(m.next(h1))));
}

// loop_subdivide with property rules (subdivision_masks::loop): the new
// positions wait in a vector rather than in the normals' column, which a
// rule may read.
namespace loop_detail {
[[gnu::cold, gnu::noinline]] inline void subdivide_following(triangle_mesh& m,
                                                             const std::vector<Vertex>& old_vertices) {
  std::vector<vec3> moved;
  moved.reserve(old_vertices.size());
  for (const Vertex v : old_vertices) moved.push_back(loop_vertex_point(m, v));
  std::vector<Edge> old_edges(m.edges().begin(), m.edges().end());
  std::vector<vec3> points;
  points.reserve(old_edges.size());
  for (const Edge e : old_edges) points.push_back(loop_edge_point(m, e));
  const std::vector<Face> old_faces(m.faces().begin(), m.faces().end());
  m.split_into_four(old_edges, points, old_faces, subdivision_masks::loop);
  for (std::size_t i = 0; i < old_vertices.size(); ++i) m.position(old_vertices[i]) = moved[i];
}
}  // namespace loop_detail

// One level of Loop subdivision (Loop 1987; boundary rules of Hoppe et al.):
// every triangle becomes four. In place: the old vertices' new positions
// go to their scratch buffers (normals are stale afterwards) and every old
// edge's edge point to a list, both from the old positions; then
// split_into_four gives every old edge a new vertex at its edge point and
// cuts every triangle into four, and the old vertices move.
// Throws: what split_into_four throws; then connectivity and positions
// are unchanged (normals are stale), unless a property rule threw: then
// the mesh is subdivided and the old vertices have not moved.
// Property rules (triangle_mesh::set_rule) follow with Loop's masks
// (loop_detail::subdivide_following).
inline void loop_subdivide(triangle_mesh& m) {
  m.settle();  // out() on the boundary (the boundary rules read it)
  const std::vector<Vertex> old_vertices(m.vertices().begin(), m.vertices().end());
  if (m.has_rules()) [[unlikely]] {
    loop_detail::subdivide_following(m, old_vertices);
    return;
  }
  for (const Vertex v : old_vertices) m.scratch(v) = loop_vertex_point(m, v);
  std::vector<Edge> old_edges;
  old_edges.reserve(m.edge_count());
  std::vector<vec3> points;
  points.reserve(m.edge_count());
  for (const Edge e : m.edges()) {
    old_edges.push_back(e);
    points.push_back(loop_edge_point(m, e));
  }
  const std::vector<Face> old_faces(m.faces().begin(), m.faces().end());
  m.split_into_four(old_edges, points, old_faces);
  for (const Vertex v : old_vertices) m.position(v) = m.scratch(v);
}

// --- split and collapse ----------------------------------------------------------

struct split_collapse_result {
  std::size_t split = 0;      // faces split
  std::size_t collapsed = 0;  // new vertices collapsed
  std::size_t refused = 0;    // new vertices whose collapses all failed the link condition
};

// The benchmark's split_collapse: splits every face at its centroid, then
// collapses every new vertex into one of its neighbours (checking the link
// condition), which restores the original connectivity. No element of the
// original mesh moves or is renumbered; nothing needs garbage collection.
inline split_collapse_result split_collapse(triangle_mesh& m) {
  split_collapse_result r;
  std::vector<Face> faces(m.faces().begin(), m.faces().end());
  std::vector<Vertex> added;
  added.reserve(faces.size());
  for (const Face f : faces) {
    const auto c = m.corners(f);
    const vec3 p = (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3.0);
    added.push_back(m.split(f, p));
  }
  r.split = faces.size();
  faces = {};
  for (const Vertex v : added) {
    Halfedge chosen;
    for (const Halfedge h : m.out_halfedges(v))
      if (m.is_collapse_ok(h)) {
        chosen = h;
        break;
      }
    if (!chosen.is_valid()) {
      ++r.refused;
      continue;
    }
    m.collapse(chosen);
    ++r.collapsed;
  }
  return r;
}

}  // namespace TRAVPOOL_MESH_BACKEND
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
