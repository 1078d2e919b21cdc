// travpool/options.hpp: the policy tags accepted by basic_pool<T, Options...>.
//
// Options are empty tag types. Each belongs to one category; a pool takes at
// most one option per category, in any order, and the default for every
// category that is not named. Unknown types are rejected at compile time.
#pragma once

#include <cstdint>
#include <type_traits>

#include "config.hpp"

namespace travpool {

// Chunks per bin. A bin is one allocation from the operating system holding
// `chunks` user chunks plus four pseudo chunks.
struct bin_capacity {
  std::uint32_t chunks;
};

namespace detail {
struct layout_category {};
struct sync_category {};
struct stats_category {};
struct checks_category {};
// The base of every option tag: names its category.
template <class Category>
struct option_tag {
  using category = Category;
};
}  // namespace detail

namespace layout {
// The paper's chunk (Listing 2): payload and free-chunk links share storage,
// and a 4-byte status word sits beside every payload.
struct interleaved : detail::option_tag<detail::layout_category> {};
// Status bits in a per-bin bitmap and free-chunk links inside the free
// payload: chunks are max(sizeof(T), 12) bytes apart (rounded up to
// alignof(T)), live runs are contiguous arrays, sweeps test 64 chunks at once.
struct compact : detail::option_tag<detail::layout_category> {};
}  // namespace layout

namespace sync {
// No synchronisation: the pool is used by one thread at a time.
struct none : detail::option_tag<detail::sync_category> {};
// The paper's section 4: a lock per bin, a readers-writers lock on the bin
// list, and a remembered bin per thread and pool. create, destroy (from any
// thread), contains, get_iterator, size, reserve, clear and shrink_to_fit are
// thread-safe; sweeping, partitioning and validate need a quiescent pool.
struct bin_locks : detail::option_tag<detail::sync_category> {};
// One mutex around every operation (the paper's "small object allocator
// mutex" of Figure 12): the comparison point for bin_locks.
struct global_mutex : detail::option_tag<detail::sync_category> {};
}  // namespace sync

namespace stats {
// No statistics (zero cost).
struct none : detail::option_tag<detail::stats_category> {};
// Counters in the style of the llheap thesis: creates, destroys, destroys
// from another thread, bins allocated and released, peak live elements, and
// for sync::bin_locks failed try_locks and bins scanned by creates. Kept per
// bin (and per pool for bins released), summed by pool.stats().
struct counters : detail::option_tag<detail::stats_category> {};
}  // namespace stats

namespace checks {
// No debug checks: iterator operations are noexcept.
struct off : detail::option_tag<detail::checks_category> {};
// Debug checks: everything checks::hardened checks, and also every step
// of an iterator checks that no other thread modifies its bin (a
// dereference checks only that its element is live, so that a thread may
// use its own elements while other threads change the bin: sync::bin_locks;
// a reverse_iterator's dereference is a step),
// erase(first, last) checks that last is reachable from first (O(n)),
// concurrent pools check their lock contract, and pools report leaks when
// destroyed (config.hpp: TRAVPOOL_LEAK_REPORT). Iterator operations are
// then not noexcept. Misuse of create/destroy/contains (a pointer or
// handle that is not a live element) is detected with every option.
struct on : detail::option_tag<detail::checks_category> {};
// Release-build checks (as libc++'s hardening modes): the O(1) checks, each
// a usage_error that leaves the pool unchanged. Dereferencing, incrementing
// or erasing an end or singular iterator, or one whose element was
// destroyed (layout::compact steps from a destroyed element to the next
// live one instead); erase(end()); splice(*this); column pools' get() of a
// handle that is not live; a pool without sync::bin_locks used from two
// threads at once: a create or destroy that meets another one under way in
// its bin, or two that add a bin at the same time; an iterator step into a
// bin, or for_each reaching a bin, while another thread changes that bin.
// Two threads adding a bin are found for certain (an atomic exchange on
// that slow path); the other races when they overlap the change of a bin's
// chunks (its modification count is odd then), so some are, not all.
// Not checked: what costs more than O(1) (erase(first, last) reachability,
// the leak report), and an element destroyed and then created again in
// the same chunk. Iterator operations are then not noexcept. Cost, and why
// it is not the default: docs/api.md, "Checks".
struct hardened : detail::option_tag<detail::checks_category> {};
}  // namespace checks

namespace detail {
// The checks policy as a level: off < hardened < on (full).
enum class checks_level { off, hardened, full };
template <class Checks>
inline constexpr checks_level checks_level_of = std::is_same_v<Checks, checks::on>         ? checks_level::full
                                                : std::is_same_v<Checks, checks::hardened> ? checks_level::hardened
                                                                                           : checks_level::off;
}  // namespace detail

// The checks policy of pools that name none (config.hpp: TRAVPOOL_CHECKS).
// Inside the ABI namespace: the three defaults give different pool types.
inline namespace TRAVPOOL_ABI_NAMESPACE {
#if TRAVPOOL_CHECKS == 1
using default_checks = checks::on;
#elif TRAVPOOL_CHECKS == 2
using default_checks = checks::hardened;
#else
using default_checks = checks::off;
#endif
}  // namespace TRAVPOOL_ABI_NAMESPACE

namespace detail {

template <class T, class = void>
struct has_category : std::false_type {};
template <class T>
struct has_category<T, std::void_t<typename T::category>> : std::true_type {};

template <class Category, class Option>
inline constexpr bool in_category_v = [] {
  if constexpr (has_category<Option>::value)
    return std::is_same_v<typename Option::category, Category>;
  else
    return false;
}();

template <class Category, class Default, class... Options>
struct select_option {
  using type = Default;
};
template <class Category, class Default, class First, class... Rest>
struct select_option<Category, Default, First, Rest...> {
  using type = std::conditional_t<in_category_v<Category, First>, First,
                                  typename select_option<Category, Default, Rest...>::type>;
};

// The option of `Category` among `Options`, or `Default` when none is named.
template <class Category, class Default, class... Options>
using select_option_t = typename select_option<Category, Default, Options...>::type;

template <class Category, class... Options>
inline constexpr int count_category_v = (0 + ... + (in_category_v<Category, Options> ? 1 : 0));

template <class Option>
inline constexpr bool is_known_option_v =
    in_category_v<layout_category, Option> || in_category_v<sync_category, Option> ||
    in_category_v<stats_category, Option> || in_category_v<checks_category, Option>;

template <class... Options>
constexpr bool check_options() {
  static_assert((is_known_option_v<Options> && ...),
                "travpool: every option must be a tag from travpool::layout, sync, stats or checks");
  static_assert(count_category_v<layout_category, Options...> <= 1, "travpool: at most one layout option");
  static_assert(count_category_v<sync_category, Options...> <= 1, "travpool: at most one sync option");
  static_assert(count_category_v<stats_category, Options...> <= 1, "travpool: at most one stats option");
  static_assert(count_category_v<checks_category, Options...> <= 1, "travpool: at most one checks option");
  return true;
}

}  // namespace detail
}  // namespace travpool
