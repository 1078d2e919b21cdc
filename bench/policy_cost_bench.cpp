// bench/policy_cost_bench.cpp: what the stats policy and the debug checks
// cost. Built twice from this source: policy_cost_bench (checks as the build
// type says: off in Release) and policy_cost_checks_bench
// (TRAVPOOL_CHECKS=1). Compare the two executables' rows for the checks, and
// stats_none against stats_counters within one executable for the policy.
//
// Workloads, N = --n (default 5,000,000) elements of 24 B:
//   create_destroy: create N, then destroy them in creation order
//   sweep:          range-for sum over a pool with 10 % random gaps
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <travpool/pool.hpp>

#include "common/run_main.hpp"

namespace {

struct element {
  std::uint64_t x, y, z;
};
std::size_t n_elements = 5'000'000;

template <class Pool>
void create_destroy(benchmark::State& state) {
  std::vector<element*> v(n_elements);
  Pool pool;
  pool.reserve(n_elements);  // page faults out of the loop
  for (auto _ : state) {
    for (std::size_t i = 0; i < n_elements; ++i) v[i] = pool.create(element{i, i, i});
    for (element* e : v) pool.destroy(e);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}

template <class Pool>
void sweep(benchmark::State& state) {
  Pool pool;
  std::vector<element*> v(n_elements);
  for (std::size_t i = 0; i < n_elements; ++i) v[i] = pool.create(element{i, i, i});
  std::mt19937_64 rng(1);
  for (element* e : v)
    if (rng() % 10 == 0) pool.destroy(e);
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (const element& e : pool) sum += e.x + e.y + e.z;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
}

using stats_none = travpool::basic_pool<element, travpool::stats::none>;
using stats_counters = travpool::basic_pool<element, travpool::stats::counters>;
using concurrent_none = travpool::basic_pool<element, travpool::sync::bin_locks>;
using concurrent_counters = travpool::basic_pool<element, travpool::sync::bin_locks, travpool::stats::counters>;

}  // namespace

BENCHMARK_TEMPLATE(create_destroy, stats_none)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(create_destroy, stats_counters)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(create_destroy, concurrent_none)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(create_destroy, concurrent_counters)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(sweep, stats_none)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(sweep, stats_counters)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  benchmark::AddCustomContext("TRAVPOOL_CHECKS", TRAVPOOL_CHECKS ? "1" : "0");
  return travpool_bench::run_main(argc, argv, n_elements);
}
