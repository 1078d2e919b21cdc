// bench/standalone/hive_distance.cpp: std::distance(begin, end) and
// std::advance(begin, size()) over a travpool::hive<int> of N elements
// (default 4 M) with a third erased at random, against one range-for sweep
// (the sum of the elements) and a ++ loop (what std::distance does for a
// bidirectional iterator without travpool's overloads). Each is timed 9
// times, alternating; medians in ms, and distance and advance as a
// fraction of the sweep (the target: at most 1/10).
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/hive_distance.cpp -o /tmp/hd
//   /tmp/hd [N=4000000]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <vector>

#include <travpool/hive.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

template <class F>
double ms(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

volatile std::int64_t sink;

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 4000000;
  travpool::hive<int> h;
  for (long i = 0; i < n; ++i) h.insert(static_cast<int>(i));
  std::uint64_t x = 88172645463325252u;  // xorshift: a third erased at random
  travpool::erase_if(h, [&](int) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x % 3 == 0;
  });
  const auto size = static_cast<std::ptrdiff_t>(h.size());
  std::printf("N = %ld, %td elements left in %zu blocks\n", n, size, h.block_count());

  std::vector<double> sweep, dist, adv, loop;
  for (int r = 0; r < 9; ++r) {
    sweep.push_back(ms([&] {
      std::int64_t s = 0;
      for (int v : h) s += v;
      sink = s;
    }));
    dist.push_back(ms([&] { sink = std::distance(h.begin(), h.end()); }));
    adv.push_back(ms([&] {
      auto it = h.begin();
      std::advance(it, size);
      sink = it == h.end();
    }));
    loop.push_back(ms([&] {
      std::ptrdiff_t k = 0;
      for (auto it = h.begin(), e = h.end(); it != e; ++it) ++k;
      sink = k;
    }));
    if (sink != 1 && sink != size) return 1;
  }
  if (std::distance(h.begin(), h.end()) != size || std::next(h.begin(), size) != h.end()) {
    std::puts("wrong result");
    return 1;
  }
  const double s = median(sweep), d = median(dist), a = median(adv), l = median(loop);
  std::printf("range-for sweep      %9.4f ms\n", s);
  std::printf("++ loop (old distance) %7.4f ms\n", l);
  std::printf("std::distance        %9.4f ms  (%.5f of a sweep)\n", d, d / s);
  std::printf("std::advance         %9.4f ms  (%.5f of a sweep)\n", a, a / s);
  return 0;
}
