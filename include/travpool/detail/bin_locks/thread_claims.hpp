// travpool/detail/bin_locks/thread_claims.hpp: what a thread that exits
// gives back to the concurrent pools it used (sync::bin_locks,
// concurrent_bins.hpp).
//
// A thread claims the bin it remembers for each pool (remembered_bins.hpp)
// and holds its lock's bias. When the thread exits, those
// claims are released, so the next thread's scan reuses the partly filled
// bins instead of mapping new ones. The pool may be gone by then: the
// claim registry below knows which pools are live, and a live pool's bins
// stay mapped while the registry's mutex is held:
//   id enrolled  =>  every bin the pool handed to a thread is mapped
// (a pool enrolls before its first claim and withdraws before it unmaps
// anything or changes its id).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include "../bin.hpp"
#include "../platform.hpp"
#include "bin_lock.hpp"
#include "remembered_bins.hpp"

namespace travpool::detail {

// The process-wide set of concurrent pools whose bins a thread may have
// claimed (by id; ids are never reused). A pool enrolls before its first
// claim and withdraws before it unmaps anything, so while the registry's
// mutex is held and a pool is enrolled, every bin it handed to a thread is
// mapped (retired bins stay mapped until the pool goes). This is what lets
// a thread release its claims when it exits or evicts a remembered bin
// without knowing whether the pool still exists.
// Lock order (docs/design.md, "Locks and their order"): a thread holding a
// bin's lock may take the registry (a ~T that creates in another pool), so
// the registry takes a bin's lock only with try_lock, and never waits for
// one while held.
class claim_registry {
 public:
  // Never destroyed: threads may exit after static destruction has begun.
  // Fork-safe as span_cache is (platform.hpp: fork_safe_instance).
  static claim_registry& instance() noexcept {
    return fork_safe_instance<&claim_registry::mutex_>([](void* at) { return ::new (at) claim_registry(); });
  }

  // Effects: records pool `id` as live. Throws: std::bad_alloc.
  void enroll(std::uint64_t id) {
    std::lock_guard<std::mutex> g(mutex_);
    const auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (at == ids_.end() || *at != id) ids_.insert(at, id);
  }
  // Effects: pool `id` is gone: its bins are no longer looked at.
  void withdraw(std::uint64_t id) noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    const auto at = std::lower_bound(ids_.begin(), ids_.end(), id);
    if (at != ids_.end() && *at == id) ids_.erase(at);
  }

  // Effects: if pool `slot.pool_id` is live, gives up the calling thread's
  // claim on `slot.bin` and its biases on `slot.bin` and `slot.hot`.
  // Returns: false if the bin's lock was busy (nothing done; try again).
  // Gives up (true) if the calling thread is inside the bin's biased section.
  bool release_claim(const remembered_bin& slot) noexcept {
    const std::uint32_t me = thread_number();
    std::lock_guard<std::mutex> g(mutex_);
    if (!std::binary_search(ids_.begin(), ids_.end(), slot.pool_id)) return true;
    // Both bins are mapped: their pool is live.
    return give_up(slot.hot, me, false) && give_up(slot.bin, me, true);
  }

 private:
  // Requires: the registry's mutex, b mapped or nullptr. Effects: if b is
  // biased to (or, with `claimed`, claimed by) the calling thread `me`,
  // drops that bias (and claim) under b's lock. Returns: false if the lock
  // was busy. A bias or claim that is not ours now will not become ours
  // (only this thread makes a bin its own), so another thread's is never
  // revoked; under the lock ours stays ours until we drop it.
  static bool give_up(bin_base* b, std::uint32_t me, bool claimed) noexcept {
    if (b == nullptr || b->lock_.inside_section()) return true;
    const auto mine = [&] {
      return claimed ? b->claim_.load(std::memory_order_relaxed) == me : b->lock_.biased_to_caller();
    };
    if (!mine()) return true;
    if (!b->lock_.try_lock()) return false;
    if (mine()) {
      b->lock_.unbias();
      if (claimed) b->claim_.store(0, std::memory_order_relaxed);
    }
    b->lock_.unlock();
    return true;
  }

  friend struct test_access;
  claim_registry() = default;
  std::mutex mutex_;
  std::vector<std::uint64_t> ids_;  // sorted
};

// Initialised before main(), as span_cache_at_start is: a fork() must not
// catch another thread inside the first call of either (its guard would
// stay held in the child).
inline claim_registry& claim_registry_at_start = claim_registry::instance();
inline const bool biasing_known_at_start = biasing_enabled();

// Gives up the calling thread's claim on a remembered bin, retrying while
// the bin's lock is busy, at most `tries` times (the lock may be held by
// this very thread, by a ~T that runs in that bin and creates elsewhere).
inline void release_remembered(remembered_bin& slot, unsigned tries) noexcept {
  if (slot.pool_id == 0) return;
  for (unsigned step = 0; step < tries; ++step) {
    if (claim_registry::instance().release_claim(slot)) break;
    backoff(step);
  }
  slot = {};
}

// Thread exit: releases the claims of the exiting thread's remembered
// bins, in the pools still live, so that the next thread's scan reuses
// those partly filled bins instead of mapping new ones. Armed by a thread's
// first scan (the slow path), so the create and destroy fast paths touch
// no thread_local with a destructor. A claim made after this ran (by the
// destructor of a thread_local constructed before the thread's first scan)
// stays until its pool is destroyed.
struct thread_claims {
  thread_claims() noexcept = default;
  thread_claims(const thread_claims&) = delete;
  thread_claims& operator=(const thread_claims&) = delete;
  ~thread_claims() {
    for (std::size_t k = 0; k < remembered_slots; ++k) release_remembered(remembered_slot(k), ~0u);
  }
  static void arm() noexcept {
    // The section record first, so that it is given back after this
    // releases the thread's biases (thread_locals die in reverse order).
    if (biasing_enabled()) (void)section_record_index();
    thread_local thread_claims armed;
    (void)armed;
  }
};

}  // namespace travpool::detail
