// travpool/mesh/cgal.hpp: travpool::mesh::triangle_mesh as a CGAL
// FaceListGraph and MutableFaceGraph, so that CGAL's BGL and Polygon Mesh
// Processing run on it unchanged (docs/mesh.md "CGAL").
//
// DESIGN NOTE
// ===========
// As CGAL's own adapters for OpenMesh and Surface_mesh: a specialisation
// of boost::graph_traits, the BGL free functions (found by argument-
// dependent lookup in travpool::mesh), and property maps.
//
//   descriptor          = the mesh's handle (Vertex, Halfedge, Edge, Face);
//                         null_* = the invalid handle
//   halfedge(v)         = opposite(out(v))    (CGAL: a halfedge ending at v)
//   halfedge(e)         = e.halfedge(0)
//   num_vertices(g)     = handle_bound<Vertex>(): above every live handle's
//                         index, >= distance(vertices(g)) (CGAL's concepts
//                         ask an upper bound; Surface_mesh counts its
//                         removed elements too), and so for edges,
//                         halfedges and faces
//   vertex_index etc.   = the handle's idx() (2 * edge + side for a
//                         halfedge): internal, read-only, no memory read
//   vertex_point        = a Point_3 of CGAL::Epick made from position(v)
//                         (both are three doubles: exact), written back
//                         by put
//   dynamic properties  = a column of the mesh (the pool's), added for the
//                         map and removed with its last copy: O(1) access
//                         by handle; from a const mesh, a vector indexed
//                         by handle (the mesh is not changed)
//
// The index maps are internal, as Surface_mesh's are: an algorithm sizes
// its arrays by num_*(g), the handle bound, and indexes them by handle,
// with no numbering pass and no map in memory. The mutable functions are the mesh's low-level
// connectivity primitives (mesh.hpp, "Low-level connectivity"): CGAL's
// Euler operations keep prev links there, and the mesh's own operations
// settle afterwards. A face CGAL leaves with more than three sides is a
// valid CGAL face but not a face of the mesh's own operations.
//
// Requires CGAL 5.5 (Debian's libcgal-dev) and Boost.Graph's headers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>

#include <CGAL/Dynamic_property_map.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Iterator_range.h>
#include <CGAL/boost/graph/iterator.h>
#include <CGAL/boost/graph/properties.h>

#include "mesh.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {
namespace cgal_detail {

// CGAL's edge: an edge that remembers the halfedge it was made from, as
// CGAL's checks require halfedge(edge(h)) == h. Equal, ordered and hashed
// as its edge.
class edge_descriptor {
 public:
  edge_descriptor() = default;
  explicit edge_descriptor(Halfedge h) noexcept : h_(h) {}
  // The edge, as its halfedge 0 (implicit: an edge property's key is Edge).
  edge_descriptor(Edge e) noexcept : h_(e.is_valid() ? e.halfedge(0) : Halfedge()) {}
  Halfedge halfedge() const noexcept { return h_; }
  Edge edge() const noexcept { return h_.is_valid() ? h_.edge() : Edge(); }
  operator Edge() const noexcept { return edge(); }
  std::uint32_t idx() const noexcept { return edge().idx(); }
  bool is_valid() const noexcept { return h_.is_valid(); }
  friend bool operator==(const edge_descriptor& a, const edge_descriptor& b) noexcept { return a.edge() == b.edge(); }
  friend auto operator<=>(const edge_descriptor& a, const edge_descriptor& b) noexcept { return a.edge() <=> b.edge(); }
  // For Boost's hash containers.
  friend std::size_t hash_value(const edge_descriptor& e) noexcept { return std::hash<Edge>{}(e.edge()); }

 private:
  Halfedge h_;
};

// The handle a key of a property map names.
template <class Key>
Key handle_of(Key k) noexcept {
  return k;
}
inline Edge handle_of(edge_descriptor e) noexcept { return e.edge(); }
template <class Key>
using handle_of_t = decltype(handle_of(std::declval<Key>()));

// The live edges as edge descriptors (Value = edge_descriptor), or both
// halves of every live edge, edge by edge (Value = Halfedge).
template <class Value>
class edge_walk {
  static constexpr bool halves = std::is_same_v<Value, Halfedge>;

 public:
  using base = element_range<Edge>::iterator;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using reference = Value;
  using pointer = void;
  using iterator_category = std::input_iterator_tag;  // yields prvalues
  using iterator_concept = std::forward_iterator_tag;

  edge_walk() = default;
  explicit edge_walk(base e) noexcept : e_(e) {}
  Value operator*() const noexcept {
    if constexpr (halves)
      return (*e_).halfedge(side_);
    else
      return edge_descriptor(*e_);
  }
  edge_walk& operator++() noexcept {
    if (!halves || side_ == 1) ++e_;
    if constexpr (halves) side_ ^= 1u;
    return *this;
  }
  edge_walk operator++(int) noexcept {
    edge_walk old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const edge_walk& a, const edge_walk& b) noexcept { return a.e_ == b.e_ && a.side_ == b.side_; }

 private:
  base e_{};
  unsigned side_ = 0;
};
using edge_iterator = edge_walk<edge_descriptor>;
using halfedge_iterator = edge_walk<Halfedge>;

// vertex_point: CGAL points made from, and written to, position(v).
class point_map {
 public:
  using key_type = Vertex;
  using value_type = CGAL::Epick::Point_3;
  using reference = value_type;
  using category = boost::read_write_property_map_tag;

  point_map() = default;
  explicit point_map(const triangle_mesh& m) noexcept : m_(&m) {}
  friend value_type get(const point_map& pm, Vertex v) noexcept {
    const vec3& p = pm.m_->position(v);
    return value_type(p.x, p.y, p.z);
  }
  // Requires: the map was made from a mutable mesh (as CGAL's own maps).
  friend void put(const point_map& pm, Vertex v, const value_type& p) noexcept {
    const_cast<triangle_mesh*>(pm.m_)->position(v) = vec3{p.x(), p.y(), p.z()};
  }
  value_type operator[](Vertex v) const noexcept { return get(*this, v); }

 private:
  const triangle_mesh* m_ = nullptr;
};

// A column name no other map of this program has.
inline std::string unique_name() {
  static std::atomic<std::uint64_t> next{0};
  return "cgal:dynamic:" + std::to_string(next.fetch_add(1, std::memory_order_relaxed));
}

// A dynamic property of a mutable mesh: a column of the mesh, added here
// and removed with the last copy of the map. O(1) by handle.
template <class Key, class T>
class column_map {
  using Handle = handle_of_t<Key>;
  struct holder {
    triangle_mesh* m;
    property<Handle, T> p;
    holder(triangle_mesh& mesh, property<Handle, T> key) noexcept : m(&mesh), p(key) {}
    holder(const holder&) = delete;
    holder& operator=(const holder&) = delete;
    // The column goes with the map, unless the mesh went first (moved
    // from: then its columns went with it).
    ~holder() {
      try {
        m->remove_property(p);
      } catch (...) {
      }
    }
  };

 public:
  using key_type = Key;
  using value_type = T;
  using reference = T&;
  using category = boost::lvalue_property_map_tag;

  column_map() = default;
  // Throws: std::bad_alloc.
  explicit column_map(triangle_mesh& m, T init = T{})
      : h_(std::make_shared<holder>(m, m.add_property<Handle, T>(unique_name(), std::move(init)))) {}
  friend T& get(const column_map& pm, Key k) noexcept { return pm.h_->p[handle_of(k)]; }
  friend void put(const column_map& pm, Key k, const T& v) { pm.h_->p[handle_of(k)] = v; }
  T& operator[](Key k) const noexcept { return h_->p[handle_of(k)]; }

 private:
  std::shared_ptr<holder> h_;
};

// One past the largest index of a live handle of kind Handle. O(n).
template <class Handle>
std::size_t index_bound(const triangle_mesh& m) {
  std::uint32_t bound = 0;
  if constexpr (std::is_same_v<Handle, Halfedge>) {
    for (const Edge e : m.edges()) bound = (std::max)(bound, 2 * e.idx() + 2);
  } else {
    const auto& range = [&]() -> decltype(auto) {
      if constexpr (std::is_same_v<Handle, Vertex>)
        return m.vertices();
      else if constexpr (std::is_same_v<Handle, Edge>)
        return m.edges();
      else
        return m.faces();
    }();
    for (const Handle h : range) bound = (std::max)(bound, h.idx() + 1);
  }
  return bound;
}

// A dynamic property of a const mesh: a vector indexed by handle, shared
// by the map's copies; the mesh is not changed.
template <class Key, class T>
class vector_map {
  using Handle = handle_of_t<Key>;

 public:
  using key_type = Key;
  using value_type = T;
  using reference = std::conditional_t<std::is_same_v<T, bool>, T, T&>;
  using category = boost::read_write_property_map_tag;

  vector_map() = default;
  explicit vector_map(const triangle_mesh& m, T init = T{})
      : v_(std::make_shared<std::vector<T>>(index_bound<Handle>(m), init)) {}
  friend reference get(const vector_map& pm, Key k) { return (*pm.v_)[handle_of(k).idx()]; }
  friend void put(const vector_map& pm, Key k, const T& v) { (*pm.v_)[handle_of(k).idx()] = v; }
  reference operator[](Key k) const { return (*v_)[handle_of(k).idx()]; }

 private:
  std::shared_ptr<std::vector<T>> v_;
};

// An element's index as a read-only property map (CGAL's vertex_index,
// halfedge_index, edge_index, face_index): its handle's idx(), a
// halfedge's 2 * edge + side, below num_vertices(g) etc. As Surface_mesh's
// SM_index_pmap: no memory is read.
template <class Key>
struct index_map {
  using category = boost::readable_property_map_tag;
  using value_type = std::uint32_t;
  using reference = std::uint32_t;
  using key_type = Key;
  value_type operator[](Key k) const noexcept { return handle_of(k).idx(); }
  friend value_type get(index_map, Key k) noexcept { return handle_of(k).idx(); }
};

}  // namespace cgal_detail
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh

template <>
struct std::hash<travpool::mesh::cgal_detail::edge_descriptor> {
  std::size_t operator()(const travpool::mesh::cgal_detail::edge_descriptor& e) const noexcept {
    return std::hash<travpool::mesh::Edge>{}(e.edge());
  }
};

namespace boost {

template <>
struct graph_traits<travpool::mesh::triangle_mesh> {
 private:
  using G = travpool::mesh::triangle_mesh;
  struct traversal : public virtual boost::bidirectional_graph_tag,
                     public virtual boost::vertex_list_graph_tag,
                     public virtual boost::edge_list_graph_tag,
                     public virtual boost::adjacency_graph_tag {};

 public:
  using vertex_descriptor = travpool::mesh::Vertex;
  using halfedge_descriptor = travpool::mesh::Halfedge;
  using edge_descriptor = travpool::mesh::cgal_detail::edge_descriptor;
  using face_descriptor = travpool::mesh::Face;
  using directed_category = boost::undirected_tag;
  using edge_parallel_category = boost::disallow_parallel_edge_tag;
  using traversal_category = traversal;

  using vertex_iterator = travpool::mesh::element_range<vertex_descriptor>::iterator;
  using edge_iterator = travpool::mesh::cgal_detail::edge_iterator;
  using face_iterator = travpool::mesh::element_range<face_descriptor>::iterator;
  using halfedge_iterator = travpool::mesh::cgal_detail::halfedge_iterator;
  using in_edge_iterator = CGAL::In_edge_iterator<G>;
  using out_edge_iterator = CGAL::Out_edge_iterator<G>;
  using adjacency_iterator = CGAL::Vertex_around_target_iterator<G>;

  using vertices_size_type = std::uint32_t;
  using edges_size_type = std::uint32_t;
  using halfedges_size_type = std::uint32_t;
  using faces_size_type = std::uint32_t;
  using degree_size_type = std::uint32_t;

  static vertex_descriptor null_vertex() noexcept { return {}; }
  static halfedge_descriptor null_halfedge() noexcept { return {}; }
  static face_descriptor null_face() noexcept { return {}; }
};

template <>
struct graph_traits<const travpool::mesh::triangle_mesh> : graph_traits<travpool::mesh::triangle_mesh> {};

#define TRAVPOOL_CGAL_INDEX_MAP(TAG, KEY)                     \
  template <>                                                 \
  struct property_map<travpool::mesh::triangle_mesh, TAG> {   \
    using type = travpool::mesh::cgal_detail::index_map<KEY>; \
    using const_type = type;                                  \
  };                                                          \
  template <>                                                 \
  struct property_map<const travpool::mesh::triangle_mesh, TAG> : property_map<travpool::mesh::triangle_mesh, TAG> {};
TRAVPOOL_CGAL_INDEX_MAP(boost::vertex_index_t, travpool::mesh::Vertex)
TRAVPOOL_CGAL_INDEX_MAP(boost::halfedge_index_t, travpool::mesh::Halfedge)
TRAVPOOL_CGAL_INDEX_MAP(boost::edge_index_t, travpool::mesh::cgal_detail::edge_descriptor)
TRAVPOOL_CGAL_INDEX_MAP(boost::face_index_t, travpool::mesh::Face)
#undef TRAVPOOL_CGAL_INDEX_MAP

template <>
struct property_map<travpool::mesh::triangle_mesh, boost::vertex_point_t> {
  using type = travpool::mesh::cgal_detail::point_map;
  using const_type = type;
};
template <>
struct property_map<const travpool::mesh::triangle_mesh, boost::vertex_point_t>
    : property_map<travpool::mesh::triangle_mesh, boost::vertex_point_t> {};

#define TRAVPOOL_CGAL_DYNAMIC_MAP(KIND, HANDLE)                                                  \
  template <class T>                                                                             \
  struct property_map<travpool::mesh::triangle_mesh, CGAL::dynamic_##KIND##_property_t<T>> {     \
    using type = travpool::mesh::cgal_detail::column_map<travpool::mesh::HANDLE, T>;             \
    using const_type = travpool::mesh::cgal_detail::vector_map<travpool::mesh::HANDLE, T>;       \
  };                                                                                             \
  template <class T>                                                                             \
  struct property_map<const travpool::mesh::triangle_mesh, CGAL::dynamic_##KIND##_property_t<T>> \
      : property_map<travpool::mesh::triangle_mesh, CGAL::dynamic_##KIND##_property_t<T>> {};
TRAVPOOL_CGAL_DYNAMIC_MAP(vertex, Vertex)
TRAVPOOL_CGAL_DYNAMIC_MAP(halfedge, Halfedge)
TRAVPOOL_CGAL_DYNAMIC_MAP(edge, cgal_detail::edge_descriptor)
TRAVPOOL_CGAL_DYNAMIC_MAP(face, Face)
#undef TRAVPOOL_CGAL_DYNAMIC_MAP

// Every property of the mesh is a Boost property map: an lvalue map of its
// elements (readable only through a read-only key).
template <class Handle, class T>
struct property_traits<travpool::mesh::property<Handle, T>> {
  using key_type = Handle;
  using value_type = std::remove_const_t<T>;
  using reference = T&;
  using category =
      std::conditional_t<std::is_const_v<T>, boost::readable_property_map_tag, boost::lvalue_property_map_tag>;
};

}  // namespace boost

namespace CGAL {
template <>
struct graph_has_property<travpool::mesh::triangle_mesh, boost::vertex_point_t> : CGAL::Tag_true {};
template <>
struct graph_has_property<travpool::mesh::triangle_mesh, boost::vertex_index_t> : CGAL::Tag_true {};
template <>
struct graph_has_property<travpool::mesh::triangle_mesh, boost::halfedge_index_t> : CGAL::Tag_true {};
template <>
struct graph_has_property<travpool::mesh::triangle_mesh, boost::edge_index_t> : CGAL::Tag_true {};
template <>
struct graph_has_property<travpool::mesh::triangle_mesh, boost::face_index_t> : CGAL::Tag_true {};
}  // namespace CGAL

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// -------------------------------------------------------------------------
// HalfedgeGraph, FaceGraph and their lists (read-only; O(1) unless noted)
// -------------------------------------------------------------------------

inline Vertex source(Halfedge h, const triangle_mesh& g) noexcept { return g.from(h); }
inline Vertex target(Halfedge h, const triangle_mesh& g) noexcept { return g.to(h); }
inline Vertex source(cgal_detail::edge_descriptor e, const triangle_mesh& g) noexcept { return g.from(e.halfedge()); }
inline Vertex target(cgal_detail::edge_descriptor e, const triangle_mesh& g) noexcept { return g.to(e.halfedge()); }
inline Halfedge next(Halfedge h, const triangle_mesh& g) noexcept { return g.next(h); }
// O(1) while CGAL edits the mesh (kept links); otherwise O(face or fan size).
// Always inlined: CGAL calls it in loops, and GCC otherwise keeps a call.
TRAVPOOL_ALWAYS_INLINE Halfedge prev(Halfedge h, const triangle_mesh& g) noexcept { return g.prev_linked(h); }
inline Halfedge opposite(Halfedge h, const triangle_mesh&) noexcept { return h.opposite(); }
inline cgal_detail::edge_descriptor edge(Halfedge h, const triangle_mesh&) noexcept {
  return cgal_detail::edge_descriptor(h);
}
inline Halfedge halfedge(cgal_detail::edge_descriptor e, const triangle_mesh&) noexcept { return e.halfedge(); }
inline Halfedge halfedge(Vertex v, const triangle_mesh& g) noexcept {
  const Halfedge o = g.out(v);
  return o.is_valid() ? o.opposite() : Halfedge();
}
inline Halfedge halfedge(Face f, const triangle_mesh& g) noexcept { return g.halfedge(f); }
inline Face face(Halfedge h, const triangle_mesh& g) noexcept { return g.face(h); }
// The halfedge from u to v, if any. O(valence).
inline std::pair<Halfedge, bool> halfedge(Vertex u, Vertex v, const triangle_mesh& g) noexcept {
  const Halfedge h = g.find_halfedge(u, v);
  return {h, h.is_valid()};
}
inline std::pair<cgal_detail::edge_descriptor, bool> edge(Vertex u, Vertex v, const triangle_mesh& g) noexcept {
  const Halfedge h = g.find_halfedge(u, v);
  return {cgal_detail::edge_descriptor(h), h.is_valid()};
}

inline CGAL::Iterator_range<element_range<Vertex>::iterator> vertices(const triangle_mesh& g) noexcept {
  return CGAL::make_range(g.vertices().begin(), g.vertices().end());
}
inline CGAL::Iterator_range<cgal_detail::edge_iterator> edges(const triangle_mesh& g) noexcept {
  return CGAL::make_range(cgal_detail::edge_iterator(g.edges().begin()), cgal_detail::edge_iterator(g.edges().end()));
}
inline CGAL::Iterator_range<element_range<Face>::iterator> faces(const triangle_mesh& g) noexcept {
  return CGAL::make_range(g.faces().begin(), g.faces().end());
}
inline CGAL::Iterator_range<cgal_detail::halfedge_iterator> halfedges(const triangle_mesh& g) noexcept {
  return CGAL::make_range(cgal_detail::halfedge_iterator(g.edges().begin()),
                          cgal_detail::halfedge_iterator(g.edges().end()));
}
// As CGAL's concepts allow ("an upper bound of the number of vertices")
// and Surface_mesh does (its removed elements count): the handle bound, so
// that the index maps below index arrays of this size. O(1).
inline std::uint32_t num_vertices(const triangle_mesh& g) noexcept {
  return static_cast<std::uint32_t>(g.handle_bound<Vertex>());
}
inline std::uint32_t num_edges(const triangle_mesh& g) noexcept {
  return static_cast<std::uint32_t>(g.handle_bound<Edge>());
}
inline std::uint32_t num_halfedges(const triangle_mesh& g) noexcept {
  return static_cast<std::uint32_t>(g.handle_bound<Halfedge>());
}
inline std::uint32_t num_faces(const triangle_mesh& g) noexcept {
  return static_cast<std::uint32_t>(g.handle_bound<Face>());
}

// -------------------------------------------------------------------------
// IncidenceGraph, BidirectionalGraph, AdjacencyGraph (O(valence))
// -------------------------------------------------------------------------

inline std::uint32_t degree(Vertex v, const triangle_mesh& g) noexcept {
  return static_cast<std::uint32_t>(g.is_isolated(v) ? 0 : g.valence(v));
}
inline std::uint32_t out_degree(Vertex v, const triangle_mesh& g) noexcept { return degree(v, g); }
inline std::uint32_t in_degree(Vertex v, const triangle_mesh& g) noexcept { return degree(v, g); }
inline std::uint32_t degree(Face f, const triangle_mesh& g) noexcept {
  std::uint32_t n = 0;
  for ([[maybe_unused]] const Halfedge h : g.halfedges_of(f)) ++n;
  return n;
}
inline CGAL::Iterator_range<CGAL::Out_edge_iterator<triangle_mesh>> out_edges(Vertex v, const triangle_mesh& g) {
  using iter = CGAL::Out_edge_iterator<triangle_mesh>;
  return CGAL::make_range(iter(halfedge(v, g), g), iter(halfedge(v, g), g, 1));
}
inline CGAL::Iterator_range<CGAL::In_edge_iterator<triangle_mesh>> in_edges(Vertex v, const triangle_mesh& g) {
  using iter = CGAL::In_edge_iterator<triangle_mesh>;
  return CGAL::make_range(iter(halfedge(v, g), g), iter(halfedge(v, g), g, 1));
}
inline CGAL::Iterator_range<CGAL::Vertex_around_target_iterator<triangle_mesh>> adjacent_vertices(
    Vertex v, const triangle_mesh& g) {
  return CGAL::vertices_around_target(v, g);
}

// -------------------------------------------------------------------------
// MutableHalfedgeGraph, MutableFaceGraph (O(1); the mesh's low-level
// primitives: see the design note)
// -------------------------------------------------------------------------

inline Vertex add_vertex(triangle_mesh& g) { return g.new_vertex(); }
inline Vertex add_vertex(const CGAL::Epick::Point_3& p, triangle_mesh& g) {
  return g.add_vertex(vec3{p.x(), p.y(), p.z()});
}
inline cgal_detail::edge_descriptor add_edge(triangle_mesh& g) { return cgal_detail::edge_descriptor(g.new_edge()); }
inline Face add_face(triangle_mesh& g) { return g.new_face(); }
inline void remove_vertex(Vertex v, triangle_mesh& g) { g.remove(v); }
inline void remove_edge(cgal_detail::edge_descriptor e, triangle_mesh& g) { g.remove(e.edge()); }
inline void remove_face(Face f, triangle_mesh& g) { g.remove(f); }
inline void set_target(Halfedge h, Vertex v, triangle_mesh& g) { g.set_to(h, v); }
inline void set_next(Halfedge h, Halfedge n, triangle_mesh& g) { g.set_next(h, n); }
inline void set_face(Halfedge h, Face f, triangle_mesh& g) { g.set_face(h, f); }
inline void set_halfedge(Face f, Halfedge h, triangle_mesh& g) { g.set_halfedge(f, h); }
// CGAL's halfedge(v) ends at v; the mesh keeps the one leaving v.
inline void set_halfedge(Vertex v, Halfedge h, triangle_mesh& g) {
  g.set_out(v, h.is_valid() ? h.opposite() : Halfedge());
}
// Room for nv vertices, ne edges and nf faces in all (triangle_mesh::reserve).
inline void reserve(triangle_mesh& g, std::uint32_t nv, std::uint32_t ne, std::uint32_t nf) { g.reserve(nv, ne, nf); }

// -------------------------------------------------------------------------
// Property maps
// -------------------------------------------------------------------------

// A property of the mesh as a property map: get(p, h) is p[h] (an edge
// property takes CGAL's edge descriptors too).
template <class Handle, class T>
T& get(const property<Handle, T>& p, std::type_identity_t<Handle> h) noexcept {
  return p[h];
}
template <class Handle, class T>
void put(const property<Handle, T>& p, std::type_identity_t<Handle> h,
         const std::remove_const_t<T>& v) requires(!std::is_const_v<T>) {
  p[h] = v;
}

#define TRAVPOOL_CGAL_INDEX_GET(TAG, KEY)                                                   \
  inline cgal_detail::index_map<KEY> get(TAG, const triangle_mesh&) noexcept { return {}; } \
  inline std::uint32_t get(TAG, const triangle_mesh&, KEY k) noexcept { return cgal_detail::handle_of(k).idx(); }
TRAVPOOL_CGAL_INDEX_GET(boost::vertex_index_t, Vertex)
TRAVPOOL_CGAL_INDEX_GET(boost::halfedge_index_t, Halfedge)
TRAVPOOL_CGAL_INDEX_GET(boost::edge_index_t, cgal_detail::edge_descriptor)
TRAVPOOL_CGAL_INDEX_GET(boost::face_index_t, Face)
#undef TRAVPOOL_CGAL_INDEX_GET

inline cgal_detail::point_map get(boost::vertex_point_t, const triangle_mesh& g) noexcept {
  return cgal_detail::point_map(g);
}
inline CGAL::Epick::Point_3 get(boost::vertex_point_t, const triangle_mesh& g, Vertex v) noexcept {
  return get(cgal_detail::point_map(g), v);
}
inline void put(boost::vertex_point_t, triangle_mesh& g, Vertex v, const CGAL::Epick::Point_3& p) noexcept {
  put(cgal_detail::point_map(g), v, p);
}

#define TRAVPOOL_CGAL_DYNAMIC_GET(KIND, HANDLE)                                                          \
  template <class T>                                                                                     \
  cgal_detail::column_map<HANDLE, T> get(CGAL::dynamic_##KIND##_property_t<T>, triangle_mesh& g) {       \
    return cgal_detail::column_map<HANDLE, T>(g);                                                        \
  }                                                                                                      \
  template <class T>                                                                                     \
  cgal_detail::vector_map<HANDLE, T> get(CGAL::dynamic_##KIND##_property_t<T>, const triangle_mesh& g) { \
    return cgal_detail::vector_map<HANDLE, T>(g);                                                        \
  }
TRAVPOOL_CGAL_DYNAMIC_GET(vertex, Vertex)
TRAVPOOL_CGAL_DYNAMIC_GET(halfedge, Halfedge)
TRAVPOOL_CGAL_DYNAMIC_GET(edge, cgal_detail::edge_descriptor)
TRAVPOOL_CGAL_DYNAMIC_GET(face, Face)
#undef TRAVPOOL_CGAL_DYNAMIC_GET

// The maps' columns and vectors go with their last copy.
template <class Handle, class T>
void remove_property(const cgal_detail::column_map<Handle, T>&, const triangle_mesh&) noexcept {}
template <class Handle, class T>
void remove_property(const cgal_detail::vector_map<Handle, T>&, const triangle_mesh&) noexcept {}

// For CGAL's and Boost's hash containers of descriptors.
inline std::size_t hash_value(Vertex h) noexcept { return std::hash<Vertex>{}(h); }
inline std::size_t hash_value(Halfedge h) noexcept { return std::hash<Halfedge>{}(h); }
inline std::size_t hash_value(Edge h) noexcept { return std::hash<Edge>{}(h); }
inline std::size_t hash_value(Face h) noexcept { return std::hash<Face>{}(h); }

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
