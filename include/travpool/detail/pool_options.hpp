// travpool/detail/pool_options.hpp: basic_pool's options resolved into the
// layers below the element layer: the layout (detail/layouts.hpp), the bin
// storage (detail/bin_storage.hpp) with its stats hooks, and the bin
// acquisition layer of the sync policy (detail/acquire_local.hpp,
// detail/acquire_concurrent.hpp).
//
//   sync::none          local_bins<storage>
//   sync::global_mutex  mutex_bins<local_bins<storage>>   (the same layer
//                       behind one mutex, not a third copy)
//   sync::bin_locks     concurrent_bins<storage, checked>
//
// Nothing here needs T complete: the layout's accessors are resolved when
// the pool first uses them (layout_ops_for), so basic_pool<T> is a complete
// type while T is not yet.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../options.hpp"
#include "acquire_concurrent.hpp"
#include "acquire_local.hpp"
#include "bin_storage.hpp"
#include "layouts.hpp"
#include "stats_hooks.hpp"

namespace travpool {

// Chunks per bin that fill one 2 MiB span: 86,918 for a 24-byte T in the
// compact layout, 65,528 in the interleaved one (the paper's "about 64,000").
template <class T, class Layout = layout::compact>
inline constexpr std::uint32_t default_bin_capacity =
    detail::layout_traits<detail::layout_ops_t<Layout, T>>::default_capacity();

inline namespace TRAVPOOL_ABI_NAMESPACE {

// The checks policy of pools that name none (config.hpp: TRAVPOOL_CHECKS).
#if TRAVPOOL_CHECKS
using default_checks = checks::on;
#else
using default_checks = checks::off;
#endif

// The options of basic_pool<T, Options...>, resolved (defaults filled in),
// and the layers they select.
template <class T, class... Options>
struct pool_options {
  static_assert(detail::check_options<Options...>());
  using layout_type = detail::select_option_t<detail::layout_category, layout::compact, Options...>;
  using sync_type = detail::select_option_t<detail::sync_category, sync::none, Options...>;
  using stats_type = detail::select_option_t<detail::stats_category, stats::none, Options...>;
  using checks_type = detail::select_option_t<detail::checks_category, default_checks, Options...>;
  // Deferred: T may be incomplete where basic_pool<T> is instantiated.
  using ops = detail::layout_ops_for<layout_type, T>;
  static constexpr bool checked = std::is_same_v<checks_type, checks::on>;
  static constexpr bool bin_locked = std::is_same_v<sync_type, sync::bin_locks>;
  using storage = detail::bin_storage<ops, typename detail::stats_hooks<stats_type>::type, bin_locked>;
  // The bin acquisition layer of the sync policy.
  using core_type = std::conditional_t<
      bin_locked, detail::concurrent_bins<storage, checked>,
      std::conditional_t<std::is_same_v<sync_type, sync::global_mutex>, detail::mutex_bins<detail::local_bins<storage>>,
                         detail::local_bins<storage>>>;
};

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
