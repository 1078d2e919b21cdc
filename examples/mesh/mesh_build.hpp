// examples/mesh/mesh_build.hpp: triangle_mesh::from_triangles (mesh.hpp).
//
// The outgoing corners of every vertex are bucketed in CSR form
// (slot 3f + c runs from triangles[f][c] to triangles[f][(c + 1) % 3]), so
// each corner finds its twin among the corners leaving its target:
// O(V + F * valence), no hash table.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mesh.hpp"

namespace travpool::mesh {

inline triangle_mesh triangle_mesh::from_triangles(std::span<const vec3> points,
                                                   std::span<const std::array<std::uint32_t, 3>> triangles) {
  triangle_mesh m;
  const std::size_t nv = points.size(), nf = triangles.size();
  if (nv >= std::uint32_t(-1)) throw topology_error(0, "too many vertices");
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& t = triangles[f];
    for (int c = 0; c < 3; ++c)
      if (t[c] >= nv)
        throw topology_error(
            f, "vertex index " + std::to_string(t[c]) + " out of range (" + std::to_string(nv) + " vertices)");
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
      throw topology_error(f,
                           "degenerate triangle (repeated vertex " + std::to_string(t[0] == t[1] ? t[0] : t[2]) + ")");
  }
  std::vector<Vertex> vs(nv);
  for (std::size_t i = 0; i < nv; ++i) vs[i] = m.add_vertex(points[i]);

  std::vector<std::uint32_t> first(nv + 1, 0);
  for (std::size_t f = 0; f < nf; ++f)
    for (int c = 0; c < 3; ++c) ++first[triangles[f][c] + 1];
  for (std::size_t i = 0; i < nv; ++i) first[i + 1] += first[i];
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  std::vector<std::uint32_t> slots(3 * nf);  // by source vertex
  for (std::size_t f = 0; f < nf; ++f)
    for (std::uint32_t c = 0; c < 3; ++c) slots[fill[triangles[f][c]]++] = static_cast<std::uint32_t>(3 * f + c);
  fill = {};
  auto target = [&](std::uint32_t s) { return triangles[s / 3][(s % 3 + 1) % 3]; };
  auto source = [&](std::uint32_t s) { return triangles[s / 3][s % 3]; };
  auto edge_name = [](std::uint32_t a, std::uint32_t b) {
    return "non-manifold edge (" + std::to_string(a) + ", " + std::to_string(b) + "): ";
  };

  std::vector<Halfedge> hs(3 * nf);
  for (std::size_t f = 0; f < nf; ++f) {
    for (std::uint32_t c = 0; c < 3; ++c) {
      const auto s = static_cast<std::uint32_t>(3 * f + c);
      if (hs[s].is_valid()) continue;
      const std::uint32_t a = source(s), b = target(s);
      for (std::uint32_t k = first[a]; k < first[a + 1]; ++k)
        if (slots[k] != s && target(slots[k]) == b)
          throw topology_error(
              std::max<std::size_t>(f, slots[k] / 3),
              edge_name(a, b) + "more than two triangles, or triangles with inconsistent orientation, share it");
      std::uint32_t twin = std::uint32_t(-1);
      for (std::uint32_t k = first[b]; k < first[b + 1]; ++k)
        if (target(slots[k]) == a) {
          if (twin != std::uint32_t(-1))
            throw topology_error(std::max<std::size_t>(f, slots[k] / 3),
                                 edge_name(a, b) + "more than two triangles share it");
          twin = slots[k];
        }
      const Edge e = m.new_edge(vs[a], vs[b]);
      hs[s] = e.halfedge(0);
      if (twin != std::uint32_t(-1)) hs[twin] = e.halfedge(1);
    }
  }
  first = {};
  slots = {};
  for (std::size_t f = 0; f < nf; ++f) {
    const Halfedge h0 = hs[3 * f], h1 = hs[3 * f + 1], h2 = hs[3 * f + 2];
    const Face fc = m.new_face(h0);
    m.face_of_[h0] = m.face_of_[h1] = m.face_of_[h2] = fc;
    m.link(h0, h1), m.link(h1, h2), m.link(h2, h0);
    m.out_[vs[triangles[f][0]]] = h0;
    m.out_[vs[triangles[f][1]]] = h1;
    m.out_[vs[triangles[f][2]]] = h2;
  }
  // Boundary halfedges: the twin of a slot without one. Each vertex may
  // start at most one (else it is a non-manifold "bowtie" vertex).
  std::vector<Halfedge> boundary_out(nv);
  for (std::size_t s = 0; s < 3 * nf; ++s) {
    const Halfedge o = hs[s].opposite();
    if (!m.is_boundary(o) || m.next(o).is_valid()) continue;
    const std::uint32_t from = target(static_cast<std::uint32_t>(s));
    if (boundary_out[from].is_valid())
      throw topology_error(s / 3, "non-manifold vertex " + std::to_string(from) +
                                      ": its triangles form more than one fan (it is on two boundary loops)");
    boundary_out[from] = o;
  }
  // Link boundary halfedges: o ends at to(o), whose boundary halfedge follows.
  for (std::size_t s = 0; s < 3 * nf; ++s) {
    const Halfedge o = hs[s].opposite();
    if (!m.is_boundary(o)) continue;
    const std::uint32_t to = source(static_cast<std::uint32_t>(s));
    if (!boundary_out[to].is_valid())
      throw topology_error(s / 3, "non-manifold vertex " + std::to_string(to) + ": inconsistent boundary");
    m.link(o, boundary_out[to]);
  }
  for (std::size_t v = 0; v < nv; ++v)
    if (boundary_out[v].is_valid()) m.out_[vs[v]] = boundary_out[v];
  // Manifold vertices: the fan from out() must meet every outgoing halfedge.
  std::vector<std::uint32_t> degree(nv, 0);
  for (std::size_t f = 0; f < nf; ++f)
    for (int c = 0; c < 3; ++c) ++degree[triangles[f][c]];
  for (std::size_t v = 0; v < nv; ++v) {
    if (m.is_isolated(vs[v])) continue;
    std::size_t n = 0;
    for (const Halfedge h : m.out_halfedges(vs[v])) {
      if (!m.is_boundary(h)) ++n;
      if (n > degree[v]) break;
    }
    if (n != degree[v]) {
      std::size_t f = 0;
      for (; f < nf; ++f)
        if (triangles[f][0] == v || triangles[f][1] == v || triangles[f][2] == v) break;
      throw topology_error(f, "non-manifold vertex " + std::to_string(v) + ": its triangles form more than one fan");
    }
  }
  return m;
}

}  // namespace travpool::mesh
