// bench/mesh/pointer_ops.hpp: the benchmark operations on the pointer mesh
// (pointer_mesh.hpp), as the mesh example had them before issue 16:
// parallel loops over pool partitions (OpenMP) and pool ranges (TBB).
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>
#include <vector>

#include <tbb/parallel_for.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <travpool/mesh/algorithms.hpp>  // execution, split_collapse_result
#include "pointer_mesh.hpp"

namespace travpool::mesh::bench::pointer {

// Calls f(element) for every live element of `pool`, serially, over
// pool.partition(4 * threads) with OpenMP, or over pool.range() with TBB. f must
// not create or destroy elements and must be safe to run concurrently on
// distinct elements.
template <class Pool, class F>
void for_each_element(Pool& pool, execution how, F&& f) {
  switch (how) {
    case execution::serial:
      pool.for_each(f);
      return;
    case execution::openmp: {
#if defined(_OPENMP)
      const int threads = omp_get_max_threads();
      if (threads > 1 && pool.bin_count() > 1) {
        // A few parts per thread, handed out dynamically: a thread slowed
        // down by other load does not hold up the others (as TBB's stealing).
        auto parts = pool.partition(4 * static_cast<std::size_t>(threads));
        const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (std::ptrdiff_t i = 0; i < n; ++i)
          for (auto& e : parts[static_cast<std::size_t>(i)]) f(e);
        return;
      }
#endif
      pool.for_each(f);
      return;
    }
    case execution::tbb:
      tbb::parallel_for(pool.range(), [&](const auto& r) {
        for (auto& e : r) f(e);
      });
      return;
  }
}

// --- normals -------------------------------------------------------------------

inline vec3 face_normal(const face& f) noexcept {
  const auto c = triangle_mesh::corners(f);
  return normalized(cross(c[1]->position() - c[0]->position(), c[2]->position() - c[0]->position()));
}

// Face normals: unit normals of the triangles. Vertex normals: the
// normalised sum of the incident faces' normals (as OpenMesh's
// update_vertex_normals). Reads face normals, so faces go first.
inline void compute_normals(triangle_mesh& m, execution how = execution::serial) {
  for_each_element(m.faces(), how, [](face& f) { f.normal() = face_normal(f); });
  for_each_element(m.vertices(), how, [](vertex& v) {
    vec3 n;
    for (face* f : triangle_mesh::faces_around(v)) n += f->normal();
    v.normal() = normalized(n);
  });
}

// --- smoothing -----------------------------------------------------------------

// Uniform Laplacian smoothing, Jacobi style with two buffers (position and
// scratch, which is the normal's storage: normals are stale afterwards):
// each iteration moves every interior vertex to the average of
// its neighbours as they were before the iteration. Boundary and isolated
// vertices stay.
inline void smooth(triangle_mesh& m, int iterations, execution how = execution::serial) {
  for (int it = 0; it < iterations; ++it) {
    for_each_element(m.vertices(), how, [](vertex& v) {
      if (triangle_mesh::is_boundary(v)) {
        v.scratch() = v.position();
        return;
      }
      vec3 s;
      std::size_t n = 0;
      for (vertex* w : triangle_mesh::vertices_around(v)) s += w->position(), ++n;
      v.scratch() = s * (1.0 / static_cast<double>(n));
    });
    for_each_element(m.vertices(), how, [](vertex& v) { v.position() = v.scratch(); });
  }
}

// --- Loop subdivision ----------------------------------------------------------

// One level of Loop subdivision (Loop 1987; boundary rules of Hoppe et al.):
// every triangle becomes four. In place: the old vertices' new positions go
// to their scratch buffers (normals are stale afterwards), every old edge gets a new vertex at its edge
// point, then every old face (a hexagon by now) has its three corners cut.
// Faces' half() ends at a new vertex after the edge splits, which tells
// corners from new vertices without a flag.
inline void loop_subdivide(triangle_mesh& m) {
  // 1. New positions of the old vertices.
  m.vertices().for_each([](vertex& v) {
    if (v.is_isolated()) {
      v.scratch() = v.position();
      return;
    }
    if (triangle_mesh::is_boundary(v)) {
      halfedge* b = v.out();  // boundary: v -> next
      const vec3 p = 0.75 * v.position() + 0.125 * (b->to()->position() + b->prev()->from()->position());
      v.scratch() = p;
      return;
    }
    vec3 s;
    std::size_t n = 0;
    for (vertex* w : triangle_mesh::vertices_around(v)) s += w->position(), ++n;
    const double dn = static_cast<double>(n);
    const double t = 0.375 + 0.25 * std::cos(2 * std::numbers::pi / dn);
    const double beta = (0.625 - t * t) / dn;
    v.scratch() = (1.0 - dn * beta) * v.position() + beta * s;
  });
  // 2. Edge points of the old edges.
  std::vector<edge*> old_edges;
  old_edges.reserve(m.edge_count());
  std::vector<vec3> points;
  points.reserve(m.edge_count());
  for (edge& e : m.edges()) {
    halfedge* h0 = e.half(0);
    halfedge* h1 = e.half(1);
    const vec3 a = h0->to()->position(), b = h1->to()->position();
    old_edges.push_back(&e);
    if (e.is_boundary())
      points.push_back(0.5 * (a + b));
    else
      points.push_back(0.375 * (a + b) + 0.125 * (h0->next()->to()->position() + h1->next()->to()->position()));
  }
  std::vector<face*> old_faces;
  old_faces.reserve(m.face_count());
  for (face& f : m.faces()) old_faces.push_back(&f);
  // 3. Split every old edge.
  for (std::size_t i = 0; i < old_edges.size(); ++i)
    m.insert_vertex(*old_edges[i]->half(0), points[i])->scratch() = points[i];
  old_edges = {};
  points = {};
  // 4. Cut the corners of every old face: f.half() ends at a new vertex.
  for (face* f : old_faces) {
    halfedge* h = f->half();
    for (int i = 0; i < 3; ++i) h = m.insert_edge(*h, *h->next()->next());
  }
  // 5. Move the old vertices (the new ones hold their position in scratch).
  m.vertices().for_each([](vertex& v) { v.position() = v.scratch(); });
}

// The benchmark's split_collapse: splits every face at its centroid, then
// collapses every new vertex into one of its neighbours (checking the link
// condition), which restores the original connectivity. No element of the
// original mesh moves or is renumbered; nothing needs garbage collection.
inline split_collapse_result split_collapse(triangle_mesh& m) {
  split_collapse_result r;
  std::vector<face*> faces;
  faces.reserve(m.face_count());
  for (face& f : m.faces()) faces.push_back(&f);
  std::vector<vertex*> added;
  added.reserve(faces.size());
  for (face* f : faces) {
    const auto c = triangle_mesh::corners(*f);
    const vec3 p = (c[0]->position() + c[1]->position() + c[2]->position()) * (1.0 / 3.0);
    added.push_back(m.split(*f, p));
  }
  r.split = faces.size();
  faces = {};
  for (vertex* v : added) {
    halfedge* chosen = nullptr;
    for (halfedge* h : triangle_mesh::out_halfedges(*v))
      if (triangle_mesh::is_collapse_ok(*h)) {
        chosen = h;
        break;
      }
    if (chosen == nullptr) {
      ++r.refused;
      continue;
    }
    m.collapse(*chosen);
    ++r.collapsed;
  }
  return r;
}

}  // namespace travpool::mesh::bench::pointer
