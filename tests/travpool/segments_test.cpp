// layout::compact specifics: exact chunk stride, segments() as blocks of
// one bitmap word (whole pool and partition ranges), for_each's bitmap sweep.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
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

// Every segment is the live chunks of one bitmap word: non-empty, within
// 64 chunks of data(), mask() exactly the live chunks (checked with
// contains() on every chunk of the block), span() the same elements when
// contiguous(); the segments concatenate to the sweep, for the whole pool
// and for partition ranges.
template <class Pool, class Range>
std::vector<const p3*> check_segments(const Pool& pool, const Range& segments) {
  std::vector<const p3*> from_segments;
  const p3* previous_block = nullptr;
  for (auto seg : segments) {
    REQUIRE_FALSE(seg.empty());
    REQUIRE(seg.data() != previous_block);  // one segment per word
    previous_block = seg.data();
    std::vector<const p3*> walked, masked;
    for (auto& e : seg) walked.push_back(&e);
    for (int j = 0; j < 64; ++j)
      if ((seg.mask() >> j) & 1) masked.push_back(seg.data() + j);
    REQUIRE(walked == masked);
    REQUIRE(walked.size() == seg.size());
    if (seg.contiguous()) {
      std::vector<const p3*> spanned;
      for (auto& e : seg.span()) spanned.push_back(&e);
      REQUIRE(spanned == walked);
    } else {
      REQUIRE(walked.back() - walked.front() + 1 > static_cast<std::ptrdiff_t>(walked.size()));
    }
    for (const p3* e : walked) REQUIRE(pool.contains(e));
    from_segments.insert(from_segments.end(), walked.begin(), walked.end());
  }
  return from_segments;
}

TEST_CASE("segments() are the live elements, one bitmap word at a time", "[segments]") {
  for (std::uint32_t cap : {1u, 7u, 64u, 200u}) {
    for (int gap_percent : {0, 10, 50, 97, 100}) {
      for (bool runs : {false, true}) {
        INFO("capacity " << cap << ", gaps " << gap_percent << "%" << (runs ? " in runs of 70" : ""));
        compact_pool pool(travpool::bin_capacity{cap});
        std::vector<p3*> all;
        for (std::uint64_t i = 0; i < 3000; ++i) all.push_back(pool.create(p3{i, 0, 0}));
        std::mt19937 rng(cap * 100 + static_cast<unsigned>(gap_percent));
        bool drop = false;
        std::set<const p3*> model;                // the elements not destroyed, kept by the test
        std::vector<std::uint64_t> model_values;  // their values, ascending
        for (std::size_t i = 0; i < all.size(); ++i) {
          // Runs of 70 cover whole bitmap words: the jump over free words.
          if (!runs || i % 70 == 0) drop = static_cast<int>(rng() % 100) < gap_percent;
          if (drop)
            pool.destroy(all[i]);
          else
            model.insert(all[i]), model_values.push_back(i);
        }
        std::vector<const p3*> swept;
        for (const p3& e : pool) swept.push_back(&e);
        // Against the model, not the pool's own iteration: the segments
        // hold exactly the elements not destroyed, each once, with their
        // values.
        const auto from_segments = check_segments(pool, pool.segments());
        REQUIRE(from_segments.size() == model.size());
        REQUIRE(std::set<const p3*>(from_segments.begin(), from_segments.end()) == model);
        std::vector<std::uint64_t> values;
        for (const p3* e : from_segments) values.push_back(e->x);
        std::sort(values.begin(), values.end());
        REQUIRE(values == model_values);
        REQUIRE(from_segments == swept);
        const compact_pool& cpool = pool;
        REQUIRE(check_segments(pool, cpool.segments()) == swept);
        for (std::size_t k : {1u, 2u, 3u, 8u}) {
          std::vector<const p3*> from_parts;
          for (const auto& r : pool.partition(k)) {
            const auto part = check_segments(pool, r.segments());
            from_parts.insert(from_parts.end(), part.begin(), part.end());
          }
          REQUIRE(from_parts == swept);
        }
      }
    }
  }
}

TEST_CASE("a dense pool's segments are whole words, each one contiguous span", "[segments]") {
  compact_pool pool(travpool::bin_capacity{1000});
  for (std::uint64_t i = 0; i < 2500; ++i) pool.create(p3{i, 0, 0});
  std::size_t n = 0, full = 0;
  std::uint64_t next = 0;
  for (auto seg : pool.segments()) {
    REQUIRE(seg.contiguous());
    for (const p3& e : seg.span()) REQUIRE(e.x == next++);
    n += seg.size();
    full += seg.size() == 64;
  }
  REQUIRE(n == 2500);
  REQUIRE(next == 2500);
  // User chunks are 2..1001 of a bin: words 1..14 are whole (word 0 holds
  // A0 and F0, word 15 ends at chunk 1001); the third bin's 500 elements,
  // chunks 2..501, fill words 1..6.
  REQUIRE(full == 14 + 14 + 6);
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
