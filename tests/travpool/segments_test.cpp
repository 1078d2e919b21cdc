// layout::compact specifics: exact chunk stride, segments() as maximal
// std::span runs (whole pool and partition ranges), for_each's bitmap sweep.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

namespace {
struct p3 {
  std::uint64_t x, y, z;
};
struct five_words {
  std::uint32_t w[5];
};
using compact_pool = travpool::basic_pool<p3, travpool::layout::compact>;
}  // namespace

static_assert(compact_pool::chunk_stride == 24, "a 24-byte element takes exactly 24 B");
static_assert(travpool::basic_pool<char, travpool::layout::compact>::chunk_stride == 12);
static_assert(travpool::basic_pool<five_words, travpool::layout::compact>::chunk_stride == 20);
// 65536 / 1 + bitmap: the default capacity fills 2 MiB with < 0.2 B/elem overhead.
static_assert(2.0 * 1024 * 1024 / travpool::default_bin_capacity<p3, travpool::layout::compact> < 24.2);

TEST_CASE("segments() are the maximal runs of live elements", "[segments]") {
  for (std::uint32_t cap : {1u, 7u, 64u, 200u}) {
    for (int gap_percent : {0, 10, 50, 97}) {
      INFO("capacity " << cap << ", gaps " << gap_percent << "%");
      compact_pool pool(travpool::bin_capacity{cap});
      std::vector<p3*> all;
      for (std::uint64_t i = 0; i < 3000; ++i) all.push_back(pool.create(p3{i, 0, 0}));
      std::mt19937 rng(cap * 100 + static_cast<unsigned>(gap_percent));
      for (p3* p : all)
        if (static_cast<int>(rng() % 100) < gap_percent) pool.destroy(p);
      std::vector<const p3*> swept, from_segments;
      for (const p3& e : pool) swept.push_back(&e);
      const p3* previous_end = nullptr;
      for (std::span<p3> run : pool.segments()) {
        REQUIRE_FALSE(run.empty());
        // Maximal: the chunk after a run is not live, and runs never touch.
        REQUIRE_FALSE(pool.contains(run.data() + run.size()));
        REQUIRE(run.data() != previous_end);
        previous_end = run.data() + run.size();
        for (p3& e : run) from_segments.push_back(&e);
      }
      REQUIRE(from_segments == swept);
      for (std::size_t k : {1u, 2u, 3u, 8u}) {
        std::vector<const p3*> from_parts;
        for (const auto& r : pool.partition(k))
          for (std::span<p3> run : r.segments())
            for (p3& e : run) from_parts.push_back(&e);
        REQUIRE(from_parts == swept);
      }
    }
  }
}

TEMPLATE_TEST_CASE("for_each visits what iteration visits", "[segments]", TRAVPOOL_TEST_LAYOUTS) {
  travpool::test::pool_t<p3, TestType> pool(travpool::bin_capacity{300});
  std::vector<p3*> all;
  for (std::uint64_t i = 0; i < 5000; ++i) all.push_back(pool.create(p3{i, 0, 0}));
  std::mt19937 rng(5);
  for (std::size_t i = 0; i < all.size(); ++i)
    if (rng() % 3 == 0 || (i >= 600 && i < 1300)) pool.destroy(all[i]);
  std::vector<const p3*> swept, visited;
  for (const p3& e : pool) swept.push_back(&e);
  pool.for_each([&](p3& e) { visited.push_back(&e); });
  REQUIRE(visited == swept);
}
