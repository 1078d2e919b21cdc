// travpool/detail/pool_diagnostics.hpp: the diagnostics of the element
// layer, a base of basic_pool (as pool_container is): the stats::counters
// snapshot, the leak report and validate().
//
// DESIGN NOTE
// ===========
// Each reads the pool's bins through the bin acquisition layer
// (Pool::core_; basic_pool befriends this base) and changes nothing. The
// work is done by detail/validate.hpp (validate_bins, describe_leaks) and
// the stats hook object (detail/stats_hooks.hpp); this base only states
// the contracts. Empty: basic_pool gets it by the empty base optimisation.
//
// Invariant checked by stats() (stats::counters; exact when quiescent):
//   stats().live = size() = sum over listed bins b of b.live_
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "../options.hpp"
#include "../stats.hpp"
#include "bin.hpp"
#include "stats_hooks.hpp"
#include "validate.hpp"

namespace travpool::detail {

template <class Pool, class T, class Ops, class Stats>
class pool_diagnostics {
 public:
  // Returns: the counters, summed over bins (stats::counters only).
  // Thread-safe with sync::bin_locks, without the bins' locks (each bin's
  // counters are read with relaxed loads, as size() reads live counts).
  // O(bins).
  pool_stats stats() const requires std::is_same_v<Stats, ::travpool::stats::counters> {
    pool_stats s;
    bin_base::counters listed;
    core().for_each_bin_unlocked([&](const bin_base& b) {
      listed += load_counters(b);
      s.live += load_relaxed(b.live_);
    });
    core().stats_hooks().merge(s, listed, std::remove_cvref_t<decltype(core())>::exact_size);
    return s;
  }

  // Effects: writes how many elements are live, in how many bins, and the
  // addresses of the first few, to os (llheap-style leak report).
  // Returns: the number of live elements. Requires a quiescent pool.
  template <class Ostream>
  std::size_t report_leaks(Ostream& os) const {
    std::string text;
    const std::size_t live = describe_leaks<Ops>(core(), sizeof(T), text);
    os << text;
    return live;
  }

  // Effects: checks every invariant of the design note in detail/bin.hpp,
  // over every bin. Throws: std::logic_error naming the bin and chunk of the
  // first violation. Requires a quiescent pool. Complexity: O(capacity + bins).
  void validate() const { validate_bins<Ops>(core(), static_cast<const Pool&>(*this).size()); }

 private:
  const auto& core() const noexcept { return static_cast<const Pool&>(*this).core_; }
};

}  // namespace travpool::detail
