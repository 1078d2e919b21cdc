// splice of sync::bin_locks pools and the threads' claims and remembered
// bins (a thread is involved, hence an _mt test, run under TSan too).
#include <semaphore>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "test_access.hpp"

using travpool::bin_capacity;
using travpool::detail::test_access;

TEST_CASE("splice of concurrent pools releases the claims of the spliced bins", "[pool][splice][threads]") {
  using pool_type = travpool::basic_pool<int, travpool::sync::bin_locks, travpool::checks::on>;
  pool_type a(bin_capacity{8}), b(bin_capacity{8});
  // This thread claims (and remembers) one bin in each pool.
  for (int i = 0; i < 5; ++i) a.create(i);
  std::vector<int*> vb;
  for (int i = 0; i < 3; ++i) vb.push_back(b.create(100 + i));
  REQUIRE(test_access::bins(b).front()->claim_.load() != 0);
  a.splice(b);
  REQUIRE(a.bin_count() == 2);
  const auto bins = test_access::bins(a);
  REQUIRE(bins[1]->claim_.load() == 0);  // b's bin is nobody's now
  // Another thread's creates skip a's bin (claimed by this thread) and use
  // the spliced bin's room instead of adding a bin.
  std::thread([&] {
    for (int i = 0; i < 5; ++i) a.create(200 + i);
  }).join();
  REQUIRE(a.bin_count() == 2);
  REQUIRE(a.size() == 13);
  // This thread still creates in a's first bin (its claim stayed), and
  // b, with a new identity, gets a new bin.
  a.create(300);
  REQUIRE(bins[0]->live_ == 6);
  int* nb = b.create(400);
  REQUIRE(b.bin_count() == 1);
  REQUIRE(test_access::bins(b).front() != bins[1]);
  REQUIRE(b.contains(nb));
  for (int* p : vb) a.destroy(p);
  a.validate();
  b.validate();
}

TEST_CASE("after splice, a thread that remembered a bin of the donor creates in the donor's own bins",
          "[pool][splice][threads]") {
  using pool_type = travpool::basic_pool<int, travpool::sync::bin_locks, travpool::checks::on>;
  pool_type a(bin_capacity{8}), b(bin_capacity{8});
  a.create(0);  // a's only bin, claimed by this thread
  std::binary_semaphore spliced{0}, filled{0};
  std::vector<int*> before, after_b, after_a;
  std::thread worker([&] {
    for (int i = 0; i < 3; ++i) before.push_back(b.create(i));  // claims and remembers b's bin
    filled.release();
    spliced.acquire();
    for (int i = 0; i < 3; ++i) after_b.push_back(b.create(10 + i));
    for (int i = 0; i < 3; ++i) after_a.push_back(a.create(20 + i));
  });
  filled.acquire();
  const auto* moved = test_access::bins(b).front();
  a.splice(b);  // quiescent: the worker waits
  spliced.release();
  worker.join();
  // The worker's creates in b went to a new bin of b, not to the bin it
  // remembered (now a's); its creates in a found that bin's room.
  REQUIRE(b.size() == 3);
  REQUIRE(b.bin_count() == 1);
  REQUIRE(test_access::bins(b).front() != moved);
  for (int* p : after_b) REQUIRE(b.contains(p));
  for (int* p : before) REQUIRE(a.contains(p));
  REQUIRE(a.bin_count() == 2);
  REQUIRE(a.size() == 1 + 3 + 3);
  for (int* p : after_a) REQUIRE(a.contains(p));
  REQUIRE(moved->live_ == 6);
  a.validate();
  b.validate();
}
