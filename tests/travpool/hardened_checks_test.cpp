// checks::hardened (options.hpp), with TRAVPOOL_CHECKS=2 forced here so that
// pool<T> itself is hardened: iterators at end or at destroyed elements,
// erase(end()), splice(*this), creates and destroys that meet another one
// under way in their bin or in adding a bin, sweeps that enter a bin being
// changed; each a
// usage_error that leaves the pool unchanged. And no false alarm: re-entrant
// destructors, and a randomized run against a model.
#define TRAVPOOL_CHECKS 2

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

namespace {

namespace tp = travpool;
using tp::detail::test_access;

static_assert(std::is_same_v<tp::pool<int>::checks_type, tp::checks::hardened>);
static_assert(std::is_same_v<tp::concurrent_pool<int>::checks_type, tp::checks::hardened>);
// Hardened iterators may throw; unchecked ones may not.
static_assert(!noexcept(*std::declval<tp::pool<int>::iterator&>()));
static_assert(!noexcept(++std::declval<tp::pool<int>::iterator&>()));
static_assert(noexcept(*std::declval<tp::basic_pool<int, tp::checks::off>::iterator&>()));
static_assert(noexcept(++std::declval<tp::basic_pool<int, tp::checks::off>::iterator&>()));

// Hardened pools of every layout and synchronisation.
#define TRAVPOOL_HARDENED_POLICIES                                                                             \
  tp::test::options<tp::checks::hardened>, (tp::test::options<tp::layout::interleaved, tp::checks::hardened>), \
      (tp::test::options<tp::sync::bin_locks, tp::checks::hardened>),                                          \
      (tp::test::options<tp::sync::global_mutex, tp::layout::interleaved, tp::checks::hardened>)

template <class Pool>
tp::detail::bin_base& bin_of(const Pool& pool, std::size_t k) {
  return const_cast<tp::detail::bin_base&>(*test_access::bins(pool)[k]);
}

}  // namespace

TEMPLATE_TEST_CASE("hardened: end iterators and iterators to destroyed elements are detected", "[checks][hardened]",
                   TRAVPOOL_HARDENED_POLICIES) {
  tp::test::pool_t<int, TestType> pool(tp::bin_capacity{8});
  std::vector<int*> v;
  for (int i = 0; i < 20; ++i) v.push_back(pool.create(i));
  auto it = pool.get_iterator(v[5]);
  auto copy = it;
  REQUIRE(*it == 5);
  pool.destroy(v[5]);
  const std::string key = test_access::state_key(pool);
  REQUIRE_THROWS_WITH(*copy, Catch::Contains("one whose element was destroyed"));
  REQUIRE_THROWS_AS(copy.operator->(), tp::usage_error);
  if constexpr (std::is_same_v<typename decltype(pool)::layout_type, tp::layout::compact>) {
    // compact steps by the bitmap word: from a destroyed element to the next live one.
    REQUIRE(*++copy == 6);
  } else {
    REQUIRE_THROWS_AS(++copy, tp::usage_error);
  }
  REQUIRE_THROWS_AS(*pool.end(), tp::usage_error);
  REQUIRE_THROWS_AS(++pool.end(), tp::usage_error);
  REQUIRE_THROWS_AS(*decltype(it){}, tp::usage_error);
  REQUIRE_THROWS_AS(++decltype(it){}, tp::usage_error);
  REQUIRE_NOTHROW(--pool.end());
  REQUIRE(*--pool.end() == 19);
  // erase(end()) and erase of a destroyed element: nothing changes.
  REQUIRE_THROWS_AS(pool.erase(pool.end()), tp::usage_error);
  REQUIRE_THROWS_AS(pool.erase(it), tp::usage_error);
  REQUIRE_THROWS_AS(pool.destroy(v[5]), tp::usage_error);
  REQUIRE_THROWS_AS(pool.splice(pool), tp::usage_error);
  REQUIRE(test_access::state_key(pool) == key);
  REQUIRE(pool.size() == 19);
  pool.validate();
  // Every live element is still reached.
  int sum = 0;
  for (int x : pool) sum += x;
  REQUIRE(sum == 19 * 20 / 2 - 5);
}

TEMPLATE_TEST_CASE("hardened: a sweep entering a bin that is being changed is detected", "[checks][hardened]",
                   TRAVPOOL_HARDENED_POLICIES) {
  tp::test::pool_t<int, TestType> pool(tp::bin_capacity{8});
  for (int i = 0; i < 24; ++i) pool.create(i);
  REQUIRE(test_access::bins(pool).size() == 3);
  // Stand in for another thread in the middle of a create in the second bin.
  auto& second = bin_of(pool, 1);
  second.mods_.fetch_add(1);
  auto it = pool.begin();
  for (int k = 0; k < 7; ++k) ++it;  // the first bin's last element
  REQUIRE_THROWS_WITH(++it, Catch::Contains("another thread modifies"));
  long sum = 0;
  REQUIRE_THROWS_WITH(pool.for_each([&sum](int x) { sum += x; }), Catch::Contains("another thread modifies"));
  second.mods_.fetch_add(1);
  sum = 0;
  pool.for_each([&sum](int x) { sum += x; });
  REQUIRE(sum == 23 * 24 / 2);
  it = pool.begin();
  for (int k = 0; k < 7; ++k) ++it;
  REQUIRE(*++it == 8);
}

TEMPLATE_TEST_CASE("hardened: a create or destroy that meets another one under way in its bin is detected",
                   "[checks][hardened]", tp::test::options<tp::checks::hardened>,
                   (tp::test::options<tp::layout::interleaved, tp::checks::hardened>),
                   (tp::test::options<tp::sync::global_mutex, tp::checks::hardened>)) {
  tp::test::pool_t<int, TestType> pool(tp::bin_capacity{8});
  std::vector<int*> v;
  for (int i = 0; i < 12; ++i) v.push_back(pool.create(i));  // bin 0 full, bin 1 half
  const std::string key = test_access::state_key(pool);
  // Stand in for a second thread inside a create or destroy of bin 1, the
  // bin creates take from.
  auto& second = bin_of(pool, 1);
  second.mods_.fetch_add(1);
  REQUIRE_THROWS_WITH(pool.create(99), Catch::Contains("used from two threads at once"));
  REQUIRE_THROWS_WITH(pool.destroy(v[10]), Catch::Contains("used from two threads at once"));
  REQUIRE(test_access::state_key(pool) == key);
  REQUIRE(pool.size() == 12);
  // Bin 0 is not changing: its elements can be destroyed.
  pool.destroy(v[0]);
  second.mods_.fetch_add(1);
  REQUIRE(*pool.create(12) == 12);
  pool.destroy(v[10]);
  REQUIRE(pool.size() == 11);
  pool.validate();
}

TEMPLATE_TEST_CASE("hardened: two threads adding a bin at once are detected", "[checks][hardened]",
                   tp::test::options<tp::checks::hardened>,
                   (tp::test::options<tp::layout::interleaved, tp::checks::hardened>)) {
  tp::test::pool_t<int, TestType> pool(tp::bin_capacity{8});
  // Stand in for another thread that is adding the first bin (two threads
  // that start creating in an empty pool).
  test_access::set_adding_bin(pool, true);
  REQUIRE_THROWS_WITH(pool.create(1), Catch::Contains("used from two threads at once"));
  REQUIRE_THROWS_AS(pool.reserve(100), tp::usage_error);
  REQUIRE(pool.empty());
  REQUIRE(pool.bin_count() == 0);
  test_access::set_adding_bin(pool, false);
  for (int i = 0; i < 20; ++i) pool.create(i);  // three bins: the flag is left clear each time
  REQUIRE(pool.bin_count() == 3);
  pool.validate();
}

TEMPLATE_TEST_CASE("hardened: re-entrant destructors raise no false alarm", "[checks][hardened]",
                   TRAVPOOL_HARDENED_POLICIES) {
  using pool_type = typename tp::test::chained_pool<TestType>::type;
  pool_type pool(tp::bin_capacity{8});
  std::vector<typename pool_type::value_type*> ps;
  for (int i = 0; i < 30; ++i) ps.push_back(pool.create(&pool, i));
  // (Through erase: a concurrent_pool's destroy holds the bin's lock, and
  // a destructor must not destroy in its own bin then.)
  ps[3]->victim = ps[4];
  ps[6]->victim = ps[9];
  ps[10]->victim = ps[25];
  REQUIRE(pool.erase(pool.get_iterator(ps[3]))->id == 5);
  REQUIRE(pool.erase(pool.get_iterator(ps[6]))->id == 7);
  REQUIRE(pool.erase(pool.get_iterator(ps[10]))->id == 11);
  REQUIRE(pool.size() == 24);
  pool.erase(pool.begin(), pool.get_iterator(ps[20]));
  REQUIRE(pool.begin()->id == 20);
  pool.validate();
}

TEMPLATE_TEST_CASE("hardened: random creates, destroys, erases and sweeps agree with a model", "[checks][hardened]",
                   TRAVPOOL_HARDENED_POLICIES) {
  tp::test::pool_t<std::uint64_t, TestType> pool(tp::bin_capacity{64});
  std::map<std::uint64_t*, std::uint64_t> model;
  std::mt19937_64 rng(7);
  std::uint64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    const auto r = rng() % 8;
    if (r < 4 || model.empty()) {
      std::uint64_t* p = pool.create(next);
      model.emplace(p, next++);
    } else if (r < 7) {
      auto m = model.begin();
      std::advance(m, static_cast<long>(rng() % model.size()));
      if (r == 6) {
        pool.erase(pool.get_iterator(m->first));
      } else {
        pool.destroy(m->first);
      }
      model.erase(m);
    } else {
      std::uint64_t sum = 0, expect = 0, n = 0;
      for (std::uint64_t x : pool) sum += x, ++n;
      for (const auto& [p, x] : model) expect += x;
      REQUIRE(sum == expect);
      REQUIRE(n == model.size());
    }
  }
  REQUIRE(pool.size() == model.size());
  pool.validate();
}

TEST_CASE("hardened: a column pool checks get() and its creates and destroys", "[checks][hardened]") {
  tp::basic_column_pool<std::uint32_t, tp::checks::hardened> pool;
  auto x = pool.add_column<int>("x", 0);
  const auto a = pool.create();
  const auto b = pool.create();
  pool.get(x, b) = 2;
  pool.destroy(a);
  REQUIRE_THROWS_AS(pool.get(x, a), tp::usage_error);
  REQUIRE(pool.get(x, b) == 2);
  REQUIRE_THROWS_AS(pool.destroy(a), tp::usage_error);
  static_assert(!noexcept(pool.get(x, b)));
  static_assert(noexcept(std::declval<tp::basic_column_pool<std::uint32_t, tp::checks::off>&>().get(
      std::declval<tp::column<int>>(), std::uint32_t{})));
}
