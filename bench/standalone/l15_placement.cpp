// bench/standalone/l15_placement.cpp: how much of Listing 15's dense ratio
// (pool range-for and for_each against a std::vector range-for) is where
// the compiler places the kernel's 20-iteration inner loop. Built by hand,
// not by CMake, once per loop alignment, and run on a quiet machine:
//   for a in "" -falign-loops=32 -falign-loops=64; do
//     g++ -std=c++20 -O2 -DNDEBUG $a -Iinclude bench/standalone/l15_placement.cpp -o /tmp/l15$a && /tmp/l15$a
//   done
// N = 2 M dense 24-byte elements (the kernel is compute-bound, so N hardly
// matters); the median of 7 sweeps per container, summed over 3 rounds.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <travpool/pool.hpp>

struct element {
  std::uint64_t x, y, z;
};

static std::array<std::uint64_t, 20> draw(std::uint64_t s) {
  std::array<std::uint64_t, 20> r;
  for (auto& v : r) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = (s >> 33) % 10;
  }
  return r;
}

// Listing 15 as in bench/common/bench_common.hpp: the empty asm keeps the 20
// additions per field from being folded into one.
template <class E>
inline void kernel(E& e, const std::array<std::uint64_t, 20>& r) {
  for (std::uint64_t v : r) {
    asm volatile("" : "+r"(v));
    e.x += v;
    e.y += 2 * v;
    e.z += 4 * v;
  }
}

template <class C>
[[gnu::noinline]] void l15_range_for(C& c, std::uint64_t sweep) {
  const auto r = draw(sweep);
  for (auto& e : c) kernel(e, r);
  asm volatile("" ::: "memory");
}

template <class C>
[[gnu::noinline]] void l15_for_each(C& c, std::uint64_t sweep) {
  const auto r = draw(sweep);
  c.for_each([&r](auto& e) { kernel(e, r); });
  asm volatile("" ::: "memory");
}

template <class F>
double median_of_7(F f) {
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f(static_cast<std::uint64_t>(i));
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[3];
}

int main() {
  const std::size_t n = 2'000'000;
  std::vector<element> v(n);
  travpool::pool<element> p;
  for (std::uint64_t i = 0; i < n; ++i) p.create(element{i, i, i});
  double vec = 0, range_for = 0, for_each = 0;
  for (int round = 0; round < 3; ++round) {
    vec += median_of_7([&](std::uint64_t s) { l15_range_for(v, s); });
    range_for += median_of_7([&](std::uint64_t s) { l15_range_for(p, s); });
    for_each += median_of_7([&](std::uint64_t s) { l15_for_each(p, s); });
  }
  std::printf("Listing 15, dense, time / std::vector range-for: pool range-for %.2f, pool for_each %.2f\n",
              range_for / vec, for_each / vec);
}
