// travpool/mesh/soup.hpp: triangle soups, the exchange form of the readers,
// writers and generators: a mesh is built from one and written as one.
// Needs neither TBB nor OpenMP (reading a file pulls in only this and
// mesh.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "mesh.hpp"

namespace travpool::mesh {

struct soup {
  std::vector<vec3> points;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  triangle_mesh build() const { return triangle_mesh::from_triangles(points, triangles); }
};

// --- export ------------------------------------------------------------------------

// Numbers the vertices 0, 1, ... in traversal order: number.at(v).
class vertex_numbering {
 public:
  explicit vertex_numbering(const triangle_mesh& m) {
    std::uint32_t i = 0;
    for (const Vertex v : m.vertices()) {
      if (v.idx() >= n_.size()) n_.resize(std::size_t{v.idx()} + 1, Vertex::invalid_index);
      n_[v.idx()] = i++;
    }
  }
  std::uint32_t at(Vertex v) const {
    if (v.idx() >= n_.size() || n_[v.idx()] == Vertex::invalid_index)
      throw std::out_of_range("vertex_numbering: not a live vertex");
    return n_[v.idx()];
  }

 private:
  std::vector<std::uint32_t> n_;
};

inline vertex_numbering vertex_numbers(const triangle_mesh& m) { return vertex_numbering(m); }

// Writes the mesh as a triangle soup, numbering vertices in traversal order.
inline void to_triangles(const triangle_mesh& m, std::vector<vec3>& points,
                         std::vector<std::array<std::uint32_t, 3>>& triangles) {
  points.clear();
  triangles.clear();
  points.reserve(m.vertex_count());
  triangles.reserve(m.face_count());
  const auto number = vertex_numbers(m);
  for (const Vertex v : m.vertices()) points.push_back(m.position(v));
  for (const Face f : m.faces()) {
    const auto c = m.corners(f);
    triangles.push_back({number.at(c[0]), number.at(c[1]), number.at(c[2])});
  }
}

}  // namespace travpool::mesh
