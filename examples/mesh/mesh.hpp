// examples/mesh/mesh.hpp: a halfedge triangle mesh on travpool column pools,
// with stable 32-bit handles and no garbage collection.
//
// DESIGN NOTE
// ===========
// Vertices, edges and faces are each a travpool::column_pool; an element's
// handle is its pool handle (handles.hpp), and a halfedge is 2 * edge + side.
// Every attribute is a column of its pool, addressed as base[h]:
//
//   pool      column            element                      bytes
//   vertices  tp:out            Halfedge  outgoing            4
//             tp:position       vec3                          24
//             tp:normal         vec3 (also smoothing scratch) 24
//   edges     tp:links          {to, next} x 2 halves         16
//             tp:faces          Face x 2 halves               8
//   faces     tp:halfedge       Halfedge                      4
//             tp:normal         vec3                          24
//
// {to, next} is the pair every walk reads, so it is interleaved; the face
// of a halfedge is read by fewer walks and has its own column. Connectivity
// columns are private: users read them through to(), next(), face(), out(),
// halfedge() and views of const elements; properties they add are theirs.
// Handles never move: deleting an element is O(1) in its pool, and a handle
// held by the caller names the same element until that element is deleted.
//
// Invariants (checked by validate()), for every live halfedge h:
//   next(h) live,  from(next(h)) == to(h),  face(next(h)) == face(h)
//   opposite(opposite(h)) == h,  to(h) != from(h)
//   face(h) invalid <=> h is a boundary halfedge
// for every live face f: face(halfedge(f)) == f and next^3(halfedge(f)) == halfedge(f)
// for every live vertex v: out(v) invalid (isolated) or from(out(v)) == v;
//   out(v) is a boundary halfedge whenever v is on the boundary; circulating
//   from out(v) (h -> next(opposite(h))) meets every halfedge that starts at v.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <travpool/column_pool.hpp>

#include "circulators.hpp"
#include "element_range.hpp"
#include "handles.hpp"

namespace travpool::mesh {

// Thrown by triangle_mesh::from_triangles for input that is not a manifold
// triangle mesh; `face_index` is the offending triangle.
class topology_error : public std::runtime_error {
 public:
  topology_error(std::size_t face_index, const std::string& what) : std::runtime_error(what), face_index_(face_index) {}
  std::size_t face_index() const noexcept { return face_index_; }

 private:
  std::size_t face_index_;
};

class triangle_mesh {
 public:
  // Effects: an empty mesh with its columns (nothing committed yet).
  triangle_mesh();
  // Moves are O(1): handles and property keys name the same elements in
  // the destination. A moved-from mesh may only be assigned to or destroyed.
  triangle_mesh(triangle_mesh&&) noexcept = default;
  triangle_mesh& operator=(triangle_mesh&&) noexcept = default;

  // Builds a mesh from a triangle soup. Vertices keep the order of `points`
  // (in traversal order); unreferenced points become isolated vertices.
  // Throws topology_error for an index out of range, a triangle with a
  // repeated vertex, an edge with more than two triangles or with
  // inconsistent orientation, or a non-manifold vertex.
  static triangle_mesh from_triangles(std::span<const vec3> points,
                                      std::span<const std::array<std::uint32_t, 3>> triangles);

  // --- elements (read-only views) ---
  element_range<Vertex> vertices() const noexcept { return element_range<Vertex>(vertices_); }
  element_range<Edge> edges() const noexcept { return element_range<Edge>(edges_); }
  element_range<Face> faces() const noexcept { return element_range<Face>(faces_); }
  std::size_t vertex_count() const noexcept { return vertices_.size(); }
  std::size_t edge_count() const noexcept { return edges_.size(); }
  std::size_t halfedge_count() const noexcept { return 2 * edges_.size(); }
  std::size_t face_count() const noexcept { return faces_.size(); }
  bool is_live(Vertex v) const noexcept { return vertices_.is_live(v.idx()); }
  bool is_live(Edge e) const noexcept { return edges_.is_live(e.idx()); }
  bool is_live(Halfedge h) const noexcept { return h.is_valid() && edges_.is_live(h.idx() >> 1); }
  bool is_live(Face f) const noexcept { return faces_.is_live(f.idx()); }

  // --- connectivity (O(1) unless noted; handles must be live) ---
  Vertex to(Halfedge h) const noexcept { return links_[h].to; }
  Vertex from(Halfedge h) const noexcept { return links_[h.opposite()].to; }
  Halfedge next(Halfedge h) const noexcept { return links_[h].next; }
  // Not stored: two steps forward in a triangle; around from(h) for a
  // boundary halfedge, O(valence).
  Halfedge prev(Halfedge h) const noexcept;
  // The face on h's left; invalid on the boundary.
  Face face(Halfedge h) const noexcept { return face_of_[h]; }
  bool is_boundary(Halfedge h) const noexcept { return !face_of_[h].is_valid(); }
  bool is_boundary(Edge e) const noexcept { return is_boundary(e.halfedge(0)) || is_boundary(e.halfedge(1)); }
  // An outgoing halfedge (a boundary one on the boundary); invalid if isolated.
  Halfedge out(Vertex v) const noexcept { return out_[v]; }
  bool is_isolated(Vertex v) const noexcept { return !out_[v].is_valid(); }
  bool is_boundary(Vertex v) const noexcept { return !is_isolated(v) && is_boundary(out_[v]); }
  Halfedge halfedge(Face f) const noexcept { return half_[f]; }
  // The three corners of a triangle: to(halfedge(f)) first.
  std::array<Vertex, 3> corners(Face f) const noexcept {
    const Halfedge h = half_[f], n = next(h);
    return {to(h), to(n), to(next(n))};
  }
  // The number of edges at v. O(valence).
  std::size_t valence(Vertex v) const noexcept {
    std::size_t n = 0;
    for ([[maybe_unused]] const Halfedge h : out_halfedges(v)) ++n;
    return n;
  }
  // Returns the halfedge from a to b, or an invalid one. O(valence).
  Halfedge find_halfedge(Vertex a, Vertex b) const noexcept;

  // --- geometry (the built-in attribute columns) ---
  vec3& position(Vertex v) noexcept { return position_[v]; }
  const vec3& position(Vertex v) const noexcept { return position_[v]; }
  vec3& normal(Vertex v) noexcept { return vnormal_[v]; }
  const vec3& normal(Vertex v) const noexcept { return vnormal_[v]; }
  vec3& normal(Face f) noexcept { return fnormal_[f]; }
  const vec3& normal(Face f) const noexcept { return fnormal_[f]; }
  // The second position buffer of smoothing and subdivision: the vertex
  // normal's column (moving vertices invalidates normals anyway).
  vec3& scratch(Vertex v) noexcept { return vnormal_[v]; }
  vertex_property<vec3> positions() noexcept { return position_; }
  vertex_property<const vec3> positions() const noexcept { return position_; }

  // --- circulators (valid while the ring is not edited) ---
  // vertices_around(v) and out_halfedges(v) visit the one-ring;
  // faces_around(v) skips the boundary gap; vertices_of(f) and
  // halfedges_of(f) start at halfedge(f).
  template <circulate Kind, bool AroundFace = false>
  using ring = circulator_range<circulator<Kind, AroundFace>>;
  ring<circulate::out_halfedges> out_halfedges(Vertex v) const noexcept { return {{links_, face_of_, out_[v]}}; }
  ring<circulate::vertices> vertices_around(Vertex v) const noexcept { return {{links_, face_of_, out_[v]}}; }
  ring<circulate::faces> faces_around(Vertex v) const noexcept { return {{links_, face_of_, out_[v]}}; }
  ring<circulate::out_halfedges, true> halfedges_of(Face f) const noexcept { return {{links_, face_of_, half_[f]}}; }
  ring<circulate::vertices, true> vertices_of(Face f) const noexcept { return {{links_, face_of_, half_[f]}}; }

  // --- properties (mesh_properties.hpp) ---
  // add_X_property<T>(name, init): a column of T for every element of kind X,
  // init for existing and future ones. Throws usage_error if the name is
  // taken or reserved (the "tp:" prefix). get_X_property<T>(name): its key
  // (read-only on a const mesh); usage_error if none, reserved, or not a T.
  // remove_X_property(p or name): drops the column; its keys are invalid.
#define TRAVPOOL_MESH_PROPERTY_FAMILY(kind, Handle, pool)                                            \
  template <class T>                                                                                 \
  property<Handle, T> add_##kind##_property(std::string name, T init = T{}) {                        \
    return add_property<Handle, T>(pool, std::move(name), std::move(init));                          \
  }                                                                                                  \
  template <class T>                                                                                 \
  property<Handle, T> get_##kind##_property(std::string_view name) {                                 \
    return property<Handle, T>(user_column<property_element<Handle, T>>(pool, name));                \
  }                                                                                                  \
  template <class T>                                                                                 \
  property<Handle, const T> get_##kind##_property(std::string_view name) const {                     \
    return property<Handle, const T>(user_column<const property_element<Handle, T>>(pool, name));    \
  }                                                                                                  \
  bool has_##kind##_property(std::string_view name) const noexcept { return pool.has_column(name); } \
  template <class T>                                                                                 \
  void remove_##kind##_property(property<Handle, T> p) {                                             \
    remove_property(pool, p.column_key());                                                           \
  }                                                                                                  \
  void remove_##kind##_property(std::string_view name) { remove_property(pool, name); }
  TRAVPOOL_MESH_PROPERTY_FAMILY(vertex, Vertex, vertices_)
  TRAVPOOL_MESH_PROPERTY_FAMILY(halfedge, Halfedge, edges_)
  TRAVPOOL_MESH_PROPERTY_FAMILY(edge, Edge, edges_)
  TRAVPOOL_MESH_PROPERTY_FAMILY(face, Face, faces_)
#undef TRAVPOOL_MESH_PROPERTY_FAMILY

  // --- editing (mesh_edit.hpp, mesh_add_delete.hpp) ---
  // An isolated vertex at p. O(1).
  Vertex add_vertex(const vec3& p);
  // The triangle (a, b, c), counter-clockwise. Requires: the three live and
  // distinct, every new face corner joins the existing fans so that the mesh
  // stays manifold (no edge a->b already with a face). Throws
  // topology_error(0, ...) otherwise, with the mesh unchanged.
  // Complexity: O(valence).
  Face add_triangle(Vertex a, Vertex b, Vertex c);
  // Deletes f; edges left without faces and vertices left without edges
  // go with it. Other handles stay valid. O(valence).
  void delete_face(Face f);
  // Deletes the faces beside e, and with them e (and isolated vertices).
  void delete_edge(Edge e);
  // Deletes every face around v, and with them v and its edges.
  void delete_vertex(Vertex v);
  // Splits triangle f = (a, b, c) at a new vertex v at p into three
  // triangles: f keeps (b, c, v), and out(v) = v -> a, so that
  // collapse(out(v)) undoes the split with every handle as it was.
  // Returns v. O(1).
  Vertex split(Face f, const vec3& p);
  // Splits the edge of h at a new vertex at p, and each face beside it
  // into two triangles. Returns the new vertex. O(valence).
  Vertex split(Edge e, const vec3& p);
  // Inserts a new vertex at p on the edge of h, making the faces beside it
  // (temporarily) quadrilaterals whose halfedge() ends at it. Used by Loop
  // subdivision. O(valence).
  Vertex insert_vertex(Halfedge h, const vec3& p);
  // Splits the face of h0 and h1 (same face, not adjacent) by a new edge
  // from to(h0) to to(h1). Returns the new halfedge in h0's face.
  Halfedge insert_edge(Halfedge h0, Halfedge h1);
  // The topology step of Loop subdivision: every edge old_edges[i] gets a
  // new vertex at points[i], and every triangle becomes four (its three
  // corners and the inner triangle, which keeps the face's handle). Old
  // handles stay valid; out() of a boundary vertex stays on the boundary.
  // Throws: std::invalid_argument unless points has one point per edge and
  // old_edges and old_faces name every live edge and face once;
  // std::bad_alloc (or a property's copy constructor's exception). On any
  // throw the mesh is unchanged. Complexity: O(V + E + F), no walk
  // (mesh_split4.hpp).
  void split_into_four(std::span<const Edge> old_edges, std::span<const vec3> points, std::span<const Face> old_faces);
  // The link condition: true iff collapsing h (removing from(h), keeping
  // to(h)) keeps the mesh a manifold without degenerate faces.
  bool is_collapse_ok(Halfedge h) const noexcept;
  // Collapses h: from(h) merges into to(h), the faces beside h vanish.
  // Requires is_collapse_ok(h). O(valence).
  void collapse(Halfedge h);

  // Checks every invariant at the top of this file and that every handle
  // stored in a connectivity column is live.
  // Throws: std::logic_error describing the first violation.
  void validate() const;

  // Effects: deletes every element; keeps the columns.
  void clear() noexcept {
    faces_.clear();
    edges_.clear();
    vertices_.clear();
  }
  // Effects: room for `vertices` vertices, `edges` edges and `faces` faces
  // in all (live ones included), so that adding up to that many takes no
  // new pool bin. Handles unchanged. Throws: std::length_error past a
  // pool's max_slots() (then nothing changed); std::bad_alloc (rooms
  // reserved before stay).
  void reserve(std::size_t vertices, std::size_t edges, std::size_t faces) {
    if (vertices > vertices_.max_slots() || edges > edges_.max_slots() || faces > faces_.max_slots())
      throw std::length_error("travpool::mesh: reserve past the pools' max_slots()");
    vertices_.reserve(vertices);
    edges_.reserve(edges);
    faces_.reserve(faces);
  }
  // Effects: gives back the memory of empty pool bins. Handles unchanged.
  void shrink_to_fit() noexcept {
    faces_.shrink_to_fit();
    edges_.shrink_to_fit();
    vertices_.shrink_to_fit();
  }

 private:
  template <class Handle, class T>
  property<Handle, T> add_property(element_pool& pool, std::string name, T init);
  template <class E>
  static column<E> user_column(const element_pool& pool, std::string_view name);
  template <class E>
  static column<E> user_column(element_pool& pool, std::string_view name);
  template <class E>
  void remove_property(element_pool& pool, column<E> key);
  void remove_property(element_pool& pool, std::string_view name);
  static void check_user_name(std::string_view name);

  Edge new_edge(Vertex a, Vertex b);
  Face new_face(Halfedge h);
  void link(Halfedge h, Halfedge n) noexcept { links_[h].next = n; }
  void adjust_out(Vertex v) noexcept;
  void remove_edge_helper(Halfedge h);
  void remove_loop_helper(Halfedge h);

  element_pool vertices_, edges_, faces_;
  vertex_property<Halfedge> out_;
  vertex_property<vec3> position_, vnormal_;
  halfedge_property<halfedge_link> links_;
  halfedge_property<Face> face_of_;
  face_property<Halfedge> half_;
  face_property<vec3> fnormal_;
};

}  // namespace travpool::mesh

#include "mesh_add_delete.hpp"
#include "mesh_build.hpp"
#include "mesh_edit.hpp"
#include "mesh_properties.hpp"
#include "mesh_split4.hpp"
#include "mesh_validate.hpp"
