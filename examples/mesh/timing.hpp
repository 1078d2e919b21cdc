// examples/mesh/timing.hpp: wall-clock timing and peak resident memory, shared
// by mesh_demo and bench/mesh/mesh_compare.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace travpool::mesh::timing {

// Seconds on the steady clock.
inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Runs f() and returns its wall time in seconds.
template <class F>
double timed(F&& f) {
  const double t0 = now();
  f();
  return now() - t0;
}

// Runs reset() (untimed) then f() (timed), `runs` times; returns the median
// wall time of f in seconds, so that one noisy run cannot decide a speedup.
template <class Reset, class F>
double median_time(int runs, Reset&& reset, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    reset();
    t.push_back(timed(f));
  }
  std::sort(t.begin(), t.end());
  return t.empty() ? 0.0 : t[t.size() / 2];
}

// Peak resident memory of this process so far (getrusage's ru_maxrss), in bytes.
inline long long peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;
}

}  // namespace travpool::mesh::timing
