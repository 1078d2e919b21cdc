// travpool/memory.hpp under threads: pools created and destroyed on several
// threads at once hand spans to each other through the span cache while
// another thread trims it and moves its limit. Runs under ThreadSanitizer.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

namespace {

struct p3 {
  std::uint64_t x, y, z;
};

// Returns: the number of checks that failed (Catch2's assertions are not
// thread-safe, so the main thread checks the count).
template <class Pool>
int churn_pools(int rounds, std::uint64_t seed) {
  int failures = 0;
  for (int r = 0; r < rounds; ++r) {
    Pool pool(travpool::bin_capacity{32});
    std::vector<p3*> v;
    for (std::uint64_t i = 0; i < 300; ++i) v.push_back(pool.create(p3{seed, i, seed ^ i}));
    for (std::size_t i = 0; i < v.size(); i += 2) pool.destroy(v[i]);
    try {
      pool.validate();
    } catch (...) {
      ++failures;
    }
    std::size_t n = 0;
    for (const p3& e : pool) {
      failures += e.x != seed || e.z != (seed ^ e.y);
      ++n;
    }
    failures += n != 150 || pool.size() != 150;
  }
  return failures;
}

}  // namespace

TEST_CASE("threads pass spans to each other through the span cache", "[memory][threads]") {
  const std::size_t saved = travpool::span_cache_limit();
  std::atomic<bool> done{false};
  std::thread trimmer([&] {
    for (unsigned k = 0; !done.load(std::memory_order_relaxed); ++k) {
      if (k % 3 == 0) travpool::trim_span_cache();
      travpool::set_span_cache_limit(k % 2 == 0 ? saved : std::size_t{64} << 10);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> workers;
  std::vector<int> failures(4, -1);
  for (std::uint64_t t = 0; t < 4; ++t)
    workers.emplace_back([t, &failures] {
      try {
        failures[t] = t % 2 == 0 ? churn_pools<travpool::concurrent_pool<p3>>(200, t + 1)
                                 : churn_pools<travpool::pool<p3>>(200, t + 1);
      } catch (...) {
        failures[t] = -2;
      }
    });
  for (auto& w : workers) w.join();
  done.store(true);
  trimmer.join();
  for (int f : failures) REQUIRE(f == 0);
  travpool::set_span_cache_limit(saved);
  travpool::trim_span_cache();
  REQUIRE(travpool::span_cache_bytes() == 0);
}
