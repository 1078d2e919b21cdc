// travpool::hive (and pool<T>, column_pool) with the element and allocator
// types the standard allows and ordinary code does not meet:
// * a T whose namespace declares a deleted unary operator& for every type,
//   so that `&x` of a hive<T> (whose associated namespaces include T's)
//   does not compile: every member that takes the address of the other
//   container or of an element must use std::addressof;
// * a T with a deleted member operator&: [hive.operations] asks sort only
//   that T be MoveInsertable, MoveAssignable and Swappable;
// * deduction guides, which must not take part in overload resolution when
//   the type deduced for Allocator does not qualify as an allocator
//   ([container.reqmts]);
// * a hive of a type named inside that type's own definition (a tree node
//   holding a hive of its children), while the type is incomplete.
#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/hive.hpp>
#include <travpool/pool.hpp>

namespace adl_trap {

// Found by argument-dependent lookup for any type that has adl_trap among
// its associated namespaces: a hive<value>, its iterators, a pool<value>.
template <class U>
void operator&(const U&) = delete;

struct value {
  int v = 0;
  value() = default;
  value(int x) noexcept : v(x) {}  // NOLINT(google-explicit-constructor)
  friend bool operator==(const value& a, const value& b) noexcept { return a.v == b.v; }
  friend bool operator<(const value& a, const value& b) noexcept { return a.v < b.v; }
  friend bool operator>(const value& a, const value& b) noexcept { return a.v > b.v; }
};

// A value whose moves may throw: sort's swap path.
struct throwing_move_value {
  int v = 0;
  throwing_move_value() = default;
  throwing_move_value(int x) : v(x) {}  // NOLINT(google-explicit-constructor)
  throwing_move_value(const throwing_move_value& o) : v(o.v) {}
  throwing_move_value& operator=(const throwing_move_value& o) {
    v = o.v;
    return *this;
  }
  friend bool operator<(const throwing_move_value& a, const throwing_move_value& b) noexcept { return a.v < b.v; }
};

struct tag {};  // a column pool's tag

}  // namespace adl_trap

namespace {

// A T with a deleted member operator& (no namespace-scope one).
struct no_address {
  int v = 0;
  no_address() = default;
  no_address(int x) noexcept : v(x) {}  // NOLINT(google-explicit-constructor)
  void operator&() const = delete;
  friend bool operator<(const no_address& a, const no_address& b) noexcept { return a.v < b.v; }
  friend bool operator==(const no_address& a, const no_address& b) noexcept { return a.v == b.v; }
};
// The same with moves that may throw (sort's swap path).
struct no_address_throwing_move {
  int v = 0;
  no_address_throwing_move() = default;
  no_address_throwing_move(int x) : v(x) {}  // NOLINT(google-explicit-constructor)
  no_address_throwing_move(const no_address_throwing_move& o) : v(o.v) {}
  no_address_throwing_move& operator=(const no_address_throwing_move& o) {
    v = o.v;
    return *this;
  }
  void operator&() const = delete;
  friend bool operator<(const no_address_throwing_move& a, const no_address_throwing_move& b) noexcept {
    return a.v < b.v;
  }
};

template <class H>
std::vector<int> keys(const H& h) {
  std::vector<int> out;
  for (const auto& e : h) out.push_back(e.v);
  return out;
}

}  // namespace

TEST_CASE("hive: members that take an address compile for a T whose namespace deletes unary operator&",
          "[hive][conformance]") {
  using H = travpool::hive<adl_trap::value>;
  H a{3, 1, 2}, b{7, 5};
  H c(a);            // copy construction
  c = b;             // copy assignment
  c = std::move(a);  // move assignment
  CHECK(keys(c) == std::vector<int>{3, 1, 2});
  H& self = c;  // through a reference: Clang warns at a literal c = c
  c = self;     // self-assignment is a no-op
  CHECK(c.size() == 3);
  H d(std::move(c), c.get_allocator());
  c.swap(d);   // member swap
  swap(c, d);  // the non-member, found by ADL
  std::swap(c, d);
  CHECK(keys(c) == std::vector<int>{3, 1, 2});
  CHECK(keys(d).empty());
  H e{9, 8};
  c.splice(e);  // splice of an lvalue and of an rvalue
  c.splice(H{4});
  CHECK(c.size() == 6);
  CHECK(e.empty());
  c.sort();
  CHECK(keys(c) == std::vector<int>{1, 2, 3, 4, 8, 9});
  c.sort(std::greater<>());
  CHECK(keys(c) == std::vector<int>{9, 8, 4, 3, 2, 1});
  c.insert(9);
  CHECK(c.unique() == 0);  // the two nines are not adjacent
  c.sort();
  CHECK(c.unique() == 1);
  // Iterators: comparisons, get_iterator, erase, reverse iteration.
  auto it = c.get_iterator(std::addressof(*std::next(c.begin())));
  CHECK(it->v == 2);
  CHECK(c.begin() < it);
  CHECK(std::is_lt(it <=> c.end()));
  CHECK(c.rbegin()->v == 9);
  it = c.erase(it);
  CHECK(it->v == 3);
  CHECK(erase(c, adl_trap::value(3)) == 1);
  CHECK(erase_if(c, [](const adl_trap::value& x) { return x.v > 8; }) == 1);
  c.reshape(travpool::hive_limits(2, 4));
  c.shrink_to_fit();
  c.validate();
  CHECK(keys(c) == std::vector<int>{1, 4, 8});
  // The sort that moves by swaps.
  travpool::hive<adl_trap::throwing_move_value> t{4, 2, 3}, u;
  t.sort();
  u = t;
  t.swap(u);
  t.splice(u);
  CHECK(keys(t) == std::vector<int>{2, 3, 4, 2, 3, 4});
  // concurrent_hive (its own core type).
  travpool::concurrent_hive<adl_trap::value> x{1, 2}, y{3};
  x = y;
  x.swap(y);
  x.splice(y);
  x = std::move(y);
  CHECK(keys(x).empty());
}

TEST_CASE(
    "pool and column_pool: members that take an address compile for a type whose namespace deletes unary "
    "operator&",
    "[pool][conformance]") {
  travpool::pool<adl_trap::value> p{1, 2}, q{3};
  adl_trap::value* e = p.create(5);
  CHECK(e->v == 5);
  p = q;
  p = std::move(q);
  p.swap(q);
  p.splice(q);
  CHECK(p.size() == 1);
  CHECK(p == p);
  travpool::concurrent_pool<adl_trap::value> cp, cq;
  cq.create(1);
  cp = cq;
  cp.splice(cq);
  CHECK(cp.size() == 2);
  travpool::basic_column_pool<adl_trap::tag> cols, other;
  (void)other.create();
  cols = std::move(other);
  CHECK(cols.size() == 1);
}

TEST_CASE("hive: sort of a T with a deleted member operator&", "[hive][conformance][operations]") {
  travpool::hive<no_address> h(travpool::hive_limits(2, 5));
  for (int v : {5, 1, 4, 2, 3, 0, 9, 7}) h.insert(v);
  h.sort();
  CHECK(keys(h) == std::vector<int>{0, 1, 2, 3, 4, 5, 7, 9});
  h.sort([](const no_address& a, const no_address& b) { return b < a; });
  CHECK(keys(h) == std::vector<int>{9, 7, 5, 4, 3, 2, 1, 0});
  CHECK(h.unique() == 0);
  travpool::hive<no_address_throwing_move> t(travpool::hive_limits(2, 5));
  for (int v : {5, 1, 4, 2, 3, 0, 9, 7}) t.insert(v);
  t.sort();
  CHECK(keys(t) == std::vector<int>{0, 1, 2, 3, 4, 5, 7, 9});
  t.sort([](const auto& a, const auto& b) { return b < a; });
  CHECK(keys(t) == std::vector<int>{9, 7, 5, 4, 3, 2, 1, 0});
  // The rest of the members on such a T.
  travpool::hive<no_address> g = h;
  g.splice(h);
  g.reshape(travpool::hive_limits(3, 3));
  CHECK(g.size() == 16);
  travpool::pool<no_address> p;
  no_address* e = p.create(3);
  CHECK(p.contains(e));
  p.destroy(e);
  CHECK(p.empty());
}

// ---- Deduction guides ([container.reqmts]) ----------------------------------------------

namespace {

// Not allocators: no value_type, or no allocate(size_t).
using not_an_allocator = float;
struct no_allocate {
  using value_type = int;
};

// Whether `travpool::hive(args...)` deduces (class template argument
// deduction from the guides, explicit and implicit).
template <class... A>
concept deduces = requires(A&&... a) {
  travpool::hive(static_cast<A&&>(a)...);
};

template <class R, class... A>
constexpr bool deduces_as = requires(A&&... a) {
  { travpool::hive(static_cast<A&&>(a)...) } -> std::same_as<R>;
};

using ints = std::vector<int>;
using it = ints::iterator;
using il = std::initializer_list<int>;
using alloc = std::allocator<int>;
using limits = travpool::hive_limits;

}  // namespace

TEST_CASE("hive: deduction guides do not take part when Allocator is not an allocator", "[hive][conformance][cons]") {
  using travpool::from_range_t;
  // Iterators.
  STATIC_REQUIRE(!deduces<it, it, not_an_allocator>);
  STATIC_REQUIRE(!deduces<it, it, no_allocate>);
  STATIC_REQUIRE(!deduces<it, it, limits, not_an_allocator>);
  STATIC_REQUIRE(!deduces<it, it, limits, no_allocate>);
  // from_range.
  STATIC_REQUIRE(!deduces<from_range_t, ints&, not_an_allocator>);
  STATIC_REQUIRE(!deduces<from_range_t, ints&, no_allocate>);
  STATIC_REQUIRE(!deduces<from_range_t, ints&, limits, not_an_allocator>);
  STATIC_REQUIRE(!deduces<from_range_t, ints&, limits, no_allocate>);
  // initializer_list (the constructors' implicit guides).
  STATIC_REQUIRE(!deduces<il, not_an_allocator>);
  STATIC_REQUIRE(!deduces<il, no_allocate>);
  STATIC_REQUIRE(!deduces<il, limits, not_an_allocator>);
  STATIC_REQUIRE(!deduces<il, limits, no_allocate>);
  // n copies of a value.
  STATIC_REQUIRE(!deduces<std::size_t, int, not_an_allocator>);
  STATIC_REQUIRE(!deduces<std::size_t, int, no_allocate>);
  STATIC_REQUIRE(!deduces<std::size_t, int, limits, no_allocate>);
  // Not a range.
  STATIC_REQUIRE(!deduces<from_range_t, int, alloc>);

  // Valid arguments still deduce.
  using H = travpool::hive<int>;
  STATIC_REQUIRE(deduces_as<H, it, it>);
  STATIC_REQUIRE(deduces_as<H, it, it, alloc>);
  STATIC_REQUIRE(deduces_as<H, it, it, limits>);
  STATIC_REQUIRE(deduces_as<H, it, it, limits, alloc>);
  STATIC_REQUIRE(deduces_as<H, from_range_t, ints&>);
  STATIC_REQUIRE(deduces_as<H, from_range_t, ints&, alloc>);
  STATIC_REQUIRE(deduces_as<H, from_range_t, ints&, limits>);
  STATIC_REQUIRE(deduces_as<H, from_range_t, ints&, limits, alloc>);
  STATIC_REQUIRE(deduces_as<H, il>);
  STATIC_REQUIRE(deduces_as<H, il, alloc>);
  STATIC_REQUIRE(deduces_as<H, il, limits, alloc>);
  STATIC_REQUIRE(deduces_as<H, std::size_t, int, alloc>);
  STATIC_REQUIRE(deduces_as<H, H&>);
  STATIC_REQUIRE(deduces_as<H, H&&, alloc>);
#if defined(__cpp_lib_memory_resource)
  using P = travpool::pmr::hive<int>;
  STATIC_REQUIRE(deduces_as<P, it, it, std::pmr::polymorphic_allocator<int>>);
  STATIC_REQUIRE(deduces_as<P, il, std::pmr::polymorphic_allocator<int>>);
#endif

  // And the deduced hives work.
  ints v{3, 1, 2};
  travpool::hive a(v.begin(), v.end());
  travpool::hive b(travpool::from_range, v, alloc());
  travpool::hive c({4, 5}, alloc());
  CHECK(a.size() == 3);
  CHECK(b.size() == 3);
  CHECK(c.size() == 2);
}

// ---- A hive named inside its element type's definition -----------------------------------

namespace {

// An allocator whose allocate is there only for a complete T: naming
// hive<node, complete_only<node>> inside node asked, when hive's class
// template was constrained by allocator_like, whether allocate(size_t) was
// callable while node was incomplete (a hard error: sizeof an incomplete
// type).
template <class T>
struct complete_only {
  using value_type = T;
  complete_only() = default;
  template <class U>
  complete_only(const complete_only<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) requires(sizeof(T) > 0) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  friend bool operator==(const complete_only&, const complete_only&) noexcept { return true; }
};

struct tree_node {
  int value = 0;
  std::unique_ptr<travpool::hive<tree_node, complete_only<tree_node>>> children;
  travpool::hive<tree_node*, complete_only<tree_node*>> links;  // a hive of pointers to the incomplete type
};

}  // namespace

TEST_CASE("hive: named inside its element type's own definition", "[hive][conformance]") {
  tree_node root;
  root.children = std::make_unique<travpool::hive<tree_node, complete_only<tree_node>>>();
  for (int i = 0; i < 3; ++i) root.children->insert(tree_node{i, nullptr, {}});
  for (tree_node& c : *root.children) root.links.insert(&c);
  CHECK(root.children->size() == 3);
  CHECK(root.links.size() == 3);
  int sum = 0;
  for (const tree_node* c : root.links) sum += c->value;
  CHECK(sum == 3);
}
