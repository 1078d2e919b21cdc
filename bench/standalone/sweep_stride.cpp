// bench/standalone/sweep_stride.cpp: range-for over a travpool::hive
// against plf::colony after 50 % of the elements were erased in runs of L
// neighbours in creation order (the same elements in both: a hash of the
// run number, as bench_common's gap_pattern), for elements of 24 to 128 B,
// L = 1 (random), 8, 16, 64 and 256, and dense. The two containers'
// sweeps alternate, 9 each; medians in ms and hive ÷ colony. It is the
// measurement behind compact_layout's sweep prefetch stride limit
// (detail/layout_compact.hpp, "Stride"): compile this file against this
// tree and against the tree before the limit (git worktree add /tmp/before
// 8c41c33; -I/tmp/before/include) and run the two alternately, under one
// page policy (the hive's blocks on huge pages or not change a sweep more
// than the rule does; the program prints which it got).
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/sweep_stride.cpp -o /tmp/ss
//   TRAVPOOL_HUGE_PAGES=never /tmp/ss [N=2000000]   (and =always)
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

#include <travpool/hive.hpp>
#include <travpool/memory.hpp>

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Whether element k goes: run k / L erased with probability f.
bool erases(std::size_t k, double f, std::size_t run) {
  if (f <= 0) return false;
  return static_cast<double>(splitmix64(0x5eed0000ull ^ (k / run)) >> 11) * 0x1.0p-53 < f;
}

template <std::size_t Bytes>
struct item {
  std::uint64_t key;
  std::uint64_t pad[Bytes / 8 - 1];
  explicit item(std::uint64_t k) noexcept : key(k), pad{} {}
};

template <class C>
void build(C& c, std::size_t n, double f, std::size_t run) {
  std::vector<typename C::iterator> its;
  its.reserve(n);
  for (std::size_t i = 0; i < n; ++i) its.push_back(c.emplace(i));
  for (std::size_t i = 0; i < n; ++i)
    if (erases(i, f, run)) c.erase(its[i]);
}

template <class C>
double sweep_ms(const C& c) {
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t sum = 0;
  for (const auto& e : c) sum += e.key;
  const auto t1 = std::chrono::steady_clock::now();
  if (sum == 1) std::abort();  // keeps the sum
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <std::size_t Bytes>
void row(std::size_t n, double f, std::size_t run) {
  travpool::hive<item<Bytes>> h;
  build(h, n, f, run);
  std::vector<double> th, tc;
#if HAVE_COLONY
  plf::colony<item<Bytes>> c;
  build(c, n, f, run);
#endif
  for (int r = 0; r < 9; ++r) {
    th.push_back(sweep_ms(h));
#if HAVE_COLONY
    tc.push_back(sweep_ms(c));
#endif
  }
  char shape[32];
  if (f <= 0)
    std::snprintf(shape, sizeof shape, "dense");
  else if (run == 1)
    std::snprintf(shape, sizeof shape, "50%%random");
  else
    std::snprintf(shape, sizeof shape, "50%%runs%zu", run);
  if (tc.empty()) {
    std::printf("%4zuB %-12s hive %7.2f\n", Bytes, shape, median(th));
    return;
  }
  std::printf("%4zuB %-12s hive %7.2f  colony %7.2f  hive/colony %.2f\n", Bytes, shape, median(th), median(tc),
              median(th) / median(tc));
}

template <std::size_t Bytes>
void rows(std::size_t n) {
  row<Bytes>(n, 0, 1);
  for (std::size_t run : {1, 8, 16, 64, 256}) row<Bytes>(n, 0.5, run);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000;
  const char* policy = std::getenv("TRAVPOOL_HUGE_PAGES");
  std::printf("N = %zu (128 B: N / 2); medians of 9 sweeps, ms; TRAVPOOL_HUGE_PAGES=%s, huge pages in use: %s\n", n,
              policy ? policy : "(unset: auto)", travpool::huge_pages_in_use() ? "yes" : "no");
  rows<24>(n);
  rows<32>(n);
  rows<48>(n);
  rows<64>(n);
  rows<128>(n / 2);
}
