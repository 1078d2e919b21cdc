// bench/concurrent_bench.cpp: thread-safe creation (the paper's Figure 12),
// llheap's churn, and a producer-consumer pair.
//
// Contenders, side by side in one process with the same N and flags:
//   concurrent_pool       basic_pool<T, sync::bin_locks>
//   global_mutex_pool     basic_pool<T, sync::global_mutex>
//   boost_pool_mutex      boost::object_pool<T> + std::mutex
//   new_delete            new / delete
//   pool_single           travpool::pool<T>, 1 thread only: the uncontended
//                         baseline for concurrent_pool's fast-path cost
//
// Figure 12: N creations in an OpenMP parallel for (static schedule) at
// 1, 2, 4, 8 threads (others: TRAVPOOL_BENCH_THREADS, run_main.hpp); each
// pointer is stored in a preallocated array, as real code would keep it.
// Only the parallel loop is timed (manual time); the container's
// construction and teardown are not.
//   fig12_create   a fresh container per repetition, as a program that
//                  builds and drops containers sees it. travpool's bins come
//                  from its process-wide span cache (travpool/memory.hpp),
//                  which holds the previous repetition's bins, so only the
//                  first repetition faults in new memory; the others reuse
//                  what the allocator keeps, as glibc's malloc (new_delete,
//                  boost's blocks) keeps its heap.
//   fig12_cold     fig12_create with travpool's span cache emptied before
//                  each repetition (untimed): every bin is fresh memory from
//                  the kernel, whose page faults and zeroing of ~0.5 GB are
//                  timed (travpool only).
//   fig12_refill   one container for the whole run, emptied between
//                  repetitions (untimed) and filled again: memory already
//                  mapped, as when a pool is reused (e.g. per frame or per
//                  edit). Not for boost::object_pool: it has no clear(),
//                  and giving back 20 M elements one by one is quadratic
//                  (free() inserts into a sorted free list), so it did not
//                  finish in 20 minutes here.
//   fig12_reserved a fresh container per repetition and reserve(N) before the
//                  timed loop (travpool only). reserve() takes the bins
//                  (from the span cache, else mapping them) and writes
//                  their headers; a bin is one 2 MiB huge page, so that
//                  faults all of it in: the loop pays neither mmap nor page
//                  faults, as when the caller knows N up front.
//   first_touch    the control: no allocator, the threads write one byte per
//                  4 KiB page of a fresh N * 24-byte mapping (MADV_HUGEPAGE,
//                  as travpool's bins): what fresh memory alone costs.
//
// Flags (before Google Benchmark's): --n=N (default 20,000,000).
#include <benchmark/benchmark.h>
#include <omp.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <boost/pool/object_pool.hpp>

#include <travpool/pool.hpp>

#include "common/run_main.hpp"

namespace {

struct element {
  std::uint64_t x, y, z;
};

std::size_t n_elements = 20'000'000;

struct concurrent_pool_c {
  travpool::concurrent_pool<element> pool;
  element* create(std::uint64_t i) { return pool.create(element{i, i, i}); }
  void destroy(element* e) { pool.destroy(e); }
  void clear(std::vector<element*>&) { pool.clear(); }
};
struct global_mutex_pool_c {
  travpool::basic_pool<element, travpool::sync::global_mutex> pool;
  element* create(std::uint64_t i) { return pool.create(element{i, i, i}); }
  void destroy(element* e) { pool.destroy(e); }
  void clear(std::vector<element*>&) { pool.clear(); }
};
struct boost_pool_mutex_c {
  std::mutex m;
  boost::object_pool<element> pool;
  element* create(std::uint64_t i) {
    std::lock_guard g(m);
    return pool.construct(element{i, i, i});
  }
  // boost::object_pool::destroy and free both keep its free list sorted
  // (ordered_free: O(free chunks) per call); free() skips the destructor.
  void destroy(element* e) {
    std::lock_guard g(m);
    pool.free(e);
  }
};
struct new_delete_c {
  element* create(std::uint64_t i) { return new element{i, i, i}; }
  void destroy(element* e) { delete e; }
  void clear(std::vector<element*>& ptrs) {
    for (element*& e : ptrs) delete std::exchange(e, nullptr);
  }
};
struct pool_single_c {
  travpool::pool<element> pool;
  element* create(std::uint64_t i) { return pool.create(element{i, i, i}); }
  void destroy(element* e) { pool.destroy(e); }
  void clear(std::vector<element*>&) { pool.clear(); }
};

// Creates n elements with `threads` OpenMP threads (static schedule), storing
// each pointer as real code would keep it.
template <class C>
void parallel_fill(C& c, std::vector<element*>& ptrs, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(ptrs.size()); ++i)
    ptrs[static_cast<std::size_t>(i)] = c.create(static_cast<std::uint64_t>(i));
}

enum class start { plain, reserved, cold };

// fig12_create, fig12_reserved and fig12_cold: a new container per repetition.
template <class C, start Start>
void fig12_fresh(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<element*> ptrs(n_elements);
  std::memset(ptrs.data(), 0, ptrs.size() * sizeof(element*));  // touch outside the timing
  for (auto _ : state) {
    if constexpr (Start == start::cold) travpool::trim_span_cache();
    auto c = std::make_unique<C>();
    if constexpr (Start == start::reserved) c->pool.reserve(ptrs.size());
    const auto t0 = std::chrono::steady_clock::now();
    parallel_fill(*c, ptrs, threads);
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    benchmark::DoNotOptimize(ptrs.data());
    if constexpr (std::is_same_v<C, new_delete_c>) c->clear(ptrs);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ptrs.size()));
  state.counters["threads"] = threads;
}

template <class C>
void fig12_create(benchmark::State& state) {
  fig12_fresh<C, start::plain>(state);
}

template <class C>
void fig12_cold(benchmark::State& state) {
  fig12_fresh<C, start::cold>(state);
}

template <class C>
void fig12_reserved(benchmark::State& state) {
  fig12_fresh<C, start::reserved>(state);
}

template <class C>
void fig12_refill(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<element*> ptrs(n_elements);
  auto c = std::make_unique<C>();
  parallel_fill(*c, ptrs, threads);  // maps and faults the memory, untimed
  for (auto _ : state) {
    c->clear(ptrs);
    const auto t0 = std::chrono::steady_clock::now();
    parallel_fill(*c, ptrs, threads);
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    benchmark::DoNotOptimize(ptrs.data());
  }
  c->clear(ptrs);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ptrs.size()));
  state.counters["threads"] = threads;
}

void first_touch(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::size_t bytes = n_elements * sizeof(element);
  for (auto _ : state) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    madvise(m, bytes, MADV_HUGEPAGE);
    auto* p = static_cast<volatile char*>(m);
    const auto pages = static_cast<std::int64_t>(bytes / 4096);
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < pages; ++i) p[static_cast<std::size_t>(i) * 4096] = 1;
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    munmap(m, bytes);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["threads"] = threads;
}

// llheap's churn: each thread owns `slots` elements and repeatedly destroys
// the element in a random slot and creates a new one in its place.
template <class C>
void churn(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const std::size_t slots = 100'000, rounds = 2'000'000;
  for (auto _ : state) {
    auto c = std::make_unique<C>();
    std::vector<std::vector<element*>> owned(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
    {
      auto& mine = owned[static_cast<std::size_t>(omp_get_thread_num())];
      for (std::size_t i = 0; i < slots; ++i) mine.push_back(c->create(i));
    }
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      auto& mine = owned[static_cast<std::size_t>(omp_get_thread_num())];
      std::minstd_rand rng(static_cast<unsigned>(omp_get_thread_num() + 1));
      for (std::size_t r = 0; r < rounds; ++r) {
        const std::size_t s = rng() % slots;
        c->destroy(mine[s]);
        mine[s] = c->create(r);
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    for (auto& v : owned)
      for (element* e : v) c->destroy(e);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rounds * static_cast<std::size_t>(threads)));
  state.counters["threads"] = threads;
}

// churn with 2 workers (std::thread) and, for Arg 1, a third thread that
// calls size() and contains() in a loop, as a monitor or an assertion
// would; Arg 2: the same, pausing 20 us between rounds (on a 2-core machine
// a busy third thread takes CPU from the workers whatever it calls).
// Neither call takes a bin's lock, so neither revokes the workers' bias;
// compare Arg 1 and 2 with Arg 0.
template <class C>
void churn_observed(benchmark::State& state) {
  const int observer = static_cast<int>(state.range(0));
  constexpr int threads = 2;
  const std::size_t slots = 100'000, rounds = 2'000'000;
  std::uint64_t looks = 0;
  for (auto _ : state) {
    auto c = std::make_unique<C>();
    std::vector<std::vector<element*>> owned(threads);
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        auto& mine = owned[static_cast<std::size_t>(t)];
        for (std::size_t i = 0; i < slots; ++i) mine.push_back(c->create(i));
        ready.fetch_add(1, std::memory_order_release);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        std::minstd_rand rng(static_cast<unsigned>(t + 1));
        for (std::size_t r = 0; r < rounds; ++r) {
          const std::size_t s = rng() % slots;
          c->destroy(mine[s]);
          mine[s] = c->create(r);
        }
      });
    while (ready.load(std::memory_order_acquire) != threads) std::this_thread::yield();
    // Pointers the observer asks about; live or destroyed, contains() is
    // safe for any pointer value.
    std::vector<const element*> sample;
    for (int t = 0; t < threads; ++t)
      for (std::size_t i = 0; i < slots; i += 97) sample.push_back(owned[static_cast<std::size_t>(t)][i]);
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> seen{0};
    std::thread watcher;
    if (observer != 0)
      watcher = std::thread([&] {
        std::uint64_t n = 0, sink = 0;
        for (std::size_t k = 0; !done.load(std::memory_order_relaxed); ++k) {
          sink += c->pool.size();
          sink += c->pool.contains(sample[k % sample.size()]);
          ++n;
          if (observer == 2) std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        benchmark::DoNotOptimize(sink);
        seen.store(n);
      });
    const auto t0 = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& w : workers) w.join();
    const auto t1 = std::chrono::steady_clock::now();
    done = true;
    if (watcher.joinable()) watcher.join();
    looks += seen.load();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    for (auto& v : owned)
      for (element* e : v) c->destroy(e);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rounds * threads));
  state.counters["observer"] = observer;
  state.counters["looks"] = static_cast<double>(looks) / static_cast<double>(state.iterations());
}

// One thread creates, another destroys what it created (a ring of pointers).
template <class C>
void producer_consumer(benchmark::State& state) {
  const std::size_t n = 4'000'000, ring = 4096;
  for (auto _ : state) {
    auto c = std::make_unique<C>();
    std::vector<std::atomic<element*>> slots(ring);
    for (auto& s : slots) s.store(nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    std::thread consumer([&] {
      for (std::size_t i = 0; i < n; ++i) {
        auto& s = slots[i % ring];
        element* e;
        while ((e = s.exchange(nullptr, std::memory_order_acquire)) == nullptr) std::this_thread::yield();
        c->destroy(e);
      }
    });
    for (std::size_t i = 0; i < n; ++i) {
      element* e = c->create(i);
      auto& s = slots[i % ring];
      while (s.load(std::memory_order_relaxed) != nullptr) std::this_thread::yield();
      s.store(e, std::memory_order_release);
    }
    consumer.join();
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void thread_args(benchmark::internal::Benchmark* b) {
  for (int t : travpool_bench::thread_counts()) b->Arg(t);
  b->UseManualTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_TEMPLATE(fig12_create, pool_single_c)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(fig12_create, concurrent_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_create, global_mutex_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_create, boost_pool_mutex_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_create, new_delete_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_cold, pool_single_c)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(fig12_cold, concurrent_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_reserved, pool_single_c)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(fig12_reserved, concurrent_pool_c)->Apply(thread_args);
BENCHMARK(first_touch)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_refill, pool_single_c)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(fig12_refill, concurrent_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_refill, global_mutex_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(fig12_refill, new_delete_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(churn, pool_single_c)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(churn, concurrent_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(churn, global_mutex_pool_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(churn, boost_pool_mutex_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(churn, new_delete_c)->Apply(thread_args);
BENCHMARK_TEMPLATE(churn_observed, concurrent_pool_c)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(producer_consumer, concurrent_pool_c)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(producer_consumer, global_mutex_pool_c)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(producer_consumer, boost_pool_mutex_c)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(producer_consumer, new_delete_c)->UseManualTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) { return travpool_bench::run_main(argc, argv, n_elements); }
