// parallel_for_each without OpenMP: built without -fopenmp, so the parts run
// on std::threads. Each element is visited exactly once, the work is spread
// over threads, and an exception of any part reaches the caller after every
// part has ended. Runs under ThreadSanitizer in CI.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/parallel.hpp>

#include "pool_types.hpp"
#include "visited_items.hpp"

#if defined(_OPENMP)
#error "this test checks parallel_for_each without OpenMP"
#endif

namespace {
using travpool::test::item;
// The shape every case here sweeps (visited_items.hpp), seeded 7.
template <class Pool>
std::uint64_t fill(Pool& pool, std::size_t n) {
  return travpool::test::fill(pool, n, 7);
}
}  // namespace

TEMPLATE_TEST_CASE("parallel_for_each without OpenMP visits each element once, on several threads",
                   "[parallel][threads]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<item, TestType> pool(travpool::bin_capacity{100});
  const std::uint64_t expect = fill(pool, 20000);
  REQUIRE(pool.bin_count() > 8);
  int passes = 0;
  for (std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}, std::size_t{1000}}) {
    std::mutex m;
    std::set<std::thread::id> ids;
    std::atomic<std::uint64_t> sum{0};
    travpool::parallel_for_each(
        pool,
        [&](item& e) {
          ++e.visits;  // distinct elements: no race
          sum.fetch_add(e.value, std::memory_order_relaxed);
          std::lock_guard<std::mutex> lock(m);
          ids.insert(std::this_thread::get_id());
        },
        threads);
    ++passes;
    REQUIRE(sum.load() == expect);
    if (threads == 1)
      REQUIRE(ids == std::set<std::thread::id>{std::this_thread::get_id()});
    else
      REQUIRE(ids.size() > 1);  // each part on its own thread
  }
  std::size_t live = 0;
  bool once_per_pass = true;
  for (const item& e : pool) once_per_pass = once_per_pass && e.visits == static_cast<std::uint32_t>(passes), ++live;
  REQUIRE(once_per_pass);
  REQUIRE(live == pool.size());
  // The default: every hardware thread.
  REQUIRE(travpool::default_parallelism() >= 1);
  travpool::parallel_for_each(pool, [](item& e) { ++e.visits; });
  for (const item& e : pool) REQUIRE(e.visits == static_cast<std::uint32_t>(passes + 1));
}

TEST_CASE("parallel_for_each without OpenMP rethrows a part's exception after all parts end", "[parallel][threads]") {
  travpool::pool<item> pool(travpool::bin_capacity{64});
  fill(pool, 10000);
  std::atomic<std::size_t> visited{0};
  // The element that throws: the last live one, so the part that holds it
  // is not the calling thread's (part 0) when there are several parts.
  const item* bad = nullptr;
  for (const item& e : pool) bad = &e;
  try {
    travpool::parallel_for_each(
        pool,
        [&](item& e) {
          if (&e == bad) throw std::runtime_error("bad element");
          visited.fetch_add(1, std::memory_order_relaxed);
        },
        4);
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    REQUIRE(std::string(e.what()) == "bad element");
  }
  // Every other part ran to its end; the throwing part stopped at `bad`,
  // which is its last element.
  REQUIRE(visited.load() == pool.size() - 1);
}

TEST_CASE("parallel_for_each without OpenMP over a column pool", "[parallel][threads]") {
  travpool::column_pool pool(std::uint64_t{1} << 20, 4096);
  auto x = pool.add_column<std::uint32_t>("x", 0);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 50000; ++i) hs.push_back(pool.create());
  for (std::size_t i = 0; i < hs.size(); i += 3) pool.destroy(hs[i]);
  travpool::parallel_for_each(
      pool, [&](std::uint32_t h) { x[h] += 1; }, 4);
  std::size_t ones = 0;
  for (std::uint32_t h : pool) ones += x[h] == 1;
  REQUIRE(ones == pool.size());
}
