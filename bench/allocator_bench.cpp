// Node-container churn with travpool::allocator, boost::fast_pool_allocator
// and std::allocator (issue 8), single-threaded.
//
//   list_churn:  push_back N, pop_front all; repeated
//   map_churn:   insert N random keys, erase them in another random order
//   umap_churn:  the same with std::unordered_map (buckets kept between rounds)
//
// Allocators: tp = travpool::allocator (single-threaded), tp_mt =
// travpool::concurrent_allocator, fast = boost::fast_pool_allocator with its
// default (mutex) policy, fast_nomutex = the same with null_mutex, std.
// Compare medians of repetitions from one run, e.g.
//   allocator_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include <travpool/allocator.hpp>

#include <benchmark/benchmark.h>
#include <boost/pool/pool_alloc.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

struct tp {
  template <class T>
  using alloc = travpool::allocator<T>;
};
struct tp_mt {
  template <class T>
  using alloc = travpool::concurrent_allocator<T>;
};
struct fast {
  template <class T>
  using alloc = boost::fast_pool_allocator<T>;
};
struct fast_nomutex {
  template <class T>
  using alloc =
      boost::fast_pool_allocator<T, boost::default_user_allocator_new_delete, boost::details::pool::null_mutex>;
};
struct std_alloc {
  template <class T>
  using alloc = std::allocator<T>;
};

std::vector<std::uint64_t> shuffled_keys(std::size_t n, unsigned seed) {
  std::vector<std::uint64_t> k(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = i * 2654435761u;
  std::shuffle(k.begin(), k.end(), std::mt19937_64(seed));
  return k;
}

template <class Which>
void list_churn(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::list<std::uint64_t, typename Which::template alloc<std::uint64_t>> l;
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) l.push_back(i);
    std::uint64_t sum = 0;
    while (!l.empty()) {
      sum += l.front();
      l.pop_front();
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class Which>
void map_churn(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  using value = std::pair<const std::uint64_t, std::uint64_t>;
  std::map<std::uint64_t, std::uint64_t, std::less<>, typename Which::template alloc<value>> m;
  const auto ins = shuffled_keys(n, 1), del = shuffled_keys(n, 2);
  for (auto _ : state) {
    for (auto k : ins) m.emplace(k, k);
    for (auto k : del) m.erase(k);
    benchmark::DoNotOptimize(m.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class Which>
void umap_churn(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  using value = std::pair<const std::uint64_t, std::uint64_t>;
  std::unordered_map<std::uint64_t, std::uint64_t, std::hash<std::uint64_t>, std::equal_to<>,
                     typename Which::template alloc<value>>
      m;
  const auto ins = shuffled_keys(n, 1), del = shuffled_keys(n, 2);
  for (auto _ : state) {
    for (auto k : ins) m.emplace(k, k);
    for (auto k : del) m.erase(k);
    benchmark::DoNotOptimize(m.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

#define TRAVPOOL_BENCH_ALL(fn, ...)                  \
  BENCHMARK_TEMPLATE(fn, tp)->__VA_ARGS__;           \
  BENCHMARK_TEMPLATE(fn, tp_mt)->__VA_ARGS__;        \
  BENCHMARK_TEMPLATE(fn, fast)->__VA_ARGS__;         \
  BENCHMARK_TEMPLATE(fn, fast_nomutex)->__VA_ARGS__; \
  BENCHMARK_TEMPLATE(fn, std_alloc)->__VA_ARGS__

TRAVPOOL_BENCH_ALL(list_churn, Arg(1000)->Arg(100000));
TRAVPOOL_BENCH_ALL(map_churn, Arg(1000)->Arg(100000));
TRAVPOOL_BENCH_ALL(umap_churn, Arg(1000)->Arg(100000));

}  // namespace

BENCHMARK_MAIN();
