// bench/mesh/pointer_mesh.hpp: the comparison's contender (d), the mesh
// example before issue 16: a halfedge triangle mesh on travpool pools
// (one struct per element, linked by pointers). Kept so that mesh_compare
// shows what the column layout bought.
//
// Vertices, edges and faces each live in their own travpool::pool and link to
// each other by pointer. An edge holds its two halfedges side by side, so the
// opposite of a halfedge is found by arithmetic (one bit, kept in the low bit
// of the prev pointer, says which half it is). Pools never move elements, so
// pointers stay valid through any edit of other elements.
//
// Connectivity invariants (checked by validate()):
// * h->next()->prev() == h, h->opposite()->opposite() == h, h->next()->from() == h->to(),
//   h->next()->face() == h->face(); a null face marks a boundary halfedge.
// * every face is a triangle and f->half()->face() == f;
// * v->out() is null for an isolated vertex, starts at v otherwise, and is a
//   boundary halfedge whenever v is on the boundary;
// * every vertex is manifold: circulating from v->out() meets every halfedge
//   that starts at v.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <travpool/pool.hpp>

#include <travpool/mesh/mesh.hpp>  // vec3, topology_error

namespace travpool::mesh::bench::pointer {

class vertex;
class halfedge;
class edge;
class face;
class triangle_mesh;

namespace detail {
enum class circulate { out_halfedges, vertices, faces };
template <circulate Kind, bool AroundFace = false>
class circulator;
}  // namespace detail

class vertex {
 public:
  explicit vertex(const vec3& p) noexcept : position_(p) {}

  vec3& position() noexcept { return position_; }
  const vec3& position() const noexcept { return position_; }
  vec3& normal() noexcept { return normal_; }
  const vec3& normal() const noexcept { return normal_; }
  // An outgoing halfedge (a boundary one if the vertex is on the boundary);
  // null for an isolated vertex.
  halfedge* out() const noexcept { return out_; }
  bool is_isolated() const noexcept { return out_ == nullptr; }

  // The second position buffer of smoothing and subdivision. It shares the
  // normal's storage: moving vertices invalidates normals anyway, and a
  // vertex stays at 56 bytes.
  vec3& scratch() noexcept { return normal_; }

 private:
  friend class triangle_mesh;
  vec3 position_;
  vec3 normal_{};
  halfedge* out_ = nullptr;
};

class halfedge {
 public:
  halfedge() = default;
  halfedge(const halfedge&) = delete;
  halfedge& operator=(const halfedge&) = delete;

  vertex* to() const noexcept { return to_; }
  vertex* from() const noexcept { return opposite()->to_; }
  halfedge* next() const noexcept { return reinterpret_cast<halfedge*>(next_bits_ & ~tag_mask); }
  // Not stored: two steps forward in a triangle; around from() for a
  // boundary halfedge (O(valence)). Null if the links do not close.
  halfedge* prev() const noexcept;
  // The other half of the same edge: this + 1 or this - 1.
  halfedge* opposite() const noexcept {
    auto* self = const_cast<halfedge*>(this);
    return side() == 0 ? self + 1 : self - 1;
  }
  pointer::edge* edge() const noexcept;
  // The face on this halfedge's left; null on the boundary.
  pointer::face* face() const noexcept { return face_; }
  bool is_boundary() const noexcept { return face_ == nullptr; }
  // 0 for the first half of its edge, 1 for the second.
  unsigned side() const noexcept { return static_cast<unsigned>((next_bits_ & own_side_bit) >> 1); }

 private:
  friend class triangle_mesh;
  friend class edge;
  template <detail::circulate, bool>
  friend class detail::circulator;
  // Requires: n's own side bit is set (edges set it when constructed).
  void link(halfedge* n) noexcept {
    next_bits_ = reinterpret_cast<std::uintptr_t>(n) | n->side() | (next_bits_ & own_side_bit);
  }
  static constexpr std::uintptr_t next_side_bit = 1;  // side of next()
  static constexpr std::uintptr_t own_side_bit = 2;   // side of this halfedge
  static constexpr std::uintptr_t tag_mask = 3;

  vertex* to_ = nullptr;
  std::uintptr_t next_bits_ = 0;  // next pointer | own side << 1 | next's side
  pointer::face* face_ = nullptr;
};

class edge {
 public:
  edge() noexcept { halves_[1].next_bits_ = halfedge::own_side_bit; }
  halfedge* half(unsigned i) noexcept { return &halves_[i]; }
  const halfedge* half(unsigned i) const noexcept { return &halves_[i]; }
  bool is_boundary() const noexcept { return halves_[0].is_boundary() || halves_[1].is_boundary(); }

 private:
  friend class halfedge;
  halfedge halves_[2];
};

inline halfedge* halfedge::prev() const noexcept {
  constexpr int limit = 1 << 16;
  if (face_ != nullptr) {
    halfedge* h = next();
    for (int i = 0; h != nullptr && i < limit; ++i, h = h->next())
      if (h->next() == this) return h;
    return nullptr;
  }
  // The outgoing halfedges g of from() follow each other as
  // g -> g->opposite()->next(); prev is the opposite of this one's predecessor.
  halfedge* g = const_cast<halfedge*>(this);
  for (int i = 0; g != nullptr && i < limit; ++i) {
    halfedge* in = g->opposite();
    if (in->next() == this) return in;
    g = in->next();
  }
  return nullptr;
}

inline edge* halfedge::edge() const noexcept {
  // halves_ is the first member of the standard-layout class edge.
  static_assert(std::is_standard_layout_v<pointer::edge>);
  return reinterpret_cast<pointer::edge*>(const_cast<halfedge*>(this) - side());
}

class face {
 public:
  halfedge* half() const noexcept { return half_; }
  vec3& normal() noexcept { return normal_; }
  const vec3& normal() const noexcept { return normal_; }

 private:
  friend class triangle_mesh;
  halfedge* half_ = nullptr;
  vec3 normal_{};
};

namespace detail {

// Iterates the outgoing halfedges of a vertex (h -> h->opposite()->next()),
// or the halfedges of a face (h -> h->next()), projecting each. It keeps the
// side bit of the current halfedge, read from the link that led to it, so a
// step loads one word (as h ^ 1 does in an index mesh), not two.
template <circulate Kind, bool AroundFace>
class circulator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = std::conditional_t<Kind == circulate::vertices, vertex*,
                                        std::conditional_t<Kind == circulate::faces, face*, halfedge*>>;
  using reference = value_type;
  using pointer = void;

  circulator() = default;
  explicit circulator(halfedge* start) noexcept
      : start_(start), h_(start), side_(start == nullptr ? 0 : start->side()) {
    skip();
  }

  value_type operator*() const noexcept {
    if constexpr (Kind == circulate::vertices)
      return h_->to();
    else if constexpr (Kind == circulate::faces)
      return h_->face();
    else
      return h_;
  }
  circulator& operator++() noexcept {
    step();
    skip();
    return *this;
  }
  circulator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  friend bool operator==(const circulator& a, const circulator& b) noexcept { return a.h_ == b.h_; }

 private:
  void step() noexcept {
    const halfedge* from = AroundFace ? h_ : (side_ == 0 ? h_ + 1 : h_ - 1);
    const std::uintptr_t w = from->next_bits_;
    h_ = reinterpret_cast<halfedge*>(w & ~halfedge::tag_mask);
    side_ = static_cast<unsigned>(w & halfedge::next_side_bit);
    if (h_ == start_) h_ = nullptr;
  }
  // vertex -> faces skips the boundary halfedge.
  void skip() noexcept {
    if constexpr (Kind == circulate::faces)
      while (h_ != nullptr && h_->face() == nullptr) step();
  }
  halfedge* start_ = nullptr;
  halfedge* h_ = nullptr;
  unsigned side_ = 0;
};

template <class It>
struct circulator_range {
  It first;
  It begin() const noexcept { return first; }
  It end() const noexcept { return It(); }
};

}  // namespace detail

class triangle_mesh {
 public:
  // The compact layout keeps the pools' status bits in a per-bin bitmap, so
  // a chunk is exactly sizeof(T): 56, 48 and 32 bytes.
  using vertex_pool = travpool::basic_pool<vertex, travpool::layout::compact>;
  using edge_pool = travpool::basic_pool<edge, travpool::layout::compact>;
  using face_pool = travpool::basic_pool<face, travpool::layout::compact>;

  triangle_mesh() = default;
  triangle_mesh(triangle_mesh&&) noexcept = default;
  triangle_mesh& operator=(triangle_mesh&&) noexcept = default;

  // Builds a mesh from a triangle soup. Vertices keep the order of `points`
  // (in the pool's traversal order); unreferenced points become isolated
  // vertices. Throws topology_error for an index out of range, a triangle
  // with a repeated vertex, an edge with more than two triangles or with
  // inconsistent orientation, or a non-manifold vertex.
  static triangle_mesh from_triangles(std::span<const vec3> points,
                                      std::span<const std::array<std::uint32_t, 3>> triangles);

  vertex_pool& vertices() noexcept { return vertices_; }
  const vertex_pool& vertices() const noexcept { return vertices_; }
  edge_pool& edges() noexcept { return edges_; }
  const edge_pool& edges() const noexcept { return edges_; }
  face_pool& faces() noexcept { return faces_; }
  const face_pool& faces() const noexcept { return faces_; }
  std::size_t vertex_count() const noexcept { return vertices_.size(); }
  std::size_t edge_count() const noexcept { return edges_.size(); }
  std::size_t face_count() const noexcept { return faces_.size(); }

  // Circulators. vertices_around(v) and out_halfedges(v) visit the
  // one-ring; faces_around(v) skips the boundary gap; vertices_of(f) gives
  // a triangle's three corners, starting at f.half()->to().
  static auto out_halfedges(const vertex& v) noexcept {
    return detail::circulator_range<detail::circulator<detail::circulate::out_halfedges>>{
        detail::circulator<detail::circulate::out_halfedges>(v.out())};
  }
  static auto vertices_around(const vertex& v) noexcept {
    return detail::circulator_range<detail::circulator<detail::circulate::vertices>>{
        detail::circulator<detail::circulate::vertices>(v.out())};
  }
  static auto faces_around(const vertex& v) noexcept {
    return detail::circulator_range<detail::circulator<detail::circulate::faces>>{
        detail::circulator<detail::circulate::faces>(v.out())};
  }
  static auto vertices_of(const face& f) noexcept {
    return detail::circulator_range<detail::circulator<detail::circulate::vertices, true>>{
        detail::circulator<detail::circulate::vertices, true>(f.half())};
  }
  static std::array<vertex*, 3> corners(const face& f) noexcept {
    halfedge* h = f.half();
    return {h->to(), h->next()->to(), h->next()->next()->to()};
  }

  static bool is_boundary(const vertex& v) noexcept { return v.out() == nullptr || v.out()->is_boundary(); }
  static std::size_t valence(const vertex& v) noexcept {
    std::size_t n = 0;
    for ([[maybe_unused]] halfedge* h : out_halfedges(v)) ++n;
    return n;
  }
  // Returns the halfedge from a to b, or null.
  static halfedge* find_halfedge(const vertex& a, const vertex& b) noexcept {
    for (halfedge* h : out_halfedges(a))
      if (h->to() == &b) return h;
    return nullptr;
  }

  vertex* add_vertex(const vec3& p) { return vertices_.create(p); }

  // Splits triangle f at a new vertex at p into three triangles (f is one
  // of them). Returns the new vertex. Complexity: O(1).
  vertex* split(face& f, const vec3& p);

  // Inserts a new vertex at p on the edge of h, making the two faces
  // beside it (temporarily) quadrilaterals. Returns the new vertex; the
  // faces' half() then ends at it. Used by Loop subdivision. O(valence).
  vertex* insert_vertex(halfedge& h, const vec3& p);

  // Splits the face of h0 and h1 (same face, not adjacent) by a new edge
  // from h0->to() to h1->to(). Returns the new halfedge in h0's face.
  halfedge* insert_edge(halfedge& h0, halfedge& h1);

  // The link condition: true iff collapsing h (removing h->from(), keeping
  // h->to()) keeps the mesh a manifold without degenerate faces.
  static bool is_collapse_ok(const halfedge& h) noexcept;

  // Collapses h: h->from() merges into h->to(), the faces beside h vanish.
  // Requires is_collapse_ok(h). Complexity: O(valence).
  void collapse(halfedge& h);

  // Checks every connectivity invariant listed at the top of this file and
  // that every pointer refers to a live element of this mesh's pools.
  // Throws: std::logic_error describing the first violation.
  void validate() const;

  void clear() noexcept {
    faces_.clear();
    edges_.clear();
    vertices_.clear();
  }

 private:
  edge* new_edge(vertex* a, vertex* b) {
    edge* e = edges_.create();
    e->half(0)->to_ = b;
    e->half(1)->to_ = a;
    return e;
  }
  face* new_face(halfedge* h) {
    face* f = faces_.create();
    f->half_ = h;
    return f;
  }
  static void adjust_out(vertex& v) noexcept {
    for (halfedge* h : out_halfedges(v))
      if (h->is_boundary()) {
        v.out_ = h;
        return;
      }
  }
  void remove_edge_helper(halfedge* h);
  void remove_loop_helper(halfedge* h);

  vertex_pool vertices_;
  edge_pool edges_;
  face_pool faces_;
};

// ---------------------------------------------------------------------------

inline triangle_mesh triangle_mesh::from_triangles(std::span<const vec3> points,
                                                   std::span<const std::array<std::uint32_t, 3>> triangles) {
  triangle_mesh m;
  const std::size_t nv = points.size(), nf = triangles.size();
  if (nv >= std::uint32_t(-1)) throw topology_error(0, "too many vertices");
  std::vector<vertex*> vs(nv);
  for (std::size_t i = 0; i < nv; ++i) vs[i] = m.vertices_.create(points[i]);

  // Outgoing halfedges per vertex in CSR form: slot 3f+c is the halfedge
  // from triangles[f][c] to triangles[f][(c+1)%3].
  std::vector<std::uint32_t> first(nv + 1, 0);
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& t = triangles[f];
    for (int c = 0; c < 3; ++c) {
      if (t[c] >= nv)
        throw topology_error(
            f, "vertex index " + std::to_string(t[c]) + " out of range (" + std::to_string(nv) + " vertices)");
    }
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
      throw topology_error(f,
                           "degenerate triangle (repeated vertex " + std::to_string(t[0] == t[1] ? t[0] : t[2]) + ")");
    for (int c = 0; c < 3; ++c) ++first[t[c] + 1];
  }
  for (std::size_t i = 0; i < nv; ++i) first[i + 1] += first[i];
  std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
  std::vector<std::uint32_t> slots(3 * nf);  // by source vertex
  for (std::size_t f = 0; f < nf; ++f)
    for (std::uint32_t c = 0; c < 3; ++c) slots[fill[triangles[f][c]]++] = static_cast<std::uint32_t>(3 * f + c);
  fill = {};
  auto target = [&](std::uint32_t s) { return triangles[s / 3][(s % 3 + 1) % 3]; };
  auto source = [&](std::uint32_t s) { return triangles[s / 3][s % 3]; };

  std::vector<halfedge*> hs(3 * nf, nullptr);
  for (std::size_t f = 0; f < nf; ++f) {
    for (std::uint32_t c = 0; c < 3; ++c) {
      const auto s = static_cast<std::uint32_t>(3 * f + c);
      if (hs[s] != nullptr) continue;
      const std::uint32_t a = source(s), b = target(s);
      // Another triangle with the same directed edge a->b?
      for (std::uint32_t k = first[a]; k < first[a + 1]; ++k)
        if (slots[k] != s && target(slots[k]) == b)
          throw topology_error(std::max<std::size_t>(f, slots[k] / 3),
                               "non-manifold edge (" + std::to_string(a) + ", " + std::to_string(b) +
                                   "): more than two triangles, or triangles with inconsistent orientation, share it");
      std::uint32_t twin = std::uint32_t(-1);
      for (std::uint32_t k = first[b]; k < first[b + 1]; ++k)
        if (target(slots[k]) == a) {
          if (twin != std::uint32_t(-1))
            throw topology_error(std::max<std::size_t>(f, slots[k] / 3), "non-manifold edge (" + std::to_string(a) +
                                                                             ", " + std::to_string(b) +
                                                                             "): more than two triangles share it");
          twin = slots[k];
        }
      edge* e = m.new_edge(vs[a], vs[b]);
      hs[s] = e->half(0);
      if (twin != std::uint32_t(-1)) hs[twin] = e->half(1);
    }
  }
  first = {};
  slots = {};
  for (std::size_t f = 0; f < nf; ++f) {
    halfedge* h0 = hs[3 * f];
    halfedge* h1 = hs[3 * f + 1];
    halfedge* h2 = hs[3 * f + 2];
    face* fc = m.new_face(h0);
    h0->face_ = h1->face_ = h2->face_ = fc;
    h0->link(h1);
    h1->link(h2);
    h2->link(h0);
    vs[triangles[f][0]]->out_ = h0;
    vs[triangles[f][1]]->out_ = h1;
    vs[triangles[f][2]]->out_ = h2;
  }
  // Boundary halfedges: the twin of a slot without one. Each vertex may
  // start at most one (else it is a non-manifold "bowtie" vertex).
  std::vector<halfedge*> boundary_out(nv, nullptr);
  for (std::size_t s = 0; s < 3 * nf; ++s) {
    halfedge* o = hs[s]->opposite();
    if (o->face_ != nullptr || o->next() != nullptr) continue;
    const std::uint32_t from = target(static_cast<std::uint32_t>(s));
    if (boundary_out[from] != nullptr)
      throw topology_error(s / 3, "non-manifold vertex " + std::to_string(from) +
                                      ": its triangles form more than one fan (it is on two boundary loops)");
    boundary_out[from] = o;
  }
  // Link boundary halfedges: o ends at o->to(), whose boundary halfedge follows.
  for (std::size_t s = 0; s < 3 * nf; ++s) {
    halfedge* o = hs[s]->opposite();
    if (o->face_ != nullptr) continue;
    const std::uint32_t to = source(static_cast<std::uint32_t>(s));
    if (boundary_out[to] == nullptr)
      throw topology_error(s / 3, "non-manifold vertex " + std::to_string(to) + ": inconsistent boundary");
    o->link(boundary_out[to]);
  }
  for (std::size_t v = 0; v < nv; ++v)
    if (boundary_out[v] != nullptr) vs[v]->out_ = boundary_out[v];
  // Manifold vertices: the fan from out() must meet every outgoing halfedge.
  std::vector<std::uint32_t> degree(nv, 0);
  for (std::size_t f = 0; f < nf; ++f)
    for (int c = 0; c < 3; ++c) ++degree[triangles[f][c]];
  for (std::size_t v = 0; v < nv; ++v) {
    if (vs[v]->out_ == nullptr) continue;
    std::size_t n = 0;
    for (halfedge* h : out_halfedges(*vs[v])) {
      if (!h->is_boundary()) ++n;
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

inline vertex* triangle_mesh::split(face& f, const vec3& p) {
  halfedge* h0 = f.half_;     // a -> b
  halfedge* h1 = h0->next();  // b -> c
  halfedge* h2 = h1->next();  // c -> a
  vertex* a = h2->to_;
  vertex* b = h0->to_;
  vertex* c = h1->to_;
  vertex* v = vertices_.create(p);
  edge* ea = new_edge(v, a);  // half 0: v->a, half 1: a->v
  edge* eb = new_edge(v, b);
  edge* ec = new_edge(v, c);
  face* f1 = new_face(h1);
  face* f2 = new_face(h2);
  halfedge* va = ea->half(0);
  halfedge* av = ea->half(1);
  halfedge* vb = eb->half(0);
  halfedge* bv = eb->half(1);
  halfedge* vc = ec->half(0);
  halfedge* cv = ec->half(1);
  // f: a->b->v->a, f1: b->c->v->b, f2: c->a->v->c
  h0->link(bv), bv->link(va), va->link(h0);
  h1->link(cv), cv->link(vb), vb->link(h1);
  h2->link(av), av->link(vc), vc->link(h2);
  bv->face_ = va->face_ = &f;
  h1->face_ = cv->face_ = vb->face_ = f1;
  h2->face_ = av->face_ = vc->face_ = f2;
  v->out_ = va;
  return v;
}

inline vertex* triangle_mesh::insert_vertex(halfedge& h0r, const vec3& p) {
  // before: v0 --h0--> v2, v2 --o0--> v0; after: v0 --h0--> v --h1--> v2,
  // v2 --o1--> v --o0--> v0.
  halfedge* h0 = &h0r;
  halfedge* h2 = h0->next();
  halfedge* o0 = h0->opposite();
  halfedge* o2 = o0->prev();
  vertex* v2 = h0->to_;
  face* fh = h0->face_;
  face* fo = o0->face_;
  vertex* v = vertices_.create(p);
  edge* e = new_edge(v, v2);
  halfedge* h1 = e->half(0);
  halfedge* o1 = e->half(1);
  h1->link(h2);
  h0->link(h1);
  h0->to_ = v;
  h1->face_ = fh;
  o1->link(o0);
  o2->link(o1);
  o1->face_ = fo;
  v2->out_ = o1;
  adjust_out(*v2);
  v->out_ = h1;
  adjust_out(*v);
  if (fh != nullptr) fh->half_ = h0;
  if (fo != nullptr) fo->half_ = o1;
  return v;
}

inline halfedge* triangle_mesh::insert_edge(halfedge& h0r, halfedge& h1r) {
  halfedge* h0 = &h0r;
  halfedge* h1 = &h1r;
  halfedge* h2 = h0->next();
  halfedge* h3 = h1->next();
  edge* e = new_edge(h0->to_, h1->to_);
  halfedge* h4 = e->half(0);
  halfedge* h5 = e->half(1);
  face* f0 = h0->face_;
  f0->half_ = h0;
  face* f1 = new_face(h1);
  h0->link(h4);
  h4->link(h3);
  h4->face_ = f0;
  h1->link(h5);
  h5->link(h2);
  halfedge* h = h2;
  do {
    h->face_ = f1;
    h = h->next();
  } while (h != h2);
  return h4;
}

inline bool triangle_mesh::is_collapse_ok(const halfedge& v0v1r) noexcept {
  halfedge* v0v1 = const_cast<halfedge*>(&v0v1r);
  halfedge* v1v0 = v0v1->opposite();
  vertex* v0 = v1v0->to();
  vertex* v1 = v0v1->to();
  vertex* vl = nullptr;
  vertex* vr = nullptr;
  // The edges v1-vl and vl-v0 must not both be boundary edges.
  if (!v0v1->is_boundary()) {
    halfedge* h1 = v0v1->next();
    halfedge* h2 = h1->next();
    vl = h1->to();
    if (h1->opposite()->is_boundary() && h2->opposite()->is_boundary()) return false;
  }
  // The edges v0-vr and vr-v1 must not both be boundary edges.
  if (!v1v0->is_boundary()) {
    halfedge* h1 = v1v0->next();
    halfedge* h2 = h1->next();
    vr = h1->to();
    if (h1->opposite()->is_boundary() && h2->opposite()->is_boundary()) return false;
  }
  if (vl == vr) return false;
  // An edge between two boundary vertices must be a boundary edge.
  if (is_boundary(*v0) && is_boundary(*v1) && !v0v1->is_boundary() && !v1v0->is_boundary()) return false;
  // Link condition, vertex part: the one-rings of v0 and v1 share only vl, vr.
  for (vertex* w : vertices_around(*v0))
    if (w != v1 && w != vl && w != vr && find_halfedge(*w, *v1) != nullptr) return false;
  // Link condition, edge part: no triangle (v0, vl, vr) and (v1, vl, vr) at
  // once (a tetrahedron would collapse to a double triangle).
  if (vl != nullptr && vr != nullptr) {
    if (halfedge* h = find_halfedge(*vl, *vr)) {
      auto third = [](halfedge* x) { return x->is_boundary() ? nullptr : x->next()->to(); };
      vertex* a = third(h);
      vertex* b = third(h->opposite());
      if ((a == v0 && b == v1) || (a == v1 && b == v0)) return false;
    }
  }
  return true;
}

inline void triangle_mesh::collapse(halfedge& h) {
  halfedge* h0 = &h;
  halfedge* h1 = h0->prev();
  halfedge* o0 = h0->opposite();
  halfedge* o1 = o0->next();
  remove_edge_helper(h0);
  if (h1->next()->next() == h1) remove_loop_helper(h1);
  if (o1->next()->next() == o1) remove_loop_helper(o1);
}

inline void triangle_mesh::remove_edge_helper(halfedge* h) {
  halfedge* hn = h->next();
  halfedge* hp = h->prev();
  halfedge* o = h->opposite();
  halfedge* on = o->next();
  halfedge* op = o->prev();
  face* fh = h->face_;
  face* fo = o->face_;
  vertex* vh = h->to_;
  vertex* vo = o->to_;
  // Only a boundary vertex needs its outgoing halfedge searched afresh.
  const bool on_boundary = vh->out_->is_boundary() || vo->out_->is_boundary();
  for (halfedge* hc : out_halfedges(*vo)) hc->opposite()->to_ = vh;
  hp->link(hn);
  op->link(on);
  if (fh != nullptr) fh->half_ = hn;
  if (fo != nullptr) fo->half_ = on;
  if (vh->out_ == o) vh->out_ = hn;
  if (on_boundary) adjust_out(*vh);
  vertices_.destroy(vo);
  edges_.destroy(h->edge());
}

inline void triangle_mesh::remove_loop_helper(halfedge* h) {
  halfedge* h0 = h;
  halfedge* h1 = h0->next();
  halfedge* o0 = h0->opposite();
  halfedge* o1 = h1->opposite();
  vertex* v0 = h0->to_;
  vertex* v1 = h1->to_;
  face* fh = h0->face_;
  face* fo = o0->face_;
  halfedge* o0p = o0->prev();
  halfedge* o0n = o0->next();
  o0p->link(h1);
  h1->link(o0n);
  h1->face_ = fo;
  // o0 (leaving v0) and h0 (leaving v1) vanish. h1 takes o0's face, so it
  // is a boundary halfedge iff o0 was; h0 had a face, so v1 is on the
  // boundary only if its outgoing halfedge already is a boundary one.
  if (v0->out_ == o0) v0->out_ = h1;
  if (v1->out_ == h0) v1->out_ = o1;
  if (fo != nullptr && fo->half_ == o0) fo->half_ = h1;
  if (fh != nullptr) faces_.destroy(fh);
  edges_.destroy(h0->edge());
}

inline void triangle_mesh::validate() const {
  auto fail = [](const std::string& what) { throw std::logic_error("triangle_mesh::validate: " + what); };
  auto live_h = [&](const halfedge* h) { return h != nullptr && edges_.contains(h->edge()); };
  std::size_t halfedges = 0;
  for (const edge& e : edges_) {
    for (unsigned s = 0; s < 2; ++s) {
      const halfedge* h = e.half(s);
      ++halfedges;
      if (h->side() != s) fail("halfedge side bit is wrong");
      if (h->next() != nullptr && (h->next_bits_ & halfedge::next_side_bit) != h->next()->side())
        fail("the side bit kept with next is wrong");
      if (h->opposite()->opposite() != h || h->opposite()->edge() != &e) fail("opposite is inconsistent");
      if (!live_h(h->next()) || !live_h(h->prev())) fail("next or prev is not a live halfedge");
      if (h->next()->prev() != h || h->prev()->next() != h) fail("next and prev disagree");
      if (h->to() == nullptr || !vertices_.contains(h->to())) fail("halfedge points at a dead vertex");
      if (h->to() == h->from()) fail("edge is a loop");
      if (h->next()->from() != h->to()) fail("next does not start where the halfedge ends");
      if (h->next()->face() != h->face()) fail("next lies in another face");
      if (h->face() != nullptr && !faces_.contains(h->face())) fail("halfedge points at a dead face");
      if (h->from()->out() == nullptr) fail("a vertex with edges has no outgoing halfedge");
    }
  }
  for (const face& f : faces_) {
    const halfedge* h = f.half();
    if (!live_h(h) || h->face() != &f) fail("face's halfedge is not in it");
    if (h->next()->next()->next() != h) fail("face is not a triangle");
  }
  std::size_t ring_total = 0;
  for (const vertex& v : vertices_) {
    if (v.out() == nullptr) continue;
    if (!live_h(v.out()) || v.out()->from() != &v) fail("vertex's outgoing halfedge does not start at it");
    bool boundary = false;
    std::size_t n = 0;
    for (halfedge* h : out_halfedges(v)) {
      if (h->from() != &v) fail("circulation left the vertex");
      boundary |= h->is_boundary();
      if (++n > halfedges) fail("circulation does not close");
    }
    if (boundary && !v.out()->is_boundary()) fail("boundary vertex's outgoing halfedge is not a boundary one");
    ring_total += n;
  }
  if (ring_total != halfedges) fail("a vertex is non-manifold (its fan misses some of its halfedges)");
}

}  // namespace travpool::mesh::bench::pointer
