// travpool/detail/bin_locks/remembered_bins.hpp: a thread's state under
// sync::bin_locks: the table of its remembered bins, one slot per pool (the
// paper's "thread-local bin"), and its section record (bin_lock.hpp).
// concurrent_bins.hpp fills the table, thread_claims.hpp empties it when
// the thread exits.
//
// Invariant (t = the thread, id = a pool's identity, never reused):
//   slot = {id, b, hot}  =>  b is a bin of pool id that t claimed
//                          (b->claim_ = t unless given up); each hot[k] is
//                          null or a bin of pool id (a hint: take() checks
//                          its bias)
//   current_thread_state() = &idle_thread_state  =>  t has no slot and no
//                          record (it never scanned, or it exited)
#pragma once

#include <cstddef>
#include <cstdint>

namespace travpool::detail {

struct bin_base;
struct section_record;

// A thread's remembered bin for one pool. Keyed by the pool's id, which is
// never reused, so an entry of a destroyed pool is never followed, whatever
// address a new pool gets. Entries are plain data (no TLS guard on the fast
// path); at thread exit, detail::thread_claims (thread_claims.hpp)
// releases the claims on the remembered bins. A thread may use many pools:
// entries are direct-mapped by id, so up to remembered_slots pools with
// consecutive ids never evict each other, and an evicted pool only costs
// its next create a scan.
struct remembered_bin {
  static constexpr std::uint32_t hot_depth = 4;
  static_assert((hot_depth & (hot_depth - 1)) == 0, "the ring's index wraps with a mask");

  std::uint64_t pool_id = 0;
  bin_base* bin = nullptr;  // claimed by this thread (or being left)
  // The bins of this thread's last biased destroys in this pool, hints for
  // its creates: a ring, hot[top] the latest, then hot[top - 1], ...
  // (mod hot_depth); nullptr: none. A bin destroyed in again while it is
  // the latest is not entered twice.
  bin_base* hot[hot_depth] = {};
  std::uint32_t top = 0;

  // Effects: b is the latest hot bin.
  void push_hot(bin_base* b) noexcept {
    if (hot[top] == b) return;
    top = (top + 1) & (hot_depth - 1);
    hot[top] = b;
  }
  // Effects: drops the latest hot bin; the one before it is the latest.
  void pop_hot() noexcept {
    hot[top] = nullptr;
    top = (top - 1) & (hot_depth - 1);
  }
};
inline constexpr std::size_t remembered_slots = 16;

// A thread's section record (bin_lock.hpp), if it holds one.
struct thread_section_record {
  static constexpr std::uint32_t none = ~std::uint32_t{0};  // never a bias
  section_record* record = nullptr;
  std::uint32_t index = none;
  // No record will be taken: none could be had (the thread is never
  // biased).
  bool closed = false;
};

// Everything of a thread that its exit gives back, in one block of the
// heap rather than in thread_local storage: the runtime may free a
// thread_local's storage before the code that runs at thread exit (mingw-w64's
// emutls frees every thread_local of a thread before its C++ thread_local
// destructors and, in an unspecified order, among its pthread key
// destructors), so the exit (thread_claims::exit) reads only this block,
// which it is handed (platform.hpp: at_thread_exit), and never a
// thread_local. A thread gets its block when it first scans or takes a
// section record (bin_lock.hpp: own_thread_state).
struct alignas(64) thread_state {  // one per thread, on its own lines
  remembered_bin slots[remembered_slots];
  thread_section_record record;
  std::uint32_t number = 0;  // the thread's thread_number()
  // Set once the thread has scanned (thread_claims::arm): at exit, gives up
  // the claims and biases of the slots, before the record goes.
  void (*release_claims)(thread_state&) noexcept = nullptr;
  thread_state* next_kept = nullptr;  // kept_thread_states (bin_lock.hpp)
};

// The state of every thread that has none of its own: never written (no
// slot matches a pool id, and no record is taken for it).
inline constinit thread_state idle_thread_state{};

// Returns: the calling thread's state (&idle_thread_state until its first
// scan). Constant-initialised and trivially destructible: the fast paths
// read it without a TLS guard, and nothing at thread exit depends on it.
inline thread_state*& current_thread_state() noexcept {
  thread_local thread_state* current = &idle_thread_state;
  return current;
}

inline remembered_bin& remembered_slot(std::size_t k) noexcept { return current_thread_state()->slots[k]; }
// Returns: the slot of pool `pool_id` in state s (the calling thread's).
inline remembered_bin& remembered_for(thread_state& s, std::uint64_t pool_id) noexcept {
  return s.slots[pool_id % remembered_slots];
}
inline remembered_bin& remembered_for(std::uint64_t pool_id) noexcept {
  return remembered_for(*current_thread_state(), pool_id);
}

}  // namespace travpool::detail
