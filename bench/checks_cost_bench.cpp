// bench/checks_cost_bench.cpp: what each checks policy costs, side by side
// in one process: checks::off, checks::hardened and checks::on pools of the
// same element, layout and sync option (the option is part of the pool
// type, so all three live in one program built with one set of flags).
// scripts/bench_checks.sh runs it with random interleaving and repetitions,
// built with the project's flags and with a plain -O2 -DNDEBUG, and prints
// the ratios (docs/api.md, "Checks").
//
// Workloads, N = --n (default 5,000,000) elements of 24 B, every bin on
// huge pages:
//   create:          N creates into a reserved, emptied pool
//   destroy_random:  N destroys in a random order (the creates untimed)
//   range_for:       range-for sum over a pool with 10 % random gaps
//   for_each:        for_each sum over the same pool
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <travpool/memory.hpp>
#include <travpool/pool.hpp>

#include "common/run_main.hpp"

namespace {

struct element {
  std::uint64_t x, y, z;
};
std::size_t n_elements = 5'000'000;

template <class Pool>
void create(benchmark::State& state) {
  std::vector<element*> v(n_elements);
  Pool pool;
  pool.reserve(n_elements);  // page faults out of the loop
  for (auto _ : state) {
    for (std::size_t i = 0; i < n_elements; ++i) v[i] = pool.create(element{i, i, i});
    state.PauseTiming();
    pool.clear();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}

template <class Pool>
void destroy_random(benchmark::State& state) {
  std::vector<element*> v(n_elements);
  Pool pool;
  pool.reserve(n_elements);
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t i = 0; i < n_elements; ++i) v[i] = pool.create(element{i, i, i});
    std::shuffle(v.begin(), v.end(), rng);
    state.ResumeTiming();
    for (element* e : v) pool.destroy(e);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n_elements));
}

template <class Pool>
void fill_with_gaps(Pool& pool) {
  std::vector<element*> v(n_elements);
  for (std::size_t i = 0; i < n_elements; ++i) v[i] = pool.create(element{i, i, i});
  std::mt19937_64 rng(1);
  for (element* e : v)
    if (rng() % 10 == 0) pool.destroy(e);
}

template <class Pool>
void range_for(benchmark::State& state) {
  Pool pool;
  fill_with_gaps(pool);
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (const element& e : pool) sum += e.x + e.y + e.z;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
}

template <class Pool>
void for_each(benchmark::State& state) {
  Pool pool;
  fill_with_gaps(pool);
  for (auto _ : state) {
    std::uint64_t sum = 0;
    pool.for_each([&sum](const element& e) { sum += e.x + e.y + e.z; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
}

namespace tp = travpool;
using pool_off = tp::basic_pool<element, tp::checks::off>;
using pool_hardened = tp::basic_pool<element, tp::checks::hardened>;
using pool_on = tp::basic_pool<element, tp::checks::on>;
using interleaved_off = tp::basic_pool<element, tp::layout::interleaved, tp::checks::off>;
using interleaved_hardened = tp::basic_pool<element, tp::layout::interleaved, tp::checks::hardened>;
using interleaved_on = tp::basic_pool<element, tp::layout::interleaved, tp::checks::on>;
using concurrent_off = tp::basic_pool<element, tp::sync::bin_locks, tp::checks::off>;
using concurrent_hardened = tp::basic_pool<element, tp::sync::bin_locks, tp::checks::hardened>;
using concurrent_on = tp::basic_pool<element, tp::sync::bin_locks, tp::checks::on>;

}  // namespace

#define TRAVPOOL_CHECKS_ROWS(workload, kind)                                    \
  BENCHMARK_TEMPLATE(workload, kind##_off)->Unit(benchmark::kMillisecond);      \
  BENCHMARK_TEMPLATE(workload, kind##_hardened)->Unit(benchmark::kMillisecond); \
  BENCHMARK_TEMPLATE(workload, kind##_on)->Unit(benchmark::kMillisecond)

TRAVPOOL_CHECKS_ROWS(create, pool);
TRAVPOOL_CHECKS_ROWS(destroy_random, pool);
TRAVPOOL_CHECKS_ROWS(range_for, pool);
TRAVPOOL_CHECKS_ROWS(for_each, pool);
TRAVPOOL_CHECKS_ROWS(create, interleaved);
TRAVPOOL_CHECKS_ROWS(destroy_random, interleaved);
TRAVPOOL_CHECKS_ROWS(range_for, interleaved);
TRAVPOOL_CHECKS_ROWS(create, concurrent);
TRAVPOOL_CHECKS_ROWS(destroy_random, concurrent);
TRAVPOOL_CHECKS_ROWS(range_for, concurrent);

int main(int argc, char** argv) {
  // Every pool on huge pages: with the automatic policy, which pool's bins
  // land on 4 KiB pages would depend on the order the interleaved runs take
  // spans from the span cache, and random destroys would measure the TLB.
  travpool::set_huge_page_policy(travpool::huge_pages::always);
  return travpool_bench::run_main(argc, argv, n_elements);
}
