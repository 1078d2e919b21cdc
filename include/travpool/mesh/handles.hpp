// travpool/mesh/handles.hpp: the mesh's 32-bit handle types (Vertex,
// Halfedge, Edge, Face), its typed properties, and vec3.
//
// Vertex, Edge and Face are strong handles (travpool/handle.hpp), the
// handle types of the mesh's three column pools (basic_column_pool<Vertex>,
// ...), so a Vertex cannot be passed for a Face, to the mesh or to a pool;
// Halfedge is a strong handle of no pool:
//
//   Vertex, Edge, Face    = the handle of the element in its pool
//   Halfedge              = 2 * edge + side,  side in {0, 1}
//   opposite(h)           = h ^ 1,   edge(h) = h >> 1
//   invalid handle        = 0xffffffff (never live; default-constructed)
//
// A property is a typed key of one pool column, indexed by handle: one load
// from a base that never moves. A halfedge property is a column over edges
// whose element holds both halves, so p[h] is element h of a flat array.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <span>
#include <type_traits>

#include <travpool/column.hpp>
#include <travpool/config.hpp>
#include <travpool/handle.hpp>

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

struct vec3 {
  double x = 0, y = 0, z = 0;

  vec3& operator+=(const vec3& o) noexcept {
    x += o.x, y += o.y, z += o.z;
    return *this;
  }
  vec3& operator-=(const vec3& o) noexcept {
    x -= o.x, y -= o.y, z -= o.z;
    return *this;
  }
  vec3& operator*=(double s) noexcept {
    x *= s, y *= s, z *= s;
    return *this;
  }
  friend vec3 operator+(vec3 a, const vec3& b) noexcept { return a += b; }
  friend vec3 operator-(vec3 a, const vec3& b) noexcept { return a -= b; }
  friend vec3 operator*(vec3 a, double s) noexcept { return a *= s; }
  friend vec3 operator*(double s, vec3 a) noexcept { return a *= s; }
  friend bool operator==(const vec3&, const vec3&) = default;
};

inline double dot(const vec3& a, const vec3& b) noexcept { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline vec3 cross(const vec3& a, const vec3& b) noexcept {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(const vec3& a) noexcept { return std::sqrt(dot(a, a)); }
// Returns a / |a|, or a unchanged when |a| is 0.
inline vec3 normalized(const vec3& a) noexcept {
  const double n = norm(a);
  return n > 0 ? a * (1.0 / n) : a;
}

class Edge;

struct Vertex : basic_handle<Vertex> {
  using basic_handle::basic_handle;
};
struct Face : basic_handle<Face> {
  using basic_handle::basic_handle;
};
struct Halfedge : basic_handle<Halfedge> {
  using basic_handle::basic_handle;
  // The other half of the same edge: h ^ 1.
  constexpr Halfedge opposite() const noexcept { return Halfedge(idx() ^ 1u); }
  // 0 for the first half of its edge, 1 for the second.
  constexpr unsigned side() const noexcept { return idx() & 1u; }
  constexpr Edge edge() const noexcept;
};
class Edge : public basic_handle<Edge> {
 public:
  using basic_handle::basic_handle;
  // Its halfedge of side s: 2 * e + s.
  constexpr Halfedge halfedge(unsigned s) const noexcept { return Halfedge(2 * idx() + s); }
};
constexpr Edge Halfedge::edge() const noexcept { return Edge(idx() >> 1); }

static_assert(strong_handle<Vertex> && strong_handle<Halfedge> && strong_handle<Edge> && strong_handle<Face>);

// The pool that holds elements of kind Handle: a halfedge's is its edge's.
template <class Handle>
using pool_handle_t = std::conditional_t<std::is_same_v<Handle, Halfedge>, Edge, Handle>;

// The column element type that holds T for handle kind Handle: both halves
// of an edge for halfedges, T itself otherwise.
template <class Handle, class T>
using property_element = std::conditional_t<std::is_same_v<Handle, Halfedge>, std::array<T, 2>, T>;

// A typed key of one property column: p[h] is the value of element h. T may
// be const (a read-only view). Valid until its column is removed or the
// mesh is destroyed; stays valid across moves of the mesh. Unchecked: h
// must be live.
template <class Handle, class T>
class property {
  using element = property_element<Handle, std::remove_const_t<T>>;
  using key = column<std::conditional_t<std::is_const_v<T>, const element, element>, pool_handle_t<Handle>>;

 public:
  // As a property map's (<travpool/mesh/cgal.hpp>: get(p, h), put(p, h, v)).
  using key_type = Handle;
  using value_type = std::remove_const_t<T>;
  using reference = T&;

  property() = default;
  explicit property(key c) noexcept : c_(c) {}
  T& operator[](Handle h) const noexcept {
    if constexpr (std::is_same_v<Handle, Halfedge>) {
      // Element h is half h & 1 of edge h >> 1, at byte h * sizeof(T) of
      // the column: one scaled index, as in a flat T array (GCC does not
      // fold c_[h >> 1][h & 1] into that, which lengthened every walk).
      static_assert(sizeof(element) == 2 * sizeof(T));
      using byte = std::conditional_t<std::is_const_v<T>, const std::byte, std::byte>;
      byte* p = reinterpret_cast<byte*>(c_.data()) + std::size_t{h.idx()} * sizeof(T);
      return *std::launder(reinterpret_cast<T*>(p));
    } else {
      return c_[h];
    }
  }
  explicit operator bool() const noexcept { return static_cast<bool>(c_); }
  operator property<Handle, const T>() const noexcept requires(!std::is_const_v<T>) {
    return property<Handle, const T>(c_);
  }
  // The pool column under the property.
  key column_key() const noexcept { return c_; }

 private:
  key c_;
};

template <class T>
using vertex_property = property<Vertex, T>;
template <class T>
using halfedge_property = property<Halfedge, T>;
template <class T>
using edge_property = property<Edge, T>;
template <class T>
using face_property = property<Face, T>;

// How a property follows an edit (triangle_mesh::set_rule; docs/mesh.md
// "Property rules" lists the sources and weights of every edit).
enum class follow : std::uint8_t {
  none,              // nothing is written: new elements hold the initial value
  interpolate,       // the weighted sum of the sources (arithmetic types, vec3)
  copy_from_source,  // the value of the primary (first) source
  keep_survivor,     // a survivor keeps its value; a new element copies
  average            // the unweighted mean of the sources
};

// A source of an edit's new value: an element and its weight (the weights
// of one target sum to 1).
template <class Handle>
struct weighted {
  Handle handle;
  double weight = 0;
};

// A user rule: returns the new value of `target` from its sources (read
// through the property's key: they hold their values from before the
// edit). `target` is among the sources when it survives the edit; the
// sources are empty for an element with none of its kind (an edge that
// cuts a face).
template <class Handle, class T>
using follow_function = std::function<T(Handle target, std::span<const weighted<Handle>> sources)>;

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
