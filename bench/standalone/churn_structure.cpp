// bench/standalone/churn_structure.cpp: what a churn leaves in the bins,
// and what it costs the sweep after it. pool<T> and concurrent_pool (one
// thread) make alloc_peers_bench's operations (create N, destroy all in
// random order, create N again, destroy all again, fill to N/2, then N
// random creates and destroys at about N/2 live), then report: live
// elements, runs of adjacent live chunks, 64-chunk windows that are
// neither full nor empty (a proxy for the bitmap's blocks: windows start
// at each 2 MiB region's lowest live chunk, not at the bin's first chunk),
// 2 MiB regions with live elements, and the for_each sweep's median time
// of 31 (ms). Refill and
// reuse policies show up in the runs (docs/threads.md, "Refill and reuse
// policies").
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/churn_structure.cpp -o /tmp/cs && /tmp/cs [N] [24|64]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include <travpool/pool.hpp>

namespace {

struct splitmix {
  std::uint64_t s;
  std::uint64_t operator()() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }
};

template <std::size_t Words>
struct element {
  std::uint64_t w[Words];
};

template <class Pool, class E>
void run(const char* name, std::size_t n) {
  Pool c;
  std::vector<E*> ptrs;
  ptrs.reserve(n);
  splitmix shuffle{42};
  for (int pass = 0; pass < 2; ++pass) {
    ptrs.clear();
    for (std::size_t i = 0; i < n; ++i) ptrs.push_back(c.create(E{{i}}));
    for (std::size_t i = n - 1; i > 0; --i) std::swap(ptrs[i], ptrs[shuffle() % (i + 1)]);
    for (E* p : ptrs) c.destroy(p);
  }
  const std::size_t target = n / 2;
  std::vector<E*> live;
  splitmix rng{1000};
  for (std::size_t i = 0; i < target; ++i) live.push_back(c.create(E{{i}}));
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t x = rng();
    const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
    const double p_create = 1.0 - static_cast<double>(live.size()) / static_cast<double>(2 * target);
    if (u < p_create || live.empty()) {
      live.push_back(c.create(E{{x}}));
    } else {
      const std::size_t j = rng() % live.size();
      c.destroy(live[j]);
      live[j] = live.back();
      live.pop_back();
    }
  }
  // Structure, from the addresses in iteration order (address order within
  // a bin).
  // Windows of 64 * sizeof(E) bytes count from the lowest live address of
  // each 2 MiB region, the same rule for both pools.
  std::size_t runs = 0;
  const E* prev = nullptr;
  std::map<std::uintptr_t, std::uintptr_t> region_base;  // region -> lowest live address
  for (auto it = c.begin(); it != c.end(); ++it) {
    const E* e = &*it;
    if (e != prev + 1) ++runs;
    prev = e;
    const auto a = reinterpret_cast<std::uintptr_t>(e);
    auto [at, fresh] = region_base.emplace(a >> 21, a);
    if (!fresh && a < at->second) at->second = a;
  }
  std::map<std::pair<std::uintptr_t, std::size_t>, int> blocks;  // (region, window) -> live chunks
  for (auto it = c.begin(); it != c.end(); ++it) {
    const auto a = reinterpret_cast<std::uintptr_t>(&*it);
    ++blocks[{a >> 21, (a - region_base[a >> 21]) / (64 * sizeof(E))}];
  }
  std::size_t partial = 0;
  for (const auto& [key, count] : blocks) partial += count != 64;
  std::vector<double> t;
  std::uint64_t sum = 0;
  for (int k = 0; k < 31; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    c.for_each([&](const E& e) {
      for (std::uint64_t w : e.w) sum += w;
    });
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  std::printf("%-16s %zu B  live %zu  runs %zu  partial windows %zu  regions %zu  sweep %.3f ms  (%llu)\n", name,
              sizeof(E), c.size(), runs, partial, region_base.size(), t[t.size() / 2],
              static_cast<unsigned long long>(sum & 0xff));
}

template <class E>
void both(std::size_t n) {
  run<travpool::pool<E>, E>("pool<T>", n);
  run<travpool::concurrent_pool<E>, E>("concurrent_pool", n);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  const bool small = argc > 2 && std::strcmp(argv[2], "24") == 0;
  if (small)
    both<element<3>>(n);
  else
    both<element<8>>(n);
}
