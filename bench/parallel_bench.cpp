// bench/parallel_bench.cpp: parallel traversal (the paper's Figure 13).
//
// * Listing 15 kernel (compute-bound) over every element of a dense pool of
//   N elements, at 1, 2, 4, 8 threads (others: TRAVPOOL_BENCH_THREADS,
//   run_main.hpp), with OpenMP over pool.partition(t) and with
//   tbb::parallel_for over pool.range(). The 20 random values are
//   drawn once per sweep, outside the per-element loop.
// * A memory-bound kernel (sum of the fields) over the pool, with OpenMP
//   over partitions and with tbb::parallel_reduce over pool.range() (range-for
//   bodies), against std::vector under `omp parallel for` with the same
//   thread counts.
// Report: speedup = time(1 thread) / time(t threads) of the same contender.
//
// Flags (before Google Benchmark's): --n=N (default 20,000,000).
#include <benchmark/benchmark.h>
#include <omp.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <travpool/pool.hpp>

#include "common/run_main.hpp"

namespace {

struct element {
  std::uint64_t x, y, z;
};

std::size_t n_elements = 20'000'000;

travpool::pool<element>& shared_pool() {
  static travpool::pool<element> pool = [] {
    travpool::pool<element> p;
    for (std::size_t i = 0; i < n_elements; ++i) p.create(element{i, 2 * i, 3 * i});
    return p;
  }();
  return pool;
}

std::vector<element>& shared_vector() {
  static std::vector<element> v = [] {
    std::vector<element> w;
    w.reserve(n_elements);
    for (std::size_t i = 0; i < n_elements; ++i) w.push_back(element{i, 2 * i, 3 * i});
    return w;
  }();
  return v;
}

// The paper's Listing 15, with its 20 values drawn once per sweep.
struct listing15 {
  std::uint64_t r[20];
  explicit listing15(unsigned seed) {
    std::minstd_rand rng(seed);
    for (auto& v : r) v = rng() % 10;
  }
  void operator()(element& e) const noexcept {
    for (std::uint64_t v : r) {
      // As in sweep_bench: each value stays opaque, so the compiler
      // keeps the 20 additions per field (folded into one, the kernel would
      // be a memory-bound read-modify-write sweep, not Listing 15).
      asm volatile("" : "+r"(v));
      e.x += v;
      e.y += v * 2;
      e.z += v * 4;
    }
  }
};

void listing15_openmp(benchmark::State& state) {
  auto& pool = shared_pool();
  const int threads = static_cast<int>(state.range(0));
  unsigned seed = 1;
  for (auto _ : state) {
    const listing15 kernel(seed++);
    auto parts = pool.partition(static_cast<std::size_t>(threads));
    const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (element& e : parts[static_cast<std::size_t>(i)]) kernel(e);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
  state.counters["threads"] = threads;
}

void listing15_tbb(benchmark::State& state) {
  auto& pool = shared_pool();
  const int threads = static_cast<int>(state.range(0));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  unsigned seed = 1;
  for (auto _ : state) {
    const listing15 kernel(seed++);
    tbb::parallel_for(pool.range(), [&](const auto& r) {
      for (element& e : r) kernel(e);
    });
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
  state.counters["threads"] = threads;
}

void sum_pool_openmp(benchmark::State& state) {
  auto& pool = shared_pool();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto parts = pool.partition(static_cast<std::size_t>(threads));
    const auto n = static_cast<std::ptrdiff_t>(parts.size());
    std::uint64_t sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(+ : sum)
    for (std::ptrdiff_t i = 0; i < n; ++i)
      for (const element& e : parts[static_cast<std::size_t>(i)]) sum += e.x + e.y + e.z;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
  state.counters["threads"] = threads;
}

// tbb::parallel_reduce over pool.range(), range-for in the body.
void sum_pool_tbb_reduce(benchmark::State& state) {
  auto& pool = shared_pool();
  const int threads = static_cast<int>(state.range(0));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  for (auto _ : state) {
    const std::uint64_t sum = tbb::parallel_reduce(
        pool.range(), std::uint64_t{0},
        [](const auto& r, std::uint64_t s) {
          for (const element& e : r) s += e.x + e.y + e.z;
          return s;
        },
        std::plus<>{});
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pool.size()));
  state.counters["threads"] = threads;
}

void sum_vector_openmp(benchmark::State& state) {
  auto& v = shared_vector();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::uint64_t sum = 0;
    const auto n = static_cast<std::ptrdiff_t>(v.size());
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const element& e = v[static_cast<std::size_t>(i)];
      sum += e.x + e.y + e.z;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v.size()));
  state.counters["threads"] = threads;
}

void thread_args(benchmark::internal::Benchmark* b) {
  for (int t : travpool_bench::thread_counts()) b->Arg(t);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(listing15_openmp)->Apply(thread_args);
BENCHMARK(listing15_tbb)->Apply(thread_args);
BENCHMARK(sum_pool_openmp)->Apply(thread_args);
BENCHMARK(sum_pool_tbb_reduce)->Apply(thread_args);
BENCHMARK(sum_vector_openmp)->Apply(thread_args);

int main(int argc, char** argv) { return travpool_bench::run_main(argc, argv, n_elements); }
