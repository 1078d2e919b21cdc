// TRAVPOOL_CHECKS=1 (forced here, whatever the build type): iterators to
// destroyed elements, end() misuse, sweeps racing with a bin's lock holder,
// and the leak report.
#define TRAVPOOL_CHECKS 1

#include <atomic>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(_WIN32)
#include <io.h>  // dup, dup2, close
#else
#include <unistd.h>
#endif

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

TEST_CASE("a sweep that meets a create or destroy under way is detected", "[checks]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{8});
  for (int i = 0; i < 20; ++i) pool.create(i);
  auto it = pool.begin();
  // Stand in for another thread in the middle of a create in this bin.
  auto bins = travpool::detail::test_access::bins(pool);
  auto* first = const_cast<travpool::detail::bin_base*>(bins[0]);
  first->mods_.fetch_add(1);
  REQUIRE_THROWS_WITH(++it, Catch::Contains("another thread modifies"));
  first->mods_.fetch_add(1);
  REQUIRE_NOTHROW(++it);
}

TEST_CASE("dereferencing an iterator does not ask whether its bin is changing", "[checks]") {
  // A thread may use its own elements while others create and destroy in
  // their bin: a dereference checks the element only, a step the bin too.
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{8});
  std::vector<int*> v;
  for (int i = 0; i < 6; ++i) v.push_back(pool.create(i));
  auto it = pool.get_iterator(v[2]);
  auto* bin = const_cast<travpool::detail::bin_base*>(travpool::detail::test_access::bins(pool)[0]);
  bin->mods_.fetch_add(1);  // another thread's change under way in the bin
  REQUIRE_NOTHROW(*it);
  CHECK(*it == 2);
  CHECK(it.operator->() == v[2]);
  REQUIRE_THROWS_WITH(++it, Catch::Contains("another thread modifies"));
  bin->mods_.fetch_add(1);
  pool.destroy(v[2]);
  REQUIRE_THROWS_WITH(*it, Catch::Contains("destroyed"));  // still checked: the element
  REQUIRE_THROWS_WITH(*pool.end(), Catch::Contains("end or singular"));
  pool.validate();
}

TEST_CASE("a concurrent pool's dead dereference names a sweep that is not quiescent", "[checks]") {
  // A sweep of a concurrent_pool while other threads create or destroy is
  // misuse; the dereference that meets its destroyed element says so,
  // and names a change under way in the bin when it meets one.
  travpool::concurrent_pool<int> cp(travpool::bin_capacity{8});
  std::vector<int*> v;
  for (int i = 0; i < 6; ++i) v.push_back(cp.create(i));
  auto it = cp.get_iterator(v[3]);
  std::thread([&] { cp.destroy(v[3]); }).join();
  REQUIRE_THROWS_WITH(*it, Catch::Contains("destroyed") && Catch::Contains("quiescent"));
  auto* bin = const_cast<travpool::detail::bin_base*>(travpool::detail::test_access::bins(cp)[0]);
  bin->mods_.fetch_add(1);  // another thread's change under way in the bin
  REQUIRE_THROWS_WITH(*it, Catch::Contains("another thread modifies"));
  bin->mods_.fetch_add(1);
  cp.validate();

  // A single-threaded pool keeps the plain message.
  travpool::basic_pool<int, travpool::checks::on> p(travpool::bin_capacity{8});
  int* x = p.create(1);
  auto px = p.get_iterator(x);
  p.destroy(x);
  REQUIRE_THROWS_WITH(*px, Catch::Contains("whose element was destroyed") && !Catch::Contains("quiescent"));
}

// Under checks::on every change of a concurrent pool's bin checks that the
// changing thread holds the bin's lock or biased section (the lock
// contract of the acquisition layer, which aborts if broken): erase, which
// needs no lock in a quiescent pool, says so (quiescent_scope); clear
// takes the locks; destroy from another thread revokes the creator's bias.
TEST_CASE("a checked concurrent pool erases, clears and destroys under the bins' locks", "[checks]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{64});
  std::vector<int*> v;
  for (int i = 0; i < 1000; ++i) v.push_back(pool.create(i));
  std::size_t erased = 0;
  for (auto it = pool.begin(); it != pool.end();) {
    if (*it % 3 == 0) {
      it = pool.erase(it);
      ++erased;
    } else {
      ++it;
    }
  }
  REQUIRE(pool.size() == 1000 - erased);
  REQUIRE(travpool::erase_if(pool, [](int x) { return x % 3 == 1; }) == 333);
  auto first = pool.begin(), last = first;
  for (int k = 0; k < 100; ++k) ++last;
  pool.erase(first, last);
  REQUIRE(pool.size() == 1000 - erased - 333 - 100);
  std::thread other([&] {
    for (auto it = pool.begin(); it != pool.end();) pool.destroy(&*it++);
  });
  other.join();
  REQUIRE(pool.empty());
  for (int i = 0; i < 100; ++i) pool.create(i);
  pool.clear();
  REQUIRE(pool.empty());
  pool.validate();
}

TEST_CASE("concurrent read-only sweeps and lookups raise no false alarm", "[checks]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{64});
  std::vector<int*> v;
  for (int i = 0; i < 1000; ++i) v.push_back(pool.create(i));
  std::atomic<int> alarms{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; ++t)
    ts.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) try {
          if (t == 2) {
            for (int* p : v) (void)pool.contains(p);
          } else {
            long sum = 0;
            for (int x : pool) sum += x;
            if (sum != 999 * 1000 / 2) alarms.fetch_add(1);
          }
        } catch (const travpool::usage_error&) {
          alarms.fetch_add(1);
        }
    });
  for (auto& th : ts) th.join();
  REQUIRE(alarms.load() == 0);
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

namespace {

// Returns: what f() wrote to the standard error stream (file descriptor 2).
template <class F>
std::string stderr_of(F f) {
  std::fflush(stderr);
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = ::dup(2);
  REQUIRE(saved >= 0);
  ::dup2(::fileno(tmp), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::rewind(tmp);
  std::string text;
  char buf[512];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, tmp)) > 0;) text.append(buf, n);
  std::fclose(tmp);
  return text;
}

// Restores the leak reporting setting a test changed.
struct leak_reporting_guard {
  bool saved = travpool::detail::leak_reporting().load();
  ~leak_reporting_guard() { travpool::set_leak_reporting(saved); }
};

}  // namespace

TEST_CASE("a checked pool destroyed with live elements reports them to stderr when leak reporting is on", "[checks]") {
  leak_reporting_guard guard;
  travpool::set_leak_reporting(true);
  std::string first;
  const std::string report = stderr_of([&first] {
    travpool::pool<double> pool;
    std::ostringstream addr;
    addr << static_cast<const void*>(pool.create(1.0));
    first = addr.str();
    pool.create(2.0);
    pool.destroy(pool.create(3.0));
  });
  REQUIRE(report.find("has 2 live element(s) of 8 B in 1 bin(s)") != std::string::npos);
  REQUIRE(report.find(first) != std::string::npos);
  REQUIRE(report.back() == '\n');
  // No live element, no report.
  REQUIRE(stderr_of([] {
            travpool::pool<double> pool;
            pool.destroy(pool.create(1.0));
          }).empty());
  // checks::off pools never report.
  REQUIRE(stderr_of([] { travpool::basic_pool<double, travpool::checks::off>().create(1.0); }).empty());
  // Turned off: nothing.
  travpool::set_leak_reporting(false);
  REQUIRE(stderr_of([] { travpool::pool<double>().create(1.0); }).empty());
  // And on again.
  travpool::set_leak_reporting(true);
  REQUIRE(stderr_of([] { travpool::pool<double>().create(1.0); }).find("has 1 live element(s)") != std::string::npos);
}
