// fork() while other threads use the process-wide span cache (and the
// claim registry and section records): the child must not inherit a mutex
// that stays locked forever (issue 17). Each child uses pools and exits; a child that hangs
// is killed and fails the test.
#if !defined(_WIN32)

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/memory.hpp>
#include <travpool/pool.hpp>

#include "test_access.hpp"

namespace {

struct item {
  std::uint64_t a, b, c;
};

// What a forked child does: pools in, out, and again, through the span
// cache; then _exit with 0 on success.
[[noreturn]] void child_work() {
  int rc = 0;
  try {
    for (int round = 0; round < 3; ++round) {
      travpool::concurrent_pool<item> cp(travpool::bin_capacity{1024});
      travpool::pool<item> sp(travpool::bin_capacity{1024});
      for (std::uint64_t i = 0; i < 5000; ++i) cp.create(item{i, i, i}), sp.create(item{i, i, i});
      if (cp.size() != 5000 || sp.size() != 5000) rc = 2;
    }
    (void)travpool::span_cache_bytes();
    travpool::trim_span_cache();
  } catch (...) {
    rc = 3;
  }
  std::_Exit(rc);
}

// Returns: the child's exit status, or -1 if it did not finish in time.
int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

TEST_CASE("fork while other threads take and give back bins: the child can use pools", "[fork][concurrent]") {
  std::atomic<bool> stop{false};
  // Threads that keep the span cache's, the claim registry's and the
  // section records' mutexes busy: pools made and dropped (span cache take
  // and put) by short-lived threads (registry: enrol, withdraw, release at
  // exit; records: taken at the first scan, given back at exit).
  auto busy = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      std::thread([] {
        travpool::concurrent_pool<item> p(travpool::bin_capacity{512});
        for (std::uint64_t i = 0; i < 600; ++i) p.create(item{i, i, i});
        (void)travpool::span_cache_bytes();
      }).join();
    }
  };
  std::thread t1(busy), t2(busy);
  int hung = 0, failed = 0;
  constexpr int forks = 60;
  for (int k = 0; k < forks; ++k) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) child_work();
    const int rc = wait_for(pid, std::chrono::seconds(20));
    hung += rc == -1;
    failed += rc != 0 && rc != -1;
  }
  stop = true;
  t1.join();
  t2.join();
  CHECK(hung == 0);
  CHECK(failed == 0);
}

TEST_CASE("fork while another thread holds the span cache's, the claim registry's or the section records' mutex",
          "[fork]") {
  // The other thread holds the mutex when fork() is called; fork waits for
  // it (prepare handler), and the child gets it unlocked.
  for (std::mutex* m :
       {&travpool::detail::test_access::span_cache_mutex(), &travpool::detail::test_access::claim_registry_mutex(),
        &travpool::detail::test_access::section_records_mutex()}) {
    std::atomic<int> held{0};
    std::thread holder([&] {
      std::lock_guard<std::mutex> g(*m);
      held = 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
    while (held.load() == 0) std::this_thread::yield();
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) child_work();
    holder.join();
    CHECK(wait_for(pid, std::chrono::seconds(20)) == 0);
  }
}

#else  // Windows: needs fork() and POSIX signals; skipped with a visible message.
#include <catch2/catch.hpp>

TEST_CASE("fork_mt_test: skipped on Windows", "[fork]") { WARN("skipped: needs fork() and POSIX signals"); }
#endif
