// examples/mesh/mesh_validate.hpp: triangle_mesh::validate() (mesh.hpp).
// O(V + E + F) plus the circulation of every vertex, O(E) in all.
#pragma once

#include <stdexcept>
#include <string>

#include "mesh.hpp"

namespace travpool::mesh {

inline void triangle_mesh::validate() const {
  auto fail = [](const std::string& what) { throw std::logic_error("triangle_mesh::validate: " + what); };
  std::size_t halfedges = 0;
  for (const Edge e : edges()) {
    for (unsigned s = 0; s < 2; ++s) {
      const Halfedge h = e.halfedge(s);
      ++halfedges;
      if (h.side() != s || h.edge() != e || h.opposite().opposite() != h) fail("halfedge arithmetic is wrong");
      if (!is_live(next(h))) fail("next is not a live halfedge");
      const Halfedge p = prev(h);
      if (!is_live(p) || next(p) != h) fail("next and prev disagree");
      if (!is_live(to(h))) fail("halfedge points at a dead vertex");
      if (to(h) == from(h)) fail("edge is a loop");
      if (from(next(h)) != to(h)) fail("next does not start where the halfedge ends");
      if (face(next(h)) != face(h)) fail("next lies in another face");
      if (face(h).is_valid() && !is_live(face(h))) fail("halfedge points at a dead face");
      if (is_isolated(from(h))) fail("a vertex with edges has no outgoing halfedge");
    }
  }
  for (const Face f : faces()) {
    const Halfedge h = halfedge(f);
    if (!is_live(h) || face(h) != f) fail("face's halfedge is not in it");
    if (next(next(next(h))) != h) fail("face is not a triangle");
  }
  std::size_t ring_total = 0;
  for (const Vertex v : vertices()) {
    if (is_isolated(v)) continue;
    if (!is_live(out(v)) || from(out(v)) != v) fail("vertex's outgoing halfedge does not start at it");
    bool boundary = false;
    std::size_t n = 0;
    for (const Halfedge h : out_halfedges(v)) {
      if (from(h) != v) fail("circulation left the vertex");
      boundary |= is_boundary(h);
      if (++n > halfedges) fail("circulation does not close");
    }
    if (boundary && !is_boundary(out(v))) fail("boundary vertex's outgoing halfedge is not a boundary one");
    ring_total += n;
  }
  if (ring_total != halfedges) fail("a vertex is non-manifold (its fan misses some of its halfedges)");
}

}  // namespace travpool::mesh
