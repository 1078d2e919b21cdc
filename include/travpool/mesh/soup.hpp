// travpool/mesh/soup.hpp: triangle soups, the exchange form of the readers,
// writers and generators: a mesh is built from one and written as one.
// Needs neither TBB nor OpenMP (reading a file pulls in only this and
// mesh.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <travpool/usage_error.hpp>

#include "mesh.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// A named per-point value column (a PLY vertex property of type float or
// double): it becomes the vertex property `name` of type float (single) or
// double.
struct point_values {
  std::string name;
  bool single = false;
  std::vector<double> values;  // one per point
};

struct soup {
  std::vector<vec3> points;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<vec3> normals;                // empty, or one per point: the vertex normals
  std::vector<point_values> point_columns;  // each with one value per point

  // Returns: the mesh of the triangles, vertex i at points[i], with
  // normal(vertex i) = normals[i] where given and a vertex property per
  // point column. Throws: topology_error (triangles); usage_error if a
  // column's size is not points.size() or its name is taken or reserved.
  triangle_mesh build() const {
    triangle_mesh m = triangle_mesh::from_triangles(points, triangles);
    if (normals.empty() && point_columns.empty()) return m;
    // A fresh mesh iterates its vertices in creation order: vertex i first.
    const auto fits = [&](std::size_t n, const std::string& what) {
      if (n != points.size())
        throw usage_error("soup::build: " + what + " has " + std::to_string(n) + " values for " +
                          std::to_string(points.size()) + " points");
    };
    if (!normals.empty()) {
      fits(normals.size(), "normals");
      std::size_t i = 0;
      for (const Vertex v : m.vertices()) m.normal(v) = normals[i++];
    }
    for (const point_values& c : point_columns) {
      fits(c.values.size(), "column '" + c.name + "'");
      std::size_t i = 0;
      if (c.single) {
        auto p = m.add_property<Vertex, float>(c.name);
        for (const Vertex v : m.vertices()) p[v] = static_cast<float>(c.values[i++]);
      } else {
        auto p = m.add_property<Vertex, double>(c.name);
        for (const Vertex v : m.vertices()) p[v] = c.values[i++];
      }
    }
    return m;
  }
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

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
