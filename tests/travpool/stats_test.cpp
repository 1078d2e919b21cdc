// stats::counters: what is counted, single-threaded and with bin_locks.
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

TEMPLATE_TEST_CASE("counters count creates, destroys, bins and the peak", "[stats]",
                   (travpool::test::options<travpool::stats::counters>),
                   (travpool::test::options<travpool::stats::counters, travpool::layout::interleaved>),
                   (travpool::test::options<travpool::sync::global_mutex, travpool::stats::counters>)) {
  travpool::test::pool_t<int, TestType> pool(travpool::bin_capacity{10});
  std::vector<int*> v;
  for (int i = 0; i < 35; ++i) v.push_back(pool.create(i));
  for (int i = 0; i < 20; ++i) pool.destroy(v[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 5; ++i) pool.create(i);
  pool.shrink_to_fit();  // bin 0 is empty again? no: it holds the 5 new ones
  auto s = pool.stats();
  REQUIRE(s.creates == 40);
  REQUIRE(s.destroys == 20);
  REQUIRE(s.live == 20);
  REQUIRE(s.peak_live == 35);
  REQUIRE(s.bins_allocated == 4);
  REQUIRE(s.remote_destroys == 0);
  pool.clear();
  pool.shrink_to_fit();
  s = pool.stats();
  REQUIRE(s.destroys == 40);
  REQUIRE(s.live == 0);
  REQUIRE(s.bins_released == 4);
  REQUIRE(s.creates == 40);  // counts of released bins are kept
  std::ostringstream out;
  out << s;
  REQUIRE(out.str().find("creates           40") != std::string::npos);
}

TEST_CASE("bin_locks counters: scans, failed try_locks and remote destroys", "[stats]") {
  travpool::basic_pool<int, travpool::sync::bin_locks, travpool::stats::counters> pool(travpool::bin_capacity{4});
  std::vector<int*> v;
  for (int i = 0; i < 12; ++i) v.push_back(pool.create(i));
  auto s = pool.stats();
  REQUIRE(s.creates == 12);
  REQUIRE(s.bins_allocated == 3);
  REQUIRE(s.bins_scanned >= 2);  // each full remembered bin made the next create scan
  REQUIRE(s.peak_live >= 12);    // sum of per-bin peaks: an upper bound
  pool.destroy(v[0]);
  pool.destroy(v[1]);
  REQUIRE(pool.stats().remote_destroys == 0);
}

static_assert(sizeof(travpool::pool<int>) == sizeof(travpool::basic_pool<int, travpool::stats::none>));
