// distance, advance, next and prev of travpool's iterators (pool<T>,
// concurrent_pool, hive, concurrent_hive; detail/pool_iterator.hpp), which
// skip whole bins by their live counts and count within a bin a bitmap
// word at a time, against a linear walk: every element's iterator, found
// by ++ from begin(), is at its rank, so distance(it[i], it[j]) == j - i
// and next(it[i], j - i) == it[j]. Random sizes, random erasures (whole
// blocks too), positions in every block, then again after splice and
// reshape; the layout without a bitmap (interleaved) takes the stepping
// path. Called as std::distance etc. (the overloads in namespace std),
// unqualified (the hidden friends, by ADL), and on reverse iterators.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/hive.hpp>
#include <travpool/pool.hpp>

#include "../test_access.hpp"

namespace {

using travpool::hive_limits;

template <class C>
constexpr bool checks_on = !std::is_same_v<typename C::checks_type, travpool::checks::off>;

template <class C>
std::vector<typename C::iterator> walk(C& c) {
  std::vector<typename C::iterator> v;
  for (auto it = c.begin(); it != c.end(); ++it) v.push_back(it);
  v.push_back(c.end());
  return v;
}

// Returns: the number of disagreements with the walk, over `pairs` random
// pairs of positions and every position against begin() and end().
template <class C>
std::size_t disagreements(C& c, std::mt19937& rng, int pairs) {
  const auto at = walk(c);
  const auto n = static_cast<std::ptrdiff_t>(at.size()) - 1;  // size()
  std::size_t bad = 0;
  auto expect = [&](bool ok) { bad += ok ? 0 : 1; };
  expect(std::distance(c.begin(), c.end()) == n);
  expect(std::next(c.begin(), n) == c.end());
  expect(std::prev(c.end(), n) == c.begin());
  expect(std::distance(c.rbegin(), c.rend()) == n);
  auto check_pair = [&](std::ptrdiff_t i, std::ptrdiff_t j) {
    const auto a = at[static_cast<std::size_t>(i)], b = at[static_cast<std::size_t>(j)];
    expect(std::distance(a, b) == j - i);
    expect(distance(a, b) == j - i);  // the hidden friend
    expect(std::next(a, j - i) == b);
    expect(std::prev(b, j - i) == a);
    expect(next(a, j - i) == b);
    expect(prev(b, j - i) == a);
    auto t = a;
    std::advance(t, j - i);
    expect(t == b);
    advance(t, i - j);
    expect(t == a);
    typename C::const_iterator ca = a;
    std::advance(ca, static_cast<int>(j - i));  // another Distance type
    expect(ca == typename C::const_iterator(b));
    expect(std::distance(typename C::const_iterator(a), typename C::const_iterator(b)) == j - i);
    // Reverse iterators: rank n - 1 - i for at[i] (i < n).
    if (i < n && j < n) {
      const typename C::reverse_iterator ra(std::next(a)), rb(std::next(b));
      expect(std::distance(ra, rb) == i - j);
      expect(std::next(ra, i - j) == rb);
      expect(std::prev(rb, i - j) == ra);
      auto rt = ra;
      std::advance(rt, i - j);
      expect(rt == rb);
    }
  };
  for (std::ptrdiff_t i = 0; i <= n; ++i) {
    check_pair(0, i);
    check_pair(i, n);
  }
  std::uniform_int_distribution<std::ptrdiff_t> pos(0, n);
  for (int k = 0; k < pairs; ++k) check_pair(pos(rng), pos(rng));
  // Short steps from every position.
  for (std::ptrdiff_t i = 0; i <= n; ++i)
    for (std::ptrdiff_t d : {1, 2, 3, 63, 64, 65}) {
      if (i + d <= n) check_pair(i, i + d);
      if (i - d >= 0) check_pair(i, i - d);
    }
  return bad;
}

// Erases at random (each element with probability `p`), and every element
// of some runs (so that whole blocks empty).
template <class C>
void erase_some(C& c, std::mt19937& rng, double p) {
  std::bernoulli_distribution coin(p), run(0.02);
  int run_left = 0;
  for (auto it = c.begin(); it != c.end();) {
    if (run_left == 0 && run(rng)) run_left = static_cast<int>(rng() % 300);
    const bool erase = run_left > 0 || coin(rng);
    if (run_left > 0) --run_left;
    it = erase ? c.erase(it) : std::next(it);
  }
}

template <class C>
void fill(C& c, int n) {
  if constexpr (requires { c.create(0); })
    for (int i = 0; i < n; ++i) c.create(i);
  else
    for (int i = 0; i < n; ++i) c.insert(i);
}

template <class C>
void differential(C make_one()) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 12; ++round) {
    C c = make_one();
    const int n = static_cast<int>(rng() % 6000);
    fill(c, n);
    erase_some(c, rng, round % 3 == 0 ? 0.05 : round % 3 == 1 ? 0.33 : 0.9);
    CHECK(disagreements(c, rng, 400) == 0);
    // Spliced: another container's bins after these.
    C other = make_one();
    fill(other, static_cast<int>(rng() % 3000));
    erase_some(other, rng, 0.4);
    c.splice(other);
    CHECK(disagreements(c, rng, 400) == 0);
    // Reshaped (hives), or refilled (pools).
    if constexpr (requires { c.reshape(hive_limits(1, 1)); }) {
      c.reshape(hive_limits(7 + round, 200 + 50 * round));
      CHECK(disagreements(c, rng, 400) == 0);
      c.reshape(hive_limits(3, 3));
      CHECK(disagreements(c, rng, 200) == 0);
    } else {
      fill(c, 500);
      erase_some(c, rng, 0.5);
      CHECK(disagreements(c, rng, 400) == 0);
    }
  }
  // Empty, and one element.
  C e = make_one();
  CHECK(std::distance(e.begin(), e.end()) == 0);
  CHECK(std::next(e.begin(), 0) == e.end());
  fill(e, 1);
  CHECK(std::distance(e.begin(), e.end()) == 1);
  CHECK(std::next(e.begin()) == e.end());
  CHECK(std::prev(e.end()) == e.begin());
  CHECK(std::distance(e.end(), e.begin()) == -1);
  // Past the ends: usage_error with checks; without, it stops there.
  if constexpr (checks_on<C>) {
    CHECK_THROWS_AS(std::next(e.begin(), 2), travpool::usage_error);
    CHECK_THROWS_AS(std::prev(e.begin()), travpool::usage_error);
    CHECK_THROWS_AS(std::next(e.end()), travpool::usage_error);
    CHECK_THROWS_AS(std::distance(typename C::iterator(), e.end()), travpool::usage_error);
  } else {
    CHECK(std::next(e.begin(), 2) == e.end());
    CHECK(std::prev(e.begin()) == e.begin());
  }
}

}  // namespace

TEST_CASE("pool iterators: distance and advance agree with a linear walk", "[pool_iterator][distance]") {
  SECTION("hive, small blocks") {
    differential<travpool::hive<int>>([] { return travpool::hive<int>(hive_limits(5, 100)); });
  }
  SECTION("hive, default blocks (several bitmap words per block)") {
    differential<travpool::hive<int>>([] { return travpool::hive<int>(); });
  }
  SECTION("hive of a 40-byte type") {
    struct big {
      int v;
      char pad[36];
      big(int x) : v(x), pad{} {}  // NOLINT(google-explicit-constructor)
    };
    differential<travpool::hive<big>>([] { return travpool::hive<big>(hive_limits(3, 700)); });
  }
  SECTION("concurrent_hive (quiescent)") {
    differential<travpool::concurrent_hive<int>>([] { return travpool::concurrent_hive<int>(hive_limits(5, 100)); });
  }
  SECTION("hive with checks::on") {
    using H = travpool::hive<int, std::allocator<int>, travpool::checks::on>;
    differential<H>([] { return H(hive_limits(5, 100)); });
  }
  SECTION("pool<T>") {
    differential<travpool::pool<int>>([] { return travpool::pool<int>(travpool::bin_capacity{300}); });
  }
  SECTION("concurrent_pool") {
    differential<travpool::concurrent_pool<int>>(
        [] { return travpool::concurrent_pool<int>(travpool::bin_capacity{300}); });
  }
  SECTION("pool<T, layout::interleaved> (no bitmap: steps within a bin)") {
    using P = travpool::basic_pool<int, travpool::layout::interleaved>;
    differential<P>([] { return P(travpool::bin_capacity{300}); });
  }
}

TEST_CASE("pool iterators: distance across many blocks, in both directions", "[pool_iterator][distance]") {
  travpool::hive<int> h(hive_limits(1, 4));
  for (int i = 0; i < 5000; ++i) h.insert(i);
  erase_if(h, [](int x) { return x % 3 == 1; });
  const auto at = walk(h);
  const auto n = static_cast<std::ptrdiff_t>(h.size());
  CHECK(std::distance(h.begin(), h.end()) == n);
  CHECK(std::distance(h.end(), h.begin()) == -n);
  CHECK(std::distance(at[100], at[7]) == -93);
  CHECK(*std::next(h.begin(), 1000) == *at[1000]);
  CHECK(std::prev(h.end(), n) == h.begin());
  using std::distance;  // the std overload and the hidden friend: no ambiguity
  CHECK(distance(h.cbegin(), h.cend()) == n);
}

namespace {
using checked_hive = travpool::hive<int, std::allocator<int>, travpool::checks::on>;
using hardened_hive = travpool::hive<int, std::allocator<int>, travpool::checks::hardened>;
using unchecked_hive = travpool::hive<int, std::allocator<int>, travpool::checks::off>;
using checked_pool = travpool::basic_pool<int, travpool::checks::on>;
using unchecked_pool = travpool::basic_pool<int, travpool::checks::off>;
}  // namespace

// The std overload, not the standard's template, is chosen (it is noexcept
// without checks; libstdc++'s and libc++'s std::distance etc. are not).
static_assert(noexcept(std::distance(std::declval<unchecked_hive::iterator>(),
                                     std::declval<unchecked_hive::iterator>())));
static_assert(noexcept(std::next(std::declval<unchecked_hive::const_iterator>(), 5)));
static_assert(noexcept(std::distance(std::declval<unchecked_hive::reverse_iterator>(),
                                     std::declval<unchecked_hive::reverse_iterator>())));

TEST_CASE("pool iterators: distance between iterators of two containers ends", "[pool_iterator][distance]") {
  // The walk over a's bins towards b's stops at a's end (it went round
  // a's circular bin list before). With checks, usage_error.
  auto two = [](auto& p, auto& q) {
    for (int i = 0; i < 50; ++i) {
      if constexpr (requires { p.create(0); }) {
        p.create(i);
        q.create(i);
      } else {
        p.insert(i);
        q.insert(i);
      }
    }
  };
  SECTION("hive, checks::on") {
    checked_hive p(hive_limits(3, 8)), q(hive_limits(3, 8));
    two(p, q);
    CHECK_THROWS_AS(std::distance(p.begin(), q.end()), travpool::usage_error);
    CHECK_THROWS_AS(std::distance(q.begin(), p.end()), travpool::usage_error);
    CHECK_THROWS_AS(distance(p.begin(), std::next(q.begin(), 20)), travpool::usage_error);
    CHECK_THROWS_AS(std::distance(std::next(q.begin(), 20), p.begin()), travpool::usage_error);
  }
  SECTION("pool, checks::on") {
    checked_pool p(travpool::bin_capacity{8}), q(travpool::bin_capacity{8});
    two(p, q);
    CHECK_THROWS_AS(std::distance(p.begin(), q.end()), travpool::usage_error);
    CHECK_THROWS_AS(std::distance(q.begin(), p.end()), travpool::usage_error);
  }
  SECTION("hive and pool, checks::off: undefined, but it returns") {
    unchecked_hive p(hive_limits(3, 8)), q(hive_limits(3, 8));
    two(p, q);
    CHECK(std::distance(p.begin(), q.end()) >= 0);
    unchecked_pool r(travpool::bin_capacity{8}), s(travpool::bin_capacity{8});
    two(r, s);
    CHECK(std::distance(r.begin(), s.end()) >= 0);
  }
}

TEST_CASE("pool iterators: distance and advance check every bin they read for modification",
          "[pool_iterator][distance]") {
  // test_access::toggle_changing stands in for another thread inside a
  // create or destroy of the middle bin (its modification count odd).
  auto run = [](auto h) {
    for (int i = 0; i < 60; ++i) h.insert(i);
    using access = travpool::detail::test_access;
    std::vector<const travpool::detail::bin_base*> bins;  // the non-empty ones, in order
    for (auto it = h.begin(); it != h.end(); ++it)
      if (bins.empty() || bins.back() != access::bin_of(it)) bins.push_back(access::bin_of(it));
    REQUIRE(bins.size() >= 5);
    const auto* mid = bins[bins.size() / 2];
    const auto first = h.begin();
    const auto last = std::prev(h.end());
    access::toggle_changing(mid);
    CHECK_THROWS_AS(std::distance(h.begin(), h.end()), travpool::usage_error);  // passes over it
    CHECK_THROWS_AS(std::distance(h.end(), h.begin()), travpool::usage_error);
    CHECK_THROWS_AS(std::next(first, 50), travpool::usage_error);
    CHECK_THROWS_AS(std::prev(last, 50), travpool::usage_error);
    CHECK_THROWS_AS(std::next(first, 30), travpool::usage_error);  // enters it (60 in 4-element blocks or fewer)
    access::toggle_changing(mid);
    CHECK(std::distance(h.begin(), h.end()) == 60);
    CHECK(std::next(first, 50) == std::prev(h.end(), 10));
  };
  SECTION("checks::on") { run(checked_hive(hive_limits(3, 4))); }
  SECTION("checks::hardened") { run(hardened_hive(hive_limits(3, 4))); }
}

TEST_CASE("pool iterators: advance that throws leaves the iterator unchanged", "[pool_iterator][distance]") {
  checked_hive h;
  h.insert(1);
  auto it = h.begin();
  CHECK_THROWS_AS(std::advance(it, 3), travpool::usage_error);  // ++ reaches end(), then past it
  CHECK(it == h.begin());
  CHECK_THROWS_AS(advance(it, 3), travpool::usage_error);
  CHECK(it == h.begin());
  auto e = h.end();
  CHECK_THROWS_AS(std::advance(e, -3), travpool::usage_error);  // -- reaches begin(), then before it
  CHECK(e == h.end());
  auto r = h.rbegin();
  CHECK_THROWS_AS(std::advance(r, 3), travpool::usage_error);
  CHECK(r == h.rbegin());
}

TEST_CASE("pool iterators: unqualified calls with an element type from std, and reverse ranges",
          "[pool_iterator][distance]") {
  using namespace std;  // std::distance etc. and the hidden friends both visible; no ambiguity
  travpool::hive<string> h(hive_limits(3, 8));
  for (int i = 0; i < 100; ++i) h.insert(to_string(i));
  h.erase(next(h.begin(), 10));
  const auto n = static_cast<ptrdiff_t>(h.size());
  CHECK(distance(h.begin(), h.end()) == n);
  CHECK(distance(h.cend(), h.cbegin()) == -n);
  auto it = h.begin();
  advance(it, n);
  CHECK(it == h.end());
  CHECK(next(h.begin(), n) == h.end());
  CHECK(prev(h.end(), n) == h.begin());
  // Reverse iterators, rend() included.
  CHECK(distance(h.rbegin(), h.rend()) == n);
  CHECK(distance(h.rend(), h.rbegin()) == -n);
  CHECK(next(h.rbegin(), n) == h.rend());
  CHECK(prev(h.rend(), n) == h.rbegin());
  CHECK(*prev(h.rend()) == *h.begin());
  auto r = h.rend();
  advance(r, -n);
  CHECK(r == h.rbegin());
  CHECK(distance(next(h.rbegin(), 7), h.rend()) == n - 7);
}
