// travpool/mesh/mesh.hpp: a halfedge triangle mesh on travpool column pools,
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
// The low-level primitives (set_next, set_to, ...: CGAL's MutableFaceGraph,
// <travpool/mesh/cgal.hpp>) may break any of these between two calls; the
// out() rule is restored by settle(), which the mesh's own operations call
// first (section "Low-level connectivity").
//
//   column "tp:prev" (edges, Halfedge x 2): made by the first set_next(),
//   read by prev_linked() while fresh, i.e. since the first set_next()
//   after the mesh's last operation of its own
//
// Concurrency. The pools are sync::bin_locks column pools (element_pool):
// create, destroy and is_live are thread-safe, and distinct handles are
// distinct memory. Outside a parallel phase they run exclusively
// (column_pool::set_exclusive: no bin lock, thread state or bias is read,
// so one thread's edits cost what sync::none's would); a parallel phase
// (detail/parallel_edit.hpp's edit_session) switches them to the bin
// locks' protocol with set_concurrent(true), and back, on a quiescent mesh.
// Within a phase, on a settled mesh (settle() done; no low-level primitive
// called), split(Face), split(Edge), insert_vertex, insert_edge,
// is_collapse_ok and collapse write no mesh-wide state: settle() only
// reads relaxed_out_ and prev_fresh_ (both false), and none of them calls
// touch() or set_next(). Each reads and writes only
//   - the links, faces and out() of the halfedges, faces and vertices of
//     the faces at its vertices (split of a face (a, b, c): those of the
//     face; split of an edge (a, b): the faces beside it, their corners
//     c, d, the rings of a and b (prev() and adjust_out walk them);
//     collapse a->b: the rings of a and b and the faces at them),
//   - new elements (pool creates) and the ones it deletes (destroys),
// so two of them run at once on different threads when their lock sets
// are disjoint, with the lock sets of detail/parallel_edit.hpp: {a, b, c}
// for split(Face), {a, b, c, d} for split(Edge) (and insert_vertex plus
// insert_edge as it uses them), the closed one-rings of a and b for
// collapse a->b and is_collapse_ok (find_halfedge reads the rings of a's
// neighbours). A face or edge these write has a locked vertex at each
// end, so no other operation reads it. Property rules (set_rule) only
// read the rule table and write the values of elements the edit writes. add_triangle, delete_face and
// friends, split_into_four, loop_subdivide, settle(), validate(), the
// low-level primitives and everything that adds or removes columns need a
// quiescent mesh.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <travpool/column_pool.hpp>
#include <travpool/usage_error.hpp>

#include "circulators.hpp"
#include "detail/property_rules.hpp"
#include "element_range.hpp"
#include "handles.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// Thrown by triangle_mesh::from_triangles for input that is not a manifold
// triangle mesh; `face_index` is the offending triangle.
class topology_error : public std::runtime_error {
 public:
  topology_error(std::size_t face_index, const std::string& what) : std::runtime_error(what), face_index_(face_index) {}
  std::size_t face_index() const noexcept { return face_index_; }

 private:
  std::size_t face_index_;
};

namespace detail {
struct mesh_internals;  // detail/parallel_edit.hpp: private columns, set_concurrent
}  // namespace detail

// A handle and the generation of its slot when it was taken
// (triangle_mesh::versioned): it names that element's life, not its slot,
// so a use after the element was deleted and the slot reused is caught.
template <class Handle>
struct versioned {
  Handle handle;
  std::uint32_t generation = 0;
};

// The weights split_into_four gives property rules (set_rule) for the
// vertices: linear, by each new point's place on its edge; or Loop's
// masks (loop_subdivide), for the new and the old vertices.
enum class subdivision_masks : std::uint8_t { linear, loop };

class triangle_mesh {
  friend struct detail::mesh_internals;

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
  // Returns: a bound above the index of every live element of kind Handle
  // (h.idx() < handle_bound<Handle>()), the size of an array indexed by
  // handle; a halfedge's index is 2 * edge + side. O(1).
  template <class Handle>
  std::size_t handle_bound() const noexcept {
    if constexpr (std::is_same_v<Handle, Vertex>)
      return static_cast<std::size_t>(vertices_.handle_bound());
    else if constexpr (std::is_same_v<Handle, Halfedge>)
      return 2 * static_cast<std::size_t>(edges_.handle_bound());
    else if constexpr (std::is_same_v<Handle, Edge>)
      return static_cast<std::size_t>(edges_.handle_bound());
    else
      return static_cast<std::size_t>(faces_.handle_bound());
  }
  bool is_live(Vertex v) const noexcept { return vertices_.is_live(v); }
  bool is_live(Edge e) const noexcept { return edges_.is_live(e); }
  bool is_live(Halfedge h) const noexcept { return h.is_valid() && edges_.is_live(h.edge()); }
  bool is_live(Face f) const noexcept { return faces_.is_live(f); }

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
  // An outgoing halfedge (a boundary one on the boundary, except after
  // low-level edits: below); invalid if isolated.
  Halfedge out(Vertex v) const noexcept { return out_[v]; }
  bool is_isolated(Vertex v) const noexcept { return !out_[v].is_valid(); }
  // O(1); O(valence) after low-level edits, until settle().
  bool is_boundary(Vertex v) const noexcept {
    const Halfedge o = out_[v];
    if (!o.is_valid()) return false;
    if (is_boundary(o)) return true;
    return relaxed_out_ && fan_has_boundary(v);
  }
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
  // The normals' columns as properties (for set_rule).
  vertex_property<vec3> vertex_normals() noexcept { return vnormal_; }
  vertex_property<const vec3> vertex_normals() const noexcept { return vnormal_; }
  face_property<vec3> face_normals() noexcept { return fnormal_; }
  face_property<const vec3> face_normals() const noexcept { return fnormal_; }

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

  // --- properties (section "Construction and properties" below) ---
  // Handle is Vertex, Halfedge, Edge or Face: the kind of element the
  // property is of (a halfedge property lives in the edges' pool, both
  // halves in one element). Names starting with "tp:" are reserved.

  // Effects: adds a column of T for every element of kind Handle: init in
  // existing and future ones. Returns: its key.
  // Throws: usage_error if the name is taken or reserved.
  template <class Handle, class T>
  property<Handle, T> add_property(std::string name, T init = T{}) {
    return add_user_column<Handle, T>(pool_of<Handle>(), std::move(name), std::move(init));
  }
  // Returns: the key of the property of kind Handle named `name`, read-only
  // on a const mesh. Throws: usage_error if none, reserved, or not a T.
  template <class Handle, class T>
  property<Handle, T> get_property(std::string_view name) {
    return property<Handle, T>(user_column<property_element<Handle, T>>(pool_of<Handle>(), name));
  }
  template <class Handle, class T>
  property<Handle, const T> get_property(std::string_view name) const {
    return property<Handle, const T>(user_column<const property_element<Handle, T>>(pool_of<Handle>(), name));
  }
  // Returns: get_property<Handle, T>(name) if it exists, else
  // add_property<Handle, T>(name, init). Throws: as those.
  template <class Handle, class T>
  property<Handle, T> get_or_add_property(std::string name, T init = T{}) {
    if (has_property<Handle>(name)) return get_property<Handle, T>(name);
    return add_property<Handle, T>(std::move(name), std::move(init));
  }
  template <class Handle>
  bool has_property(std::string_view name) const noexcept {
    return pool_of<Handle>().has_column(name);
  }
  // Effects: drops the property's column; its keys become invalid.
  // Throws: usage_error for one of the mesh's own columns (or name).
  template <class Handle, class T>
  void remove_property(property<Handle, T> p) {
    remove_user_column(pool_of<Handle>(), p.column_key());
  }
  template <class Handle>
  void remove_property(std::string_view name) {
    remove_user_column(pool_of<Handle>(), name);
  }

  // --- property rules (section "Property rules" below; docs/mesh.md
  // "Property rules" lists each edit's sources and weights) ---
  // Effects: from now on the edits split(Face), split(Edge),
  // split_into_four (and loop_subdivide), collapse and flip write p's
  // value of every element they create or merge by `how` (follow::none:
  // they write nothing, as without a rule). Replaces p's earlier rule.
  // p may be a user property or vertex_normals() / face_normals() (their
  // interpolated and averaged values are normalised); positions follow
  // the points the edits are given. Requires a quiescent mesh.
  // Throws: usage_error (nothing changed) if p is null or one of the
  // mesh's other own columns, or if `how` is interpolate or average and T
  // is neither arithmetic nor has T + T and T * double; std::bad_alloc.
  template <class Handle, class T>
  void set_rule(property<Handle, T> p, follow how);
  // Effects: as above, with f computing each written value (called from
  // the thread of the edit: parallel decimate() calls it concurrently for
  // disjoint elements). Throws: usage_error if p is null or one of the
  // mesh's own columns, or f is empty; std::bad_alloc.
  template <class Handle, class T>
  void set_rule(property<Handle, T> p, follow_function<Handle, T> f);
  // Whether some property has a rule other than follow::none. O(1).
  bool has_rules() const noexcept { return static_cast<bool>(rules_); }
  // Effects: writes the values collapse(h, p) writes by the rules, and
  // changes nothing else: for a collapse made by other code that keeps
  // to(h) as collapse(h) does, called just before it (CGAL's
  // Euler::collapse_edge(e) keeps target(halfedge(e)): an edge_collapse
  // visitor's OnCollapsing, docs/mesh.md "Property rules"). Nothing
  // without rules. Requires a valid triangle mesh (out() may be off the
  // boundary) and is_collapse_ok(h). Throws: what a rule throws. O(valence).
  void apply_collapse_rules(Halfedge h, const vec3& p) {
    if (rules_) [[unlikely]]
      follow_collapse(h, p);
  }

  // --- editing (sections "Element primitives and local edits" and
  // "Adding and deleting triangles" below) ---
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
  Vertex split(Face f, const vec3& p) {
    settle();
    const Vertex v = split_links(f, p);
    if (rules_) [[unlikely]]
      follow_split(f, v, p);
    return v;
  }
  // split(f, the centroid of f).
  Vertex split(Face f) {
    const auto c = corners(f);
    return split(f, (position_[c[0]] + position_[c[1]] + position_[c[2]]) * (1.0 / 3.0));
  }
  // Splits the edge of h at a new vertex at p, and each face beside it
  // into two triangles. Returns the new vertex. O(valence).
  Vertex split(Edge e, const vec3& p) {
    settle();
    const Vertex v = split_links(e, p);
    if (rules_) [[unlikely]]
      follow_split(e, v, p);
    return v;
  }
  // split(e, the midpoint of e).
  Vertex split(Edge e) { return split(e, (position_[to(e.halfedge(0))] + position_[to(e.halfedge(1))]) * 0.5); }
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
  // (section "Splitting every triangle into four" below).
  // Property rules (set_rule) weigh a new vertex by its point's place on
  // its edge (subdivision_masks::linear), or by Loop's masks, as
  // loop_subdivide does (subdivision_masks::loop: old vertices too).
  // The rules run after the split: an exception of one leaves the mesh
  // split and valid, with the values the rules before it wrote.
  void split_into_four(std::span<const Edge> old_edges, std::span<const vec3> points, std::span<const Face> old_faces,
                       subdivision_masks masks = subdivision_masks::linear);
  // The link condition: true iff collapsing h (removing from(h), keeping
  // to(h)) keeps the mesh a manifold without degenerate faces.
  bool is_collapse_ok(Halfedge h) const noexcept;
  // Collapses h: from(h) merges into to(h), the faces beside h vanish.
  // Requires is_collapse_ok(h). O(valence).
  void collapse(Halfedge h) {
    settle();
    if (rules_) [[unlikely]]
      follow_collapse(h, position_[to(h)]);
    collapse_links(h);
  }
  // collapse(h), and to(h) moves to p (rules weigh from(h) and to(h) by
  // p's place on the edge).
  void collapse(Halfedge h, const vec3& p) {
    settle();
    const Vertex b = to(h);
    if (rules_) [[unlikely]]
      follow_collapse(h, p);
    collapse_links(h);
    position_[b] = p;
  }
  // True iff e can be flipped: an interior edge whose two faces are
  // triangles (a, b, c) and (b, a, d) with c != d and no edge c-d yet.
  // Geometry is not looked at. O(valence).
  bool is_flip_ok(Edge e) const noexcept;
  // Flips e = a-b between (a, b, c) and (b, a, d) into c-d, between
  // (d, c, a) and (c, d, b). Requires is_flip_ok(e). Every handle stays
  // valid: e keeps its handle (halfedge(0) of e: from d to c, when
  // halfedge(0) ran from a to b), each face keeps one of its old sides
  // (the face of halfedge(0) keeps c-a, the other keeps b-c). O(1).
  void flip(Edge e);

  // --- low-level connectivity (section "Low-level connectivity" below) ---
  // The primitives of a halfedge data structure, as CGAL's MutableFaceGraph
  // (<travpool/mesh/cgal.hpp> maps it onto these). Each writes one link
  // and checks nothing: between calls the mesh may break its invariants,
  // and a face may have any number of sides. The operations above require
  // a valid triangle mesh again (they call settle() first). Handles must
  // be live.

  // A new element with no links (a vertex at the origin, isolated; an
  // edge whose halves have no target, next or face; a face with no
  // halfedge). Throws: std::bad_alloc. O(1).
  Vertex new_vertex() { return add_vertex(vec3{}); }
  Edge new_edge() { return Edge(edges_.create()); }
  Face new_face() { return Face(faces_.create()); }
  // Deletes the element alone; links to it are the caller's to change.
  void remove(Vertex v) { vertices_.destroy(v); }
  void remove(Edge e) { edges_.destroy(e); }
  void remove(Face f) { faces_.destroy(f); }
  // next(h) = n; then prev_linked(n) == h.
  void set_next(Halfedge h, Halfedge n);
  // to(h) = v.
  void set_to(Halfedge h, Vertex v) {
    touch(links_[h].to);
    touch(v);
    links_[h].to = v;
  }
  // face(h) = f (invalid: h becomes a boundary halfedge).
  void set_face(Halfedge h, Face f) {
    touch(links_[h.opposite()].to);
    face_of_[h] = f;
  }
  // halfedge(f) = h.
  void set_halfedge(Face f, Halfedge h) noexcept { half_[f] = h; }
  // out(v) = h (h starts at v; invalid: v is isolated).
  void set_out(Vertex v, Halfedge h) {
    touch(v);
    out_[v] = h;
  }
  // prev(h), O(1) from links kept since the first set_next() after the
  // last edit above; prev(h) otherwise (the mesh is valid then).
  Halfedge prev_linked(Halfedge h) const noexcept { return prev_fresh_ ? prev_[h] : prev(h); }
  // Requires: a valid mesh again. Effects: puts out() back on the boundary
  // for every vertex the primitives above touched, so that is_boundary(v)
  // is O(1) and validate() checks that rule again. Every edit above this
  // section, loop_subdivide and smooth do it first. O(touched x valence),
  // at most O(E); O(1) when nothing was touched.
  void settle() noexcept {
    if (relaxed_out_ || prev_fresh_) [[unlikely]]
      settle_links();
  }

  // --- generation-checked handles (opt-in) ---
  // A pool slot is reused after its element is deleted (LIFO), so a stale
  // handle may name a newer element and is_live() says true. With
  // generations on, each pool has a column tp:generation counting the
  // destroys of every slot (column_pool::add_generation_column), and a
  // versioned<H> {h, generation} names one element's life:
  //   is_current(vh)  <=>  is_live(h) and generation(h) == vh.generation
  // (equal counts after 2^32 lives of one slot, or after shrink_to_fit gave
  // the slot's block back, would pass: counts are 32-bit, and a block given
  // back starts at 0 again). Cost: none while off; on, a create calls one
  // more (empty) column constructor and a destroy adds 1 to a count.

  // Requires: a quiescent mesh. Effects: turns generations on (once; later
  // calls do nothing). Throws: std::bad_alloc (then they stay off).
  void enable_generations();
  bool has_generations() const noexcept { return static_cast<bool>(vgen_); }
  // Returns: {h, its slot's generation}. Throws: usage_error if generations
  // are off or h is not live. H: Vertex, Halfedge, Edge or Face.
  template <class H>
  versioned<H> versioned_handle(H h) const {
    if (!has_generations()) throw usage_error("triangle_mesh: versioned_handle needs enable_generations()");
    if (!is_live(h)) throw usage_error("triangle_mesh: versioned_handle of a handle that is not live");
    return {h, generation(h)};
  }
  // Returns: whether vh's element still lives (false if generations are off).
  // Thread-safety: a column read (not while another thread deletes it).
  template <class H>
  bool is_current(versioned<H> vh) const noexcept {
    return has_generations() && is_live(vh.handle) && generation(vh.handle) == vh.generation;
  }
  // Returns: vh.handle. Throws: usage_error if !is_current(vh) (a stale
  // handle: its element was deleted, whether or not the slot was reused).
  template <class H>
  H resolve(versioned<H> vh) const {
    if (!is_current(vh)) throw usage_error("triangle_mesh: a stale handle (its element was deleted)");
    return vh.handle;
  }

  // Checks every invariant at the top of this file and that every handle
  // stored in a connectivity column is live.
  // Throws: std::logic_error describing the first violation.
  void validate() const;

  // Effects: deletes every element; keeps the columns.
  void clear() noexcept {
    touched_.clear();
    relaxed_out_ = touched_all_ = prev_fresh_ = false;
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
  // prev() past a triangle's two steps: the walk, out of line.
  TRAVPOOL_NOINLINE Halfedge prev_walk(Halfedge h) const noexcept {
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
  // The pool that holds the elements of kind Handle (edges_ for halfedges).
  template <class Handle>
  element_pool<pool_handle_t<Handle>>& pool_of() noexcept {
    static_assert(std::is_same_v<Handle, Vertex> || std::is_same_v<Handle, Halfedge> || std::is_same_v<Handle, Edge> ||
                      std::is_same_v<Handle, Face>,
                  "triangle_mesh: a property is of Vertex, Halfedge, Edge or Face");
    if constexpr (std::is_same_v<Handle, Vertex>)
      return vertices_;
    else if constexpr (std::is_same_v<Handle, Face>)
      return faces_;
    else
      return edges_;
  }
  template <class Handle>
  const element_pool<pool_handle_t<Handle>>& pool_of() const noexcept {
    return const_cast<triangle_mesh*>(this)->pool_of<Handle>();
  }
  template <class Handle, class T, class Pool>
  property<Handle, T> add_user_column(Pool& pool, std::string name, T init);
  template <class E, class Pool>
  static auto user_column(Pool& pool, std::string_view name);
  template <class E, class H>
  void remove_user_column(element_pool<H>& pool, column<E, H> key);
  template <class H>
  void remove_user_column(element_pool<H>& pool, std::string_view name);
  static void check_user_name(std::string_view name);

  Edge new_edge(Vertex a, Vertex b);
  Face new_face(Halfedge h);
  void link(Halfedge h, Halfedge n) noexcept { links_[h].next = n; }
  void adjust_out(Vertex v) noexcept;
  void remove_edge_helper(Halfedge h);
  void remove_loop_helper(Halfedge h);
  void collapse_links(Halfedge h);
  Vertex split_links(Face f, const vec3& p);
  Vertex split_links(Edge e, const vec3& p);
  // The rules' side of each edit (section "Property rules"): cold, called
  // only while rules_ is set.
  template <class Handle, class T>
  bool rule_key_ok(property<Handle, T> p) const noexcept;
  void install_rule(int kind, const void* id, detail::rule_apply apply,
                    bool (*named)(const void*, std::string_view, const void*));
  template <class Handle, class T>
  static bool rule_named(const void* mesh, std::string_view name, const void* id) noexcept {
    const auto& m = *static_cast<const triangle_mesh*>(mesh);
    if (!m.has_property<Handle>(name)) return false;
    try {
      return m.get_property<Handle, T>(name).column_key().id() == id;
    } catch (...) {
      return false;  // a column of another type
    }
  }
  void drop_rule(const void* id) noexcept;
  template <class Batch>
  void apply_rules(int kind, const Batch& b) const;
  [[gnu::cold, gnu::noinline]] inline void follow_split(Face f, Vertex v, const vec3& p);
  [[gnu::cold, gnu::noinline]] inline void follow_split(Edge e, Vertex v, const vec3& p);
  [[gnu::cold, gnu::noinline]] inline void follow_collapse(Halfedge h, const vec3& p);
  [[gnu::cold, gnu::noinline]] inline void follow_flip(Edge e);
  template <bool Rules>
  void split_into_four_impl(std::span<const Edge> old_edges, std::span<const vec3> points,
                            std::span<const Face> old_faces, subdivision_masks masks);
  [[gnu::cold, gnu::noinline]] inline std::unique_ptr<detail::four_split_plan> plan_split_into_four(
      std::span<const Edge> old_edges, std::span<const vec3> points, std::span<const Face> old_faces,
      subdivision_masks masks, const std::vector<std::uint32_t>& rank_of) const;
  // split_into_four's first side of old face f: its halfedge whose edge
  // comes last in old_edges (rank_of: old edge -> its place there).
  [[gnu::always_inline]] Halfedge last_ranked(Face f, const std::vector<std::uint32_t>& rank_of) const noexcept {
    const auto rank = [&](Halfedge h) { return rank_of[h.idx() >> 1]; };
    Halfedge x = half_[f];
    if (rank(next(x)) > rank(x)) x = next(x);
    if (rank(next(next(half_[f]))) > rank(x)) x = next(next(half_[f]));
    return x;
  }
  [[gnu::cold, gnu::noinline]] inline void follow_split_into_four(const detail::four_split_plan& plan,
                                                                  const std::vector<Edge>& split_of,
                                                                  const std::vector<Edge>& inner,
                                                                  const std::vector<Face>& corner);
  // Records v for settle(); past vertex_count() records, settle() visits
  // every vertex instead (so touched_ stays O(V)).
  void touch(Vertex v) {
    relaxed_out_ = true;
    if (v.is_valid() && !touched_all_) {
      if (touched_.size() < vertices_.size())
        touched_.push_back(v);
      else
        touched_all_ = true;
    }
  }
  Halfedge boundary_out(Vertex v) const noexcept;
  bool fan_has_boundary(Vertex v) const noexcept { return boundary_out(v).is_valid(); }
  void settle_links() noexcept;
  // Requires: a quiescent mesh. Effects: on: the pools take creates and
  // destroys from several threads at once (sync::bin_locks); off (from
  // construction on): from one thread at a time, without the bin locks'
  // bookkeeping (column_pool::set_exclusive).
  void set_concurrent(bool on) noexcept {
    vertices_.set_exclusive(!on);
    edges_.set_exclusive(!on);
    faces_.set_exclusive(!on);
  }

  std::uint32_t generation(Vertex v) const noexcept { return vgen_[v]; }
  std::uint32_t generation(Edge e) const noexcept { return egen_[e]; }
  std::uint32_t generation(Halfedge h) const noexcept { return egen_[h.edge()]; }
  std::uint32_t generation(Face f) const noexcept { return fgen_[f]; }

  element_pool<Vertex> vertices_;
  element_pool<Edge> edges_;
  element_pool<Face> faces_;
  // tp:generation of each pool while generations are on (else null keys).
  column<const std::uint32_t, Vertex> vgen_;
  column<const std::uint32_t, Edge> egen_;
  column<const std::uint32_t, Face> fgen_;
  vertex_property<Halfedge> out_;
  vertex_property<vec3> position_, vnormal_;
  halfedge_property<halfedge_link> links_;
  halfedge_property<Face> face_of_;
  face_property<Halfedge> half_;
  face_property<vec3> fnormal_;
  // Low-level edits: vertices whose out() may have left the boundary
  // (settle() puts it back), and prev links, kept while prev_fresh_.
  std::vector<Vertex> touched_;
  halfedge_property<Halfedge> prev_;
  bool relaxed_out_ = false;  // a primitive touched a vertex since settle()
  bool touched_all_ = false;  // ... more than touched_ holds
  bool prev_fresh_ = false;
  // The property rules; null while none is set (every edit tests it once).
  std::unique_ptr<detail::rule_table> rules_;
};

// =========================================================================
// The members of triangle_mesh defined outside the class, by concern.
// =========================================================================

// -------------------------------------------------------------------------
// Construction and properties
// -------------------------------------------------------------------------
// The mesh's constructor and its typed properties, thin wrappers over the
// column pools' columns.
//
// Column names starting with "tp:" are the mesh's own (connectivity and
// geometry): a user name may not start with it, so a user can neither get
// a writable key of a connectivity column nor remove one.

inline triangle_mesh::triangle_mesh()
    : out_(vertices_.add_column<Halfedge>("tp:out")),
      position_(vertices_.add_column<vec3>("tp:position")),
      vnormal_(vertices_.add_column<vec3>("tp:normal")),
      links_(edges_.add_column<std::array<halfedge_link, 2>>("tp:links")),
      face_of_(edges_.add_column<std::array<Face, 2>>("tp:faces")),
      half_(faces_.add_column<Halfedge>("tp:halfedge")),
      fnormal_(faces_.add_column<vec3>("tp:normal")) {
  set_concurrent(false);
}

inline void triangle_mesh::enable_generations() {
  if (has_generations()) return;
  const auto v = vertices_.add_generation_column("tp:generation");
  try {
    const auto e = edges_.add_generation_column("tp:generation");
    try {
      fgen_ = faces_.add_generation_column("tp:generation");
    } catch (...) {
      edges_.remove_column(e);
      throw;
    }
    egen_ = e;
  } catch (...) {
    vertices_.remove_column(v);
    throw;
  }
  vgen_ = v;
}

inline void triangle_mesh::check_user_name(std::string_view name) {
  if (name.starts_with("tp:"))
    throw usage_error("triangle_mesh: property name '" + std::string(name) + "' is reserved (prefix tp:)");
}

template <class Handle, class T, class Pool>
property<Handle, T> triangle_mesh::add_user_column(Pool& pool, std::string name, T init) {
  check_user_name(name);
  if constexpr (std::is_same_v<Handle, Halfedge>)
    return property<Handle, T>(pool.template add_column<std::array<T, 2>>(std::move(name), {init, init}));
  else
    return property<Handle, T>(pool.template add_column<T>(std::move(name), std::move(init)));
}

// Returns: the key of pool's column of E named `name` (E const: from a
// const pool, read-only).
template <class E, class Pool>
auto triangle_mesh::user_column(Pool& pool, std::string_view name) {
  check_user_name(name);
  return pool.template get_column<std::remove_const_t<E>>(name);
}

template <class E, class H>
void triangle_mesh::remove_user_column(element_pool<H>& pool, column<E, H> key) {
  const void* id = key.id();
  if (id == out_.column_key().id() || id == position_.column_key().id() || id == vnormal_.column_key().id() ||
      id == links_.column_key().id() || id == face_of_.column_key().id() || id == half_.column_key().id() ||
      id == fnormal_.column_key().id() || (prev_ && id == prev_.column_key().id()))
    throw usage_error("triangle_mesh: remove of one of the mesh's own columns");
  pool.remove_column(key);
  drop_rule(id);
}

template <class H>
void triangle_mesh::remove_user_column(element_pool<H>& pool, std::string_view name) {
  check_user_name(name);
  const void* id = nullptr;
  if (rules_)
    for (const auto& list : rules_->by_kind)
      for (const detail::rule_entry& r : list)
        if (r.named(this, name, r.id)) id = r.id;
  pool.remove_column(name);
  drop_rule(id);
}

// -------------------------------------------------------------------------
// Element primitives and local edits
// -------------------------------------------------------------------------
// The element primitives and the local edits: splitting and collapsing
// (adding triangles and deleting: the next section).
//
// Every operation keeps the invariants of the design note above. A new element is a
// pool create (its columns hold their initial values: invalid handles, zero
// vectors); a deleted one is a pool destroy. No other element's handle
// changes, so there is never a garbage collection. prev() is not stored:
// an operation that needs it on a boundary halfedge walks around from(h),
// O(valence).

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
  // Inside, a triangle's prev is two next steps away (inlined); anything
  // else walks. On the boundary the walk stays around from(h): two next
  // steps along a boundary loop would read links two vertices away, which
  // a parallel edit holding from(h) and to(h) has not locked.
  const Halfedge a = next(h);
  if (!is_boundary(h) && a.is_valid()) [[likely]] {
    const Halfedge b = next(a);
    if (b == h) return a;
    if (b.is_valid() && next(b) == h) [[likely]]
      return b;
  }
  return prev_walk(h);
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

inline Vertex triangle_mesh::split_links(Face f, const vec3& p) {
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

inline Vertex triangle_mesh::split_links(Edge e, const vec3& p) {
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
  settle();
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
  settle();
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

inline void triangle_mesh::collapse_links(Halfedge h0) {
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
  vertices_.destroy(vo);
  edges_.destroy(h.edge());
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
  if (fh.is_valid()) faces_.destroy(fh);
  edges_.destroy(h0.edge());
}

inline bool triangle_mesh::is_flip_ok(Edge e) const noexcept {
  const Halfedge h = e.halfedge(0), o = e.halfedge(1);
  if (is_boundary(h) || is_boundary(o)) return false;
  const Halfedge hn = next(h), on = next(o);
  if (next(next(hn)) != h || next(next(on)) != o) return false;  // triangles
  const Vertex c = to(hn), d = to(on);
  if (c == d) return false;
  return !find_halfedge(c, d).is_valid();
}

// Before: h: a -> b, hn: b -> c, hp: c -> a (face fh);
//         o: b -> a, on: a -> d, op: d -> b (face fo).
// After:  h: d -> c, hp: c -> a, on: a -> d (face fh);
//         o: c -> d, op: d -> b, hn: b -> c (face fo).
// Only a and b lose an outgoing halfedge (h and o): their out() moves to
// the halfedge that follows in their fan, which is interior like h and o,
// so a boundary out() is never changed.
inline void triangle_mesh::flip(Edge e) {
  settle();
  if (rules_) [[unlikely]]
    follow_flip(e);
  const Halfedge h = e.halfedge(0), o = e.halfedge(1);
  const Halfedge hn = next(h), hp = next(hn);
  const Halfedge on = next(o), op = next(on);
  const Face fh = face_of_[h], fo = face_of_[o];
  const Vertex a = to(o), b = to(h), c = to(hn), d = to(on);
  links_[h] = {c, hp};
  links_[hp].next = on;
  links_[on].next = h;
  links_[o] = {d, op};
  links_[op].next = hn;
  links_[hn].next = o;
  face_of_[on] = fh;
  face_of_[hn] = fo;
  half_[fh] = h;
  half_[fo] = o;
  if (out_[a] == h) out_[a] = on;
  if (out_[b] == o) out_[b] = hn;
}

// -------------------------------------------------------------------------
// Low-level connectivity
// -------------------------------------------------------------------------
// The BGL primitives (set_next, set_to, set_face, set_out, ...) and how the
// mesh's own operations take over after them.
//
// Two facts the mesh keeps for its operations do not survive single-link
// writes, so the primitives record what they would need and settle() puts
// it right at the start of the next operation of the sections around this
// one (every one that changes links):
//
//   touched_     vertices whose out() may no longer be their boundary
//                halfedge (set_to, set_face, set_out); settle() searches
//                their fans again: O(touched x valence), or every fan once
//                touched_ would pass V entries. Until then is_boundary(v)
//                walks v's fan, and validate() skips that rule.
//   prev_        prev links, a column made by the first set_next() and
//                rebuilt from next links (O(E)) by the first set_next()
//                after an operation: prev(h) walks next links, which is
//                right while they are the permutation of a valid mesh but
//                not between two set_next() calls of one edit.

inline void triangle_mesh::set_next(Halfedge h, Halfedge n) {
  if (!prev_fresh_) {
    if (!prev_) prev_ = halfedge_property<Halfedge>(edges_.add_column<std::array<Halfedge, 2>>("tp:prev"));
    for (const Edge e : edges())
      for (unsigned s = 0; s < 2; ++s)
        if (const Halfedge x = e.halfedge(s), y = next(x); is_live(y)) prev_[y] = x;
    prev_fresh_ = true;
  }
  links_[h].next = n;
  if (n.is_valid()) prev_[n] = h;
}

// Returns: a boundary halfedge leaving v, or an invalid one. A bounded
// walk of v's fan that stops at a dead link: a misuse of the primitives
// must not loop forever.
inline Halfedge triangle_mesh::boundary_out(Vertex v) const noexcept {
  const Halfedge start = out_[v];
  if (!is_live(start) || from(start) != v) return {};
  Halfedge h = start;
  for (std::size_t i = 0, limit = halfedge_count(); i <= limit; ++i) {
    if (is_boundary(h)) return h;
    h = next(h.opposite());
    if (h == start || !is_live(h)) break;
  }
  return {};
}

inline void triangle_mesh::settle_links() noexcept {
  prev_fresh_ = false;
  if (!relaxed_out_) return;
  auto put_back = [&](Vertex v) {
    if (!is_live(v)) return;
    if (const Halfedge b = boundary_out(v); b.is_valid()) out_[v] = b;
  };
  if (touched_all_)
    for (const Vertex v : vertices()) put_back(v);
  else
    for (const Vertex v : touched_) put_back(v);
  touched_.clear();
  relaxed_out_ = touched_all_ = false;
}

// -------------------------------------------------------------------------
// Adding and deleting triangles
// -------------------------------------------------------------------------
// add_triangle and delete_face, _edge, _vertex, as PMP's add_face and
// delete_face (after OpenMesh), for triangles and without a stored prev.
//
// Invariant kept by both: next is a permutation of the live halfedges with
// from(next(h)) == to(h), so the rotation h -> next(opposite(h)) around a
// vertex is a permutation of its outgoing halfedges, and prev(h) (a walk
// of that rotation) is defined at every step of an edit.

inline Face triangle_mesh::add_triangle(Vertex a, Vertex b, Vertex c) {
  settle();
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
  settle();
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
  faces_.destroy(f);
  for (int i = 0; i < n_dead; ++i) {
    const Halfedge a = dead_edges[i].halfedge(0), b = dead_edges[i].halfedge(1);
    const Vertex va = to(a), vb = to(b);
    const Halfedge next_a = next(a), prev_a = prev(a), next_b = next(b), prev_b = prev(b);
    link(prev_a, next_b);
    link(prev_b, next_a);
    edges_.destroy(dead_edges[i]);
    if (out_[va] == b) {
      if (next_a == b)
        vertices_.destroy(va);
      else
        out_[va] = next_a;
    }
    if (out_[vb] == a) {
      if (next_b == a)
        vertices_.destroy(vb);
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
  if (is_live(v)) vertices_.destroy(v);
}

// -------------------------------------------------------------------------
// Building from a triangle list
// -------------------------------------------------------------------------
// from_triangles.
//
// The outgoing corners of every vertex are bucketed in CSR form
// (slot 3f + c runs from triangles[f][c] to triangles[f][(c + 1) % 3]), so
// each corner finds its twin among the corners leaving its target:
// O(V + F * valence), no hash table.

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

// -------------------------------------------------------------------------
// Splitting every triangle into four
// -------------------------------------------------------------------------
// split_into_four, the topology step of Loop subdivision, written directly
// rather than as E insert_vertex and 3F insert_edge calls.
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

inline void triangle_mesh::split_into_four(std::span<const Edge> old_edges, std::span<const vec3> points,
                                           std::span<const Face> old_faces, subdivision_masks masks) {
  // Two copies: the one without rules has no line of theirs.
  if (rules_) [[unlikely]]
    split_into_four_impl<true>(old_edges, points, old_faces, masks);
  else
    split_into_four_impl<false>(old_edges, points, old_faces, masks);
}

template <bool Rules>
void triangle_mesh::split_into_four_impl(std::span<const Edge> old_edges, std::span<const vec3> points,
                                         std::span<const Face> old_faces, subdivision_masks masks) {
  settle();
  if (points.size() != old_edges.size()) throw std::invalid_argument("split_into_four: one point per edge is required");
  if (old_edges.size() != edge_count() || old_faces.size() != face_count())
    throw std::invalid_argument("split_into_four: old_edges and old_faces must name every edge and face");
  // Every edge and face once: with the counts above, none is missing.
  constexpr std::uint32_t unseen = 0xffff'ffffu;
  std::uint32_t bound = 0;
  for (const Edge e : old_edges) {
    if (!is_live(e)) throw std::invalid_argument("split_into_four: old_edges holds an edge that is not live");
    bound = (std::max)(bound, e.idx() + 1);
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
      face_bound = (std::max)(face_bound, f.idx() + 1);
    }
    std::vector<bool> seen(face_bound);
    for (const Face f : old_faces) {
      if (seen[f.idx()]) throw std::invalid_argument("split_into_four: old_faces names a face twice");
      seen[f.idx()] = true;
    }
  }
  // The rules' plan: what every new or changed element's value comes from,
  // read from the old connectivity, written after step 4 (so that no
  // vector below escapes into a call, and the loops stay as they were).
  std::unique_ptr<detail::four_split_plan> plan;
  (void)masks;  // read by the plan alone
  if constexpr (Rules) plan = plan_split_into_four(old_edges, points, old_faces, masks, rank_of);
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
        vertices_.destroy(m);
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
    while (corners != 0) faces_.destroy(corner[--corners]);
    while (inners != 0) edges_.destroy(inner[--inners]);
    while (done != 0) {
      const Edge n = split_of[old_edges[--done].idx()];
      const Vertex m = to(n.halfedge(1));
      edges_.destroy(n);
      vertices_.destroy(m);
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
  for (std::size_t i = 0; i < old_faces.size(); ++i) {
    const Face f = old_faces[i];
    const Halfedge x = last_ranked(f, rank_of);
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
  if constexpr (Rules) follow_split_into_four(*plan, split_of, inner, corner);
}

// -------------------------------------------------------------------------
// Property rules
// -------------------------------------------------------------------------
// set_rule and the rules' side of each edit. An edit lists what it wrote,
// per kind of element, as targets with weighted sources (an element of the
// same kind; the primary first) and hands the lists to every rule of that
// kind (detail/property_rules.hpp), which reads all sources before it
// writes. The lists, by edit (a halfedge's value is its corner: the value
// at to(h) in face(h), or along the boundary loop for a boundary one):
//
//   split(f = (a, b, c), p)  v: a, b, c by p's barycentric coordinates
//                            (projected, clamped to the triangle), the
//                            largest first; the halfedges into v: the three
//                            corners alike; v -> a, v -> b, v -> c: the corner
//                            of f at a, b, c; the new faces: f; the three new
//                            edges: no source.
//   split(e = (a, b), p)     v: a, b by p's place t on ab (projected, clamped:
//                            1 - t, t), the nearer first; a halfedge into v:
//                            the two corners of its old face (or loop) at a
//                            and b alike; v -> b: the old a -> b; the new
//                            half of e: e; the new faces: the ones they cut;
//                            the two cutting edges: no source.
//   collapse(a -> b, p)      b: a, b by p's place on ab (collapse(h): p is
//                            b's position), a first; in each face beside the
//                            edge, the edge (b, x) that survives: (a, x), (b, x)
//                            alike; and its half that takes the place of
//                            x -> a's twin in the face beyond: that twin.
//   flip(e)                  the two halves of e: the corners they now take
//                            over (d -> c: b -> c's; c -> d: a -> d's).
//   split_into_four          a new vertex m on (a, b): linear: a, b as
//                            split(e, point); loop: 3/8 a, 3/8 b, 1/8 each of
//                            the opposite corners (1/2, 1/2 on the boundary);
//                            an old vertex (loop only): Loop's vertex mask on
//                            it and its ring; halfedges into m: the corners at
//                            a and b, into an old vertex: its old corner; the
//                            new half of an edge: the edge; the corner
//                            triangles: their face; inner edges: no source.

template <class Handle, class T>
bool triangle_mesh::rule_key_ok(property<Handle, T> p) const noexcept {
  const void* id = p.column_key().id();
  if (id == nullptr) return false;
  return id != out_.column_key().id() && id != position_.column_key().id() && id != links_.column_key().id() &&
         id != face_of_.column_key().id() && id != half_.column_key().id() && !(prev_ && id == prev_.column_key().id());
}

template <class Handle, class T>
void triangle_mesh::set_rule(property<Handle, T> p, follow how) {
  static_assert(!std::is_const_v<T>, "triangle_mesh::set_rule: a writable property is required");
  if (!rule_key_ok(p)) throw usage_error("triangle_mesh::set_rule: a null property or one of the mesh's own columns");
  if constexpr (!detail::interpolable<T>)
    if (how == follow::interpolate || how == follow::average)
      throw usage_error(
          "triangle_mesh::set_rule: interpolate and average need an arithmetic type or T + T and T * double");
  const void* id = p.column_key().id();
  if (how == follow::none) {
    drop_rule(id);
    return;
  }
  const bool unit = id == vnormal_.column_key().id() || id == fnormal_.column_key().id();
  install_rule(detail::rule_kind<Handle>(), id, detail::make_rule(p, how, unit), &rule_named<Handle, T>);
}

template <class Handle, class T>
void triangle_mesh::set_rule(property<Handle, T> p, follow_function<Handle, T> f) {
  static_assert(!std::is_const_v<T>, "triangle_mesh::set_rule: a writable property is required");
  if (!rule_key_ok(p)) throw usage_error("triangle_mesh::set_rule: a null property or one of the mesh's own columns");
  if (!f) throw usage_error("triangle_mesh::set_rule: an empty function");
  install_rule(detail::rule_kind<Handle>(), p.column_key().id(), detail::make_rule(p, std::move(f)),
               &rule_named<Handle, T>);
}

inline void triangle_mesh::install_rule(int kind, const void* id, detail::rule_apply apply,
                                        bool (*named)(const void*, std::string_view, const void*)) {
  auto table = rules_ ? std::move(rules_) : std::make_unique<detail::rule_table>();
  auto& list = table->by_kind[kind];
  const auto it = std::find_if(list.begin(), list.end(), [&](const detail::rule_entry& r) { return r.id == id; });
  try {
    if (it != list.end())
      it->apply = std::move(apply);
    else
      list.push_back({id, std::move(apply), named});
  } catch (...) {
    if (!table->empty()) rules_ = std::move(table);
    throw;
  }
  rules_ = std::move(table);
}

inline void triangle_mesh::drop_rule(const void* id) noexcept {
  if (!rules_) return;
  for (auto& list : rules_->by_kind) std::erase_if(list, [&](const detail::rule_entry& r) { return r.id == id; });
  if (rules_->empty()) rules_.reset();
}

template <class Batch>
void triangle_mesh::apply_rules(int kind, const Batch& b) const {
  const auto& list = rules_->by_kind[kind];
  if (list.empty()) return;
  const std::span<const detail::rule_target> t(b.targets, b.nt);
  const std::span<const detail::rule_source> s(b.sources, b.ns);
  if (t.empty()) return;
  for (const detail::rule_entry& r : list) r.apply(t, s);
}

namespace detail {
// The place of p's projection on segment ab, clamped to [0, 1] (1/2 for
// a degenerate segment).
inline double segment_parameter(const vec3& a, const vec3& b, const vec3& p) noexcept {
  const vec3 d = b - a;
  const double l2 = dot(d, d);
  if (!(l2 > 0)) return 0.5;
  const double t = dot(p - a, d) / l2;
  return t < 0 ? 0.0 : (t > 1 ? 1.0 : t);
}
// The barycentric coordinates of p's projection on triangle abc, clamped
// to the triangle (negative ones to 0, renormalised); 1/3 each for a
// degenerate triangle.
inline std::array<double, 3> barycentric(const vec3& a, const vec3& b, const vec3& c, const vec3& p) noexcept {
  const vec3 v0 = b - a, v1 = c - a, v2 = p - a;
  const double d00 = dot(v0, v0), d01 = dot(v0, v1), d11 = dot(v1, v1), d20 = dot(v2, v0), d21 = dot(v2, v1);
  const double den = d00 * d11 - d01 * d01;
  if (!(std::abs(den) > 1e-300)) return {1.0 / 3, 1.0 / 3, 1.0 / 3};
  std::array<double, 3> w{0, (d11 * d20 - d01 * d21) / den, (d00 * d21 - d01 * d20) / den};
  w[0] = 1 - w[1] - w[2];
  double sum = 0;
  for (double& x : w) sum += (x = (std::max)(x, 0.0));
  if (!(sum > 0)) return {1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (double& x : w) x /= sum;
  return w;
}
}  // namespace detail

// Declared inline (and noinline, cold) in the class.
void triangle_mesh::follow_split(Face f, Vertex v, const vec3& p) {
  // f0: a -> b -> v, f: b -> c -> v, f2: c -> a -> v (split(Face) above);
  // out(v) = v -> a, in f0, and its twin in f2.
  const Face f0 = face(out_[v]), f2 = face(out_[v].opposite());
  const Halfedge ab = half_[f0], bc = half_[f], ca = half_[f2];  // the old corners at b, c, a
  const Halfedge bv = next(ab), va = next(bv), cv = next(bc), vb = next(cv), av = next(ca), vc = next(av);
  const Vertex a = to(ca), b = to(ab), c = to(bc);
  const auto w = detail::barycentric(position_[a], position_[b], position_[c], p);
  using src = detail::rule_source;
  if (!rules_->by_kind[0].empty()) {
    detail::local_rule_batch<1, 3> vb_;
    vb_.add_sorted(v.idx(), {src{a.idx(), w[0]}, src{b.idx(), w[1]}, src{c.idx(), w[2]}});
    apply_rules(0, vb_);
  }
  if (!rules_->by_kind[1].empty()) {
    detail::local_rule_batch<6, 12> hb;
    for (const Halfedge into_v : {bv, cv, av})
      hb.add_sorted(into_v.idx(), {src{ca.idx(), w[0]}, src{ab.idx(), w[1]}, src{bc.idx(), w[2]}});
    hb.add(va.idx(), {src{ca.idx(), 1}});
    hb.add(vb.idx(), {src{ab.idx(), 1}});
    hb.add(vc.idx(), {src{bc.idx(), 1}});
    apply_rules(1, hb);
  }
  if (!rules_->by_kind[2].empty()) {
    detail::local_rule_batch<3, 1> eb;
    for (const Halfedge x : {va, vb, vc}) eb.add(x.edge().idx(), {});
    apply_rules(2, eb);
  }
  if (!rules_->by_kind[3].empty()) {
    detail::local_rule_batch<2, 2> fb;
    fb.add(f0.idx(), {src{f.idx(), 1}});
    fb.add(f2.idx(), {src{f.idx(), 1}});
    apply_rules(3, fb);
  }
}

// Declared inline (and noinline, cold) in the class.
void triangle_mesh::follow_split(Edge e, Vertex v, const vec3& p) {
  // After: h0: a -> v, vb: v -> b (the new edge), bv = vb's twin, h1: v -> a;
  // a face (a, b, c) beside h0 became (a, v, c) = (h0, cut_f, pn) and
  // (v, b, c) = (vb, n, cut_f's twin); a face (b, a, d) beside h1 became
  // (b, v, d) = (bv, cut_g, pm) and (v, a, d) = (h1, m1, cut_g's twin).
  // On a boundary side, pn (pm) is the loop's halfedge into a (b).
  const Halfedge h0 = e.halfedge(0), h1 = e.halfedge(1);
  struct {
    Vertex a, b;
    Face fh, fo;
    Halfedge pn, n, pm, m1;
  } was;
  const bool f_side = !is_boundary(h0), g_side = !is_boundary(h1);
  const Halfedge cut_f = f_side ? next(h0) : Halfedge();
  const Halfedge vb = f_side ? next(cut_f.opposite()) : next(h0), bv = vb.opposite();
  const Halfedge cut_g = g_side ? next(bv) : Halfedge();
  was.a = to(h1), was.b = to(vb);
  was.fh = face(h0), was.fo = face(bv);
  was.pn = f_side ? next(cut_f) : prev(h0);
  was.n = f_side ? next(vb) : Halfedge();
  was.pm = g_side ? next(cut_g) : prev(bv);
  was.m1 = g_side ? next(h1) : Halfedge();
  const double t = detail::segment_parameter(position_[was.a], position_[was.b], p);
  const double wa = 1 - t, wb = t;
  using src = detail::rule_source;
  if (!rules_->by_kind[0].empty()) {
    detail::local_rule_batch<1, 2> b;
    b.add_sorted(v.idx(), {src{was.a.idx(), wa}, src{was.b.idx(), wb}});
    apply_rules(0, b);
  }
  if (!rules_->by_kind[1].empty()) {
    detail::local_rule_batch<7, 12> b;
    // Face (or loop) of h0: corners at a = pn, at b = h0, at c = n.
    b.add_sorted(h0.idx(), {src{was.pn.idx(), wa}, src{h0.idx(), wb}});
    b.add(vb.idx(), {src{h0.idx(), 1}});
    if (cut_f.is_valid()) {
      b.add(cut_f.idx(), {src{was.n.idx(), 1}});
      b.add_sorted(cut_f.opposite().idx(), {src{was.pn.idx(), wa}, src{h0.idx(), wb}});
    }
    // Face (or loop) of h1: corners at a = h1, at b = pm, at d = m1.
    b.add_sorted(bv.idx(), {src{h1.idx(), wa}, src{was.pm.idx(), wb}});
    if (cut_g.is_valid()) {
      b.add(cut_g.idx(), {src{was.m1.idx(), 1}});
      b.add_sorted(cut_g.opposite().idx(), {src{h1.idx(), wa}, src{was.pm.idx(), wb}});
    }
    apply_rules(1, b);
  }
  if (!rules_->by_kind[2].empty()) {
    detail::local_rule_batch<3, 1> b;
    b.add(vb.edge().idx(), {src{e.idx(), 1}});
    if (cut_f.is_valid()) b.add(cut_f.edge().idx(), {});
    if (cut_g.is_valid()) b.add(cut_g.edge().idx(), {});
    apply_rules(2, b);
  }
  if (!rules_->by_kind[3].empty()) {
    detail::local_rule_batch<2, 2> b;
    if (cut_f.is_valid()) b.add(face(cut_f.opposite()).idx(), {src{was.fh.idx(), 1}});
    if (cut_g.is_valid()) b.add(face(cut_g.opposite()).idx(), {src{was.fo.idx(), 1}});
    apply_rules(3, b);
  }
}

// Declared inline (and noinline, cold) in the class.
void triangle_mesh::follow_collapse(Halfedge h0, const vec3& p) {
  const Vertex a = from(h0), b = to(h0);
  const double s = detail::segment_parameter(position_[a], position_[b], p);
  const double wa = 1 - s, wb = s;
  using src = detail::rule_source;
  // Face beside h0: a -> b (h0), b -> x (x1), x -> a (x2): x2's edge goes,
  // x1 takes x2's twin's place in the face beyond. Beside h0's twin:
  // b -> a, a -> y (y1), y -> b (y2): y1's edge goes, y2 takes y1's twin's.
  const Halfedge o = h0.opposite();
  const Halfedge x1 = is_boundary(h0) ? Halfedge() : next(h0), x2 = x1.is_valid() ? next(x1) : Halfedge();
  const Halfedge y1 = is_boundary(o) ? Halfedge() : next(o), y2 = y1.is_valid() ? next(y1) : Halfedge();
  if (!rules_->by_kind[0].empty()) {
    detail::local_rule_batch<1, 2> bt;
    bt.add(b.idx(), {src{a.idx(), wa}, src{b.idx(), wb}});
    apply_rules(0, bt);
  }
  if (!rules_->by_kind[1].empty() && (x1.is_valid() || y1.is_valid())) {
    // A corner at a (a halfedge into a) becomes one at b, moved by the
    // displacement from a's corner to b's in a face beside the edge:
    // D = wb (corner at b - corner at a), as sources {h0: wb, x2: -wb}.
    const std::array<src, 2> d = x1.is_valid() ? std::array<src, 2>{src{h0.idx(), wb}, src{x2.idx(), -wb}}
                                               : std::array<src, 2>{src{y2.idx(), wb}, src{o.idx(), -wb}};
    detail::bulk_rule_batch bt;
    if (x1.is_valid()) bt.add(x1.idx(), {src{x2.opposite().idx(), 1}});
    if (y1.is_valid()) bt.add(y2.idx(), {src{y1.opposite().idx(), 1}, d[0], d[1]}, true);
    for (const Halfedge g : out_halfedges(a)) {
      const Halfedge in = g.opposite();
      if (in == x2 || in == o || (y1.is_valid() && in == y1.opposite())) continue;
      bt.add(in.idx(), {src{in.idx(), 1}, d[0], d[1]}, true);
    }
    struct {
      const detail::rule_target* targets;
      const detail::rule_source* sources;
      std::uint32_t nt, ns;
    } view{bt.targets.data(), bt.sources.data(), static_cast<std::uint32_t>(bt.targets.size()),
           static_cast<std::uint32_t>(bt.sources.size())};
    apply_rules(1, view);
  }
  if (!rules_->by_kind[2].empty()) {
    detail::local_rule_batch<2, 4> bt;
    if (x1.is_valid()) bt.add(x1.edge().idx(), {src{x2.edge().idx(), wa}, src{x1.edge().idx(), wb}});
    if (y1.is_valid()) bt.add(y2.edge().idx(), {src{y1.edge().idx(), wa}, src{y2.edge().idx(), wb}});
    apply_rules(2, bt);
  }
}

// Declared inline (and noinline, cold) in the class.
void triangle_mesh::follow_flip(Edge e) {
  if (rules_->by_kind[1].empty()) return;
  const Halfedge h = e.halfedge(0), o = e.halfedge(1);
  using src = detail::rule_source;
  detail::local_rule_batch<2, 2> bt;
  bt.add(h.idx(), {src{next(h).idx(), 1}});  // d -> c: the corner at c of b -> c
  bt.add(o.idx(), {src{next(o).idx(), 1}});  // c -> d: the corner at d of a -> d
  apply_rules(1, bt);
}

// Declared inline (and noinline, cold) in the class. The plan names its
// targets by tag (detail::four_split_plan): old elements by handle, new
// ones by what they are made for, resolved after the split.
std::unique_ptr<detail::four_split_plan> triangle_mesh::plan_split_into_four(
    std::span<const Edge> old_edges, std::span<const vec3> points, std::span<const Face> old_faces,
    subdivision_masks masks, const std::vector<std::uint32_t>& rank_of) const {
  using src = detail::rule_source;
  using tag = detail::four_split_plan::tag;
  auto plan = std::make_unique<detail::four_split_plan>();
  const bool loop = masks == subdivision_masks::loop;
  const auto bound = static_cast<std::uint32_t>(rank_of.size());  // 1 + the largest old edge's index
  // t of every old edge: the new point's place from to(halfedge(1)) to
  // to(halfedge(0)) (1/2 with Loop's masks).
  std::vector<double> t_of(bound, 0.5);
  if (!loop)
    for (std::size_t i = 0; i < old_edges.size(); ++i) {
      const Edge e = old_edges[i];
      t_of[e.idx()] = detail::segment_parameter(position_[to(e.halfedge(1))], position_[to(e.halfedge(0))], points[i]);
    }
  if (!rules_->by_kind[0].empty()) {
    auto& v = plan->kinds[0];
    for (const Edge e : old_edges) {
      const Halfedge h0 = e.halfedge(0), h1 = e.halfedge(1);
      const Vertex a = to(h1), b = to(h0);
      if (!loop || is_boundary(e)) {
        const double t = t_of[e.idx()];
        if (t > 0.5)
          v.add(tag::new_vertex, e.idx(), {src{b.idx(), t}, src{a.idx(), 1 - t}});
        else
          v.add(tag::new_vertex, e.idx(), {src{a.idx(), 1 - t}, src{b.idx(), t}});
      } else {
        v.add(
            tag::new_vertex, e.idx(),
            {src{a.idx(), 0.375}, src{b.idx(), 0.375}, src{to(next(h0)).idx(), 0.125}, src{to(next(h1)).idx(), 0.125}});
      }
    }
    if (loop)
      for (const Vertex x : vertices()) {
        if (is_isolated(x)) continue;
        if (const Halfedge bo = out_[x]; is_boundary(bo)) {
          v.add(tag::old, x.idx(), {src{x.idx(), 0.75}, src{to(bo).idx(), 0.125}, src{from(prev(bo)).idx(), 0.125}});
          continue;
        }
        const double n = static_cast<double>(valence(x));
        const double c = 0.375 + 0.25 * std::cos(2 * std::numbers::pi / n);
        const double beta = (0.625 - c * c) / n;
        v.add(tag::old, x.idx(), {src{x.idx(), 1.0 - n * beta}});
        for (const Vertex w : vertices_around(x)) v.push({w.idx(), beta});
      }
  }
  if (!rules_->by_kind[1].empty()) {
    auto& h = plan->kinds[1];
    // prev of a boundary halfedge along its loop (of a face one: next^2).
    std::vector<Halfedge> loop_prev(2 * static_cast<std::size_t>(bound));
    for (const Edge e : old_edges)
      for (unsigned side = 0; side < 2; ++side)
        if (const Halfedge x = e.halfedge(side); is_boundary(x)) loop_prev[next(x).idx()] = x;
    const auto prev_of = [&](Halfedge x) { return is_boundary(x) ? loop_prev[x.idx()] : next(next(x)); };
    // The corner into the middle of x (from u to w) in x's face: u's corner
    // prev_of(x) and w's corner x, weighted by the point's place.
    const auto add_mid = [&](tag g, std::uint32_t target, Halfedge x) {
      const double t = x.side() == 0 ? t_of[x.idx() >> 1] : 1 - t_of[x.idx() >> 1];
      const Halfedge u = prev_of(x);
      if (t > 0.5)
        h.add(g, target, {src{x.idx(), t}, src{u.idx(), 1 - t}});
      else
        h.add(g, target, {src{u.idx(), 1 - t}, src{x.idx(), t}});
    };
    for (const Edge e : old_edges) {
      // first(x): x for side 0, n1 for side 1; second(x) of side 0: n0.
      add_mid(tag::old, e.halfedge(0).idx(), e.halfedge(0));
      add_mid(tag::new_half1, e.idx(), e.halfedge(1));
      h.add(tag::new_half0, e.idx(), {src{e.halfedge(0).idx(), 1}});
    }
    for (std::size_t i = 0; i < old_faces.size(); ++i) {
      const Face f = old_faces[i];
      const Halfedge x = last_ranked(f, rank_of);
      const Halfedge y = next(x), z = next(y);
      const auto j = static_cast<std::uint32_t>(6 * i);  // inner edge 3i + k, half s: 6i + 2k + s
      add_mid(tag::inner_half, j, y), add_mid(tag::inner_half, j + 1, x);
      add_mid(tag::inner_half, j + 2, z), add_mid(tag::inner_half, j + 3, y);
      add_mid(tag::inner_half, j + 4, x), add_mid(tag::inner_half, j + 5, z);
    }
  }
  if (!rules_->by_kind[2].empty()) {
    auto& eb = plan->kinds[2];
    for (const Edge e : old_edges) eb.add(tag::new_edge, e.idx(), {src{e.idx(), 1}});
    for (std::uint32_t j = 0; j < 3 * old_faces.size(); ++j) eb.add(tag::inner_edge, j, {});
  }
  if (!rules_->by_kind[3].empty()) {
    auto& fb = plan->kinds[3];
    for (std::size_t i = 0; i < old_faces.size(); ++i)
      for (std::uint32_t k = 0; k < 3; ++k)
        fb.add(tag::corner_face, static_cast<std::uint32_t>(3 * i + k), {src{old_faces[i].idx(), 1}});
  }
  return plan;
}

// Declared inline (and noinline, cold) in the class.
void triangle_mesh::follow_split_into_four(const detail::four_split_plan& plan, const std::vector<Edge>& split_of,
                                           const std::vector<Edge>& inner, const std::vector<Face>& corner) {
  using tag = detail::four_split_plan::tag;
  for (int kind = 0; kind < 4; ++kind) {
    const auto& k = plan.kinds[kind];
    if (k.targets.empty()) continue;
    std::vector<detail::rule_target> targets(k.targets);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const std::uint32_t a = targets[i].idx;
      switch (k.tags[i]) {
        case tag::old:
          break;
        case tag::new_vertex:
          targets[i].idx = to(split_of[a].halfedge(1)).idx();
          break;
        case tag::new_half0:
          targets[i].idx = split_of[a].halfedge(0).idx();
          break;
        case tag::new_half1:
          targets[i].idx = split_of[a].halfedge(1).idx();
          break;
        case tag::inner_half:
          targets[i].idx = inner[a / 2].halfedge(a % 2).idx();
          break;
        case tag::new_edge:
          targets[i].idx = split_of[a].idx();
          break;
        case tag::inner_edge:
          targets[i].idx = inner[a].idx();
          break;
        case tag::corner_face:
          targets[i].idx = corner[a].idx();
          break;
      }
    }
    struct {
      const detail::rule_target* targets;
      const detail::rule_source* sources;
      std::uint32_t nt, ns;
    } view{targets.data(), k.sources.data(), static_cast<std::uint32_t>(targets.size()),
           static_cast<std::uint32_t>(k.sources.size())};
    apply_rules(kind, view);
  }
}

// -------------------------------------------------------------------------
// Validation
// -------------------------------------------------------------------------
// validate(): O(V + E + F) plus the circulation of every vertex, O(E) in all.

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
      if (prev_fresh_ && prev_[h] != p) fail("a kept prev link disagrees with next");
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
    if (boundary && !relaxed_out_ && !is_boundary(out(v)))
      fail("boundary vertex's outgoing halfedge is not a boundary one");
    ring_total += n;
  }
  if (ring_total != halfedges) fail("a vertex is non-manifold (its fan misses some of its halfedges)");
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
