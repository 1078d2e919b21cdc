// travpool/detail/bin_locks/remembered_bins.hpp: the table of a thread's
// remembered bins, one slot per pool (sync::bin_locks; the paper's
// "thread-local bin"). concurrent_bins.hpp fills it, thread_claims.hpp
// empties it when the thread exits.
//
// Invariant (t = the thread, id = a pool's identity, never reused):
//   slot = {id, b, h}  =>  b is a bin of pool id that t claimed
//                          (b->claim_ = t unless given up); h is null or a
//                          bin of pool id (a hint: take() checks its bias)
#pragma once

#include <cstddef>
#include <cstdint>

namespace travpool::detail {

struct bin_base;

// A thread's remembered bin for one pool. Keyed by the pool's id, which is
// never reused, so an entry of a destroyed pool is never followed, whatever
// address a new pool gets. Entries are plain data (no TLS guard on the fast
// path); at thread exit, detail::thread_claims (thread_claims.hpp)
// releases the claims on the remembered bins. A thread may use many pools:
// entries are direct-mapped by id, so up to remembered_slots pools with
// consecutive ids never evict each other, and an evicted pool only costs
// its next create a scan.
struct remembered_bin {
  std::uint64_t pool_id = 0;
  bin_base* bin = nullptr;  // claimed by this thread (or being left)
  bin_base* hot = nullptr;  // last biased destroy's bin, or nullptr: a hint
};
inline constexpr std::size_t remembered_slots = 16;

struct alignas(64) remembered_table {  // one per thread, on its own lines
  remembered_bin slots[remembered_slots];
};

inline remembered_bin& remembered_slot(std::size_t k) noexcept {
  thread_local remembered_table table;
  return table.slots[k];
}
inline remembered_bin& remembered_for(std::uint64_t pool_id) noexcept {
  return remembered_slot(pool_id % remembered_slots);
}

}  // namespace travpool::detail
