// size(), contains(), get_iterator() and stats() of a concurrent_pool from
// a thread that owns no bin: they take no bin lock, so the owners' biased
// locks stay biased, and their answers stay meaningful while the owner
// creates and destroys (issue 17). Runs under ThreadSanitizer.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "test_access.hpp"

namespace {

struct element {
  std::uint64_t a, b, c;
};

template <class Pool>
std::uint32_t bias_of(const Pool& pool, const element* e) {
  for (const auto* b : travpool::detail::test_access::bins(pool)) {
    const auto lo = reinterpret_cast<std::uintptr_t>(b);
    const auto x = reinterpret_cast<std::uintptr_t>(e);
    if (x >= lo && x < lo + pool.bin_span()) return b->lock_.biased_to();
  }
  return ~0u;
}

template <class Pool>
void reader_keeps_bias() {
  Pool pool(travpool::bin_capacity{4096});
  constexpr std::uint64_t kept = 1000;
  std::vector<element*> base;
  element* gone = nullptr;  // destroyed before the reader starts
  std::atomic<int> step{0};
  std::uint32_t owner = 0;
  std::atomic<std::uint64_t> churned{0};
  std::thread w([&] {
    owner = travpool::detail::thread_number();
    for (std::uint64_t i = 0; i < kept; ++i) base.push_back(pool.create(element{i, i, i}));
    gone = pool.create(element{0, 0, 0});
    pool.destroy(gone);
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    // Churn one element while the reader reads: live is kept or kept + 1.
    while (step.load() != 3) {
      element* t = pool.create(element{7, 7, 7});
      pool.destroy(t);
      churned.fetch_add(1, std::memory_order_relaxed);
    }
    step = 4;
    while (step.load() != 5) std::this_thread::yield();
  });
  while (step.load() != 1) std::this_thread::yield();
  const bool biasing = travpool::detail::biasing_enabled();
  if (biasing) REQUIRE(bias_of(pool, base[0]) == owner);

  // Quiescent owner: exact answers, and the bias stays.
  REQUIRE(pool.size() == kept);
  for (const element* e : base) REQUIRE(pool.contains(e));
  REQUIRE_FALSE(pool.contains(gone));
  REQUIRE(pool.get_iterator(base[5]) != pool.end());
  REQUIRE(&*pool.get_iterator(base[5]) == base[5]);
  REQUIRE(pool.get_iterator(gone) == pool.end());
  if constexpr (requires { pool.stats(); }) {
    const auto s = pool.stats();
    REQUIRE(s.live == kept);
    REQUIRE(s.creates == kept + 1);
    REQUIRE(s.destroys == 1);
  }
  if (biasing) REQUIRE(bias_of(pool, base[0]) == owner);

  // The owner churns while this thread reads.
  step = 2;
  std::uint64_t bad_size = 0, bad_contains = 0, reads = 0;
  while (churned.load(std::memory_order_relaxed) < 20'000 || reads < 2'000) {
    const std::size_t n = pool.size();
    bad_size += n != kept && n != kept + 1;
    bad_contains += !pool.contains(base[reads % kept]);
    bad_contains += pool.contains(reinterpret_cast<const element*>(reinterpret_cast<const char*>(base[1]) + 8));
    if constexpr (requires { pool.stats(); }) {
      const auto s = pool.stats();
      bad_size += s.live != kept && s.live != kept + 1;
    }
    ++reads;
  }
  step = 3;
  while (step.load() != 4) std::this_thread::yield();
  CHECK(bad_size == 0);
  CHECK(bad_contains == 0);
  if (biasing) CHECK(bias_of(pool, base[0]) == owner);  // never revoked by the reads
  REQUIRE(pool.size() == kept);
  step = 5;
  w.join();
  pool.validate();
}

}  // namespace

TEST_CASE("size, contains and get_iterator from another thread leave the owner's bias", "[concurrent][read-only]") {
  reader_keeps_bias<travpool::concurrent_pool<element>>();
  reader_keeps_bias<travpool::basic_pool<element, travpool::sync::bin_locks, travpool::layout::interleaved>>();
}

TEST_CASE("stats from another thread leave the owner's bias", "[concurrent][read-only]") {
  reader_keeps_bias<travpool::basic_pool<element, travpool::sync::bin_locks, travpool::stats::counters>>();
}

TEST_CASE("contains from another thread stays safe while bins are retired and reused", "[concurrent][read-only]") {
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{64});
  std::atomic<bool> stop{false};
  std::vector<element*> first;
  for (std::uint64_t i = 0; i < 64 * 4; ++i) first.push_back(pool.create(element{i, i, i}));
  std::thread w([&] {
    std::vector<element*> v;
    for (int round = 0; round < 200; ++round) {
      for (std::uint64_t i = 0; i < 64 * 3; ++i) v.push_back(pool.create(element{i, i, i}));
      for (element* e : v) pool.destroy(e);
      v.clear();
      pool.shrink_to_fit();  // retires the emptied bins; the next round reuses them
    }
    stop = true;
  });
  std::uint64_t wrong = 0;
  while (!stop.load()) {
    for (const element* e : first) wrong += !pool.contains(e);
    wrong += pool.size() < first.size();
  }
  w.join();
  CHECK(wrong == 0);
  REQUIRE(pool.size() == first.size());
  pool.validate();
}
