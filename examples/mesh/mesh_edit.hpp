// examples/mesh/mesh_edit.hpp: the element primitives of triangle_mesh
// (mesh.hpp) and its local edits: splitting and collapsing (adding
// triangles and deleting: mesh_add_delete.hpp).
//
// Every operation keeps the invariants of mesh.hpp. A new element is a
// pool create (its columns hold their initial values: invalid handles, zero
// vectors); a deleted one is a pool destroy. No other element's handle
// changes, so there is never a garbage collection. prev() is not stored:
// an operation that needs it on a boundary halfedge walks around from(h),
// O(valence).
#pragma once

#include <array>
#include <vector>

#include "mesh.hpp"

namespace travpool::mesh {

inline Vertex triangle_mesh::add_vertex(const vec3& p) {
  const Vertex v(vertices_.create());
  position_[v] = p;
  return v;
}

inline Edge triangle_mesh::new_edge(Vertex a, Vertex b) {
  const Edge e(edges_.create());
  links_[e.halfedge(0)].to = b;
  links_[e.halfedge(1)].to = a;
  return e;
}

inline Face triangle_mesh::new_face(Halfedge h) {
  const Face f(faces_.create());
  half_[f] = h;
  return f;
}

inline Halfedge triangle_mesh::prev(Halfedge h) const noexcept {
  constexpr int limit = 1 << 16;
  if (!is_boundary(h)) {
    Halfedge g = next(h);
    for (int i = 0; g.is_valid() && i < limit; ++i, g = next(g))
      if (next(g) == h) return g;
    return {};
  }
  // The outgoing halfedges g of from(h) follow each other as
  // g -> next(opposite(g)); prev is the incoming one whose next is h.
  Halfedge g = h;
  for (int i = 0; g.is_valid() && i < limit; ++i) {
    const Halfedge in = g.opposite();
    if (next(in) == h) return in;
    g = next(in);
  }
  return {};
}

inline Halfedge triangle_mesh::find_halfedge(Vertex a, Vertex b) const noexcept {
  for (const Halfedge h : out_halfedges(a))
    if (to(h) == b) return h;
  return {};
}

inline void triangle_mesh::adjust_out(Vertex v) noexcept {
  for (const Halfedge h : out_halfedges(v))
    if (is_boundary(h)) {
      out_[v] = h;
      return;
    }
}

inline Vertex triangle_mesh::split(Face f, const vec3& p) {
  const Halfedge h0 = half_[f];  // a -> b
  const Halfedge h1 = next(h0);  // b -> c
  const Halfedge h2 = next(h1);  // c -> a
  const Vertex a = to(h2), b = to(h0), c = to(h1);
  const Vertex v = add_vertex(p);
  const Edge ea = new_edge(v, a), eb = new_edge(v, b), ec = new_edge(v, c);  // half 0 leaves v
  const Face f0 = new_face(h0), f2 = new_face(h2);
  half_[f] = h1;
  const Halfedge va = ea.halfedge(0), av = ea.halfedge(1);
  const Halfedge vb = eb.halfedge(0), bv = eb.halfedge(1);
  const Halfedge vc = ec.halfedge(0), cv = ec.halfedge(1);
  // f0: a->b->v->a, f: b->c->v->b, f2: c->a->v->c. f keeps the triangle
  // away from out(v) = v->a, so that collapse(out(v)), which removes the
  // two triangles beside v-a, the edges v-b and v-c and v itself, gives
  // back the mesh as it was, every handle included.
  link(h0, bv), link(bv, va), link(va, h0);
  link(h1, cv), link(cv, vb), link(vb, h1);
  link(h2, av), link(av, vc), link(vc, h2);
  face_of_[h0] = face_of_[bv] = face_of_[va] = f0;
  face_of_[cv] = face_of_[vb] = f;
  face_of_[h2] = face_of_[av] = face_of_[vc] = f2;
  out_[v] = va;
  return v;
}

inline Vertex triangle_mesh::split(Edge e, const vec3& p) {
  const Halfedge h0 = e.halfedge(0);
  const Vertex v = insert_vertex(h0, p);
  // h0 now ends at v, next(h0) leaves it; each side with a face is a
  // quadrilateral cut from v to its fourth corner.
  const Halfedge o1 = next(h0).opposite();
  if (!is_boundary(h0)) insert_edge(h0, next(next(h0)));
  if (!is_boundary(o1)) insert_edge(o1, next(next(o1)));
  return v;
}

inline Vertex triangle_mesh::insert_vertex(Halfedge h0, const vec3& p) {
  // before: v0 --h0--> v2, v2 --o0--> v0; after: v0 --h0--> v --h1--> v2,
  // v2 --o1--> v --o0--> v0.
  const Halfedge h2 = next(h0);
  const Halfedge o0 = h0.opposite();
  const Halfedge o2 = prev(o0);
  const Vertex v2 = to(h0);
  const Face fh = face(h0), fo = face(o0);
  const Vertex v = add_vertex(p);
  const Edge e = new_edge(v, v2);
  const Halfedge h1 = e.halfedge(0), o1 = e.halfedge(1);
  link(h1, h2);
  link(h0, h1);
  links_[h0].to = v;
  face_of_[h1] = fh;
  link(o1, o0);
  link(o2, o1);
  face_of_[o1] = fo;
  out_[v2] = o1;
  adjust_out(v2);
  out_[v] = h1;
  adjust_out(v);
  if (fh.is_valid()) half_[fh] = h0;
  if (fo.is_valid()) half_[fo] = o1;
  return v;
}

inline Halfedge triangle_mesh::insert_edge(Halfedge h0, Halfedge h1) {
  const Halfedge h2 = next(h0), h3 = next(h1);
  const Edge e = new_edge(to(h0), to(h1));
  const Halfedge h4 = e.halfedge(0), h5 = e.halfedge(1);
  const Face f0 = face(h0);
  half_[f0] = h0;
  const Face f1 = new_face(h1);
  link(h0, h4);
  link(h4, h3);
  face_of_[h4] = f0;
  link(h1, h5);
  link(h5, h2);
  Halfedge h = h2;
  do {
    face_of_[h] = f1;
    h = next(h);
  } while (h != h2);
  return h4;
}

inline bool triangle_mesh::is_collapse_ok(Halfedge v0v1) const noexcept {
  const Halfedge v1v0 = v0v1.opposite();
  const Vertex v0 = to(v1v0), v1 = to(v0v1);
  Vertex vl, vr;
  // The edges v1-vl and vl-v0 must not both be boundary edges.
  if (!is_boundary(v0v1)) {
    const Halfedge h1 = next(v0v1), h2 = next(h1);
    vl = to(h1);
    if (is_boundary(h1.opposite()) && is_boundary(h2.opposite())) return false;
  }
  // The edges v0-vr and vr-v1 must not both be boundary edges.
  if (!is_boundary(v1v0)) {
    const Halfedge h1 = next(v1v0), h2 = next(h1);
    vr = to(h1);
    if (is_boundary(h1.opposite()) && is_boundary(h2.opposite())) return false;
  }
  if (vl == vr) return false;
  // An edge between two boundary vertices must be a boundary edge.
  if (is_boundary(v0) && is_boundary(v1) && !is_boundary(v0v1) && !is_boundary(v1v0)) return false;
  // Link condition, vertex part: the one-rings of v0 and v1 share only vl, vr.
  for (const Vertex w : vertices_around(v0))
    if (w != v1 && w != vl && w != vr && find_halfedge(w, v1).is_valid()) return false;
  // Link condition, edge part: no triangles (v0, vl, vr) and (v1, vl, vr) at
  // once (a tetrahedron would collapse to a double triangle).
  if (vl.is_valid() && vr.is_valid()) {
    if (const Halfedge h = find_halfedge(vl, vr); h.is_valid()) {
      auto third = [&](Halfedge x) { return is_boundary(x) ? Vertex() : to(next(x)); };
      const Vertex a = third(h), b = third(h.opposite());
      if ((a == v0 && b == v1) || (a == v1 && b == v0)) return false;
    }
  }
  return true;
}

inline void triangle_mesh::collapse(Halfedge h0) {
  const Halfedge h1 = prev(h0);
  const Halfedge o1 = next(h0.opposite());
  remove_edge_helper(h0);
  if (next(next(h1)) == h1) remove_loop_helper(h1);
  if (next(next(o1)) == o1) remove_loop_helper(o1);
}

inline void triangle_mesh::remove_edge_helper(Halfedge h) {
  const Halfedge hn = next(h), hp = prev(h);
  const Halfedge o = h.opposite();
  const Halfedge on = next(o), op = prev(o);
  const Face fh = face(h), fo = face(o);
  const Vertex vh = to(h), vo = to(o);
  // Only a boundary vertex needs its outgoing halfedge searched afresh.
  const bool on_boundary = is_boundary(out_[vh]) || is_boundary(out_[vo]);
  for (const Halfedge hc : out_halfedges(vo)) links_[hc.opposite()].to = vh;
  link(hp, hn);
  link(op, on);
  if (fh.is_valid()) half_[fh] = hn;
  if (fo.is_valid()) half_[fo] = on;
  if (out_[vh] == o) out_[vh] = hn;
  if (on_boundary) adjust_out(vh);
  vertices_.destroy(vo.idx());
  edges_.destroy(h.edge().idx());
}

inline void triangle_mesh::remove_loop_helper(Halfedge h0) {
  const Halfedge h1 = next(h0);
  const Halfedge o0 = h0.opposite(), o1 = h1.opposite();
  const Vertex v0 = to(h0), v1 = to(h1);
  const Face fh = face(h0), fo = face(o0);
  const Halfedge o0p = prev(o0), o0n = next(o0);
  link(o0p, h1);
  link(h1, o0n);
  face_of_[h1] = fo;
  // o0 (leaving v0) and h0 (leaving v1) vanish. h1 takes o0's face, so it
  // is a boundary halfedge iff o0 was; h0 had a face, so v1 is on the
  // boundary only if its outgoing halfedge already is a boundary one.
  if (out_[v0] == o0) out_[v0] = h1;
  if (out_[v1] == h0) out_[v1] = o1;
  if (fo.is_valid() && half_[fo] == o0) half_[fo] = h1;
  if (fh.is_valid()) faces_.destroy(fh.idx());
  edges_.destroy(h0.edge().idx());
}

}  // namespace travpool::mesh
