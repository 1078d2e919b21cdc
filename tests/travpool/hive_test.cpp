// travpool::hive against [hive] (the C++26 working draft, P0447R28), clause
// by clause: [hive.overview] (types, iterators), [hive.cons], [hive.capacity]
// (limits, reserve, trim, reshape), [hive.modifiers], [hive.operations]
// (splice, unique, sort, get_iterator), [hive.erasure], the allocator-aware
// container requirements (all block memory from the allocator, propagation,
// uses-allocator construction), exception guarantees with a throwing T and
// a throwing allocator, and a randomized differential test against a model
// with small limits, so that it crosses thousands of blocks.
// Built twice: as hive_test (the build's default checks) and as
// hive_test_checks_default (checks::on, TRAVPOOL_CHECKS=1), where the
// misuse cases run.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <ranges>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// libc++ before 16 has no <memory_resource>.
#if __has_include(<memory_resource>)
#include <memory_resource>
#define TRAVPOOL_TEST_HAS_PMR 1
#endif

#include <catch2/catch.hpp>

#include <travpool/hive.hpp>

#include "pool_types.hpp"  // small_depth

namespace {

using travpool::hive;
using travpool::hive_limits;
template <class H>
constexpr bool checks_on = !std::is_same_v<typename H::checks_type, travpool::checks::off>;

template <class H>
std::multiset<typename H::value_type> values(const H& h) {
  return {h.begin(), h.end()};
}
template <class H>
std::vector<typename H::value_type> in_order(const H& h) {
  return {h.begin(), h.end()};
}
template <class H>
std::vector<const typename H::value_type*> addresses(const H& h) {
  std::vector<const typename H::value_type*> v;
  for (auto& e : h) v.push_back(&e);
  return v;
}
// Every block within the limits (validate checks it) and the structure sound.
// Iterators compare in iteration order ([hive.iterators]: <=> is a strong
// order), across blocks too.
template <class H>
bool ordered(const H& h) {
  bool ok = !(h.end() < h.begin());
  for (auto it = h.begin(), prev = it; it != h.end(); prev = it, ++it) {
    ok = ok && it < h.end() && (it == prev || (prev < it && !(it < prev) && (it <=> prev) > 0));
  }
  return ok;
}
template <class H>
void check(const H& h) {
  h.validate();
  CHECK(ordered(h));
  CHECK(static_cast<std::size_t>(std::distance(h.begin(), h.end())) == h.size());
  CHECK(h.size() <= h.capacity());
  CHECK(h.empty() == (h.size() == 0));
}

// The allocations of a stateful allocator: address -> bytes, and counters.
struct ledger {
  std::map<std::uintptr_t, std::size_t> out;
  std::size_t allocations = 0, bad_deallocations = 0;
  int fail_after = -1;  // allocations that succeed before one throws; -1: all
  // Returns: the allocations not given back (the hive's blocks, small and
  // large, when it holds no scratch memory).
  std::size_t blocks_out() const { return out.size(); }
  // Returns: the allocations of fewer than 64 KiB (a hive's small blocks)
  // not given back.
  std::size_t small_out() const {
    std::size_t n = 0;
    for (const auto& [where, bytes] : out) n += bytes < (std::size_t{64} << 10);
    return n;
  }
};

// A stateful allocator that records what it hands out. IgnoreAlignment:
// it returns memory aligned to 16 only, 16 bytes past an aligned address,
// as an allocator may that does not support extended alignment; and, for
// a type aligned to 16 (a hive's small blocks are asked for as such), 8
// bytes past it (not even that alignment: the hive then takes a 64 KiB
// block instead).
template <class T, bool Propagate = true, bool IgnoreAlignment = false>
struct tracking_allocator {
  using value_type = T;
  using propagate_on_container_copy_assignment = std::bool_constant<Propagate>;
  using propagate_on_container_move_assignment = std::bool_constant<Propagate>;
  using propagate_on_container_swap = std::bool_constant<Propagate>;
  using is_always_equal = std::false_type;
  ledger* book;
  explicit tracking_allocator(ledger* l) noexcept : book(l) {}
  template <class U>
  tracking_allocator(const tracking_allocator<U, Propagate, IgnoreAlignment>& o) noexcept : book(o.book) {}
  template <class U>
  struct rebind {
    using other = tracking_allocator<U, Propagate, IgnoreAlignment>;
  };
  static constexpr std::size_t shift = !IgnoreAlignment ? 0 : alignof(T) > 16 ? 16 : alignof(T) == 16 ? 8 : 0;
  T* allocate(std::size_t n) {
    if (book->fail_after == 0) throw std::bad_alloc();
    if (book->fail_after > 0) --book->fail_after;
    void* p = static_cast<std::byte*>(::operator new (n * sizeof(T) + shift, std::align_val_t{alignof(T)})) + shift;
    book->out.emplace(reinterpret_cast<std::uintptr_t>(p), n * sizeof(T));
    ++book->allocations;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const auto it = book->out.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == book->out.end() || it->second != n * sizeof(T)) {
      ++book->bad_deallocations;
      return;
    }
    book->out.erase(it);
    ::operator delete (reinterpret_cast<std::byte*>(p) - shift, std::align_val_t{alignof(T)});
  }
  template <class U>
  bool operator==(const tracking_allocator<U, Propagate, IgnoreAlignment>& o) const noexcept {
    return book == o.book;
  }
};

// A T whose copy constructor throws on the k-th copy (a global countdown).
struct fragile {
  static inline int copies_left = -1;  // -1: never throws
  int v = 0;
  explicit fragile(int x) : v(x) {}
  fragile(const fragile& o) : v(o.v) {
    if (copies_left == 0) throw std::runtime_error("fragile copy");
    if (copies_left > 0) --copies_left;
  }
  fragile& operator=(const fragile&) = default;
  bool operator==(const fragile& o) const noexcept { return v == o.v; }
  bool operator<(const fragile& o) const noexcept { return v < o.v; }
};

// An element that counts what is done to it (all counters global).
struct counted_tally {
  std::size_t constructs = 0, copies = 0, moves = 0, assigns = 0, destroys = 0, compares = 0;
  std::size_t element_ops() const { return constructs + copies + moves + assigns + destroys; }
};
struct counted {
  using tally = counted_tally;
  static inline tally now;
  int v = 0;
  explicit counted(int x) noexcept : v(x) { ++now.constructs; }
  counted(const counted& o) noexcept : v(o.v) { ++now.copies; }
  counted(counted&& o) noexcept : v(o.v) { ++now.moves; }
  counted& operator=(const counted& o) noexcept {
    v = o.v;
    ++now.assigns;
    return *this;
  }
  counted& operator=(counted&& o) noexcept {
    v = o.v;
    ++now.assigns;
    return *this;
  }
  ~counted() { ++now.destroys; }
  bool operator==(const counted& o) const noexcept {
    ++now.compares;
    return v == o.v;
  }
  bool operator<(const counted& o) const noexcept {
    ++now.compares;
    return v < o.v;
  }
  // Returns: what was done since the last call, and starts counting anew.
  static tally take() { return std::exchange(now, tally{}); }
};

// Requires that hive h holds exactly the elements of model, a list of
// (address, value) pairs: each element at its address, with its value.
template <class Hive>
void require_holds_model(const Hive& h, const std::vector<std::pair<const std::uint64_t*, std::uint64_t>>& model) {
  std::map<const std::uint64_t*, std::uint64_t> m(model.begin(), model.end());
  std::size_t seen = 0;
  for (const auto& e : h) {
    const auto it = m.find(&e);
    REQUIRE(it != m.end());
    REQUIRE(it->second == e);
    ++seen;
  }
  REQUIRE(seen == model.size());
}

}  // namespace

// ---- [hive.overview]: types and iterators ---------------------------------------------

TEST_CASE("hive: member types and iterator concepts", "[hive][overview]") {
  using H = hive<int>;
  STATIC_REQUIRE(std::is_same_v<H::value_type, int>);
  STATIC_REQUIRE(std::is_same_v<H::allocator_type, std::allocator<int>>);
  STATIC_REQUIRE(std::is_same_v<H::pointer, int*>);
  STATIC_REQUIRE(std::is_same_v<H::const_pointer, const int*>);
  STATIC_REQUIRE(std::is_same_v<H::reference, int&>);
  STATIC_REQUIRE(std::is_same_v<H::const_reference, const int&>);
  STATIC_REQUIRE(std::is_same_v<H::size_type, std::size_t>);
  STATIC_REQUIRE(std::is_same_v<H::difference_type, std::ptrdiff_t>);
  STATIC_REQUIRE(std::bidirectional_iterator<H::iterator>);
  STATIC_REQUIRE(std::bidirectional_iterator<H::const_iterator>);
  STATIC_REQUIRE(std::three_way_comparable<H::iterator, std::strong_ordering>);
  STATIC_REQUIRE(std::is_convertible_v<H::iterator, H::const_iterator>);
  STATIC_REQUIRE(std::is_same_v<H::reverse_iterator, std::reverse_iterator<H::iterator>>);
  STATIC_REQUIRE(std::ranges::bidirectional_range<H>);
  STATIC_REQUIRE(std::ranges::sized_range<H>);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<H>);
  STATIC_REQUIRE(std::is_nothrow_move_assignable_v<H>);
  STATIC_REQUIRE(std::is_nothrow_swappable_v<H>);
  STATIC_REQUIRE(TRAVPOOL_HIVE == 202502L);
  STATIC_REQUIRE(std::is_same_v<decltype(std::declval<H&>().get_iterator(nullptr)), H::iterator>);
  STATIC_REQUIRE(noexcept(std::declval<H&>().get_iterator(nullptr)));
  STATIC_REQUIRE(noexcept(std::declval<H&>().begin()));
  STATIC_REQUIRE(noexcept(std::declval<H&>().clear()));
  STATIC_REQUIRE(noexcept(std::declval<H&>().trim_capacity()));
  STATIC_REQUIRE(noexcept(H::block_capacity_hard_limits()));

  // Iteration order: ++ and -- are inverses, rbegin walks backwards, and
  // the relational operators agree with iteration order, across blocks.
  H h(hive_limits(4, 4));
  for (int i = 0; i < 30; ++i) h.insert(i);
  std::vector<int> fwd(h.begin(), h.end()), back(h.rbegin(), h.rend());
  std::reverse(back.begin(), back.end());
  CHECK(fwd == back);
  CHECK(fwd.size() == 30);
  std::vector<H::iterator> its;
  for (auto it = h.begin(); it != h.end(); ++it) its.push_back(it);
  its.push_back(h.end());
  for (std::size_t a = 0; a < its.size(); a += 3)
    for (std::size_t b = 0; b < its.size(); b += 2) {
      CHECK((its[a] < its[b]) == (a < b));
      CHECK((its[a] <=> its[b]) == (a <=> b));
      CHECK((its[a] == its[b]) == (a == b));
    }
  for (std::size_t k = 1; k < its.size(); ++k) CHECK(std::prev(its[k]) == its[k - 1]);
}

TEST_CASE("hive: block capacity limits: hard, default and per hive", "[hive][capacity][limits]") {
  using H = hive<std::uint64_t>;
  constexpr hive_limits hard = H::block_capacity_hard_limits(), def = H::block_capacity_default_limits();
  STATIC_REQUIRE(hard.min == 1);
  STATIC_REQUIRE(hard.min <= def.min);
  STATIC_REQUIRE(def.min <= def.max);
  STATIC_REQUIRE(def.max <= hard.max);
  STATIC_REQUIRE(H::is_within_hard_limits(def));
  STATIC_REQUIRE(H::is_within_hard_limits(hard));
  STATIC_REQUIRE(!H::is_within_hard_limits({0, 5}));
  STATIC_REQUIRE(!H::is_within_hard_limits({6, 5}));
  STATIC_REQUIRE(!H::is_within_hard_limits({1, hard.max + 1}));
  CHECK(H().block_capacity_limits().min == def.min);
  CHECK(H().block_capacity_limits().max == def.max);
  CHECK_THROWS_AS(H(hive_limits(0, 4)), std::length_error);
  CHECK_THROWS_AS(H(hive_limits(5, 4)), std::length_error);
  CHECK_THROWS_AS(H(10, hive_limits(5, 4)), std::length_error);
  H h(hive_limits(3, 7));
  CHECK(h.block_capacity_limits().min == 3);
  CHECK(h.block_capacity_limits().max == 7);
  for (std::uint64_t i = 0; i < 1000; ++i) h.insert(i);
  check(h);  // every block has 3 to 7 chunks
  CHECK(h.capacity() <= 1000 + 7);
  // Default limits: blocks grow until they fill 2 MiB, as pool<T>'s bins.
  H big;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) big.insert(i);
  check(big);
  CHECK(big.capacity() < 2 * big.size() + def.max);
}

// ---- [hive.cons] ------------------------------------------------------------------------

TEST_CASE("hive: constructors", "[hive][cons]") {
  const std::vector<int> src{5, 3, 8, 1, 9, 2};
  SECTION("default and allocator: empty, no memory") {
    hive<int> h;
    CHECK(h.empty());
    CHECK(h.capacity() == 0);
    CHECK(h.begin() == h.end());
    hive<int> g{std::allocator<int>()};
    CHECK(g.capacity() == 0);
  }
  SECTION("n default-inserted, n copies") {
    hive<int> a(100);
    CHECK(a.size() == 100);
    CHECK(std::all_of(a.begin(), a.end(), [](int x) { return x == 0; }));
    hive<int> b(50, 7, hive_limits(4, 8));
    CHECK(b.size() == 50);
    CHECK(std::all_of(b.begin(), b.end(), [](int x) { return x == 7; }));
    check(b);
    hive<std::string> c(3, hive_limits(2, 2));
    CHECK(in_order(c) == std::vector<std::string>(3));
  }
  SECTION("iterators, ranges and initializer lists keep the source's order") {
    hive<int> a(src.begin(), src.end());
    CHECK(in_order(a) == src);
    hive<int> b(src.begin(), src.end(), hive_limits(2, 3));
    CHECK(in_order(b) == src);
    check(b);
    std::list<int> l(src.begin(), src.end());  // a non-random-access source
    CHECK(in_order(hive<int>(l.begin(), l.end())) == src);
    const std::list<int> doubled{10, 6, 16, 2, 18, 4};
    hive<int> c(travpool::from_range, doubled);
    CHECK(in_order(c) == std::vector<int>{10, 6, 16, 2, 18, 4});
    hive<int> d(travpool::from_range, src, hive_limits(1, 1));
    CHECK(in_order(d) == src);
    check(d);
    hive<int> e{5, 3, 8};
    CHECK(in_order(e) == std::vector<int>{5, 3, 8});
    hive<int> f({5, 3, 8}, hive_limits(1, 2));
    CHECK(in_order(f) == std::vector<int>{5, 3, 8});
  }
  SECTION("copy: elements, order and limits; the source unchanged") {
    hive<int> a(src.begin(), src.end(), hive_limits(2, 5));
    a.erase(std::next(a.begin()));
    const hive<int> b(a);
    CHECK(in_order(b) == in_order(a));
    CHECK(b.block_capacity_limits().min == 2);
    CHECK(b.block_capacity_limits().max == 5);
    check(b);
    const hive<int> c(a, std::allocator<int>());
    CHECK(in_order(c) == in_order(a));
  }
  SECTION("move: O(1), elements keep their addresses") {
    hive<int> a(src.begin(), src.end(), hive_limits(2, 5));
    const auto where = addresses(a);
    const std::size_t cap = a.capacity();
    hive<int> b(std::move(a));
    CHECK(addresses(b) == where);
    CHECK(b.capacity() == cap);
    CHECK(b.block_capacity_limits().max == 5);
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): moved-from hives are empty
    CHECK(a.capacity() == 0);
    a.insert(1);  // and usable
    CHECK(a.size() == 1);
    check(a);
    check(b);
    hive<int> c(std::move(b), std::allocator<int>());
    CHECK(addresses(c) == where);
  }
  SECTION("deduction guides") {
    hive a(src.begin(), src.end());
    STATIC_REQUIRE(std::is_same_v<decltype(a), hive<int>>);
    hive b(src.begin(), src.end(), hive_limits(2, 4));
    STATIC_REQUIRE(std::is_same_v<decltype(b), hive<int>>);
    hive c(travpool::from_range, src);
    STATIC_REQUIRE(std::is_same_v<decltype(c), hive<int>>);
    hive d(travpool::from_range, src, hive_limits(2, 4));
    STATIC_REQUIRE(std::is_same_v<decltype(d), hive<int>>);
    CHECK(in_order(d) == src);
  }
}

TEST_CASE("hive: assignment and assign", "[hive][cons]") {
  hive<int> a{1, 2, 3}, b(hive_limits(2, 2));
  for (int i = 0; i < 10; ++i) b.insert(i);
  const std::size_t b_cap = b.capacity();
  b = a;  // b keeps its blocks and limits
  CHECK(in_order(b) == std::vector<int>{1, 2, 3});
  CHECK(b.capacity() == b_cap);
  CHECK(b.block_capacity_limits().max == 2);
  check(b);
  const hive<int>& same = b;
  b = same;  // self-assignment is a no-op
  CHECK(in_order(b) == std::vector<int>{1, 2, 3});
  b = {4, 5};
  CHECK(in_order(b) == std::vector<int>{4, 5});
  b.assign(3, 9);
  CHECK(in_order(b) == std::vector<int>{9, 9, 9});
  b.assign({7, 8});
  CHECK(in_order(b) == std::vector<int>{7, 8});
  const std::vector<int> v{6, 5, 4};
  b.assign(v.begin(), v.end());
  CHECK(in_order(b) == v);
  b.assign_range(std::list<int>{4, 5, 6});
  CHECK(in_order(b) == std::vector<int>{4, 5, 6});
  const auto where = addresses(a);
  b = std::move(a);  // takes a's blocks
  CHECK(addresses(b) == where);
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move)
  check(b);
}

// ---- allocator-aware container ----------------------------------------------------------

TEST_CASE("hive: every block comes from the allocator and goes back to it", "[hive][allocator]") {
  ledger book;
  using A = tracking_allocator<int>;
  {
    hive<int, A> h(hive_limits(16, 64), A(&book));
    CHECK(h.get_allocator() == A(&book));
    CHECK(book.allocations == 0);
    for (int i = 0; i < 5000; ++i) h.insert(i);
    CHECK(h.block_count() >= 5000 / 64);
    CHECK(book.blocks_out() == h.block_count());  // one allocation per block, nothing else held
    CHECK(book.out.size() == h.block_count());
    erase_if(h, [](int x) { return x % 2 == 0; });
    h.trim_capacity();
    h.sort(std::greater<>());  // scratch memory from the allocator, given back
    h.reshape(hive_limits(100, 200));
    check(h);
    CHECK(h.size() == 2500);
  }
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("hive: allocator propagation on copy, move and swap", "[hive][allocator]") {
  ledger la, lb;
  SECTION("propagating allocators follow the source") {
    using A = tracking_allocator<int, true>;
    {
      hive<int, A> a({1, 2, 3}, A(&la)), b({4}, A(&lb));
      b = a;
      CHECK(b.get_allocator() == A(&la));
      CHECK(in_order(b) == std::vector<int>{1, 2, 3});
      hive<int, A> c({9}, A(&lb));
      c = std::move(a);
      CHECK(c.get_allocator() == A(&la));
      CHECK(in_order(c) == std::vector<int>{1, 2, 3});
      hive<int, A> d({5, 6}, A(&lb));
      c.swap(d);
      CHECK(c.get_allocator() == A(&lb));
      CHECK(d.get_allocator() == A(&la));
      CHECK(in_order(c) == std::vector<int>{5, 6});
      check(c);
      check(d);
    }
    CHECK(la.out.empty());
    CHECK(lb.out.empty());
    CHECK(la.bad_deallocations + lb.bad_deallocations == 0);
  }
  SECTION("non-propagating unequal allocators: elements move one by one") {
    using A = tracking_allocator<int, false>;
    {
      hive<int, A> a({1, 2, 3}, A(&la)), b({4}, A(&lb));
      b = a;
      CHECK(b.get_allocator() == A(&lb));
      CHECK(in_order(b) == std::vector<int>{1, 2, 3});
      hive<int, A> c({9}, A(&lb));
      c = std::move(a);  // allocators differ: moves the elements
      CHECK(c.get_allocator() == A(&lb));
      CHECK(in_order(c) == std::vector<int>{1, 2, 3});
      CHECK(a.empty());  // NOLINT(bugprone-use-after-move)
      hive<int, A> d(std::move(c), A(&la));
      CHECK(d.get_allocator() == A(&la));
      CHECK(in_order(d) == std::vector<int>{1, 2, 3});
      CHECK(c.empty());  // NOLINT(bugprone-use-after-move)
      check(d);
    }
    CHECK(la.out.empty());
    CHECK(lb.out.empty());
    CHECK(la.bad_deallocations + lb.bad_deallocations == 0);
  }
}

TEST_CASE("hive: an allocator that ignores extended alignment: every block goes back through moves and swaps",
          "[hive][allocator]") {
  ledger la, lb;
  using A = tracking_allocator<int, true, true>;
  {
    hive<int, A> a(hive_limits(8, 64), A(&la)), b(hive_limits(8, 64), A(&lb));
    for (int i = 0; i < 3000; ++i) a.insert(i), b.insert(-i);
    CHECK(la.blocks_out() == a.block_count());
    CHECK(la.small_out() == 0);  // small blocks misaligned: 64 KiB blocks instead
    check(a);
    hive<int, A> c(std::move(a));  // c gives back a's blocks
    c.swap(b);                     // propagates: c has lb's blocks and allocator
    CHECK(c.get_allocator() == A(&lb));
    CHECK(b.get_allocator() == A(&la));
    hive<int, A> d(hive_limits(8, 64), A(&la));
    d.insert(7);
    b.splice(d);  // equal allocators
    b.reshape(hive_limits(100, 200));
    check(b);
    check(c);
    hive<int, A> e(hive_limits(8, 64), A(&lb));
    e = std::move(b);  // propagates: e takes la's blocks
    CHECK(e.get_allocator() == A(&la));
    CHECK(e.size() == 3001);
    e.shrink_to_fit();
    check(e);
  }
  CHECK(la.out.empty());
  CHECK(lb.out.empty());
  CHECK(la.bad_deallocations + lb.bad_deallocations == 0);
}

#if defined(TRAVPOOL_TEST_HAS_PMR)
TEST_CASE("hive: uses-allocator construction of the elements (pmr)", "[hive][allocator]") {
  std::pmr::monotonic_buffer_resource resource;
  using S = std::pmr::string;
  travpool::pmr::hive<S> h(&resource);
  STATIC_REQUIRE(std::is_same_v<decltype(h), hive<S, std::pmr::polymorphic_allocator<S>>>);
  h.emplace("a string long enough to need memory of its own, not the small buffer");
  h.insert(S("another string long enough to need memory of its own"));
  for (const S& s : h) CHECK(s.get_allocator().resource() == &resource);
  CHECK(h.get_allocator().resource() == &resource);
  check(h);
}
#endif

TEST_CASE("hive: a throwing allocator or T leaves the hive unchanged", "[hive][exceptions]") {
  SECTION("allocator") {
    ledger book;
    using A = tracking_allocator<int>;
    hive<int, A> h(hive_limits(2, 2), A(&book));
    h.insert(1);
    h.insert(2);  // the first block is full
    const auto before = in_order(h);
    const std::size_t cap = h.capacity();
    book.fail_after = 0;
    CHECK_THROWS_AS(h.insert(3), std::bad_alloc);
    CHECK_THROWS_AS(h.reserve(100), std::bad_alloc);
    CHECK(in_order(h) == before);
    CHECK(h.capacity() == cap);
    check(h);
    book.fail_after = -1;
    h.insert(3);
    CHECK(h.size() == 3);
  }
  SECTION("T's constructor") {
    hive<fragile> h(hive_limits(3, 3));
    for (int i = 0; i < 5; ++i) h.emplace(i);
    const auto before = addresses(h);
    const std::size_t cap = h.capacity();
    const fragile f(99);
    fragile::copies_left = 0;
    CHECK_THROWS_AS(h.insert(f), std::runtime_error);
    CHECK(addresses(h) == before);
    CHECK(h.capacity() == cap);
    check(h);
    // reshape needs to copy (fragile's move may throw: it has none but the
    // copy): it fails part-way, and the hive is unchanged.
    fragile::copies_left = 2;
    CHECK_THROWS_AS(h.reshape(hive_limits(7, 7)), std::runtime_error);
    CHECK(addresses(h) == before);
    CHECK(h.block_capacity_limits().min == 3);
    check(h);
    fragile::copies_left = -1;
  }
}

// ---- [hive.capacity] --------------------------------------------------------------------

TEST_CASE("hive: reserve, trim_capacity and shrink_to_fit", "[hive][capacity]") {
  hive<int> h(hive_limits(10, 100));
  CHECK_THROWS_AS(h.reserve(h.max_size() + 1), std::length_error);
  CHECK(h.capacity() == 0);
  h.reserve(1000);
  CHECK(h.capacity() >= 1000);
  check(h);  // the reserved blocks are within the limits
  for (int i = 0; i < 1000; ++i) h.insert(i);
  const auto where = addresses(h);
  h.reserve(5000);  // invalidates nothing
  CHECK(addresses(h) == where);
  CHECK(h.capacity() >= 5000);
  h.trim_capacity(2000);
  CHECK(h.capacity() >= 2000);
  CHECK(h.capacity() < 2100);
  h.trim_capacity();
  CHECK(h.capacity() < 1100);
  CHECK(addresses(h) == where);
  // Erase most, then shrink: the elements are moved into fewer blocks.
  erase_if(h, [](int x) { return x % 10 != 0; });
  const auto kept = in_order(h);
  h.shrink_to_fit();
  CHECK(in_order(h) == kept);
  CHECK(h.capacity() < 200);
  check(h);
}

TEST_CASE("hive: reshape", "[hive][capacity][limits]") {
  hive<int> h(hive_limits(4, 4));
  for (int i = 0; i < 100; ++i) h.insert(i);
  h.reserve(200);
  const auto order = in_order(h);
  const auto where = addresses(h);
  SECTION("limits that hold every block: nothing moves, reserved blocks stay") {
    const std::size_t cap = h.capacity();
    h.reshape(hive_limits(2, 8));
    CHECK(addresses(h) == where);
    CHECK(h.capacity() == cap);
    CHECK(h.block_capacity_limits().max == 8);
    check(h);
  }
  SECTION("limits that exclude the blocks: elements move, in order") {
    h.reshape(hive_limits(16, 32));
    CHECK(in_order(h) == order);
    CHECK(h.block_capacity_limits().min == 16);
    check(h);
    for (int i = 0; i < 100; ++i) h.insert(i);
    check(h);
  }
  SECTION("limits outside the hard limits: length_error, unchanged") {
    CHECK_THROWS_AS(h.reshape(hive_limits(0, 8)), std::length_error);
    CHECK_THROWS_AS(h.reshape(hive_limits(9, 8)), std::length_error);
    CHECK(addresses(h) == where);
    CHECK(h.block_capacity_limits().min == 4);
  }
}

// ---- [hive.modifiers] -------------------------------------------------------------------

TEMPLATE_TEST_CASE("hive: emplace, insert and erase", "[hive][modifiers]", hive<std::string>,
                   travpool::concurrent_hive<std::string>) {
  TestType h(hive_limits(3, 6));
  auto a = h.emplace(3, 'a');
  CHECK(*a == "aaa");
  auto b = h.insert(std::string("b"));
  const std::string c_value = "c";
  auto c = h.insert(c_value);
  auto d = h.emplace_hint(a, "d");
  auto e = h.insert(b, std::string("e"));
  auto f = h.insert(h.cend(), c_value);
  CHECK(*b == "b");
  CHECK(*c == "c");
  CHECK(*d == "d");
  CHECK(*e == "e");
  CHECK(*f == "c");
  CHECK(h.size() == 6);
  const auto* kept = &*d;
  // erase returns the next iterator and invalidates only the erased element.
  auto next = std::next(h.get_iterator(&*c));
  CHECK(h.erase(c) == next);
  CHECK(h.size() == 5);
  CHECK(&*h.get_iterator(kept) == kept);
  h.insert(4, "x");
  CHECK(std::count(h.begin(), h.end(), "x") == 4);
  const std::vector<std::string> more{"p", "q"};
  h.insert(more.begin(), more.end());
  h.insert({"r", "s"});
  h.insert_range(more);
  CHECK(h.size() == 5 + 4 + 2 + 2 + 2);
  // erase(first, last) returns last.
  auto first = h.begin(), last = std::next(h.begin(), 5);
  CHECK(h.erase(first, last) == last);
  CHECK(h.size() == 10);
  CHECK(h.erase(h.begin(), h.end()) == h.end());
  CHECK(h.empty());
  CHECK(h.capacity() > 0);  // blocks stay
  check(h);
  h.insert("again");
  h.clear();
  CHECK(h.empty());
  check(h);
}

TEST_CASE("hive: erase and erase_if (non-members)", "[hive][erasure]") {
  hive<int> h{1, 2, 3, 2, 5, 2};
  CHECK(erase(h, 2) == 3);
  CHECK(values(h) == std::multiset<int>{1, 3, 5});
  CHECK(erase_if(h, [](int x) { return x > 2; }) == 2);
  CHECK(in_order(h) == std::vector<int>{1});
}

TEST_CASE("hive: swap", "[hive][modifiers]") {
  hive<int> a({1, 2}, hive_limits(1, 3)), b({7, 8, 9});
  const auto wa = addresses(a), wb = addresses(b);
  a.swap(b);
  CHECK(addresses(a) == wb);
  CHECK(addresses(b) == wa);
  CHECK(a.block_capacity_limits().max == hive<int>::block_capacity_default_limits().max);
  CHECK(b.block_capacity_limits().max == 3);
  swap(a, b);
  CHECK(addresses(a) == wa);
  check(a);
  check(b);
}

// ---- [hive.operations] ------------------------------------------------------------------

TEST_CASE("hive: splice", "[hive][operations]") {
  hive<int> a({1, 2, 3}, hive_limits(2, 8)), b({4, 5, 6, 7}, hive_limits(3, 4));
  b.reserve(40);  // one active block of 4, nine reserved ones
  REQUIRE(b.capacity() == 40);
  const auto wa = addresses(a), wb = addresses(b);
  const std::size_t a_cap = a.capacity();
  a.splice(b);
  CHECK(b.empty());
  CHECK(a.size() == 7);
  // Reserved blocks are not transferred ([hive.operations]).
  CHECK(a.capacity() == a_cap + 4);
  CHECK(b.capacity() == 36);
  auto all = addresses(a);
  CHECK(std::vector<const int*>(all.begin(), all.begin() + 3) == wa);  // a's, then b's
  CHECK(std::vector<const int*>(all.begin() + 3, all.end()) == wb);
  for (const int* p : wb) CHECK(a.get_iterator(p) != a.end());
  for (const int* p : wb) CHECK(b.get_iterator(p) == b.end());
  // The spliced blocks order after a's own, and stay ordered after an insert.
  CHECK(a.get_iterator(wa.back()) < a.get_iterator(wb.front()));
  a.insert(9);
  check(a);
  check(b);
  b.insert(8);  // b goes on in its reserved blocks
  CHECK(b.capacity() == 36);
  check(b);
  // A block of the other hive outside the limits: length_error, nothing changes.
  hive<int> c({10, 11}, hive_limits(16, 16));
  const auto wc = addresses(c);
  CHECK_THROWS_AS(a.splice(c), std::length_error);
  CHECK(addresses(c) == wc);
  CHECK(a.size() == 8);
  // Reserved blocks outside the limits do not count, and stay.
  hive<int> d(hive_limits(16, 16));
  d.reserve(64);
  const std::size_t cap = a.capacity();
  a.splice(std::move(d));
  CHECK(a.capacity() == cap);
  CHECK(d.capacity() == 64);  // NOLINT(bugprone-use-after-move): splice leaves d valid
  check(a);
}

TEST_CASE("hive: unique", "[hive][operations]") {
  hive<int> h{1, 1, 2, 2, 2, 3, 1, 1, 4};
  CHECK(h.unique() == 4);
  CHECK(in_order(h) == std::vector<int>{1, 2, 3, 1, 4});
  hive<int> g{1, 2, 4, 5, 7, 10};
  // The first of each group stays; pred gets (element, the one before it).
  std::vector<std::pair<int, int>> calls;
  CHECK(g.unique([&](int x, int before) {
    calls.emplace_back(x, before);
    return x / 3 == before / 3;
  }) == 2);
  CHECK(in_order(g) == std::vector<int>{1, 4, 7, 10});
  CHECK(calls == std::vector<std::pair<int, int>>{{2, 1}, {4, 1}, {5, 4}, {7, 4}, {10, 7}});
  hive<int> e;
  CHECK(e.unique() == 0);
}

TEST_CASE("hive: sort", "[hive][operations]") {
  hive<int> h(hive_limits(5, 9));
  std::mt19937 rng(7);
  std::vector<int> model;
  for (int i = 0; i < 3000; ++i) {
    const int v = static_cast<int>(rng() % 500);
    h.insert(v);
    model.push_back(v);
  }
  erase_if(h, [](int x) { return x % 7 == 0; });
  std::erase_if(model, [](int x) { return x % 7 == 0; });
  const auto where = addresses(h);
  h.sort();
  std::sort(model.begin(), model.end());
  CHECK(in_order(h) == model);
  CHECK(addresses(h) == where);  // values moved, not slots
  h.sort(std::greater<>());
  std::reverse(model.begin(), model.end());
  CHECK(in_order(h) == model);
  check(h);
  hive<std::string> s{"pear", "apple", "fig"};
  s.sort();
  CHECK(in_order(s) == std::vector<std::string>{"apple", "fig", "pear"});
  // A T whose moves may throw: sort applies the permutation with swaps.
  hive<fragile> f(hive_limits(2, 5));
  std::vector<int> keys;
  for (int i = 0; i < 200; ++i) {
    const int v = static_cast<int>(rng() % 50);
    f.emplace(v);
    keys.push_back(v);
  }
  const auto f_where = addresses(f);
  f.sort();
  std::sort(keys.begin(), keys.end());
  std::vector<int> f_keys;
  for (const fragile& x : f) f_keys.push_back(x.v);
  CHECK(f_keys == keys);
  CHECK(addresses(f) == f_where);
  // A move-only T (its moves cannot throw: the value buffer).
  hive<std::unique_ptr<int>> u(hive_limits(2, 3));
  for (int v : {5, 1, 4, 2, 3, 0}) u.insert(std::make_unique<int>(v));
  u.sort([](const auto& a, const auto& b) { return *a < *b; });
  std::vector<int> got;
  for (const auto& p : u) got.push_back(*p);
  CHECK(got == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("hive: get_iterator from a pointer", "[hive][operations]") {
  hive<int> h(hive_limits(3, 5));
  for (int i = 0; i < 100; ++i) h.insert(i);
  erase_if(h, [](int x) { return x % 3 == 0; });
  for (auto it = h.begin(); it != h.end(); ++it) {
    CHECK(h.get_iterator(&*it) == it);
    CHECK(std::as_const(h).get_iterator(&*it) == it);
  }
  // travpool: anything that is not an element gives end().
  int outside = 0;
  CHECK(h.get_iterator(&outside) == h.end());
  CHECK(h.get_iterator(nullptr) == h.end());
  hive<int> other{1};
  CHECK(h.get_iterator(&*other.begin()) == h.end());
  CHECK(h.contains(&*h.begin()));
  CHECK_FALSE(h.contains(&*other.begin()));
}

TEST_CASE("hive: for_each, partition, parallel_for_each and range sweep every element once", "[hive][extras]") {
  hive<int> h(hive_limits(7, 13));
  for (int i = 0; i < 1000; ++i) h.insert(i);
  erase_if(h, [](int x) { return x % 4 == 0; });
  long sum = 0;
  h.for_each([&](int x) { sum += x; });
  long parts = 0;
  for (const auto& r : h.partition(5))
    for (int x : r) parts += x;
  long expect = 0;
  for (int x : h) expect += x;
  CHECK(sum == expect);
  CHECK(parts == expect);
  std::atomic<long> parallel{0};
  travpool::parallel_for_each(
      h, [&](int x) { parallel += x; }, 3);
  CHECK(parallel == expect);
  // range(): splittable by element count at block boundaries, as TBB splits it.
  struct split {};
  auto r = h.range();
  REQUIRE(r.is_divisible());
  decltype(r) right(r, split{});
  CHECK(r.size() + right.size() == h.size());
  long ranged = 0;
  for (auto* part : {&r, &right})
    for (int x : *part) ranged += x;
  CHECK(ranged == expect);
  CHECK(h.block_count() >= 1000 / 13);
}

// ---- misuse (checks::on, checks::hardened) ----------------------------------------------

TEST_CASE("hive: misuse is a usage_error with checks and leaves the hive unchanged", "[hive][misuse]") {
  using H = hive<int>;
  if constexpr (checks_on<H>) {
    H h{1, 2, 3};
    const auto where = addresses(h);
    CHECK_THROWS_AS(h.erase(h.end()), travpool::usage_error);
    CHECK_THROWS_AS(h.splice(h), travpool::usage_error);
    H other({4, 5, 6}, hive_limits(3, 3));
    const auto other_where = addresses(other);
    CHECK_THROWS_AS(h.erase(other.begin()), travpool::usage_error);
    CHECK_THROWS_AS(h.erase(other.begin(), other.end()), travpool::usage_error);
    CHECK(addresses(h) == where);
    CHECK(addresses(other) == other_where);
    check(h);
    check(other);
    auto it = h.begin();
    h.erase(it);
    CHECK_THROWS_AS(h.erase(it), travpool::usage_error);  // already erased
    CHECK(h.size() == 2);
    check(h);
    ledger la, lb;
    using A = tracking_allocator<int, false>;
    hive<int, A> a({1}, A(&la)), b({2}, A(&lb));
    CHECK_THROWS_AS(a.splice(b), travpool::usage_error);
    CHECK(a.size() == 1);
    CHECK(b.size() == 1);
  } else {
    SUCCEED("misuse checks are off in this build (hive_test_checks_default runs them)");
  }
}

// ---- differential test against a model --------------------------------------------------

// ---- complexity ([hive] states each member's), in element operations and allocator calls -----

TEST_CASE("hive: complexity in element operations and allocator calls", "[hive][complexity]") {
  using H = hive<counted, tracking_allocator<counted>>;
  constexpr int n = 20000;
  ledger book;
  const tracking_allocator<counted> alloc(&book);
  H h(hive_limits(64, 256), alloc);
  counted::take();
  // insert: constant; one construction each, nothing else moves (addresses
  // kept), an allocation only for each new block.
  std::vector<const counted*> where;
  for (int i = 0; i < n; ++i) where.push_back(&*h.emplace(i));
  auto t = counted::take();
  CHECK(t.constructs == n);
  CHECK(t.element_ops() == std::size_t{n});
  CHECK(book.allocations == h.block_count());
  std::vector<const counted*> kept;
  for (const counted& e : h) kept.push_back(&e);
  CHECK(kept == where);
  // erase(pos): constant, one destruction; erase(first, last): one per element.
  for (int i = 0; i < n; i += 3) h.erase(h.get_iterator(where[static_cast<std::size_t>(i)]));
  t = counted::take();
  CHECK(t.destroys == (n + 2) / 3);
  CHECK(t.element_ops() == t.destroys);
  const auto size_before = h.size();
  auto first = h.begin(), last = first;
  std::advance(last, 1000);
  h.erase(first, last);
  t = counted::take();
  CHECK(t.destroys == 1000);
  CHECK(t.element_ops() == 1000);
  CHECK(h.size() == size_before - 1000);
  // get_iterator, reserve, trim_capacity: no element operations.
  CHECK(h.get_iterator(where.back())->v == n - 1);
  h.reserve(h.capacity() + 5000);
  h.trim_capacity();
  CHECK(counted::take().element_ops() == 0);
  // move construction and swap: constant; no element operation, no allocation.
  const std::size_t allocations = book.allocations;
  H moved(std::move(h));
  H other(alloc);
  other.swap(moved);
  t = counted::take();
  CHECK(t.element_ops() == 0);
  CHECK(book.allocations == allocations);
  // copy construction: linear, one copy each.
  const H copy(other);
  t = counted::take();
  CHECK(t.copies == other.size());
  CHECK(t.element_ops() == other.size());
  // splice: linear in blocks; no element operation, no allocation.
  H target(hive_limits(64, 256), alloc);
  target.insert(counted(-1));
  counted::take();
  const std::size_t spliced = other.size() + target.size(), allocations_before_splice = book.allocations;
  target.splice(other);
  t = counted::take();
  CHECK(t.element_ops() == 0);
  CHECK(book.allocations == allocations_before_splice);
  CHECK(target.size() == spliced);
  // unique: exactly size() - 1 applications of the predicate, here on runs
  // of three equal values (two of each three erased).
  int k = 0;
  for (counted& e : target) e.v = k++ / 3;
  counted::take();
  const std::size_t before_unique = target.size();
  CHECK(target.unique() == before_unique - (before_unique + 2) / 3);
  t = counted::take();
  CHECK(t.compares == before_unique - 1);
  CHECK(t.destroys == before_unique - target.size());
  // sort: about N log N comparisons (bounded here by 3 N log2 N); with a
  // nothrow move, each element moved out and back once.
  std::mt19937 rng(11);
  for (counted& e : target) e.v = static_cast<int>(rng() % 100000);
  counted::take();
  const auto sorted = static_cast<double>(target.size());
  target.sort();
  t = counted::take();
  CHECK(static_cast<double>(t.compares) <= 3 * sorted * std::log2(sorted));
  CHECK(t.moves + t.assigns <= 2 * target.size());
  CHECK(std::is_sorted(target.begin(), target.end()));
  // shrink_to_fit and reshape: linear in size; each element moved at most once.
  for (int i = 0; i < 4; ++i) erase_if(target, [&](const counted& e) { return e.v % 5 == i; });
  counted::take();
  const std::size_t blocks_before = target.block_count();
  target.shrink_to_fit();
  t = counted::take();
  CHECK(target.block_count() < blocks_before);  // it did move elements
  CHECK(t.moves > 0);
  CHECK(t.moves <= target.size());
  // Every block is outside the new limits: each element moves once.
  target.reshape(hive_limits(300, 400));
  t = counted::take();
  CHECK(t.moves == target.size());
  CHECK(t.destroys == t.moves);
  check(target);
  // clear: linear; one destruction each.
  const std::size_t cleared = target.size();
  target.clear();
  CHECK(counted::take().destroys == cleared);
}

// concurrent_hive too, used by one thread: its erase (under the block's
// lock), blocks of one capacity, retired blocks and splice.
TEMPLATE_TEST_CASE("hive: randomized operations against a model, across thousands of small blocks",
                   "[hive][differential]", hive<std::uint64_t>, travpool::concurrent_hive<std::uint64_t>) {
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u));
  TestType h(hive_limits(1 + rng() % 4, 5 + rng() % 8));
  // The model: (element address, value) of every element, in any order.
  std::vector<std::pair<const std::uint64_t*, std::uint64_t>> model;
  std::uint64_t next = 0;
  auto rebuild_model = [&] {
    model.clear();
    for (const auto& e : h) model.emplace_back(&e, e);
  };
  std::size_t most_blocks = 0;
  constexpr bool is_concurrent = std::is_same_v<TestType, travpool::concurrent_hive<std::uint64_t>>;
  // A quarter of the steps under a sanitizer (a block's every allocation
  // and release is a system call, and the sanitizers' hooks slow them), in
  // the stages after the first (small_depth) and with checks as the default
  // (hive_test_checks_default, a debug build): the unchecked GCC Release
  // build takes all 40,000.
  constexpr int steps = travpool::test::small_depth || TRAVPOOL_CHECKS != 0 ? 10000 : 40000;
  for (int step = 0; step < steps; ++step) {
    const unsigned op = static_cast<unsigned>(rng() % 100);
    if (op < 55 || model.empty()) {
      const auto it = h.insert(next);
      model.emplace_back(&*it, next++);
    } else if (op < 85) {
      const std::size_t k = rng() % model.size();
      const auto it = h.get_iterator(model[k].first);
      REQUIRE(it != h.end());
      REQUIRE(*it == model[k].second);
      h.erase(it);
      model[k] = model.back();
      model.pop_back();
    } else if (op < 90) {
      h.trim_capacity(rng() % (h.capacity() + 1));
    } else if (op < 93) {
      h.reserve(h.size() + rng() % 50);
    } else if (op < 94) {
      const std::size_t mn = 1 + rng() % 6;
      h.reshape(hive_limits(mn, mn + rng() % 10));
      rebuild_model();  // the elements may have moved
    } else if (op < 97) {
      TestType other(h.block_capacity_limits());
      for (int k = 0; k < 10; ++k) {
        const auto it = other.insert(next);
        model.emplace_back(&*it, next++);
      }
      h.splice(other);
      REQUIRE(other.empty());
    } else if (op < 98) {
      const auto before = model.size();
      h.unique([](std::uint64_t a, std::uint64_t b) { return a / 64 == b / 64; });
      rebuild_model();
      REQUIRE(model.size() <= before);
    } else {
      // The hive holds exactly the model's elements.
      require_holds_model(h, model);
    }
    REQUIRE(h.size() == model.size());
    // hive: at least capacity() / max blocks; concurrent_hive's blocks are
    // all of the limits' max, so fewer of them: counted.
    most_blocks = std::max(most_blocks, is_concurrent ? h.block_count() : h.capacity() / h.block_capacity_limits().max);
    if (step % 4000 == 0) h.validate();
  }
  h.validate();
  CHECK(most_blocks >= (is_concurrent ? 800 : 1000) * steps / 40000);
  for (const auto& [p, v] : model) REQUIRE(*h.get_iterator(p) == v);
}

// ---- small blocks ------------------------------------------------------------------------

TEST_CASE("hive: an empty hive allocates nothing", "[hive][allocator][small]") {
  ledger book;
  using A = tracking_allocator<int>;
  {
    hive<int, A> h{A(&book)};
    hive<int, A> g(hive_limits(3, 9), A(&book));
    h.reserve(0);
    h.trim_capacity();
    h.shrink_to_fit();
    h.clear();
    h.reshape(hive_limits(2, 2000));
    h.sort();
    h.unique();
    hive<int, A> copy(h);
    hive<int, A> moved(std::move(g));
    copy = moved;
    h.splice(moved);
    h.swap(copy);
    CHECK(h.get_iterator(nullptr) == h.end());
    CHECK(h.capacity() == 0);
    CHECK(h.block_count() == 0);
    CHECK(book.allocations == 0);
  }
  CHECK(book.allocations == 0);
}

TEST_CASE("hive: a small hive's first blocks are small and grow", "[hive][capacity][small]") {
  constexpr std::size_t kib64 = std::size_t{64} << 10;
  ledger book;
  using A = tracking_allocator<int>;
  using H = hive<int, A>;
  // The default limits' min: a few elements (those that fill 1 KiB).
  STATIC_REQUIRE(H::block_capacity_default_limits().min >= 8);
  STATIC_REQUIRE(H::block_capacity_default_limits().min <= 64);
  STATIC_REQUIRE(hive<std::array<char, 64>>::block_capacity_default_limits().min == 8);
  {
    H h{A(&book)};
    for (int i = 0; i < 10; ++i) h.insert(i);
    // 10 ints: one block of the default min, one allocation of at most 1 KiB.
    CHECK(h.block_count() == 1);
    CHECK(h.capacity() == H::block_capacity_default_limits().min);
    REQUIRE(book.out.size() == 1);
    CHECK(book.out.begin()->second <= 1024);
    // Growing: the total doubles with each block; blocks below 64 KiB first,
    // then 64 KiB blocks and larger, up to the default max.
    std::vector<std::size_t> sizes;
    for (int i = 10; i < 400000; ++i) {
      const std::size_t before = h.capacity();
      h.insert(i);
      if (h.capacity() != before) sizes.push_back(h.capacity() - before);
    }
    check(h);
    REQUIRE(sizes.size() >= 8);
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      CHECK(sizes[k] <= H::block_capacity_default_limits().max);
      if (k != 0) CHECK(sizes[k] >= sizes[k - 1]);  // never smaller than the one before
    }
    CHECK(book.small_out() >= 5);  // 1, 1, 2, 4, 8, 16, 32 KiB
    CHECK(book.small_out() <= 8);
    std::size_t first_large = 0;
    for (const auto& [where, bytes] : book.out) first_large += bytes >= kib64;
    CHECK(first_large + book.small_out() == h.block_count());
    // Every pointer of every block, small or large, finds its element.
    for (auto it = h.begin(); it != h.end(); ++it) REQUIRE(h.get_iterator(&*it) == it);
  }
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("hive: get_iterator, contains, splice and reshape across small and large blocks",
          "[hive][operations][small]") {
  hive<int> big, small_one, other;
  for (int i = 0; i < 30000; ++i) big.insert(i);
  for (int i = 0; i < 10; ++i) small_one.insert(-i);
  for (int i = 0; i < 10; ++i) other.insert(1000000 + i);
  // Pointers that are no element: end(), from any block kind.
  int outside = 0;
  CHECK(big.get_iterator(&outside) == big.end());
  CHECK_FALSE(big.contains(&*small_one.begin()));
  CHECK_FALSE(small_one.contains(&*big.begin()));
  CHECK_FALSE(small_one.contains(&*other.begin()));
  const auto* inside = reinterpret_cast<const char*>(&*small_one.begin()) + 1;  // not an element's start
  CHECK(small_one.get_iterator(reinterpret_cast<const int*>(inside)) == small_one.end());
  // An erased element of a small block is no element.
  const int* gone = &*std::next(small_one.begin(), 3);
  small_one.erase(small_one.get_iterator(gone));
  CHECK_FALSE(small_one.contains(gone));
  const std::vector<const int*> wa = addresses(big), wb = addresses(small_one), wc = addresses(other);
  // A small hive's block spliced after a large hive's blocks, and a large
  // hive's blocks after a small hive's.
  big.splice(small_one);
  other.splice(big);
  CHECK(big.empty());
  CHECK(small_one.empty());
  check(other);
  CHECK(other.size() == wa.size() + wb.size() + wc.size());
  for (const auto* v : {&wc, &wa, &wb})
    for (const int* p : *v) {
      REQUIRE(other.get_iterator(p) != other.end());
      REQUIRE(&*other.get_iterator(p) == p);
      REQUIRE_FALSE(big.contains(p));
      REQUIRE_FALSE(small_one.contains(p));
    }
  // Iteration order: other's, then big's, then small_one's elements.
  std::vector<const int*> order = wc;
  order.insert(order.end(), wa.begin(), wa.end());
  order.insert(order.end(), wb.begin(), wb.end());
  CHECK(addresses(other) == order);
  CHECK(other.get_iterator(wc.back()) < other.get_iterator(wa.front()));
  CHECK(other.get_iterator(wa.back()) < other.get_iterator(wb.front()));
  // The emptied hives grow again from small blocks.
  big.insert(5);
  CHECK(big.capacity() == hive<int>::block_capacity_default_limits().min);
  // reshape into blocks of 50 to 60 chunks (16 small ones, then 64 KiB
  // ones), then back; the order is kept, every element found.
  std::vector<int> values(other.begin(), other.end());
  other.reshape(hive_limits(50, 60));
  check(other);
  CHECK(std::vector<int>(other.begin(), other.end()) == values);
  for (auto it = other.begin(); it != other.end(); ++it) REQUIRE(other.get_iterator(&*it) == it);
  other.reshape(hive<int>::block_capacity_default_limits());
  check(other);
  CHECK(std::vector<int>(other.begin(), other.end()) == values);
  for (auto it = other.begin(); it != other.end(); ++it) REQUIRE(other.get_iterator(&*it) == it);
  other.sort();
  check(other);
  CHECK(std::is_sorted(other.begin(), other.end()));
  // shrink_to_fit after erasing most: the remaining elements in few blocks.
  erase_if(other, [](int x) { return x % 100 != 0; });
  other.shrink_to_fit();
  check(other);
  for (auto it = other.begin(); it != other.end(); ++it) REQUIRE(other.get_iterator(&*it) == it);
}

TEST_CASE("hive: small limits: a few small blocks, then 64 KiB ones", "[hive][allocator][small]") {
  ledger book;
  using A = tracking_allocator<int>;
  {
    hive<int, A> h(hive_limits(4, 4), A(&book));
    std::vector<const int*> where;
    for (int i = 0; i < 400; ++i) where.push_back(&*h.insert(i));
    CHECK(h.block_count() == 100);
    CHECK(book.small_out() >= 1);
    CHECK(book.small_out() <= 16);  // a hive makes at most 16 small blocks
    check(h);
    for (std::size_t i = 0; i < where.size(); ++i) REQUIRE(*h.get_iterator(where[i]) == static_cast<int>(i));
    // Splices add up small blocks beyond 16: still found.
    for (int k = 0; k < 20; ++k) {
      hive<int, A> x(hive_limits(4, 4), A(&book));
      for (int i = 0; i < 3; ++i) where.push_back(&*x.insert(1000 + 3 * k + i));
      h.splice(x);
    }
    check(h);
    for (const int* p : where) REQUIRE(h.get_iterator(p) != h.end());
    CHECK(book.blocks_out() == h.block_count());
  }
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

// Default limits: small blocks, 64 KiB blocks and larger ones in one hive,
// with splices from small and large hives, reshapes and shrink_to_fit.
TEST_CASE("hive: randomized operations against a model, small and large blocks", "[hive][differential][small]") {
  std::mt19937_64 rng(GENERATE(11u, 12u));
  using H = hive<std::uint64_t>;
  H h;
  std::vector<std::pair<const std::uint64_t*, std::uint64_t>> model;
  std::uint64_t next = 0;
  auto rebuild_model = [&] {
    model.clear();
    for (const auto& e : h) model.emplace_back(&e, e);
  };
  constexpr int steps = travpool::test::small_depth || TRAVPOOL_CHECKS != 0 ? 150 : 500;
  for (int step = 0; step < steps; ++step) {
    const unsigned op = static_cast<unsigned>(rng() % 100);
    if (op < 40 || model.empty()) {
      // A burst: a few elements, or thousands (blocks of 64 KiB and more).
      const std::size_t n = rng() % 4 == 0 ? rng() % 6000 : rng() % 20;
      for (std::size_t k = 0; k < n; ++k) {
        const auto it = h.insert(next);
        model.emplace_back(&*it, next++);
      }
    } else if (op < 75) {
      const std::size_t n = std::min<std::size_t>(model.size(), 1 + rng() % 2000);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t j = rng() % model.size();
        const auto it = h.get_iterator(model[j].first);
        REQUIRE(it != h.end());
        REQUIRE(*it == model[j].second);
        h.erase(it);
        REQUIRE_FALSE(h.contains(model[j].first));
        model[j] = model.back();
        model.pop_back();
      }
    } else if (op < 80) {
      h.trim_capacity(rng() % (h.capacity() + 1));
    } else if (op < 83) {
      h.shrink_to_fit();
      rebuild_model();
    } else if (op < 85) {
      h.reshape(rng() % 2 == 0 ? hive_limits(1, 18) : H::block_capacity_default_limits());
      rebuild_model();
    } else if (op < 95) {
      H other(h.block_capacity_limits());
      const std::size_t n = rng() % 3 == 0 ? rng() % 5000 : 1 + rng() % 30;
      for (std::size_t k = 0; k < n; ++k) {
        const auto it = other.insert(next);
        model.emplace_back(&*it, next++);
      }
      if (rng() % 2 == 0) {
        h.splice(other);
      } else {
        other.splice(h);
        h.swap(other);
      }
      REQUIRE(other.empty());
    } else {
      require_holds_model(h, model);
    }
    REQUIRE(h.size() == model.size());
    if (step % 100 == 0) h.validate();
  }
  h.validate();
  for (const auto& [p, v] : model) REQUIRE(*h.get_iterator(p) == v);
}
