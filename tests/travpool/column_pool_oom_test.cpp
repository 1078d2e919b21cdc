// The column pool when the kernel refuses memory, in forked children:
// - address space (setrlimit(RLIMIT_AS), as `ulimit -v`): add_column throws
//   std::bad_alloc and leaves the pool unchanged, and a pool sized for fewer
//   slots (a smaller reservation) works;
// - committed memory (setrlimit(RLIMIT_DATA), which counts what
//   vm.overcommit_memory=2 charges): create into a new bin, reserve and
//   add_column throw std::bad_alloc and change nothing, also when reserve's
//   column blocks were committed and its bin is refused.
// Skipped under ASan/TSan, which reserve terabytes of shadow address space.
// Labelled host_kernel (tests/CMakeLists.txt): under qemu-user the limits apply
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

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/memory.hpp>

#include "pool_types.hpp"

namespace {

// Returns: a /proc/self/status field ("VmSize:", "VmData:") in bytes, or 0.
std::size_t status_bytes(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  std::size_t kb = 0;
  const std::size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, field, n) == 0) kb = std::strtoull(line + n, nullptr, 10);
  std::fclose(f);
  return kb * 1024;
}
std::size_t address_space_bytes() { return status_bytes("VmSize:"); }

// Effects: RLIMIT_DATA's soft limit set to the data now mapped plus
// `headroom` bytes; the limit before goes to `old`. Returns: false if the
// data size could not be read or the limit not set.
bool limit_data(std::size_t headroom, rlimit& old) {
  const std::size_t data = status_bytes("VmData:");
  if (data == 0 || ::getrlimit(RLIMIT_DATA, &old) != 0) return false;
  rlimit lim = old;
  lim.rlim_cur = data + headroom;
  return ::setrlimit(RLIMIT_DATA, &lim) == 0;
}

// Returns: whether f() threw std::bad_alloc (other exceptions pass).
template <class F>
bool refuses(F f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    return true;
  }
  return false;
}

struct page {
  char bytes[4096] = {};
};

// In the child: a commit refused (RLIMIT_DATA counts writable private
// memory, as vm.overcommit_memory=2 charges it): create into a new bin,
// reserve and add_column throw std::bad_alloc and change nothing. Exit status: 0, or
// the step that failed.
[[noreturn]] void child_commit_refused() {
  int step = 0;
  try {
    travpool::set_span_cache_limit(0);
    travpool::column_pool pool(std::uint64_t{4096} * 4, 4096);
    auto big = pool.add_column<page>("big");  // 16 MiB per bin
    std::uint32_t last = 0;
    for (int i = 0; i < 4096; ++i) last = pool.create();  // bin 0 full
    big[last].bytes[7] = 1;
    step = 1;
    rlimit old{};
    if (!limit_data(std::size_t{8} << 20, old)) std::_Exit(step);
    step = 3;  // the new bin's 16 MiB block is refused
    if (!refuses([&] { pool.create(); }) || pool.size() != 4096 || pool.bin_count() != 1) std::_Exit(step);
    pool.validate();
    step = 30;  // and reserve's: no bin added
    if (!refuses([&] { pool.reserve(pool.capacity() + 1); }) || pool.size() != 4096 || pool.bin_count() != 1 ||
        pool.capacity() != 4096)
      std::_Exit(step);
    pool.validate();
    step = 4;  // so is a new column's block for bin 0
    if (!refuses([&] { pool.add_column<page>("big2"); }) || pool.column_count() != 1 || big[last].bytes[7] != 1)
      std::_Exit(step);
    step = 5;  // the limit lifted: the pool grows again
    ::setrlimit(RLIMIT_DATA, &old);
    const std::uint32_t h = pool.create();
    if (pool.bin_count() != 2 || big[h].bytes[7] != 0) std::_Exit(step);
    pool.add_column<page>("big2");
    pool.validate();
  } catch (...) {
    std::_Exit(100 + step);
  }
  std::_Exit(0);
}

// In the child: the column blocks are committed but the bin itself is
// refused (its span is new writable memory; the blocks lie in a huge-page
// granule that bin 0's commit made writable already): reserve gives the
// blocks back, throws std::bad_alloc and adds no bin; lifted, it works.
[[noreturn]] void child_bin_refused() {
  int step = 0;
  try {
    travpool::set_span_cache_limit(0);
    travpool::column_pool pool(std::uint64_t{4096} * 8, 4096);
    auto x = pool.add_column<float>("x", 0.5f);  // 16 KiB per bin
    const std::uint32_t h = pool.create();
    x[h] = 3.0f;
    step = 1;
    rlimit old{};
    if (!limit_data(0, old)) std::_Exit(step);
    step = 3;
    if (!refuses([&] { pool.reserve(pool.capacity() + 1); }) || pool.bin_count() != 1 || pool.capacity() != 4096 ||
        pool.size() != 1 || x[h] != 3.0f)
      std::_Exit(step);
    step = 4;  // lifted (validate allocates): the bin and its blocks again
    ::setrlimit(RLIMIT_DATA, &old);
    pool.validate();
    pool.reserve(pool.capacity() + 1);
    if (pool.bin_count() != 2) std::_Exit(step);
    for (int i = 0; i < 4095 + 4096; ++i) {
      const std::uint32_t k = pool.create();
      if (x[k] != 0.5f) std::_Exit(step);
      x[k] = 1.0f;
    }
    if (pool.bin_count() != 2 || x[h] != 3.0f) std::_Exit(step);
    pool.validate();
  } catch (...) {
    std::_Exit(100 + step);
  }
  std::_Exit(0);
}

int run_in_child(void (*child)()) {
  const pid_t pid = ::fork();
  if (pid == 0) child();
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

// In the child. Exit status: 0, or the step that failed.
[[noreturn]] void child_reservation_refused() {
  int step = 0;
  try {
    travpool::set_span_cache_limit(0);
    travpool::column_pool big;                  // default: 2^28 slots
    auto x = big.add_column<float>("x", 0.5f);  // 1 GiB reserved before the limit
    const std::uint32_t h = big.create();
    step = 1;
    const std::size_t now = address_space_bytes();
    if (now == 0) std::_Exit(step);
    rlimit lim{};
    ::getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = now + (std::size_t{256} << 20);
    step = 2;
    if (::setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(step);
    step = 3;  // a 2 GiB reservation is refused: bad_alloc, pool unchanged
    if (!refuses([&] { big.add_column<double>("y", 1.0); }) || big.column_count() != 1 || big.has_column("y") ||
        big.size() != 1)
      std::_Exit(step);
    big.validate();
    step = 4;  // the pool still works
    const std::uint32_t g = big.create();
    if (x[g] != 0.5f || x[h] != 0.5f) std::_Exit(step);
    big.destroy(g);
    step = 5;  // the documented fallback: a pool for fewer slots
    travpool::column_pool small(std::uint64_t{1} << 20);
    auto y = small.add_column<double>("y", 1.0);
    auto z = small.add_column<double>("z", 2.0);
    for (int i = 0; i < 100'000; ++i) {
      const std::uint32_t k = small.create();
      if (y[k] != 1.0 || z[k] != 2.0) std::_Exit(step);
    }
    small.validate();
  } catch (...) {
    std::_Exit(100 + step);
  }
  std::_Exit(0);
}

}  // namespace

TEST_CASE("column pool: a refused reservation throws bad_alloc and changes nothing", "[column_pool][oom]") {
  if (travpool::test::under_asan || travpool::test::under_tsan) {
    WARN("skipped: sanitizers reserve shadow address space, so RLIMIT_AS cannot be used");
    return;
  }
  CHECK(run_in_child(child_reservation_refused) == 0);
}

TEST_CASE("column pool: a refused commit throws bad_alloc and changes nothing", "[column_pool][oom]") {
  if (travpool::test::under_asan || travpool::test::under_tsan) {
    WARN("skipped: sanitizers map their own memory, so RLIMIT_DATA cannot be used");
    return;
  }
  CHECK(run_in_child(child_commit_refused) == 0);
}

TEST_CASE("column pool: reserve with its bin refused gives the blocks back", "[column_pool][oom]") {
  if (travpool::test::under_asan || travpool::test::under_tsan) {
    WARN("skipped: sanitizers map their own memory, so RLIMIT_DATA cannot be used");
    return;
  }
  CHECK(run_in_child(child_bin_refused) == 0);
}

#else  // Windows: needs fork() and setrlimit(RLIMIT_AS); skipped with a visible message.
#include <catch2/catch.hpp>

TEST_CASE("column_pool_oom_test: skipped on Windows", "[column_pool][oom]") {
  WARN("skipped: needs fork() and setrlimit(RLIMIT_AS)");
}
#endif
