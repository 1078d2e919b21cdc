// Parallel traversal with TBB and OpenMP; runs under ThreadSanitizer in CI.
#include <atomic>
#include <cstdint>
#include <functional>

#include <omp.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "visited_items.hpp"

namespace {
using travpool::test::item;
// The shape every case here sweeps (visited_items.hpp), seeded 42.
template <class Pool>
std::uint64_t fill(Pool& pool, std::size_t n) {
  return travpool::test::fill(pool, n, 42);
}
}  // namespace

TEMPLATE_TEST_CASE("tbb::parallel_reduce over range() equals the serial sum", "[parallel][tbb]",
                   TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<item, TestType> pool(travpool::bin_capacity{257});
  const std::uint64_t expect = fill(pool, 200000);
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    const std::uint64_t sum = tbb::parallel_reduce(
        pool.range(), std::uint64_t{0},
        [](const auto& r, std::uint64_t acc) {
          for (const item& e : r) acc += e.value;
          return acc;
        },
        std::plus<>());
    REQUIRE(sum == expect);
    tbb::parallel_for(pool.range(), [](const auto& r) {
      for (item& e : r) ++e.visits;
    });
  }
  for (const item& e : pool) REQUIRE(e.visits == 3);
}

TEMPLATE_TEST_CASE("an OpenMP pass changes each element exactly once", "[parallel][openmp]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<item, TestType> pool(travpool::bin_capacity{100});
  fill(pool, 100000);
  for (int threads : {1, 2, 3, 8}) {
    omp_set_num_threads(threads);
    // The README's idiomatic loop.
    auto parts = pool.partition(static_cast<std::size_t>(omp_get_max_threads()));
    const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (item& e : parts[static_cast<std::size_t>(i)]) ++e.visits;
    // And the packaged one.
    travpool::parallel_for_each(pool, [](item& e) { ++e.visits; });
  }
  for (const item& e : pool) REQUIRE(e.visits == 8);
}
