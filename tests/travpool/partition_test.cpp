// partition(k) and range(): coverage, balance and splitting, single-threaded.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

namespace {

enum class gaps { none, random50, random97, whole_bins };

template <class Pool>
std::vector<int*> fill(Pool& pool, std::size_t n, gaps g, std::uint64_t seed) {
  std::vector<int*> all, live;
  for (std::size_t i = 0; i < n; ++i) all.push_back(pool.create(static_cast<int>(i)));
  std::mt19937_64 rng(seed);
  const std::size_t cap = pool.bin_capacity();
  for (std::size_t i = 0; i < n; ++i) {
    bool kill = false;
    switch (g) {
      case gaps::none:
        break;
      case gaps::random50:
        kill = rng() % 100 < 50;
        break;
      case gaps::random97:
        kill = rng() % 100 < 97;
        break;
      case gaps::whole_bins:
        kill = (i / cap) % 3 == 1;
        break;  // every third bin empty
    }
    if (kill)
      pool.destroy(all[i]);
    else
      live.push_back(all[i]);
  }
  return live;
}

}  // namespace

TEMPLATE_TEST_CASE("partition covers every live element exactly once", "[partition]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  for (std::uint32_t cap : {1u, 5u, 100u, 4096u}) {
    for (gaps g : {gaps::none, gaps::random50, gaps::random97, gaps::whole_bins}) {
      pool_type pool(travpool::bin_capacity{cap});
      const std::size_t n = std::min<std::size_t>(20000, std::size_t{cap} * 40 + 7);
      const auto live = fill(pool, n, g, cap * 31 + static_cast<unsigned>(g));
      const std::set<const int*> expect(live.begin(), live.end());
      std::vector<std::size_t> ks;
      for (std::size_t k = 1; k <= 17; ++k) ks.push_back(k);
      ks.push_back(64);
      for (std::size_t k : ks) {
        INFO("capacity " << cap << ", gaps " << static_cast<int>(g) << ", k " << k);
        const auto parts = pool.partition(k);
        REQUIRE(parts.size() == k);
        std::vector<const int*> seen;
        std::size_t largest = 0;
        for (const auto& r : parts) {
          std::size_t count = 0;
          for (const int& e : r) seen.push_back(&e), ++count;
          REQUIRE(count == r.size());
          std::vector<const int*> bulk;  // the part's for_each: same elements, same order
          r.for_each([&bulk](const int& e) { bulk.push_back(&e); });
          REQUIRE(std::equal(bulk.begin(), bulk.end(), seen.end() - static_cast<std::ptrdiff_t>(count), seen.end()));
          REQUIRE(bulk.size() == count);
          REQUIRE(r.empty() == (count == 0));
          largest = std::max(largest, count);
        }
        REQUIRE(seen.size() == live.size());
        REQUIRE(std::set<const int*>(seen.begin(), seen.end()) == expect);
        // Traversal order is kept: concatenated parts equal the full sweep.
        std::vector<const int*> full;
        for (const int& e : pool) full.push_back(&e);
        REQUIRE(seen == full);
        // Balance: at most live/k + one bin; with >= 4k bins also within 1.1 live/k + one bin.
        const double share = static_cast<double>(live.size()) / static_cast<double>(k);
        REQUIRE(static_cast<double>(largest) <= share + cap);
        if (pool.bin_count() >= 4 * k) REQUIRE(static_cast<double>(largest) <= 1.1 * share + cap);
        // partition(k) const: parts of const elements, the same parts.
        const pool_type& cpool = pool;
        const auto cparts = cpool.partition(k);
        STATIC_REQUIRE(std::is_same_v<decltype(*cparts.front().begin()), const int&>);
        REQUIRE(cparts.size() == k);
        std::vector<const int*> cseen;
        bool same_sizes = true;
        for (std::size_t i = 0; i < k; ++i) {
          same_sizes = same_sizes && cparts[i].size() == parts[i].size();
          for (const int& e : cparts[i]) cseen.push_back(&e);
        }
        REQUIRE(same_sizes);
        REQUIRE(cseen == seen);
      }
      // for_each(f) const: every live element once, as const.
      const pool_type& cpool = pool;
      std::vector<const int*> each;
      cpool.for_each([&each](auto& e) {
        static_assert(std::is_same_v<decltype(e), const int&>);
        each.push_back(&e);
      });
      REQUIRE(each.size() == live.size());
      REQUIRE(std::set<const int*>(each.begin(), each.end()) == expect);
    }
  }
}

TEST_CASE("partition of an empty pool, and k larger than the element count", "[partition]") {
  travpool::pool<int> pool(travpool::bin_capacity{4});
  auto parts = pool.partition(5);
  REQUIRE(parts.size() == 5);
  for (auto& r : parts) REQUIRE(r.begin() == r.end());
  pool.create(1);
  pool.create(2);
  parts = pool.partition(8);
  std::size_t nonempty = 0, total = 0;
  for (auto& r : parts) nonempty += !r.empty(), total += r.size();
  REQUIRE(nonempty == 1);  // one bin holds both elements: one range gets it
  REQUIRE(total == 2);
  REQUIRE_THROWS_AS(pool.partition(0), std::invalid_argument);
}

TEST_CASE("range() splits like a TBB Range", "[partition]") {
  travpool::pool<int> pool(travpool::bin_capacity{10});
  for (int i = 0; i < 1000; ++i) pool.create(i);
  struct split_tag {};
  std::vector<decltype(pool.range())> work{pool.range()}, leaves;
  while (!work.empty()) {
    auto r = work.back();
    work.pop_back();
    if (r.is_divisible()) {
      decltype(r) right(r, split_tag{});
      REQUIRE_FALSE(r.empty());
      REQUIRE_FALSE(right.empty());
      work.push_back(r);
      work.push_back(right);
    } else {
      leaves.push_back(r);
    }
  }
  REQUIRE(leaves.size() == 100);  // one per bin
  std::set<int> seen;
  for (auto& r : leaves)
    for (int v : r) REQUIRE(seen.insert(v).second);
  REQUIRE(seen.size() == 1000);
}
