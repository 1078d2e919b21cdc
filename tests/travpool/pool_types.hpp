// The policy combinations every pool test runs over (TEMPLATE_TEST_CASE).
#pragma once

#include <type_traits>

#include <travpool/pool.hpp>

namespace travpool::test {

template <class... Options>
struct options {};

template <class T, class Opts>
struct make_pool;
template <class T, class... Options>
struct make_pool<T, options<Options...>> {
  using type = basic_pool<T, Options...>;
};
template <class T, class Opts>
using pool_t = typename make_pool<T, Opts>::type;

// with_checks_t<Opts, Checks>: Opts with its checks option, if any,
// replaced by Checks (a pool takes at most one checks option).
template <class Kept, class... Rest>
struct replace_checks;
template <class... Kept, class Checks>
struct replace_checks<options<Kept...>, Checks> {
  using type = options<Kept..., Checks>;
};
template <class... Kept, class O, class Next, class... Rest>
struct replace_checks<options<Kept...>, O, Next, Rest...> {
  static constexpr bool is_checks = std::is_same_v<O, checks::on> || std::is_same_v<O, checks::off>;
  using type = typename replace_checks<std::conditional_t<is_checks, options<Kept...>, options<Kept..., O>>, Next,
                                       Rest...>::type;
};
template <class Opts, class Checks>
struct with_checks;
template <class... Options, class Checks>
struct with_checks<options<Options...>, Checks> {
  using type = typename replace_checks<options<>, Options..., Checks>::type;
};
template <class Opts, class Checks>
using with_checks_t = typename with_checks<Opts, Checks>::type;

// chained_pool<Opts>::type: a pool of nodes whose destructor destroys
// `victim`, another element of the same pool (re-entrant erase tests).
template <class Opts>
struct chained_pool;
template <class... Options>
struct chained_pool<options<Options...>> {
  struct node {
    basic_pool<node, Options...>* pool;
    int id;
    node* victim = nullptr;
    node(basic_pool<node, Options...>* p, int i) : pool(p), id(i) {}
    ~node() {
      if (victim != nullptr) pool->destroy(victim);
    }
  };
  using type = basic_pool<node, Options...>;
};

// Sanitizer builds (they reserve address space and slow threads down).
// TRAVPOOL_TEST_ASAN and TRAVPOOL_TEST_TSAN are 1 under that sanitizer.
#if defined(__SANITIZE_ADDRESS__)
#define TRAVPOOL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAVPOOL_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TRAVPOOL_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRAVPOOL_TEST_TSAN 1
#endif
#endif
#ifndef TRAVPOOL_TEST_ASAN
#define TRAVPOOL_TEST_ASAN 0
#endif
#ifndef TRAVPOOL_TEST_TSAN
#define TRAVPOOL_TEST_TSAN 0
#endif
inline constexpr bool under_asan = TRAVPOOL_TEST_ASAN != 0;
inline constexpr bool under_tsan = TRAVPOOL_TEST_TSAN != 0;
inline constexpr bool under_sanitizer = under_asan || under_tsan;
// The exhaustive and randomized tests run at full depth or step count once,
// in the GCC Release stage; under a sanitizer (5-20x slower), and in the
// stages that rerun them with another compiler, library or target
// (TRAVPOOL_TEST_SMALL=1: their presets and scripts set it), at a smaller
// one that still kills the Listing-7 mutant (docs/testing.md lists each).
#ifndef TRAVPOOL_TEST_SMALL
#define TRAVPOOL_TEST_SMALL 0
#endif
#if TRAVPOOL_TEST_SMALL || TRAVPOOL_TEST_ASAN || TRAVPOOL_TEST_TSAN
#define TRAVPOOL_TEST_SMALL_BUILD 1
#else
#define TRAVPOOL_TEST_SMALL_BUILD 0
#endif
inline constexpr bool small_depth = TRAVPOOL_TEST_SMALL_BUILD != 0;

}  // namespace travpool::test

// Every layout; each test instantiates travpool::test::pool_t<T, TestType>.
#define TRAVPOOL_TEST_LAYOUTS \
  travpool::test::options<travpool::layout::interleaved>, travpool::test::options<travpool::layout::compact>

// Every layout x synchronisation policy, and checks::on with the default
// layout and no synchronisation (what a build without NDEBUG gives
// pool<T>; every CI stage builds with NDEBUG): seven policies, as types with
// commas in parentheses, as Catch2 requires. A build instantiates the
// policy cases for four of them, a covering set in which every layout,
// every synchronisation policy, stats::counters and checks::on occur; with
// TRAVPOOL_TEST_OTHER_POLICIES=1 (the CMake option of that name, on in the
// Clang stage's presets, release-clang and libcxx) for the other three
// instead, with the same case names. So every policy runs every policy
// case in one Release stage, and no build compiles all seven, which took
// most of the biggest programs' build time (docs/testing.md, "The policy
// cases").
#ifndef TRAVPOOL_TEST_OTHER_POLICIES
#define TRAVPOOL_TEST_OTHER_POLICIES 0
#endif
#if TRAVPOOL_TEST_OTHER_POLICIES
#define TRAVPOOL_TEST_POLICIES                                                             \
  travpool::test::options<travpool::layout::interleaved>,                                  \
      (travpool::test::options<travpool::layout::interleaved, travpool::sync::bin_locks>), \
      travpool::test::options<travpool::layout::compact>
#else
#define TRAVPOOL_TEST_POLICIES                                                            \
  (travpool::test::options<travpool::sync::global_mutex, travpool::layout::interleaved>), \
      (travpool::test::options<travpool::sync::bin_locks, travpool::layout::compact>),    \
      (travpool::test::options<travpool::stats::counters, travpool::sync::bin_locks>),    \
      travpool::test::options<travpool::checks::on>
#endif
