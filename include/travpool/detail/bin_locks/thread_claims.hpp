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

  // Requires: `me` and `t` are the calling thread's thread_number and
  // section record (passed in: the thread's exit reads no thread_local).
  // Effects: if pool `slot.pool_id` is live, gives up the calling thread's
  // claim on `slot.bin` and its biases on `slot.bin` and the hot bins.
  // Returns: false if the claimed bin's lock was busy (nothing done; try
  // again). The hot bins are given up as far as their locks are free: a
  // bias left on one costs the next thread that locks it one revocation,
  // as a hot bin the thread dropped does.
  // Gives up (true) if the calling thread is inside the bin's biased section.
  bool release_claim(const remembered_bin& slot, std::uint32_t me, const thread_section_record& t) noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    if (!std::binary_search(ids_.begin(), ids_.end(), slot.pool_id)) return true;
    // Every bin the slot names is mapped: its pool is live.
    if (!give_up(slot.bin, me, t, true)) return false;
    for (bin_base* h : slot.hot) (void)give_up(h, me, t, false);
    return true;
  }

 private:
  // Requires: the registry's mutex, b mapped or nullptr. Effects: if b is
  // biased to (or, with `claimed`, claimed by) the calling thread `me`,
  // whose record is t, drops that bias (and claim) under b's lock. Returns:
  // false if the lock was busy. A bias or claim that is not ours now will
  // not become ours (only this thread makes a bin its own), so another
  // thread's is never revoked; under the lock ours stays ours until we drop
  // it. Inside b's biased section (its lock is in a slot of our record:
  // what bin_lock::inside_section says, read from the record), nothing.
  static bool give_up(bin_base* b, std::uint32_t me, const thread_section_record& t, bool claimed) noexcept {
    // Inside b's biased section, or holding its mutex (the thread exits
    // from a ~T that runs under the lock: std::exit): nothing can be done,
    // and waiting for the lock would wait forever.
    if (b == nullptr || (t.record != nullptr && t.record->holds(&b->lock_)) || b->lock_.held_by(me)) return true;
    const auto mine = [&] {
      return claimed ? b->claim_.load(std::memory_order_relaxed) == me : b->lock_.biased_to_record(t.index);
    };
    if (!mine()) return true;
    if (!b->lock_.try_lock_as(me, t)) return false;
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
// `me`, `t`: the calling thread's thread_number and record.
inline void release_remembered(remembered_bin& slot, unsigned tries, std::uint32_t me,
                               const thread_section_record& t) noexcept {
  if (slot.pool_id == 0) return;
  for (unsigned step = 0; step < tries; ++step) {
    if (claim_registry::instance().release_claim(slot, me, t)) break;
    backoff(step);
  }
  slot = {};
}
// As above, for the calling thread while it runs (not at its exit).
inline void release_remembered(remembered_bin& slot, unsigned tries) noexcept {
  release_remembered(slot, tries, thread_number(), this_thread_record());
}

// Thread exit: releases the claims and biases of the exiting thread's
// remembered bins, in the pools still live, so that the next thread's scan
// reuses those partly filled bins instead of mapping new ones (then
// exit_thread_state, bin_lock.hpp, gives its section record back). A
// thread's first scan (the slow path) arms it: the thread's state moves
// from idle_thread_state to a thread_state of its own on the heap, which
// at_thread_exit hands to the exit, so the create and destroy fast paths
// touch no thread_local with a destructor, and the exit reads no
// thread_local: it does not depend on the order in which the runtime runs
// thread-exit code and frees thread_local storage (ELF TLS: thread_local
// destructors in reverse order of construction, storage freed last;
// mingw-w64's emutls: storage freed among the pthread key destructors,
// before the C++ thread_local destructors and the FLS callbacks run). On
// POSIX the exit is a thread_local's destructor made at the first scan
// (platform.hpp), so claims made by the destructors of thread_locals made
// later are released; a claim made after the exit ran (by a thread_local
// made before the first scan) stays until its pool is destroyed.
struct thread_claims {
  // Effects: the thread's state is its own (made the first time), and its
  // claims are released at exit; takes its section record if bins may be
  // biased. Throws: std::bad_alloc (then no claim can be made).
  static void arm() {
    thread_state* const state = own_thread_state();
    if (state == nullptr) throw std::bad_alloc();
    state->release_claims = &thread_claims::release_all;
    if (biasing_enabled()) (void)section_record_index();
  }

  // Effects: at the exit of the thread whose state this is: gives up the
  // claims and biases of its remembered bins.
  static void release_all(thread_state& state) noexcept {
    for (remembered_bin& slot : state.slots) release_remembered(slot, ~0u, state.number, state.record);
  }
};

}  // namespace travpool::detail
