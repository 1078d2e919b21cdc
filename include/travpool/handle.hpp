// travpool/handle.hpp: strong 32-bit handles, the handle types of a
// basic_column_pool<Tag, Options...> (column_pool.hpp).
//
// A column pool names its elements by 32-bit indices. Raw, any index can be
// passed to any pool or column; typed, a handle of one kind cannot be
// passed where another kind is expected, at no cost (a handle is its index,
// passed in a register):
//
//   basic_handle<Kind>   the index of an element of kind Kind; Kind derives
//                        from it (CRTP), so a kind can add members (a mesh's
//                        Edge::halfedge(s)). Comparisons and std::hash come
//                        with it; a Kind compares only with the same Kind.
//   handle<Tag>          the plain kind for a tag type: handle<struct node>
//   handle_index(h)      the index of a raw or strong handle
//
//   invalid              index 0xffffffff: default-constructed, never issued
//   h == g  <=>  handle_index(h) == handle_index(g), for h, g of one kind
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace travpool {

// A strong 32-bit handle of the kind Kind (Kind derives from it).
template <class Kind>
class basic_handle {
 public:
  using index_type = std::uint32_t;
  static constexpr std::uint32_t invalid_index = 0xffff'ffffu;

  // Effects: the invalid handle.
  constexpr basic_handle() noexcept = default;
  constexpr explicit basic_handle(std::uint32_t i) noexcept : i_(i) {}
  // Returns: the index: element i of every column of its pool.
  constexpr std::uint32_t idx() const noexcept { return i_; }
  // Returns: whether it is not the invalid handle (not whether it is live:
  // ask its pool).
  constexpr bool is_valid() const noexcept { return i_ != invalid_index; }
  friend constexpr bool operator==(basic_handle, basic_handle) noexcept = default;
  friend constexpr auto operator<=>(basic_handle, basic_handle) noexcept = default;

 private:
  std::uint32_t i_ = invalid_index;
};

// A strong handle: a class derived from basic_handle<H>, constructible from
// its index, and no bigger than one.
template <class H>
concept strong_handle = std::derived_from<H, basic_handle<H>> && std::constructible_from<H, std::uint32_t> &&
                        sizeof(H) == sizeof(std::uint32_t);

// The plain strong handle of the kind Tag (Tag may be incomplete:
// basic_column_pool<handle<struct node>>).
template <class Tag>
struct handle : basic_handle<handle<Tag>> {
  using basic_handle<handle<Tag>>::basic_handle;
};

// Returns: h's index (h itself for a raw handle).
constexpr std::uint32_t handle_index(std::uint32_t h) noexcept { return h; }
template <strong_handle H>
constexpr std::uint32_t handle_index(H h) noexcept {
  return h.idx();
}

namespace detail {

// The handle type of basic_column_pool<Tag>: std::uint32_t itself (raw
// handles), a strong handle itself, else handle<Tag> (Tag complete).
template <class Tag>
struct handle_of {
  // A kind derived from basic_handle<Tag> that is not a strong handle (no
  // constructor from its index, a private base, data of its own) is an
  // error, not a tag: it would silently get handle<Tag>.
  static_assert(!std::is_base_of_v<basic_handle<Tag>, Tag>,
                "travpool: a kind derived from basic_handle<Kind> must be a strong_handle: constructible from "
                "std::uint32_t (using basic_handle::basic_handle;), publicly derived, and 4 bytes");
  using type = handle<Tag>;
};
template <>
struct handle_of<std::uint32_t> {
  using type = std::uint32_t;
};
template <strong_handle H>
struct handle_of<H> {
  using type = H;
};
template <class Tag>
using handle_of_t = typename handle_of<Tag>::type;

// A handle type: std::uint32_t or a strong handle.
template <class H>
concept pool_handle = std::same_as<H, std::uint32_t> || strong_handle<H>;

// Returns: the handle of type H with index i.
template <pool_handle H>
constexpr H make_handle(std::uint32_t i) noexcept {
  return H(i);
}

}  // namespace detail
}  // namespace travpool

// Hashes a strong handle as its index.
template <travpool::strong_handle H>
struct std::hash<H> {
  std::size_t operator()(H h) const noexcept { return std::hash<std::uint32_t>()(h.idx()); }
};
