// Randomized differential test: >= 10 million operations against a std::set
// model, at bin capacities 7, 64 and 64,000, with fixed seeds and one seed
// that varies from run to run (printed, and settable with TRAVPOOL_SEED).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

namespace {

struct element {
  std::uint64_t id;
  std::uint64_t check;  // id * golden ratio: detects overwritten payloads
  static std::uint64_t mix(std::uint64_t id) { return id * 0x9e3779b97f4a7c15ull; }
};

template <class Pool>
void run(std::uint32_t cap, std::uint64_t seed, std::size_t ops) {
  INFO("bin capacity " << cap << ", seed " << seed);
  Pool pool(travpool::bin_capacity{cap});
  std::set<const element*> model;  // live elements
  std::vector<element*> live;      // the same, for O(1) random picks
  std::mt19937_64 rng(seed);
  std::uint64_t next_id = 0;
  // Oscillate the target size so that bins fill, drain and refill.
  const std::size_t high = std::size_t{cap} * 6 + 50;
  std::size_t target = high / 2;
  std::size_t sweeps = 0;

  auto full_check = [&] {
    pool.validate();
    std::vector<const element*> fwd, bwd;
    for (const element& e : pool) {
      REQUIRE(e.check == element::mix(e.id));
      fwd.push_back(&e);
    }
    for (auto it = pool.rbegin(); it != pool.rend(); ++it) bwd.push_back(&*it);
    REQUIRE(fwd.size() == model.size());
    REQUIRE(std::vector<const element*>(bwd.rbegin(), bwd.rend()) == fwd);
    REQUIRE(std::set<const element*>(fwd.begin(), fwd.end()) == model);
    ++sweeps;
  };

  for (std::size_t op = 0; op < ops; ++op) {
    if (op % std::max<std::size_t>(4096, high / 2) == 0)
      target = std::uniform_int_distribution<std::size_t>(0, high)(rng);
    const unsigned r = static_cast<unsigned>(rng() % 100);
    const bool grow = live.size() < target;
    // 90 % creates and destroys, biased towards the current target size.
    const bool create = r < 90 && (live.empty() || (grow ? r < 60 : r < 30));
    if (create) {
      const std::uint64_t id = next_id++;
      element* e = pool.create(element{id, element::mix(id)});
      REQUIRE(model.insert(e).second);
      live.push_back(e);
    } else if (r < 90) {
      const std::size_t i = rng() % live.size();
      element* e = live[i];
      REQUIRE(e->check == element::mix(e->id));
      pool.destroy(e);
      model.erase(e);
      live[i] = live.back();
      live.pop_back();
    } else if (r < 97) {
      // contains and get_iterator on live elements and on recently freed or
      // foreign addresses.
      if (!live.empty()) {
        element* e = live[rng() % live.size()];
        REQUIRE(pool.contains(e));
        REQUIRE(&*pool.get_iterator(e) == e);
        auto it = pool.get_iterator(e);
        ++it;
        if (it != pool.end()) REQUIRE(model.count(&*it) == 1);
      }
      element local{0, 0};
      REQUIRE_FALSE(pool.contains(&local));
      REQUIRE(pool.get_iterator(&local) == pool.end());
    }
    // Full sweeps and validate() cost O(capacity): space them so that they
    // add about one chunk visit per operation.
    if (op % std::max<std::size_t>(2000, pool.capacity() + 4 * pool.bin_count()) == 0) full_check();
    REQUIRE(pool.size() == model.size());
  }
  full_check();
  REQUIRE(sweeps > 0);
}

std::uint64_t varying_seed() {
  if (const char* s = std::getenv("TRAVPOOL_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

TEMPLATE_TEST_CASE("pool agrees with a std::set model over 10M random operations", "[pool][differential]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<element, TestType>;
  const std::uint64_t seed = varying_seed();
  std::cout << "pool_differential_test: varying seed " << seed << " (rerun with TRAVPOOL_SEED=" << seed << ")\n";
  // 3 + 3 + 2 runs of 1.25M operations: 10M in all, for every policy. At
  // small_depth (a sanitizer, 5-20x slower, or the stages after the first)
  // a tenth of that; the GCC Release run is the 10M-operation test of the
  // covering set's policies, the Clang Release run (TRAVPOOL_TEST_OTHER_POLICIES)
  // that of the other three.
  const std::size_t ops = travpool::test::small_depth && !TRAVPOOL_TEST_OTHER_POLICIES ? 125'000 : 1'250'000;
  SECTION("capacity 7") {
    run<pool_type>(7, 1, ops);
    run<pool_type>(7, 2, ops);
    run<pool_type>(7, seed, ops);
  }
  SECTION("capacity 64") {
    run<pool_type>(64, 3, ops);
    run<pool_type>(64, 4, ops);
    run<pool_type>(64, seed + 1, ops);
  }
  SECTION("capacity 64000") {
    run<pool_type>(64000, 5, ops);
    run<pool_type>(64000, seed + 2, ops);
  }
}
