// bench/standalone/hive_insert_pages.cpp: N insertions into a new
// travpool::hive and a new plf::colony, from fresh memory, with the two
// alternating within each round, so that both see the same state of the
// host (on a shared VM the cost of a page fault drifts from minute to
// minute, and a benchmark that runs one contender's repetitions after the
// other's compares two states). After every fill the memory goes back to
// the system: the container is destroyed, then malloc_trim(0) (glibc's
// free memory, colony's blocks and the hive's) and trim_span_cache(). The
// returned iterator is used (one read through it), as an insert's caller
// would. The two take turns going first. 24-B and 64-B elements; medians
// over the rounds, ms, and hive ÷ colony. Run it under each page policy
// (docs/hive.md, "Against plf::colony"); the system's THP mode is assumed
// to be `madvise`, so that colony's memory (glibc's) stays on 4 KiB pages.
// To compare with an earlier tree, compile this file with
// -I<that tree>/include.
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/hive_insert_pages.cpp -o /tmp/hip
//   for p in never always auto; do TRAVPOOL_HUGE_PAGES=$p /tmp/hip; done
//   /tmp/hip [N=2000000] [rounds=9]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if __has_include(<plf_colony.h>)
#include <plf_colony.h>
#define HAVE_COLONY 1
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <travpool/hive.hpp>
#include <travpool/memory.hpp>

namespace {

template <std::size_t Bytes>
struct item {
  std::uint64_t key;
  std::uint64_t pad[Bytes / 8 - 1];
  explicit item(std::uint64_t k) noexcept : key(k), pad{} {}
};

// Returns: ms to insert n elements into a new C (its destruction untimed).
template <class C, class T>
double fill(std::size_t n) {
  double ms = 0;
  {
    C c;
    std::uint64_t sum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < n; ++i) sum += c.emplace(i)->key;
    const auto t1 = std::chrono::steady_clock::now();
    ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (sum != n * (n - 1) / 2) std::abort();
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  travpool::trim_span_cache();
  return ms;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <std::size_t Bytes>
void run(std::size_t n, int rounds) {
  using T = item<Bytes>;
  std::vector<double> h, c;
  for (int r = 0; r < rounds; ++r) {
#if HAVE_COLONY
    if (r % 2 == 1) c.push_back(fill<plf::colony<T>, T>(n));
#endif
    h.push_back(fill<travpool::hive<T>, T>(n));
#if HAVE_COLONY
    if (r % 2 == 0) c.push_back(fill<plf::colony<T>, T>(n));
#endif
  }
  if (c.empty()) {
    std::printf("insert/%zuB  hive %.2f  (no plf_colony.h)\n", Bytes, median(h));
    return;
  }
  std::printf("insert/%zuB  hive %.2f  colony %.2f  hive/colony %.3f\n", Bytes, median(h), median(c),
              median(h) / median(c));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  const char* policy = std::getenv("TRAVPOOL_HUGE_PAGES");
  std::printf("N = %zu, %d rounds, TRAVPOOL_HUGE_PAGES=%s\n", n, rounds, policy ? policy : "(unset: auto)");
  run<24>(n, rounds);
  run<64>(n, rounds);
}
