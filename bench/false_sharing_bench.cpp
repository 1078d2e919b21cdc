// bench/false_sharing_bench.cpp: what the cache-line alignment of
// concurrent_pool's per-bin and per-thread state is worth.
//
// travpool keeps each bin's header, and the bin's lock in it, at the start
// of the bin's own span (spans are at least 64 KiB apart), the pool's list
// lock in an alignas(64) sync_state, and each thread's table of remembered
// bins alignas(64). Here T threads each work on their own object only, laid
// out either as travpool does, one object per cache line (`padded`), or
// packed side by side (`packed`), as an array of bin headers or of
// per-thread entries would be. Nothing is shared but cache lines, so any
// difference between the two is false sharing.
//
//   bin_section   create's fast path on the thread's own bin: enter the bin
//                 lock's biased section, update two hot header words, leave
//                 (detail::bin_lock, as in basic_pool<T, sync::bin_locks>).
//   bin_mutex     the same under the bin lock's mutex (a CAS to lock, a
//                 store to unlock), as with TRAVPOOL_BIASED_LOCKS=0.
//   thread_entry  a create's lookup of its remembered bin: read the
//                 thread's entry, and write it as a scan that found a new
//                 bin does (detail::remembered_bin).
//
// Time is wall time for all threads' operations; items/s counts them.
#include <benchmark/benchmark.h>

#include <cstdint>

#include <travpool/pool.hpp>

namespace {

using travpool::detail::bin_lock;
using travpool::detail::remembered_bin;

constexpr int max_threads = 8;

struct hot_header {
  bin_lock lock;
  std::uint32_t live = 0;
  std::uint32_t free_head = 0;
};

template <class T, bool Padded>
struct slot;
template <class T>
struct alignas(64) slot<T, true> {
  T value;
};
template <class T>
struct slot<T, false> {
  T value;
};

template <class T, bool Padded>
struct alignas(64) arena {  // the first object starts a cache line either way
  slot<T, Padded> slots[max_threads];
};
static_assert(sizeof(slot<hot_header, false>) < 32, "packed: two headers share a line");
static_assert(sizeof(slot<remembered_bin, false>) < 64, "packed: neighbouring entries share a line");

template <class T, bool Padded>
arena<T, Padded> objects;

// What a create writes in its bin's header: the free-list head and the live count.
void update(hot_header& h) noexcept {
  h.free_head = h.free_head * 3 + 1;
  ++h.live;
}

// Biases the thread's bin lock to it (a previous run's threads had other numbers).
void bias_to_me(bin_lock& lock, std::uint32_t me) {
  for (int i = 0; i < 1 << 16 && lock.biased_to() != me; ++i) {
    lock.lock();
    lock.settle();
    lock.unlock();
  }
}

template <bool Padded>
void bin_section(benchmark::State& state) {
  hot_header& h = objects<hot_header, Padded>.slots[state.thread_index()].value;
  const std::uint32_t me = travpool::detail::thread_number();
  bias_to_me(h.lock, me);
  if (h.lock.biased_to() != me) state.SkipWithError("the bin lock did not bias");
  const travpool::detail::thread_state& mine = *travpool::detail::current_thread_state();
  for (auto _ : state) {
    if (travpool::detail::section_record* r = h.lock.enter(mine)) {
      update(h);
      h.lock.leave(*r);
    } else {
      h.lock.lock();
      update(h);
      h.lock.unlock();
    }
  }
  benchmark::DoNotOptimize(h.live);
  state.SetItemsProcessed(state.iterations());
}

template <bool Padded>
void bin_mutex(benchmark::State& state) {
  hot_header& h = objects<hot_header, Padded>.slots[state.thread_index()].value;
  h.lock.lock();
  h.lock.unbias();
  h.lock.unlock();
  for (auto _ : state) {
    h.lock.lock();
    update(h);
    h.lock.unlock();
  }
  benchmark::DoNotOptimize(h.live);
  state.SetItemsProcessed(state.iterations());
}

template <bool Padded>
void thread_entry(benchmark::State& state) {
  remembered_bin& e = objects<remembered_bin, Padded>.slots[state.thread_index()].value;
  // Volatile: every iteration loads the entry, as a create does.
  auto& id = reinterpret_cast<volatile std::uint64_t&>(e.pool_id);
  std::uint64_t i = 0;
  for (auto _ : state) {
    const std::uint64_t seen = id;
    if ((++i & 15) == 0) id = seen + 1;  // one scan per 16 creates: the entry is written
  }
  state.SetItemsProcessed(state.iterations());
}

void threads(benchmark::internal::Benchmark* b) { b->Threads(1)->Threads(2)->Threads(4)->UseRealTime(); }

}  // namespace

BENCHMARK_TEMPLATE(bin_section, true)->Apply(threads);
BENCHMARK_TEMPLATE(bin_section, false)->Apply(threads);
BENCHMARK_TEMPLATE(bin_mutex, true)->Apply(threads);
BENCHMARK_TEMPLATE(bin_mutex, false)->Apply(threads);
BENCHMARK_TEMPLATE(thread_entry, true)->Apply(threads);
BENCHMARK_TEMPLATE(thread_entry, false)->Apply(threads);

BENCHMARK_MAIN();
