// travpool/stats.hpp: the statistics a pool with stats::counters reports.
#pragma once

#include <cstdint>
#include <ostream>

namespace travpool {

// A snapshot returned by basic_pool::stats() (stats::counters only).
struct pool_stats {
  std::uint64_t creates = 0;
  std::uint64_t destroys = 0;
  // sync::bin_locks: destroys into a bin that another thread is allocating
  // from (the thread that claims it), the cross-thread frees of llheap.
  std::uint64_t remote_destroys = 0;
  std::uint64_t bins_allocated = 0;  // mapped, or reused after retirement
  std::uint64_t bins_released = 0;   // unmapped, or retired by shrink_to_fit
  // Peak live elements. Exact for sync::none and sync::global_mutex; for
  // sync::bin_locks the sum of per-bin peaks, an upper bound (an exact peak
  // would need a shared counter on the fast path).
  std::uint64_t peak_live = 0;
  std::uint64_t live = 0;
  // sync::bin_locks only: try_lock calls that found a bin locked, and bins
  // looked at by creates that left the remembered bin.
  std::uint64_t failed_try_locks = 0;
  std::uint64_t bins_scanned = 0;
};

// Effects: writes one line per counter.
inline std::ostream& operator<<(std::ostream& os, const pool_stats& s) {
  os << "travpool pool statistics\n"
     << "  creates           " << s.creates << '\n'
     << "  destroys          " << s.destroys << "  (remote " << s.remote_destroys << ")\n"
     << "  live              " << s.live << "  (peak " << s.peak_live << ")\n"
     << "  bins allocated    " << s.bins_allocated << "  (released " << s.bins_released << ")\n"
     << "  failed try_locks  " << s.failed_try_locks << '\n'
     << "  bins scanned      " << s.bins_scanned << '\n';
  return os;
}

}  // namespace travpool
