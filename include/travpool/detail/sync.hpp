// travpool/detail/sync.hpp: locks and thread-remembered bins for
// sync::bin_locks (the paper's section 4) and sync::global_mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "../usage_error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace travpool::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// A bin's lock: one word in the bin header, on the same cache line as the
// words it protects. It holds the owning thread's tag, so that a thread that
// would wait for a lock it holds itself (a destructor destroying an element
// of its own bin) gets usage_error instead of a hang. try_lock is one CAS
// when free; unlock is a plain release store. Bins are held for a few
// nanoseconds and rarely contended (threads allocate in different bins), so
// waiting spins, then yields.
class spin_lock {
 public:
  bool try_lock() noexcept {
    std::uintptr_t expected = 0;
    return owner_.compare_exchange_strong(expected, self(), std::memory_order_acquire, std::memory_order_relaxed);
  }
  // Throws: usage_error if the calling thread holds this lock already.
  void lock() {
    const std::uintptr_t me = self();
    for (unsigned spins = 0;; ++spins) {
      std::uintptr_t expected = 0;
      if (owner_.compare_exchange_weak(expected, me, std::memory_order_acquire, std::memory_order_relaxed)) return;
      if (expected == me)
        throw usage_error(
            "travpool: re-entrant call into a concurrent_pool bin this thread has locked (a destructor that "
            "destroys or inspects elements of its own pool)");
      if (spins < 64)
        cpu_relax();
      else
        std::this_thread::yield();
    }
  }
  void unlock() noexcept { owner_.store(0, std::memory_order_release); }

 private:
  // A per-thread tag: the address of a thread-local byte (no TLS guard).
  static std::uintptr_t self() noexcept {
    thread_local char tag;
    return reinterpret_cast<std::uintptr_t>(&tag);
  }
  std::atomic<std::uintptr_t> owner_{0};
};

struct bin_base;

// A thread's remembered bin for one pool. Keyed by the pool's id, which is
// never reused, so an entry of a destroyed pool is never followed, whatever
// address a new pool gets. Entries are plain data: nothing to do at thread
// exit. A thread may use many pools: entries are direct-mapped by id, so up
// to remembered_slots pools with consecutive ids never evict each other, and
// an evicted pool only costs its next create a scan.
struct remembered_bin {
  std::uint64_t pool_id = 0;
  bin_base* bin = nullptr;
};
inline constexpr std::size_t remembered_slots = 16;

struct alignas(64) remembered_table {  // one per thread, on its own lines
  remembered_bin slots[remembered_slots];
};

inline remembered_bin& remembered_for(std::uint64_t pool_id) noexcept {
  thread_local remembered_table table;
  return table.slots[pool_id % remembered_slots];
}

// A small number for the calling thread (stats::counters' remote destroys).
inline std::uint32_t thread_number() noexcept {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

// Empty guard for policies without a pool-wide mutex.
struct no_guard {};

}  // namespace travpool::detail
