// travpool/detail/column_pool_parts.hpp: what basic_column_pool is made of:
// its resolved options, the bin layer it stands on (bin_storage over
// slot_ops and the acquisition layer of its sync policy), its columns, its
// locks; and handle_remap, what compact() returns.
//
//   columns_     the columns (column_set.hpp)
//   serial_      sync::global_mutex: the one mutex around create, destroy,
//                is_live and size (the bin layer is then local_bins)
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../options.hpp"
#include "../stats.hpp"
#include "acquire_concurrent.hpp"
#include "acquire_local.hpp"
#include "bin_storage.hpp"
#include "column_set.hpp"
#include "slot_bins.hpp"
#include "stats_hooks.hpp"

namespace travpool {

// Old handle -> new handle, for the handles that compact() moved.
class handle_remap {
 public:
  using move = std::pair<std::uint32_t, std::uint32_t>;  // {old, new}
  handle_remap() = default;
  // Requires: moves sorted by old handle, each old handle once.
  explicit handle_remap(std::vector<move> moves) noexcept : moves_(std::move(moves)) {}
  // Returns: h's new handle (h itself if h did not move). O(log moves).
  std::uint32_t operator()(std::uint32_t h) const noexcept {
    auto it =
        std::lower_bound(moves_.begin(), moves_.end(), h, [](const move& m, std::uint32_t x) { return m.first < x; });
    return it != moves_.end() && it->first == h ? it->second : h;
  }
  const std::vector<move>& moves() const noexcept { return moves_; }
  std::size_t size() const noexcept { return moves_.size(); }

 private:
  std::vector<move> moves_;
};

namespace detail {

struct no_serial {};

template <class... Options>
struct column_pool_parts {
  static_assert(check_options<Options...>());
  static_assert(std::is_same_v<select_option_t<layout_category, layout::compact, Options...>, layout::compact>,
                "travpool: a column pool's slots are always layout::compact");
  using sync_type = select_option_t<sync_category, sync::none, Options...>;
  using stats_type = select_option_t<stats_category, stats::none, Options...>;
  using checks_type =
      select_option_t<checks_category, std::conditional_t<TRAVPOOL_CHECKS != 0, checks::on, checks::off>, Options...>;
  static constexpr bool checked = std::is_same_v<checks_type, checks::on>;
  static constexpr bool bin_locked = std::is_same_v<sync_type, sync::bin_locks>;
  static constexpr bool serialised = std::is_same_v<sync_type, sync::global_mutex>;
  using storage = bin_storage<slot_ops, typename stats_hooks<stats_type>::type, bin_locked>;
  using core_type = std::conditional_t<bin_locked, concurrent_bins<storage, checked>, local_bins<storage>>;

  explicit column_pool_parts(std::uint32_t bin_slots) : core_(bin_slots) {}

  // Returns: a lock of serial_ (sync::global_mutex), else nothing.
  auto serialise() const {
    if constexpr (serialised)
      return std::unique_lock<std::mutex>(serial_);
    else
      return no_serial{};
  }
  pool_stats collect_stats() const {
    pool_stats s;
    bin_base::counters listed;
    core_.for_each_bin_unlocked([&](const bin_base& b) {
      listed += load_counters(b);
      s.live += load_relaxed(b.live_);
    });
    core_.stats_hooks().merge(s, listed, core_type::exact_size);
    return s;
  }

  core_type core_;
  column_set columns_;
  std::mutex index_mutex_;  // bin indices: assigning (new bins) and dropping
  [[no_unique_address]] mutable std::conditional_t<serialised, std::mutex, no_serial> serial_;
};

}  // namespace detail
}  // namespace travpool
