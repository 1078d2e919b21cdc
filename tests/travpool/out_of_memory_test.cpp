// Out of memory: when the kernel refuses a bin's mapping, create throws
// std::bad_alloc and the pool stays valid and usable (issue 17). Run in a
// forked child whose address space is limited with setrlimit(RLIMIT_AS).
// Skipped under ASan/TSan, which reserve terabytes of shadow address space.
// Labelled host_kernel (tests/CMakeLists.txt): under qemu-user the limit applies
// to the emulator.
#if !defined(_WIN32)

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/memory.hpp>
#include <travpool/pool.hpp>

#include "pool_types.hpp"

namespace {

constexpr bool sanitized = travpool::test::under_asan || travpool::test::under_tsan;

struct item {
  std::uint64_t a, b, c;
};

// Returns: the process's address space size in bytes (VmSize), or 0.
std::size_t address_space_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  std::size_t kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, "VmSize:", 7) == 0) kb = std::strtoull(line + 7, nullptr, 10);
  std::fclose(f);
  return kb * 1024;
}

// In the child: fills `Pool` until create throws std::bad_alloc under an
// address-space limit, then checks that the pool is intact and usable, and
// grows again once the limit is lifted. Exit status: 0, or the failed step.
template <class Pool>
[[noreturn]] void child_fill_until_refused() {
  int step = 0;
  try {
    travpool::set_span_cache_limit(0);  // every bin is a fresh mapping
    std::vector<item*> v;
    v.reserve(std::size_t{1} << 24);  // no allocation of the test's own after the limit
    Pool pool;
    v.push_back(pool.create(item{0, 0, 0}));  // first bin, thread-locals, registries
    const std::size_t now = address_space_bytes();
    step = 1;
    if (now == 0) std::_Exit(step);
    rlimit old{};
    ::getrlimit(RLIMIT_AS, &old);
    rlimit lim = old;
    lim.rlim_cur = now + (std::size_t{96} << 20);
    step = 2;
    if (::setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(step);
    bool refused = false;
    try {
      for (std::uint64_t i = 1; i < v.capacity(); ++i) v.push_back(pool.create(item{i, i, ~i}));
    } catch (const std::bad_alloc&) {
      refused = true;
    }
    step = 3;
    if (!refused) std::_Exit(step);
    step = 4;  // the pool holds exactly what was created, and its invariants
    if (pool.size() != v.size()) std::_Exit(step);
    pool.validate();
    step = 5;  // a second refusal changes nothing either
    const std::size_t bins = pool.bin_count();
    try {
      while (pool.size() < pool.capacity()) v.push_back(pool.create(item{1, 1, 1}));
      v.push_back(pool.create(item{2, 2, 2}));
      std::_Exit(step);
    } catch (const std::bad_alloc&) {
    }
    if (pool.bin_count() != bins || pool.size() != v.size()) std::_Exit(step);
    step = 6;  // destroys work, and freed chunks are reused without a new bin
    for (std::size_t i = 0; i < v.size(); i += 2) pool.destroy(v[i]);
    for (std::size_t i = 0; i < v.size(); i += 2) v[i] = pool.create(item{3, 3, 3});
    if (pool.bin_count() != bins || pool.size() != v.size()) std::_Exit(step);
    pool.validate();
    step = 7;  // the limit lifted: the pool grows again
    ::setrlimit(RLIMIT_AS, &old);
    for (int i = 0; i < 200'000; ++i) v.push_back(pool.create(item{4, 4, 4}));
    if (pool.bin_count() <= bins || pool.size() != v.size()) std::_Exit(step);
    pool.validate();
    step = 8;
    std::size_t n = 0;
    for (const item& e : pool) n += e.a <= 4 || e.c == ~e.b;
    if (n != v.size()) std::_Exit(step);
  } catch (...) {
    std::_Exit(100 + step);
  }
  std::_Exit(0);
}

template <class Pool>
int run_in_child() {
  const pid_t pid = ::fork();
  if (pid == 0) child_fill_until_refused<Pool>();
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("create throws bad_alloc when mmap fails, and the pool stays usable", "[memory][oom]") {
  if (sanitized) {
    WARN("skipped: sanitizers reserve shadow address space, so RLIMIT_AS cannot be used");
    return;
  }
  CHECK(run_in_child<travpool::pool<item>>() == 0);
  CHECK(run_in_child<travpool::concurrent_pool<item>>() == 0);
  CHECK(run_in_child<travpool::basic_pool<item, travpool::sync::global_mutex, travpool::layout::interleaved>>() == 0);
}

#else  // Windows: needs fork() and setrlimit(RLIMIT_AS); skipped with a visible message.
#include <catch2/catch.hpp>

TEST_CASE("out_of_memory_test: skipped on Windows", "[memory][oom]") {
  WARN("skipped: needs fork() and setrlimit(RLIMIT_AS)");
}
#endif
