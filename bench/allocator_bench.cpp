// Node-container churn with travpool::allocator, boost::fast_pool_allocator
// and std::allocator (issue 8), single-threaded.
//
//   list_churn:  push_back N, pop_front all; repeated
//   map_churn:   insert N random keys, erase them in another random order
//   umap_churn:  the same with std::unordered_map (buckets kept between rounds)
//   node_churn:  the allocator alone: allocate 1000 nodes, free them in
//                order (/0) or in random order (/1)
//
// Allocators: tp = travpool::allocator (single-threaded), tp_compact = the
// same with layout::compact node pools, tp_mt =
// travpool::concurrent_allocator, fast = boost::fast_pool_allocator with its
// default (mutex) policy, fast_nomutex = the same with null_mutex, std.
// Compare medians of repetitions from one run, e.g.
//   allocator_bench --benchmark_filter=churn --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
//
// memory/*: resident bytes per element of the three migrations of
// docs/migrating.md (the code of tests/travpool/migration/cases.hpp), each
// measured in a forked child so that no case sees another's freed memory.
//   allocator_bench --benchmark_filter=memory
#include <travpool/allocator.hpp>

#include "../tests/travpool/migration/cases.hpp"

#include <benchmark/benchmark.h>
#include <boost/pool/pool_alloc.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct tp {
  template <class T>
  using alloc = travpool::allocator<T>;
};
struct tp_compact {
  template <class T>
  using alloc = travpool::basic_allocator<T, travpool::layout::compact>;
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

// The allocator alone: allocate(1) 1000 nodes of 24 B, then free them in
// allocation order (arg 0) or in a random order (arg 1).
template <class Which>
void node_churn(benchmark::State& state) {
  struct node {
    std::uint64_t w[3];
  };
  typename Which::template alloc<node> a;
  std::vector<node*> p(1000);
  std::vector<std::size_t> order(p.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (state.range(0) != 0) std::shuffle(order.begin(), order.end(), std::mt19937(1));
  for (auto _ : state) {
    for (auto& x : p) x = a.allocate(1);
    benchmark::ClobberMemory();
    for (std::size_t i : order) a.deallocate(p[i], 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.size()));
}

#define TRAVPOOL_BENCH_ALL(fn, ...)                  \
  BENCHMARK_TEMPLATE(fn, tp)->__VA_ARGS__;           \
  BENCHMARK_TEMPLATE(fn, tp_compact)->__VA_ARGS__;   \
  BENCHMARK_TEMPLATE(fn, tp_mt)->__VA_ARGS__;        \
  BENCHMARK_TEMPLATE(fn, fast)->__VA_ARGS__;         \
  BENCHMARK_TEMPLATE(fn, fast_nomutex)->__VA_ARGS__; \
  BENCHMARK_TEMPLATE(fn, std_alloc)->__VA_ARGS__

TRAVPOOL_BENCH_ALL(node_churn, Arg(0)->Arg(1));
TRAVPOOL_BENCH_ALL(list_churn, Arg(1000)->Arg(100000));
TRAVPOOL_BENCH_ALL(map_churn, Arg(1000)->Arg(100000));
TRAVPOOL_BENCH_ALL(umap_churn, Arg(1000)->Arg(100000));

// ---------------------------------------------------------------------------
// Memory of the migrations (docs/migrating.md)
// ---------------------------------------------------------------------------

constexpr std::size_t memory_n = 1'000'000;

std::size_t resident_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(resident) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Runs f in a forked child. f(snap) calls snap() once to set the baseline,
// then at each point of interest; returns the resident growth over the
// baseline at each point, in bytes per memory_n elements.
template <std::size_t Points, class F>
std::array<double, Points> measure_in_child(F f) {
  std::array<double, Points> out{};
  int fd[2];
  if (::pipe(fd) != 0) return out;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fd[0]);
    std::array<double, Points> r{};
    std::size_t i = 0, base = 0;
    bool have_base = false;
    f([&] {
      const std::size_t now = resident_bytes();
      if (!have_base) {
        base = now;
        have_base = true;
      } else if (i < Points) {
        r[i++] = (static_cast<double>(now) - static_cast<double>(base)) / memory_n;
      }
    });
    [[maybe_unused]] auto w = ::write(fd[1], r.data(), sizeof r);
    ::_exit(0);
  }
  ::close(fd[1]);
  [[maybe_unused]] auto rd = ::read(fd[0], out.data(), sizeof out);
  ::close(fd[0]);
  ::waitpid(pid, nullptr, 0);
  return out;
}

template <std::size_t Points>
void report(benchmark::State& state, const std::array<double, Points>& r, std::array<const char*, Points> names) {
  for (std::size_t i = 0; i < Points; ++i) state.counters[names[i]] = r[i];
}

// Every other element, by creation order (scattered), or the first half.
bool removed(std::size_t i, bool scattered) { return scattered ? i % 2 == 1 : i < memory_n / 2; }

void memory_object_pool_before(benchmark::State& state) {
  for (auto _ : state) {
    report<1>(state, measure_in_child<1>([](auto snap) {
                migration::particles_before ps;
                snap();
                for (std::size_t i = 0; i < memory_n; ++i) ps.add(double(i), 0, 0);
                snap();
                benchmark::DoNotOptimize(ps.sum_x());
              }),
              {"B_per_elem_built"});
  }
}

void memory_object_pool_after(benchmark::State& state) {
  for (auto _ : state) {
    report<1>(state, measure_in_child<1>([](auto snap) {
                migration::particles_after ps;
                snap();
                for (std::size_t i = 0; i < memory_n; ++i) ps.add(double(i), 0, 0);
                snap();
                benchmark::DoNotOptimize(ps.sum_x());
              }),
              {"B_per_elem_built"});
  }
}

void memory_vector_before(benchmark::State& state) {
  const bool scattered = state.range(0) != 0;
  for (auto _ : state) {
    report<3>(state, measure_in_child<3>([scattered](auto snap) {
                migration::vertex_store vs;
                std::vector<migration::vertex_store::index> h;
                h.resize(memory_n);  // the user's handles: resident before the baseline
                snap();
                for (std::size_t i = 0; i < memory_n; ++i) h[i] = vs.add({double(i), 0, 0});
                snap();
                for (std::size_t i = 0; i < memory_n; ++i)
                  if (removed(i, scattered)) vs.remove(h[i]);
                snap();
                benchmark::DoNotOptimize(vs.garbage_collection());
                snap();
              }),
              {"B_per_elem_built", "B_after_half_removed", "B_after_gc"});
  }
}

void memory_vector_after(benchmark::State& state) {
  const bool scattered = state.range(0) != 0;
  for (auto _ : state) {
    report<3>(state, measure_in_child<3>([scattered](auto snap) {
                travpool::pool<migration::vertex> vs;
                std::vector<migration::vertex*> h;
                h.resize(memory_n);
                snap();
                for (std::size_t i = 0; i < memory_n; ++i) h[i] = migration::add(vs, {double(i), 0, 0});
                snap();
                for (std::size_t i = 0; i < memory_n; ++i)
                  if (removed(i, scattered)) migration::remove(vs, h[i]);
                snap();
                vs.shrink_to_fit();
                snap();
              }),
              {"B_per_elem_built", "B_after_half_removed", "B_after_gc"});
  }
}

template <class List, class Release>
void memory_list(benchmark::State& state, Release release) {
  for (auto _ : state) {
    report<3>(state, measure_in_child<3>([release](auto snap) {
                release();  // nothing the parent process left behind counts
                snap();
                {
                  List l;
                  for (std::size_t i = 0; i < memory_n; ++i) l.push_back({static_cast<std::uint32_t>(i), 0, 1.0});
                  snap();
                }
                snap();
                release();
                snap();
              }),
              {"B_per_elem_built", "B_after_destroy", "B_after_release"});
  }
}

void memory_list_fast_pool(benchmark::State& state) {
  memory_list<migration::edge_list_before>(state, [] {
    // What a user would have to write: the node size is the library's.
    boost::singleton_pool<boost::fast_pool_allocator_tag, sizeof(std::_List_node<migration::edge>)>::release_memory();
  });
}
void memory_list_travpool(benchmark::State& state) {
  memory_list<migration::edge_list_after>(state, [] { travpool::allocator<migration::edge>::shrink_to_fit(); });
}
void memory_list_travpool_compact(benchmark::State& state) {
  using alloc = tp_compact::alloc<migration::edge>;
  memory_list<std::list<migration::edge, alloc>>(state, [] { alloc::shrink_to_fit(); });
}
void memory_list_std(benchmark::State& state) {
  memory_list<std::list<migration::edge>>(state, [] { ::malloc_trim(0); });
}

BENCHMARK(memory_object_pool_before)->Iterations(1)->Name("memory/object_pool_plus_vector");
BENCHMARK(memory_object_pool_after)->Iterations(1)->Name("memory/travpool_pool_particles");
BENCHMARK(memory_vector_before)->Iterations(1)->Arg(1)->Arg(0)->Name("memory/vector_freelist/scattered");
BENCHMARK(memory_vector_after)->Iterations(1)->Arg(1)->Arg(0)->Name("memory/travpool_pool_vertices/scattered");
BENCHMARK(memory_list_fast_pool)->Iterations(1)->Name("memory/list_fast_pool_allocator");
BENCHMARK(memory_list_travpool)->Iterations(1)->Name("memory/list_travpool_allocator");
BENCHMARK(memory_list_travpool_compact)->Iterations(1)->Name("memory/list_travpool_allocator_compact");
BENCHMARK(memory_list_std)->Iterations(1)->Name("memory/list_std_allocator");

}  // namespace

BENCHMARK_MAIN();
