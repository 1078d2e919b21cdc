// travpool/memory.hpp: the process-wide span cache. Bins that a pool gives
// back are reused by the next pool, whose bins then hold a previous pool's
// bytes; the pools must not care.
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

using travpool::bin_capacity;
using travpool::usage_error;

namespace {

struct p3 {
  std::uint64_t x, y, z;
};

template <class Pool>
std::set<std::uintptr_t> spans_of(const std::vector<p3*>& elements, const Pool& pool) {
  std::set<std::uintptr_t> spans;
  for (const p3* e : elements) spans.insert(reinterpret_cast<std::uintptr_t>(e) & ~(pool.bin_span() - 1));
  return spans;
}

// Restores the limit a test changed.
struct limit_guard {
  std::size_t saved = travpool::span_cache_limit();
  ~limit_guard() { travpool::set_span_cache_limit(saved); }
};

}  // namespace

TEST_CASE("a destroyed pool's bins go to the span cache and the next pool reuses them", "[memory]") {
  travpool::trim_span_cache();
  REQUIRE(travpool::span_cache_bytes() == 0);
  std::set<std::uintptr_t> first;
  std::size_t span = 0, bins = 0;
  {
    travpool::pool<p3> a(bin_capacity{16});
    std::vector<p3*> v;
    for (std::uint64_t i = 0; i < 100; ++i) v.push_back(a.create(p3{i, i, i}));
    first = spans_of(v, a);
    span = a.bin_span();
    bins = a.bin_count();
    REQUIRE(first.size() == bins);
  }
  REQUIRE(travpool::span_cache_bytes() == bins * span);
  {
    travpool::pool<p3> b(bin_capacity{16});
    std::vector<p3*> v;
    for (std::uint64_t i = 0; i < 100; ++i) v.push_back(b.create(p3{i, i, i}));
    REQUIRE(spans_of(v, b) == first);
    REQUIRE(travpool::span_cache_bytes() == 0);
    b.validate();
  }
  REQUIRE(travpool::trim_span_cache() == bins * span);
  REQUIRE(travpool::span_cache_bytes() == 0);
  REQUIRE(travpool::trim_span_cache() == 0);
}

TEST_CASE("pools of another span size leave cached spans alone", "[memory]") {
  travpool::trim_span_cache();
  std::size_t cached, span;
  {
    travpool::pool<p3> a(bin_capacity{16});
    for (std::uint64_t i = 0; i < 40; ++i) a.create(p3{i, i, i});
    span = a.bin_span();
    cached = a.bin_count() * span;
  }
  REQUIRE(travpool::span_cache_bytes() == cached);
  {
    travpool::pool<p3> big;  // default bins: 2 MiB spans
    REQUIRE(big.bin_span() != span);
    big.create(p3{1, 2, 3});
    REQUIRE(travpool::span_cache_bytes() == cached);
  }
  travpool::trim_span_cache();
}

TEST_CASE("the span cache keeps at most its limit; 0 turns it off", "[memory]") {
  limit_guard guard;
  travpool::trim_span_cache();
  std::size_t span = 0;
  const auto fill = [&span] {
    travpool::pool<p3> a(bin_capacity{16});
    for (std::uint64_t i = 0; i < 16 * 5; ++i) a.create(p3{i, i, i});
    REQUIRE(a.bin_count() == 5);
    span = a.bin_span();
  };

  REQUIRE(travpool::set_span_cache_limit(0) == guard.saved);
  REQUIRE(travpool::span_cache_limit() == 0);
  fill();
  REQUIRE(travpool::span_cache_bytes() == 0);

  travpool::set_span_cache_limit(2 * span);
  fill();
  REQUIRE(travpool::span_cache_bytes() == 2 * span);

  // Lowering the limit unmaps what is over it.
  REQUIRE(travpool::set_span_cache_limit(span) == 2 * span);
  REQUIRE(travpool::span_cache_bytes() == span);
  REQUIRE(travpool::trim_span_cache() == span);
}

TEMPLATE_TEST_CASE("a pool on recycled spans ignores their stale bytes", "[memory][misuse]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<p3, TestType>;
  travpool::trim_span_cache();
  // Pool a fills its bins with all-ones elements and leaves free chunks with
  // free-list words, then gives its spans to the cache.
  std::vector<p3*> stale;
  std::set<std::uintptr_t> stale_spans;
  {
    pool_type a(bin_capacity{64});
    for (int i = 0; i < 640; ++i) stale.push_back(a.create(p3{~0ull, ~0ull, ~0ull}));
    for (std::size_t i = 0; i < stale.size(); i += 3) a.destroy(stale[i]);
    stale_spans = spans_of(stale, a);
  }
  REQUIRE(travpool::span_cache_bytes() > 0);

  pool_type b(bin_capacity{64});
  std::set<p3*> model;
  std::vector<p3*> first;
  for (std::uint64_t i = 0; i < 100; ++i) first.push_back(b.create(p3{i, i, i}));
  model.insert(first.begin(), first.end());
  b.validate();
  for (std::uintptr_t s : spans_of(first, b)) REQUIRE(stale_spans.count(s) == 1);  // b's bins are a's
  // a's elements that b does not hold are not b's, whatever bytes their
  // chunks still hold: contains() says so and destroy() is refused.
  std::size_t refused = 0;
  for (p3* p : stale) {
    if (model.count(p) != 0) continue;
    REQUIRE_FALSE(b.contains(p));
    REQUIRE_THROWS_AS(b.destroy(p), usage_error);
    ++refused;
  }
  REQUIRE(refused >= stale.size() - 100);
  REQUIRE(b.size() == model.size());
  b.validate();

  // Randomised differential run against the model on the recycled bins.
  std::mt19937_64 rng(42);
  for (int step = 0; step < 20000; ++step) {
    if (model.empty() || rng() % 100 < 55) {
      model.insert(b.create(p3{static_cast<std::uint64_t>(step), 0, 0}));
    } else {
      auto it = model.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(rng() % model.size()));
      b.destroy(*it);
      model.erase(it);
    }
    if (step % 2000 == 0) b.validate();
  }
  b.validate();
  std::set<p3*> seen;
  for (p3& e : b) seen.insert(&e);
  REQUIRE(seen == model);
  REQUIRE(b.size() == model.size());
}
