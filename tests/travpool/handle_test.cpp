// Strong handles (travpool/handle.hpp): kinds are distinct types, a handle
// is its index, the invalid handle is the default, hashing and ordering
// follow the index.
#include <cstdint>
#include <functional>
#include <type_traits>
#include <unordered_set>

#include <catch2/catch.hpp>

#include <travpool/handle.hpp>

namespace {

using namespace travpool;

struct vertex : basic_handle<vertex> {
  using basic_handle::basic_handle;
};
struct face : basic_handle<face> {
  using basic_handle::basic_handle;
  constexpr face twin() const noexcept { return face(idx() ^ 1u); }  // a kind's own member
};
struct tag_a;
struct tag_b;

template <class A, class B>
concept comparable = requires(A a, B b) {
  a == b;
};
template <class H>
concept from_index_implicitly = requires(void (*f)(H)) {
  f(std::uint32_t{1});
};

}  // namespace

TEST_CASE("strong handles: distinct kinds, the index, the invalid default", "[handle]") {
  STATIC_REQUIRE(strong_handle<vertex>);
  STATIC_REQUIRE(strong_handle<handle<tag_a>>);  // an incomplete tag
  STATIC_REQUIRE_FALSE(strong_handle<std::uint32_t>);
  STATIC_REQUIRE(sizeof(vertex) == 4 && std::is_trivially_copyable_v<vertex>);
  STATIC_REQUIRE_FALSE(comparable<vertex, face>);
  STATIC_REQUIRE_FALSE(comparable<handle<tag_a>, handle<tag_b>>);
  STATIC_REQUIRE_FALSE(comparable<vertex, std::uint32_t>);
  STATIC_REQUIRE_FALSE(from_index_implicitly<vertex>);  // explicit from an index
  STATIC_REQUIRE_FALSE(std::is_convertible_v<vertex, std::uint32_t>);

  constexpr vertex none;
  STATIC_REQUIRE(!none.is_valid());
  STATIC_REQUIRE(none.idx() == vertex::invalid_index);
  STATIC_REQUIRE(vertex::invalid_index == 0xffff'ffffu);
  constexpr vertex v(7);
  STATIC_REQUIRE(v.is_valid() && v.idx() == 7 && handle_index(v) == 7);
  STATIC_REQUIRE(handle_index(std::uint32_t{9}) == 9);
  STATIC_REQUIRE(vertex(3) < vertex(4) && vertex(4) == vertex(4) && vertex(4) != vertex(5));
  STATIC_REQUIRE(face(6).twin() == face(7));
  STATIC_REQUIRE(std::is_same_v<detail::handle_of_t<std::uint32_t>, std::uint32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::handle_of_t<vertex>, vertex>);
  STATIC_REQUIRE(std::is_same_v<detail::handle_of_t<int>, handle<int>>);

  // Hashing: as the index, so a set of handles is a set of indices.
  REQUIRE(std::hash<vertex>()(vertex(42)) == std::hash<std::uint32_t>()(42));
  std::unordered_set<handle<tag_a>> set;
  for (std::uint32_t i = 0; i < 100; ++i) set.insert(handle<tag_a>(i % 37));
  REQUIRE(set.size() == 37);
  REQUIRE(set.count(handle<tag_a>(36)) == 1);
  REQUIRE(set.count(handle<tag_a>(37)) == 0);
}
