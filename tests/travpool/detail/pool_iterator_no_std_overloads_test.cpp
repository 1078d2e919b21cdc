// TRAVPOOL_NO_STD_ITERATOR_OVERLOADS (config.hpp): the overloads of
// std::distance, std::advance, std::next and std::prev for travpool's
// iterators are left out, and the unqualified calls (the iterators' hidden
// friends, found by argument-dependent lookup) still skip whole bins and
// agree with a walk by ++.
#define TRAVPOOL_NO_STD_ITERATOR_OVERLOADS
#include <cstddef>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/hive.hpp>
#include <travpool/pool.hpp>

namespace {
using hive_off = travpool::hive<int, std::allocator<int>, travpool::checks::off>;
using iter = hive_off::iterator;
}  // namespace

// The std overloads are noexcept without checks; the standard's templates
// (libstdc++'s, libc++'s) are not: these are the standard's.
static_assert(!noexcept(std::distance(std::declval<iter>(), std::declval<iter>())));
static_assert(!noexcept(std::next(std::declval<iter>(), 2)));
// The hidden friends stay.
static_assert(noexcept(distance(std::declval<iter>(), std::declval<iter>())));
static_assert(noexcept(next(std::declval<iter>(), 2)));

TEMPLATE_TEST_CASE("TRAVPOOL_NO_STD_ITERATOR_OVERLOADS: unqualified distance/advance/next/prev",
                   "[pool_iterator][distance]", hive_off,
                   (travpool::hive<int, std::allocator<int>, travpool::checks::on>)) {
  TestType h(travpool::hive_limits(3, 16));
  for (int i = 0; i < 500; ++i) h.insert(i);
  erase_if(h, [](int x) { return x % 3 == 1 || (x > 100 && x < 180); });
  std::vector<typename TestType::iterator> at;
  for (auto it = h.begin(); it != h.end(); ++it) at.push_back(it);
  at.push_back(h.end());
  const auto n = static_cast<std::ptrdiff_t>(h.size());
  for (std::ptrdiff_t i = 0; i <= n; i += 7)
    for (std::ptrdiff_t j = 0; j <= n; j += 11) {
      const auto a = at[static_cast<std::size_t>(i)], b = at[static_cast<std::size_t>(j)];
      CHECK(distance(a, b) == j - i);
      CHECK(next(a, j - i) == b);
      CHECK(prev(b, j - i) == a);
      auto t = a;
      advance(t, j - i);
      CHECK(t == b);
    }
  using std::distance;  // the standard's template and the hidden friend: the friend wins
  CHECK(distance(h.cbegin(), h.cend()) == n);
  CHECK(std::distance(h.begin(), h.end()) == n);  // the standard's, stepping
}
