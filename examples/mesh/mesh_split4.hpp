// examples/mesh/mesh_split4.hpp: triangle_mesh::split_into_four, the
// topology step of Loop subdivision (mesh.hpp), written directly rather
// than as E insert_vertex and 3F insert_edge calls.
//
// Edge e = (h0: a -> b, h1: b -> a) gets a new vertex m and a new edge
// n = (n0: m -> b, n1: b -> m); h0 is shortened to a -> m and h1 to
// m -> a, so for an old halfedge x (from u to w):
//
//   first(x)  = the half from u to m  = x if side(x) = 0, else n1
//   second(x) = the half from m to w  = n0 if side(x) = 0, else x
//   mid(x)    = m = to(n1)
//
// An old triangle becomes three corner triangles and the inner one, which
// keeps the face's handle. With x its halfedge whose edge comes last in
// old_edges, y = next(x), z = next(y), corners A = from(x), B = from(y),
// C = from(z), and three new edges e1, e2, e3 whose first halves are
// inner:
//
//   B: first(y) -> e1' -> second(x)    e1 = (mid(x) -> mid(y), e1' back)
//   C: first(z) -> e2' -> second(y)    e2 = (mid(y) -> mid(z), e2' back)
//   A: first(x) -> e3' -> second(z)    e3 = (mid(z) -> mid(x), e3' back)
//   f: e1 -> e2 -> e3
//
// created in the order B, C, A. That is the order, orientation and face
// halfedge() the edit construction gives (insert_vertex on every edge in
// order, then insert_edge three times from halfedge(f), which the last
// split left at first(x)), so both number the new elements alike.
// A boundary halfedge x followed by y becomes
// first(x) -> second(x) -> first(y). Every next, face and out link is
// written once from the old links, so no step walks around a face or a
// vertex (insert_vertex needs prev(), a walk around the face, and both
// edits walk to keep out() on the boundary).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "mesh.hpp"

namespace travpool::mesh {

inline void triangle_mesh::split_into_four(std::span<const Edge> old_edges, std::span<const vec3> points,
                                           std::span<const Face> old_faces) {
  if (points.size() != old_edges.size()) throw std::invalid_argument("split_into_four: one point per edge is required");
  if (old_edges.size() != edge_count() || old_faces.size() != face_count())
    throw std::invalid_argument("split_into_four: old_edges and old_faces must name every edge and face");
  // Every edge and face once: with the counts above, none is missing.
  constexpr std::uint32_t unseen = 0xffff'ffffu;
  std::uint32_t bound = 0;
  for (const Edge e : old_edges) {
    if (!is_live(e)) throw std::invalid_argument("split_into_four: old_edges holds an edge that is not live");
    bound = std::max(bound, e.idx() + 1);
  }
  std::vector<std::uint32_t> rank_of(bound, unseen);  // old edge -> its place in old_edges
  for (std::size_t i = 0; i < old_edges.size(); ++i) {
    std::uint32_t& r = rank_of[old_edges[i].idx()];
    if (r != unseen) throw std::invalid_argument("split_into_four: old_edges names an edge twice");
    r = static_cast<std::uint32_t>(i);
  }
  {
    std::uint32_t face_bound = 0;
    for (const Face f : old_faces) {
      if (!is_live(f)) throw std::invalid_argument("split_into_four: old_faces holds a face that is not live");
      face_bound = std::max(face_bound, f.idx() + 1);
    }
    std::vector<bool> seen(face_bound);
    for (const Face f : old_faces) {
      if (seen[f.idx()]) throw std::invalid_argument("split_into_four: old_faces names a face twice");
      seen[f.idx()] = true;
    }
  }
  std::vector<Edge> split_of(bound);  // old edge -> its new edge n
  std::vector<Edge> inner(3 * old_faces.size());
  std::vector<Face> corner(3 * old_faces.size());
  std::vector<Halfedge> boundary;  // old boundary halfedges
  boundary.reserve(old_edges.size());
  // 1. Every new element, before any old link changes: a throw gives back
  // what was created, newest first (so the pools' free lists are as they
  // were), and the mesh is as it was.
  std::size_t done = 0, inners = 0, corners = 0;
  try {
    for (; done < old_edges.size(); ++done) {
      const Edge e = old_edges[done];
      const Vertex m = add_vertex(points[done]);
      try {
        split_of[e.idx()] = new_edge(m, to(e.halfedge(0)));
      } catch (...) {
        vertices_.destroy(m.idx());
        throw;
      }
      if (!face_of_[e.halfedge(0)].is_valid())
        boundary.push_back(e.halfedge(0));
      else if (!face_of_[e.halfedge(1)].is_valid())
        boundary.push_back(e.halfedge(1));
    }
    for (; inners < inner.size(); ++inners) inner[inners] = Edge(edges_.create());
    for (; corners < corner.size(); ++corners) corner[corners] = Face(faces_.create());
  } catch (...) {
    while (corners != 0) faces_.destroy(corner[--corners].idx());
    while (inners != 0) edges_.destroy(inner[--inners].idx());
    while (done != 0) {
      const Edge n = split_of[old_edges[--done].idx()];
      const Vertex m = to(n.halfedge(1));
      edges_.destroy(n.idx());
      vertices_.destroy(m.idx());
    }
    throw;
  }
  // 2. Every edge: h0 ends at m; out() of b and m.
  for (const Edge e : old_edges) {
    const Halfedge h0 = e.halfedge(0), h1 = e.halfedge(1);
    const Edge n = split_of[e.idx()];
    const Vertex b = to(h0), m = to(n.halfedge(1));
    links_[h0].to = m;
    if (out_[b] == h1) out_[b] = n.halfedge(1);  // its first half now leaves b
    if (!face_of_[h0].is_valid())
      out_[m] = n.halfedge(0);  // the boundary half leaving m
    else if (!face_of_[h1].is_valid())
      out_[m] = h1;
    else
      out_[m] = n.halfedge(0);
  }
  const auto first = [&](Halfedge x) { return x.side() == 0 ? x : split_of[x.idx() >> 1].halfedge(1); };
  const auto second = [&](Halfedge x) { return x.side() == 0 ? split_of[x.idx() >> 1].halfedge(0) : x; };
  // 3. Boundary loops: first(x) -> second(x) -> first(next(x)); next(x) is
  // read before the writes that could change it.
  for (const Halfedge x : boundary) {
    const Halfedge y = next(x);
    const Halfedge sx = second(x);
    link(sx, first(y));
    link(first(x), sx);
  }
  // 4. Every triangle: three corners and the inner triangle.
  const auto rank = [&](Halfedge h) { return rank_of[h.idx() >> 1]; };
  for (std::size_t i = 0; i < old_faces.size(); ++i) {
    const Face f = old_faces[i];
    Halfedge x = half_[f];
    if (rank(next(x)) > rank(x)) x = next(x);
    if (rank(next(next(half_[f]))) > rank(x)) x = next(next(half_[f]));
    const Halfedge y = next(x), z = next(y);
    const Halfedge fx = first(x), fy = first(y), fz = first(z);
    const Halfedge sx = second(x), sy = second(y), sz = second(z);
    const Vertex mx = to(fx), my = to(fy), mz = to(fz);
    const Halfedge e1 = inner[3 * i].halfedge(0), e1b = inner[3 * i].halfedge(1);
    const Halfedge e2 = inner[3 * i + 1].halfedge(0), e2b = inner[3 * i + 1].halfedge(1);
    const Halfedge e3 = inner[3 * i + 2].halfedge(0), e3b = inner[3 * i + 2].halfedge(1);
    const Face fb = corner[3 * i], fc = corner[3 * i + 1], fa = corner[3 * i + 2];
    links_[e1] = {my, e2}, links_[e1b] = {mx, sx};
    links_[e2] = {mz, e3}, links_[e2b] = {my, sy};
    links_[e3] = {mx, e1}, links_[e3b] = {mz, sz};
    link(fy, e1b), link(sx, fy);
    link(fz, e2b), link(sy, fz);
    link(fx, e3b), link(sz, fx);
    face_of_[fy] = face_of_[e1b] = face_of_[sx] = fb;
    face_of_[fz] = face_of_[e2b] = face_of_[sy] = fc;
    face_of_[fx] = face_of_[e3b] = face_of_[sz] = fa;
    face_of_[e1] = face_of_[e2] = face_of_[e3] = f;
    half_[fb] = fy, half_[fc] = fz, half_[fa] = fx, half_[f] = e2;
  }
}

}  // namespace travpool::mesh
