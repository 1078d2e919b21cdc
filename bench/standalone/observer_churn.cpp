// bench/standalone/observer_churn.cpp: what a monitoring thread costs a
// concurrent_pool worker. One worker churns (llheap's churn: destroy a
// random one of 100,000 elements, create in its place, 4 M rounds) alone
// and beside a thread that calls size() and contains() in a loop, pausing
// PAUSE_US microseconds (busy-waiting) between rounds; the worker's thread
// CPU time, median of 5 each. Two threads: needs 2 cores. Built by hand:
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/observer_churn.cpp -o /tmp/obs -pthread
//   for p in 0 1 20; do /tmp/obs $p; done
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>
#include <thread>
#include <vector>

#include <travpool/pool.hpp>

static long pause_us = 0;  // argv[1]

struct element {
  std::uint64_t a, b, c;
};
static double cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
double run(bool observe) {
  travpool::concurrent_pool<element> pool;
  std::vector<element*> mine;
  for (std::uint64_t i = 0; i < 100000; ++i) mine.push_back(pool.create(element{i, i, i}));
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> sink{0};
  std::thread obs;
  const std::vector<element*> probe(mine.begin(), mine.begin() + 1000);  // the observer's own copy
  if (observe)
    obs = std::thread([&] {
      std::uint64_t s = 0;
      std::size_t k = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        s += pool.size();
        s += pool.contains(probe[k++ % 1000]);
        if (pause_us) {
          auto t = std::chrono::steady_clock::now() + std::chrono::microseconds(pause_us);
          while (std::chrono::steady_clock::now() < t) {
          }
        }
      }
      sink = s;
    });
  std::minstd_rand rng(1);
  double t0 = cpu();
  for (std::uint64_t r = 0; r < 4000000; ++r) {
    std::size_t s = rng() % mine.size();
    pool.destroy(mine[s]);
    mine[s] = pool.create(element{r, r, r});
  }
  double t = cpu() - t0;
  stop = true;
  if (obs.joinable()) obs.join();
  for (element* e : mine) pool.destroy(e);
  return t;
}
int main(int argc, char** argv) {
  if (argc > 1) pause_us = std::atol(argv[1]);
  std::vector<double> a, b;
  for (int i = 0; i < 5; ++i) {
    a.push_back(run(false));
    b.push_back(run(true));
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::printf("worker CPU per 4M rounds: alone %.0f ms, observed %.0f ms: throughput ratio %.2f\n", a[2] * 1e3,
              b[2] * 1e3, a[2] / b[2]);
}
