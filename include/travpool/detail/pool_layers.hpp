// travpool/detail/pool_layers.hpp: the composition root. A pool's options
// (options.hpp), resolved once with their defaults, and the layers below
// the element layer that they select. basic_pool and basic_column_pool
// both name their layers here, and nowhere else.
//
//   layout  -> Ops       compact_layout / interleaved_layout (detail/layouts.hpp),
//                        or slot_ops for the column pool (always compact)
//   stats   -> hooks     no_stats / counting_stats (detail/stats_hooks.hpp)
//   Ops + hooks + sync -> storage = bin_storage<Ops, hooks, bin_locked>
//   sync    -> bins_type, the bin acquisition layer:
//     sync::none          local_bins<storage, tracked>  (acquire_local.hpp)
//     sync::global_mutex  local_bins<storage, tracked>, used under one mutex
//     sync::bin_locks     concurrent_bins<storage, checked, tracked> (bin_locks/concurrent_bins.hpp)
//   checks  -> checked (checks::on: the debug checks), tracked (checks::on
//              or checks::hardened: bins count their changes, and the O(1)
//              checks are made)
//   core_type = mutex_bins<bins_type> under sync::global_mutex, else bins_type.
// basic_pool's layers (element_layers, growing_pool_layers) take their
// spans from small_span_source without sync::bin_locks: a pool constructed
// without a bin capacity has small first bins that grow (bin_storage.hpp,
// "Growth"). The column pool's bins keep one capacity (its handles are
// q * bin_slots + i).
// hive<T, Allocator, Options...> takes pool<T>'s layers (sync::none or
// sync::bin_locks) with bins from its allocator (allocator_spans.hpp):
// hive_layers.
//
// basic_pool holds a core_type: its critical sections are the bin layer's.
// basic_column_pool holds a bins_type and, under sync::global_mutex, its
// own mutex around the whole create and destroy, because those also assign
// a bin index and construct or destroy column elements.
//
// Nothing here needs T complete: element_layers names the layout's
// accessors through layout_ops_for, which is instantiated where the pool
// first uses them, so basic_pool<T> is a complete type while T is not yet.
#pragma once

#include <type_traits>

#include "../options.hpp"
#include "../stats.hpp"
#include "acquire_local.hpp"
#include "acquisition.hpp"
#include "allocator_spans.hpp"
#include "bin.hpp"
#include "bin_locks/concurrent_bins.hpp"
#include "bin_storage.hpp"
#include "layouts.hpp"
#include "stats_hooks.hpp"

namespace travpool::detail {

// In the ABI namespace (config.hpp): the default of the checks option
// depends on TRAVPOOL_CHECKS, so pool_layers<Ops> must be a different
// entity in translation units with different defaults, as the pools are.
inline namespace TRAVPOOL_ABI_NAMESPACE {

// The options of a pool whose chunks are laid out by Ops, resolved, and the
// layers they select.
template <class Ops, class... Options>
struct pool_layers {
  static_assert(check_options<Options...>());
  using layout_type = select_option_t<layout_category, layout::compact, Options...>;
  using sync_type = select_option_t<sync_category, sync::none, Options...>;
  using stats_type = select_option_t<stats_category, stats::none, Options...>;
  using checks_type = select_option_t<checks_category, default_checks, Options...>;
  static constexpr checks_level checks = checks_level_of<checks_type>;
  static constexpr bool checked = checks == checks_level::full;  // checks::on
  // checks::on or checks::hardened: a bin's modification count is odd
  // while its chunks change, and the O(1) checks are made.
  static constexpr bool tracked = checks != checks_level::off;
  static constexpr bool bin_locked = std::is_same_v<sync_type, sync::bin_locks>;
  static constexpr bool serialised = std::is_same_v<sync_type, sync::global_mutex>;

  using ops = Ops;
  using storage = bin_storage<ops, typename stats_hooks<stats_type>::type, bin_locked>;
  using bins_type =
      std::conditional_t<bin_locked, concurrent_bins<storage, checked, tracked>, local_bins<storage, tracked>>;
  using core_type = std::conditional_t<serialised, mutex_bins<bins_type>, bins_type>;
};

// pool_layers whose bins may grow (bin_storage.hpp, "Growth"): without
// sync::bin_locks, spans from small_span_source, whose small bins (from
// operator new, outside the bin directory) are the growing first bins.
// sync::bin_locks keeps span_source and bins of one capacity: its retired
// bins are reused as bins of bin_capacity(), and its splice requires equal
// capacities.
template <class Ops, class... Options>
struct growing_pool_layers : pool_layers<Ops, Options...> {
  using base = pool_layers<Ops, Options...>;
  using spans_type = std::conditional_t<base::bin_locked, span_source, small_span_source>;
  using storage = bin_storage<Ops, typename stats_hooks<typename base::stats_type>::type, base::bin_locked, spans_type>;
  using bins_type = std::conditional_t<base::bin_locked, concurrent_bins<storage, base::checked, base::tracked>,
                                       local_bins<storage, base::tracked>>;
  using core_type = std::conditional_t<base::serialised, mutex_bins<bins_type>, bins_type>;
};

// The layers of basic_pool<T, Options...>: the layout of the layout option
// for chunks holding a T, bins that may grow.
template <class T, class... Options>
using element_layers =
    growing_pool_layers<layout_ops_for<select_option_t<layout_category, layout::compact, Options...>, T>, Options...>;

// The layers of hive<T, Allocator, Options...>: pool<T>'s layout
// (layout::compact) and no statistics, the sync (sync::none or
// sync::bin_locks) and checks options, with bin spans taken from the
// allocator.
template <class T, class Allocator, class... Options>
struct hive_layers : element_layers<T, Options...> {
  using base = element_layers<T, Options...>;
  static_assert(count_category_v<layout_category, Options...> == 0 && count_category_v<stats_category, Options...> == 0,
                "travpool::hive: its options are a travpool::sync and a travpool::checks tag");
  static_assert(!base::serialised, "travpool::hive: sync::none or sync::bin_locks (concurrent_hive)");
  // hive (not concurrent_hive): small blocks (bin_storage.hpp, "Small bins").
  using storage =
      bin_storage<typename base::ops, no_stats, base::bin_locked, allocator_spans<Allocator, !base::bin_locked>>;
  using core_type = std::conditional_t<base::bin_locked, concurrent_bins<storage, base::checked, base::tracked>,
                                       local_bins<storage, base::tracked>>;
};

}  // namespace TRAVPOOL_ABI_NAMESPACE

// Every acquisition layer implements the interface (checked on a concrete
// layout: a pool's own layer types may name a T that is not complete yet).
static_assert(bin_acquisition<local_bins<bin_storage<compact_layout<8, 8>, no_stats, false>>>);
static_assert(bin_acquisition<mutex_bins<local_bins<bin_storage<compact_layout<8, 8>, counting_stats, false>>>>);
static_assert(bin_acquisition<concurrent_bins<bin_storage<compact_layout<8, 8>, no_stats, true>, true>>);

// Returns: the stats::counters snapshot of a bin acquisition layer: the
// counters of every listed bin (relaxed loads, no bin lock) merged with
// what the layer kept of bins it gave back.
//   result.live = sum over listed bins b of b.live_
template <class Core>
pool_stats collect_stats(const Core& core) {
  pool_stats s;
  bin_base::counters listed;
  core.for_each_bin_unlocked([&](const bin_base& b) {
    listed += load_counters(b);
    s.live += load_relaxed(b.live_);
  });
  core.stats_hooks().merge(s, listed, Core::exact_size);
  return s;
}

}  // namespace travpool::detail
