// Parallel sweeps of a column pool: tbb::parallel_reduce over range() (each
// part's runs), OpenMP over partition(k), and parallel_for_each, each
// against the serial sweep, bit for bit (integer sums).
#include <cstdint>
#include <random>
#include <vector>

#include <omp.h>
#include <tbb/global_control.h>
#include <tbb/parallel_reduce.h>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/parallel.hpp>

namespace {

using travpool::column_pool;
using travpool::handle_run;

struct filled {
  column_pool pool{std::uint64_t{1} << 20, 4096};
  travpool::column<std::uint64_t> v = pool.add_column<std::uint64_t>("v", 0);
  std::uint64_t serial = 0;

  filled() {
    std::vector<std::uint32_t> hs;
    for (std::uint32_t i = 0; i < 100'000; ++i) hs.push_back(pool.create());
    std::mt19937 rng(5);
    for (std::uint32_t h : hs)
      if (rng() % 3 == 0) pool.destroy(h);
    for (std::uint32_t h : pool) v[h] = std::uint64_t{h} * 2654435761u, serial += v[h];
  }
};

}  // namespace

TEST_CASE("column pool: tbb::parallel_reduce over the runs of range() equals the serial sum", "[column_pool][tbb]") {
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 4);
  filled f;
  const std::uint64_t sum = tbb::parallel_reduce(
      f.pool.range(), std::uint64_t{0},
      [&](const column_pool::range_type& r, std::uint64_t acc) {
        for (handle_run s : column_pool::runs(r))
          for (std::uint32_t h = s.first; h < s.last; ++h) acc += f.v[h];
        return acc;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  REQUIRE(sum == f.serial);
}

TEST_CASE("column pool: OpenMP over partition(k) and parallel_for_each equal the serial sum", "[column_pool][openmp]") {
  filled f;
  auto parts = f.pool.partition(4);
  std::vector<std::uint64_t> sums(parts.size(), 0);
  const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(static, 1) num_threads(4)
  for (std::ptrdiff_t i = 0; i < n; ++i)
    for (handle_run s : parts[static_cast<std::size_t>(i)].runs())
      for (std::uint32_t h = s.first; h < s.last; ++h) sums[static_cast<std::size_t>(i)] += f.v[h];
  std::uint64_t sum = 0;
  for (std::uint64_t s : sums) sum += s;
  REQUIRE(sum == f.serial);
  // parallel_for_each: every handle once (each doubles its own element).
  travpool::parallel_for_each(f.pool, [&](std::uint32_t h) { f.v[h] *= 2; });
  std::uint64_t doubled = 0;
  for (std::uint32_t h : f.pool) doubled += f.v[h];
  REQUIRE(doubled == 2 * f.serial);
}
