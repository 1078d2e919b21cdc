// TRAVPOOL_CHECKS=1 (forced here, whatever the build type): iterators to
// destroyed elements, end() misuse, sweeps racing with a bin's lock holder,
// and the leak report.
#define TRAVPOOL_CHECKS 1

#include <sstream>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

TEMPLATE_TEST_CASE("iterators to destroyed elements are detected", "[checks]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<int, TestType> pool(travpool::bin_capacity{8});
  std::vector<int*> v;
  for (int i = 0; i < 20; ++i) v.push_back(pool.create(i));
  auto it = pool.get_iterator(v[5]);
  auto copy = it;
  REQUIRE(*it == 5);
  pool.destroy(v[5]);
  REQUIRE_THROWS_AS(*copy, travpool::usage_error);
  REQUIRE_THROWS_AS(++copy, travpool::usage_error);
  REQUIRE_THROWS_AS(--copy, travpool::usage_error);
  REQUIRE_THROWS_AS(*pool.end(), travpool::usage_error);
  REQUIRE_THROWS_AS(++pool.end(), travpool::usage_error);
  REQUIRE_NOTHROW(--pool.end());
  pool.validate();
}

TEST_CASE("a sweep that meets a bin locked by another thread is detected", "[checks]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{8});
  for (int i = 0; i < 20; ++i) pool.create(i);
  auto it = pool.begin();
  // Stand in for another thread in the middle of a create in this bin.
  auto bins = travpool::detail::test_access::bins(pool);
  auto* first = const_cast<travpool::detail::bin_base*>(bins[0]);
  first->lock_.lock();
  REQUIRE_THROWS_WITH(++it, Catch::Contains("another thread modifies"));
  first->lock_.unlock();
  REQUIRE_NOTHROW(++it);
}

TEST_CASE("leak report lists live elements", "[checks]") {
  travpool::pool<double> pool;
  std::ostringstream out;
  REQUIRE(pool.report_leaks(out) == 0);
  double* a = pool.create(1.0);
  pool.create(2.0);
  REQUIRE(pool.report_leaks(out) == 2);
  REQUIRE(out.str().find("2 live element(s) of 8 B in 1 bin(s)") != std::string::npos);
  std::ostringstream addr;
  addr << static_cast<const void*>(a);
  REQUIRE(out.str().find(addr.str()) != std::string::npos);
}
