// bench/standalone/concurrent_hive_threads.cpp: a thread-safe hive against
// what a user would lock instead. N insertions of 24-B elements split over
// k threads (each keeps its iterators), then each thread erases its own
// elements in a random order; both phases timed, with k = 1 and 2, for
// travpool::concurrent_hive, plf::colony under a std::mutex, and
// travpool::concurrent_pool (create/destroy); travpool::hive (no
// synchronisation) at k = 1 as the baseline. Every contender builds its
// container afresh; the contenders alternate within each round; medians
// over the rounds, ms (docs/hive.md, "concurrent_hive").
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/concurrent_hive_threads.cpp -o /tmp/cht -pthread
//   /tmp/cht [N=4000000] [rounds=5]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<plf_colony.h>)
#include <plf_colony.h>
#define HAVE_COLONY 1
#endif

#include <travpool/hive.hpp>
#include <travpool/memory.hpp>
#include <travpool/pool.hpp>

namespace {

struct element {
  std::uint64_t x, y, z;
  explicit element(std::uint64_t k) noexcept : x(k), y(k + 1), z(k + 2) {}
};

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs body(t) on k threads (t = 0 on this one) and returns the wall time.
double timed(int k, const std::function<void(int)>& body) {
  const auto start = clock_type::now();
  std::vector<std::thread> threads;
  for (int t = 1; t < k; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();
  return ms_since(start);
}

// The erase order of thread t: its n handles, shuffled.
template <class H>
void shuffle(std::vector<H>& v, int t) {
  std::mt19937_64 rng(1234 + t);
  std::shuffle(v.begin(), v.end(), rng);
}

struct result {
  double insert, erase;
};

template <class Container, class Add, class Erase>
result run(std::size_t n, int k, Add add, Erase erase) {
  Container c;
  using handle = decltype(add(c, std::uint64_t{}));
  std::vector<std::vector<handle>> handles(k);
  for (auto& h : handles) h.reserve(n / k);
  result r;
  r.insert = timed(k, [&](int t) {
    for (std::size_t i = 0; i < n / k; ++i) handles[t].push_back(add(c, t * n + i));
  });
  for (int t = 0; t < k; ++t) shuffle(handles[t], t);
  r.erase = timed(k, [&](int t) {
    for (const handle& h : handles[t]) erase(c, h);
  });
  if (!c.empty()) std::abort();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  struct contender {
    std::string name;
    int threads;
    std::function<result()> go;
    std::vector<double> insert, erase;
  };
  std::vector<contender> cs;
  cs.push_back({"travpool::hive", 1, [&] {
                  using C = travpool::hive<element>;
                  return run<C>(
                      n, 1, [](C& c, std::uint64_t v) { return c.emplace(v); },
                      [](C& c, C::iterator it) { c.erase(it); });
                }});
  for (int k : {1, 2}) {
    cs.push_back({"travpool::concurrent_hive", k, [&, k] {
                    using C = travpool::concurrent_hive<element>;
                    return run<C>(
                        n, k, [](C& c, std::uint64_t v) { return c.emplace(v); },
                        [](C& c, C::iterator it) { c.erase(it); });
                  }});
#ifdef HAVE_COLONY
    cs.push_back({"plf::colony + std::mutex", k, [&, k] {
                    struct locked {
                      plf::colony<element> c;
                      std::mutex m;
                      bool empty() const { return c.empty(); }
                    };
                    using it_t = plf::colony<element>::iterator;
                    return run<locked>(
                        n, k,
                        [](locked& l, std::uint64_t v) {
                          const std::lock_guard<std::mutex> g(l.m);
                          return l.c.emplace(v);
                        },
                        [](locked& l, it_t it) {
                          const std::lock_guard<std::mutex> g(l.m);
                          l.c.erase(it);
                        });
                  }});
#endif
    cs.push_back({"travpool::concurrent_pool", k, [&, k] {
                    using C = travpool::concurrent_pool<element>;
                    return run<C>(
                        n, k, [](C& c, std::uint64_t v) { return c.create(v); },
                        [](C& c, element* p) { c.destroy(p); });
                  }});
  }
  for (int r = 0; r < rounds; ++r) {
    for (auto& c : cs) {
      const result x = c.go();
      c.insert.push_back(x.insert);
      c.erase.push_back(x.erase);
      travpool::trim_span_cache();
    }
  }
  std::printf("N = %zu x %zu B, %d rounds, medians (ms)\n", n, sizeof(element), rounds);
  std::printf("| contender | threads | insert N | erase N (random order) |\n|---|---|---|---|\n");
  for (const auto& c : cs)
    std::printf("| %s | %d | %.1f | %.1f |\n", c.name.c_str(), c.threads, median(c.insert), median(c.erase));
}
