// One half of odr_test: a translation unit built as a plain Release build
// (NDEBUG, so TRAVPOOL_CHECKS defaults to 0 and pools use checks::off).
// It instantiates the same pool<int> operations as odr_checked.cpp; with
// -fno-inline both call them through their out-of-line definitions.
#ifndef NDEBUG
#define NDEBUG
#endif
#include <string>
#include <type_traits>
#include <typeinfo>

#include <travpool/pool.hpp>

using unchecked_pool = travpool::pool<int>;
static_assert(std::is_same_v<unchecked_pool::checks_type, travpool::checks::off>);
static_assert(noexcept(*std::declval<unchecked_pool::iterator&>()));
static_assert(noexcept(++std::declval<unchecked_pool::iterator&>()));

// Returns: the sum of 0..n-1, created in and read back from a pool<int>,
// after erasing and destroying through the same operations the checked
// translation unit uses.
long unchecked_sum(int n) {
  unchecked_pool p;
  for (int i = 0; i < n; ++i) p.create(i);
  int* extra = p.create(-1);
  p.destroy(extra);
  auto it = p.begin();
  long sum = *it;
  it = p.erase(it);
  p.create(static_cast<int>(sum));  // reuses the erased chunk
  for (int x : p) sum += x;
  return sum - *p.begin();
}

std::string unchecked_pool_type() { return typeid(unchecked_pool).name(); }
