// The policy combinations every pool test runs over (TEMPLATE_TEST_CASE).
#pragma once

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

}  // namespace travpool::test

// Every layout; each test instantiates travpool::test::pool_t<T, TestType>.
#define TRAVPOOL_TEST_LAYOUTS \
  travpool::test::options<travpool::layout::interleaved>, travpool::test::options<travpool::layout::compact>

// Every layout x synchronisation policy (types with commas in parentheses,
// as Catch2 requires).
#define TRAVPOOL_TEST_POLICIES                                                                \
  travpool::test::options<travpool::layout::interleaved>,                                     \
      (travpool::test::options<travpool::layout::interleaved, travpool::sync::bin_locks>),    \
      (travpool::test::options<travpool::sync::global_mutex, travpool::layout::interleaved>), \
      travpool::test::options<travpool::layout::compact>,                                     \
      (travpool::test::options<travpool::sync::bin_locks, travpool::layout::compact>),        \
      (travpool::test::options<travpool::stats::counters, travpool::sync::bin_locks>)
