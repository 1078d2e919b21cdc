// examples/mesh/mesh_add_delete.hpp: add_triangle and delete_face, _edge,
// _vertex of triangle_mesh (mesh.hpp), as PMP's add_face and delete_face
// (after OpenMesh), for triangles and without a stored prev.
//
// Invariant kept by both: next is a permutation of the live halfedges with
// from(next(h)) == to(h), so the rotation h -> next(opposite(h)) around a
// vertex is a permutation of its outgoing halfedges, and prev(h) (a walk
// of that rotation) is defined at every step of an edit.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "mesh.hpp"

namespace travpool::mesh {

inline Face triangle_mesh::add_triangle(Vertex a, Vertex b, Vertex c) {
  // As PMP's add_face (after OpenMesh), for n = 3.
  const std::array<Vertex, 3> vs{a, b, c};
  std::array<Halfedge, 3> hs;
  std::array<bool, 3> is_new{}, needs_adjust{};
  std::vector<std::pair<Halfedge, Halfedge>> next_cache;
  next_cache.reserve(9);
  auto fail = [](const char* what) { throw topology_error(0, std::string("add_triangle: ") + what); };
  for (int i = 0; i < 3; ++i)
    if (!is_live(vs[i])) fail("a vertex is not live");
  if (a == b || b == c || c == a) fail("a repeated vertex");
  for (int i = 0, ii = 1; i < 3; ++i, ii = (ii + 1) % 3) {
    if (!is_isolated(vs[i]) && !is_boundary(vs[i])) fail("a vertex is not on the boundary (complex vertex)");
    hs[i] = find_halfedge(vs[i], vs[ii]);
    is_new[i] = !hs[i].is_valid();
    if (!is_new[i] && !is_boundary(hs[i])) fail("an edge already has a face on this side (complex edge)");
  }
  // Re-link patches where two old halfedges meet but do not follow each other.
  for (int i = 0, ii = 1; i < 3; ++i, ii = (ii + 1) % 3) {
    if (is_new[i] || is_new[ii]) continue;
    const Halfedge inner_prev = hs[i], inner_next = hs[ii];
    if (next(inner_prev) == inner_next) continue;
    const Halfedge outer_prev = inner_next.opposite();
    Halfedge boundary_prev = outer_prev;
    int guard = 0;
    do {
      boundary_prev = next(boundary_prev).opposite();
      if (++guard > (1 << 16)) fail("patch re-linking failed");
    } while (!is_boundary(boundary_prev) || boundary_prev == inner_prev);
    const Halfedge boundary_next = next(boundary_prev);
    if (boundary_next == inner_next) fail("patch re-linking failed");
    next_cache.emplace_back(boundary_prev, next(inner_prev));
    next_cache.emplace_back(prev(inner_next), boundary_next);
    next_cache.emplace_back(inner_prev, inner_next);
  }
  for (int i = 0, ii = 1; i < 3; ++i, ii = (ii + 1) % 3)
    if (is_new[i]) hs[i] = new_edge(vs[i], vs[ii]).halfedge(0);
  const Face f = new_face(hs[2]);
  for (int i = 0, ii = 1; i < 3; ++i, ii = (ii + 1) % 3) {
    const Vertex v = vs[ii];
    const Halfedge inner_prev = hs[i], inner_next = hs[ii];
    const int id = (is_new[i] ? 1 : 0) | (is_new[ii] ? 2 : 0);
    if (id == 0) {
      needs_adjust[ii] = out_[v] == inner_next;
      continue;
    }
    const Halfedge outer_prev = inner_next.opposite(), outer_next = inner_prev.opposite();
    if (id == 1) {  // prev new, next old
      next_cache.emplace_back(prev(inner_next), outer_next);
      out_[v] = outer_next;
    } else if (id == 2) {  // next new, prev old
      const Halfedge boundary_next = next(inner_prev);
      next_cache.emplace_back(outer_prev, boundary_next);
      out_[v] = boundary_next;
    } else if (!out_[v].is_valid()) {  // both new, v isolated
      out_[v] = outer_next;
      next_cache.emplace_back(outer_prev, outer_next);
    } else {  // both new, v on the boundary
      const Halfedge boundary_next = out_[v];
      next_cache.emplace_back(prev(boundary_next), outer_next);
      next_cache.emplace_back(outer_prev, boundary_next);
    }
    next_cache.emplace_back(inner_prev, inner_next);
  }
  for (const auto& [h, n] : next_cache) link(h, n);
  for (const Halfedge h : hs) face_of_[h] = f;
  for (int i = 0; i < 3; ++i)
    if (needs_adjust[i]) adjust_out(vs[i]);
  return f;
}

inline void triangle_mesh::delete_face(Face f) {
  // As PMP's delete_face: the face's halfedges become boundary ones; an
  // edge with no face left goes, and so does a vertex with no edge left.
  std::array<Edge, 3> dead_edges;
  std::array<Vertex, 3> corners_of_f;
  int n_dead = 0, k = 0;
  const Halfedge h0 = half_[f];
  Halfedge h = h0;
  do {
    face_of_[h] = Face();
    if (is_boundary(h.opposite())) dead_edges[n_dead++] = h.edge();
    corners_of_f[k++] = to(h);
    h = next(h);
  } while (h != h0 && k < 3);
  faces_.destroy(f.idx());
  for (int i = 0; i < n_dead; ++i) {
    const Halfedge a = dead_edges[i].halfedge(0), b = dead_edges[i].halfedge(1);
    const Vertex va = to(a), vb = to(b);
    const Halfedge next_a = next(a), prev_a = prev(a), next_b = next(b), prev_b = prev(b);
    link(prev_a, next_b);
    link(prev_b, next_a);
    edges_.destroy(dead_edges[i].idx());
    if (out_[va] == b) {
      if (next_a == b)
        vertices_.destroy(va.idx());
      else
        out_[va] = next_a;
    }
    if (out_[vb] == a) {
      if (next_b == a)
        vertices_.destroy(vb.idx());
      else
        out_[vb] = next_b;
    }
  }
  for (const Vertex v : corners_of_f)
    if (is_live(v)) adjust_out(v);
}

inline void triangle_mesh::delete_edge(Edge e) {
  const Face f0 = face(e.halfedge(0)), f1 = face(e.halfedge(1));
  if (f0.is_valid()) delete_face(f0);
  if (f1.is_valid()) delete_face(f1);
}

inline void triangle_mesh::delete_vertex(Vertex v) {
  std::vector<Face> around;
  for (const Face f : faces_around(v)) around.push_back(f);
  for (const Face f : around) delete_face(f);
  if (is_live(v)) vertices_.destroy(v.idx());
}

}  // namespace travpool::mesh
