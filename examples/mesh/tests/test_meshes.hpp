// Helpers shared by the mesh tests: what a mesh holds, as plain vectors.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include <travpool/mesh/mesh.hpp>

namespace travpool::mesh::testing {

// The triangles as sorted triples of vertex handles, rotated to start at
// the smallest handle (orientation kept).
inline std::vector<std::array<Vertex, 3>> triangle_set(const triangle_mesh& m) {
  std::vector<std::array<Vertex, 3>> t;
  for (const Face f : m.faces()) {
    auto a = m.corners(f);
    std::rotate(a.begin(), std::min_element(a.begin(), a.end()), a.end());
    t.push_back(a);
  }
  std::sort(t.begin(), t.end());
  return t;
}

inline std::vector<vec3> positions(const triangle_mesh& m) {
  std::vector<vec3> p;
  for (const Vertex v : m.vertices()) p.push_back(m.position(v));
  return p;
}

inline std::vector<vec3> vertex_normals(const triangle_mesh& m) {
  std::vector<vec3> p;
  for (const Vertex v : m.vertices()) p.push_back(m.normal(v));
  return p;
}

// The boundary halfedges as sorted (from, to) position pairs: equal before
// and after an edit that keeps every boundary loop's shape.
inline std::vector<std::array<double, 6>> boundary_segments(const triangle_mesh& m) {
  std::vector<std::array<double, 6>> b;
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s)
      if (const Halfedge h = e.halfedge(s); m.is_boundary(h)) {
        const vec3 &p = m.position(m.from(h)), &q = m.position(m.to(h));
        b.push_back({p.x, p.y, p.z, q.x, q.y, q.z});
      }
  std::sort(b.begin(), b.end());
  return b;
}

}  // namespace travpool::mesh::testing
