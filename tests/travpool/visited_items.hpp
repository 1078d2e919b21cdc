// The element type and the pool shape of the parallel-traversal tests
// (parallel_mt_test with TBB and OpenMP, parallel_threads_mt_test without
// OpenMP): elements that count their visits, half of them destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace travpool::test {

struct item {
  std::uint64_t value;
  std::uint32_t visits;
};

// Effects: n creates with values from a generator seeded `seed`, then
// each one destroyed with probability 1/2.
// Returns: the live elements' value sum.
template <class Pool>
std::uint64_t fill(Pool& pool, std::size_t n, std::uint64_t seed) {
  std::vector<item*> all;
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) all.push_back(pool.create(item{rng() % 1000, 0}));
  std::uint64_t sum = 0;
  for (item* p : all)
    if (rng() % 2)
      pool.destroy(p);
    else
      sum += p->value;
  return sum;
}

}  // namespace travpool::test
