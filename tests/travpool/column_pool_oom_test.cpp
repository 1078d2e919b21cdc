// The column pool when the kernel refuses address space: add_column throws
// std::bad_alloc and leaves the pool unchanged, and a pool sized for fewer
// slots (a smaller reservation) works. Run in a forked child whose address
// space is limited with setrlimit(RLIMIT_AS) (as `ulimit -v`). Skipped under
// ASan/TSan, which reserve terabytes of shadow address space.
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
    bool refused = false;
    try {
      big.add_column<double>("y", 1.0);
    } catch (const std::bad_alloc&) {
      refused = true;
    }
    if (!refused || big.column_count() != 1 || big.has_column("y") || big.size() != 1) std::_Exit(step);
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
  const pid_t pid = ::fork();
  if (pid == 0) child_reservation_refused();
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
