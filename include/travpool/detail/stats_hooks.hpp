// travpool/detail/stats_hooks.hpp: statistics as a hook object that the bin
// layers call at every event. A pool holds one in [[no_unique_address]]:
// no_stats is empty and its hooks are empty inline functions, so a pool
// without stats::counters pays nothing, and no hot path tests a flag.
//
// Per-bin counters live in the bin header (bin_base::counters_, written
// under the bin's lock or in its owner's biased section); the hook object
// holds what outlives a bin (its counters are merged in when it goes) and
// the pool-wide peak where one thread sees every create.
//
//   on_create(b, live)      a chunk of b was assigned; `live` = the pool's
//                           live count if the caller knows it exactly, else 0
//   on_destroy(b)           a chunk of b was freed (remote if b is claimed
//                           by another thread)
//   on_uncreate(b)          a create was undone (T's constructor threw)
//   on_clear(b)             every element of b was destroyed at once
//   on_scan(b, failed, n)   a create looked at n bins, failed n try_locks
//   on_bin_added()          a bin joined the list
//   on_bin_removed(b)       a bin left the list: its counters are merged
//   on_bins_spliced_in(n)   n bins of another pool joined the list, their
//                           counters with them (splice)
//   on_bins_spliced_out(n)  n bins moved to another pool, their counters
//                           with them; they count as released here
//   on_live(live)           the pool's live count jumped to `live` (splice)
//   merge(s, bins)          the snapshot: totals plus every listed bin
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "../options.hpp"
#include "../stats.hpp"
#include "bin.hpp"
#include "bin_locks/bin_lock.hpp"

namespace travpool::detail {

struct no_stats {
  static constexpr bool enabled = false;
  void on_create(bin_base&, std::size_t) noexcept {}
  void on_destroy(bin_base&) noexcept {}
  void on_uncreate(bin_base&) noexcept {}
  void on_clear(bin_base&) noexcept {}
  void on_scan(bin_base&, std::uint32_t, std::uint32_t) noexcept {}
  void on_bin_added() noexcept {}
  void on_bin_removed(bin_base&) noexcept {}
  void on_bins_spliced_in(std::size_t) noexcept {}
  void on_bins_spliced_out(std::size_t) noexcept {}
  void on_live(std::size_t) noexcept {}
};

// A bin's counters are written by one thread at a time (the bin's lock
// holder or biased owner) with relaxed stores, so that stats() can sum
// them without the bins' locks (which would revoke their owners' bias).
template <class T, class U>
inline void bump(T& counter, U by) noexcept {
  store_relaxed(counter, static_cast<T>(counter + by));
}
inline bin_base::counters load_counters(const bin_base& b) noexcept {
  const bin_base::counters& c = b.counters_;
  bin_base::counters r;
  r.creates = load_relaxed(c.creates), r.destroys = load_relaxed(c.destroys);
  r.remote_destroys = load_relaxed(c.remote_destroys), r.failed_try_locks = load_relaxed(c.failed_try_locks);
  r.bins_scanned = load_relaxed(c.bins_scanned), r.peak_live = load_relaxed(c.peak_live);
  return r;
}

struct counting_stats {
  static constexpr bool enabled = true;

  void on_create(bin_base& b, std::size_t live) noexcept {
    bump(b.counters_.creates, 1);
    if (b.live_ > b.counters_.peak_live) store_relaxed(b.counters_.peak_live, b.live_);
    if (live > peak_live_) peak_live_ = live;  // bin_locks passes 0: a read only, so no race
  }
  void on_destroy(bin_base& b) noexcept {
    bump(b.counters_.destroys, 1);
    const std::uint32_t claim = b.claim_.load(std::memory_order_relaxed);
    if (claim != 0 && claim != thread_number()) bump(b.counters_.remote_destroys, 1);
  }
  void on_uncreate(bin_base& b) noexcept { store_relaxed(b.counters_.creates, b.counters_.creates - 1); }
  void on_clear(bin_base& b) noexcept { bump(b.counters_.destroys, b.live_); }
  void on_scan(bin_base& b, std::uint32_t failed, std::uint32_t scanned) noexcept {
    bump(b.counters_.failed_try_locks, failed);
    bump(b.counters_.bins_scanned, scanned);
  }
  void on_bin_added() noexcept { ++bins_allocated_; }
  void on_bin_removed(bin_base& b) noexcept {
    ++bins_released_;
    released_ += b.counters_;
    b.counters_ = {};
  }
  void on_bins_spliced_in(std::size_t n) noexcept { bins_allocated_ += n; }
  void on_bins_spliced_out(std::size_t n) noexcept { bins_released_ += n; }
  void on_live(std::size_t live) noexcept {
    if (live > peak_live_) peak_live_ = live;
  }

  // Effects: adds the totals and `c` (every listed bin's counters) to `s`.
  // `exact_peak`: on_create saw the pool's live count (else the peak is
  // the sum of per-bin peaks, an upper bound).
  void merge(pool_stats& s, const bin_base::counters& listed, bool exact_peak) const noexcept {
    bin_base::counters c = released_;
    c += listed;
    s.creates += c.creates, s.destroys += c.destroys, s.remote_destroys += c.remote_destroys;
    s.failed_try_locks += c.failed_try_locks, s.bins_scanned += c.bins_scanned;
    s.peak_live = exact_peak ? peak_live_ : c.peak_live;
    s.bins_allocated = bins_allocated_;
    s.bins_released = bins_released_;
  }

 private:
  std::uint64_t bins_allocated_ = 0;
  std::uint64_t bins_released_ = 0;
  std::uint64_t peak_live_ = 0;
  bin_base::counters released_;
};

template <class Stats>
struct stats_hooks;
template <>
struct stats_hooks<stats::none> {
  using type = no_stats;
};
template <>
struct stats_hooks<stats::counters> {
  using type = counting_stats;
};

}  // namespace travpool::detail
