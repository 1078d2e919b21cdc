// bench/standalone/range_for_ratio.cpp: range-for against for_each, the
// sweep a user writes against the pool's own, for pool<T> and
// concurrent_pool (issue target: concurrent_pool's range-for at most 1.10x
// its for_each). 10 M elements of 24 B, dense and after erasing 10 % and
// 50 % at random; the sum of the fields; the two sweeps alternate, 9 times
// each, in one process; ns per live element, medians (docs/sweeps.md).
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/range_for_ratio.cpp -o /tmp/rfr && /tmp/rfr
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <travpool/pool.hpp>

namespace {

struct element {
  std::uint64_t x, y, z;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Pool>
void run(const char* name, double erased) {
  Pool pool;
  constexpr std::size_t n = 10'000'000;
  std::vector<element*> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(pool.create(element{i, 2 * i, 3 * i}));
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (element* e : v)
    if (u(g) < erased) pool.destroy(e);
  const auto live = static_cast<double>(pool.size());
  std::vector<double> fe, rf;
  std::uint64_t a = 0, b = 0;
  for (int r = 0; r < 9; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    pool.for_each([&](const element& e) { a += e.x + e.y + e.z; });
    const auto t1 = std::chrono::steady_clock::now();
    for (const element& e : pool) b += e.x + e.y + e.z;
    const auto t2 = std::chrono::steady_clock::now();
    fe.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / live);
    rf.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / live);
  }
  if (a != b) std::printf("checksums differ\n");
  const double f = median(fe), r = median(rf);
  std::printf("| %s | %.0f %% | %.3f | %.3f | %.3f |\n", name, erased * 100, f, r, r / f);
}

}  // namespace

int main() {
  std::printf("| pool | erased | for_each (ns per live element) | range-for | range-for / for_each |\n");
  std::printf("|---|---|---|---|---|\n");
  for (double erased : {0.0, 0.1, 0.5}) {
    run<travpool::pool<element>>("`pool<T>`", erased);
    run<travpool::concurrent_pool<element>>("`concurrent_pool`", erased);
  }
}
