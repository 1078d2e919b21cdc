// travpool/memory.hpp: the process-wide span cache. Bins that a pool gives
// back are reused by the next pool, whose bins then hold a previous pool's
// bytes; the pools must not care.
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#if !defined(_WIN32)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

// Effects: `steps` random operations on pool and model: a create with
// probability create_percent %, else the destroy of a random live element;
// validate() every 2000 steps.
template <class Pool>
void random_ops(Pool& pool, std::set<p3*>& model, std::uint64_t seed, int steps, unsigned create_percent) {
  std::mt19937_64 rng(seed);
  for (int step = 0; step < steps; ++step) {
    if (model.empty() || rng() % 100 < create_percent) {
      model.insert(pool.create(p3{static_cast<std::uint64_t>(step), 1, 2}));
    } else {
      auto it = model.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(rng() % model.size()));
      pool.destroy(*it);
      model.erase(it);
    }
    if (step % 2000 == 0) pool.validate();
  }
}

// Returns: whether this kernel accepts madvise(MADV_FREE), asked directly
// (not through travpool, whose cache is what the tests check).
bool kernel_has_madv_free() {
#if defined(_WIN32)
  return true;  // advise_free is MEM_RESET, which every Windows accepts
#elif defined(MADV_FREE)
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* p = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  static_cast<char*>(p)[0] = 1;
  const bool ok = ::madvise(p, page, MADV_FREE) == 0;
  ::munmap(p, page);
  return ok;
#else
  return false;
#endif
}

// Returns: whether the span cache can keep spans here (it needs MADV_FREE).
// Where the kernel accepts MADV_FREE the cache must keep a destroyed pool's
// bins: a cache that keeps nothing there fails this, rather than turning
// the tests that call it off.
bool cache_works() {
  if (!kernel_has_madv_free()) {
    WARN("madvise(MADV_FREE) is refused here: the span cache keeps nothing");
    return false;
  }
  travpool::trim_span_cache();
  { travpool::pool<p3>(bin_capacity{16}).create(p3{}); }
  const bool kept = travpool::span_cache_bytes() != 0;
  travpool::trim_span_cache();
  INFO("the kernel accepts MADV_FREE, so a destroyed pool's bin must be cached");
  REQUIRE(kept);
  return true;
}

// Restores the limit a test changed.
struct limit_guard {
  std::size_t saved = travpool::span_cache_limit();
  ~limit_guard() { travpool::set_span_cache_limit(saved); }
};

}  // namespace

TEST_CASE("a destroyed pool's bins go to the span cache and the next pool reuses them", "[memory]") {
  if (!cache_works()) return;
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
  if (!cache_works()) return;
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
    travpool::pool<p3> big;  // a small first bin, then bins growing to 2 MiB spans
    REQUIRE(big.bin_span() != span);
    big.create(p3{1, 2, 3});
    REQUIRE(travpool::span_cache_bytes() == cached);
  }
  travpool::trim_span_cache();
}

TEST_CASE("the span cache keeps at most its limit, and 0 turns it off", "[memory]") {
  if (!cache_works()) return;
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
  if (!cache_works()) return;
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
  const std::set<std::uintptr_t> b_spans = spans_of(first, b);
  std::size_t refused_in_b = 0;  // stale elements inside b's own bins, above its fresh chunk
  for (p3* p : stale) {
    if (model.count(p) != 0) continue;
    REQUIRE_FALSE(b.contains(p));
    REQUIRE_THROWS_AS(b.destroy(p), usage_error);
    refused_in_b += b_spans.count(reinterpret_cast<std::uintptr_t>(p) & ~(b.bin_span() - 1));
  }
  REQUIRE(refused_in_b > 0);
  REQUIRE(b.size() == model.size());
  b.validate();

  // Randomised differential run against the model on the recycled bins.
  random_ops(b, model, 42, 20000, 55);
  b.validate();
  std::set<p3*> seen;
  for (p3& e : b) seen.insert(&e);
  REQUIRE(seen == model);
  REQUIRE(b.size() == model.size());
}

// Bins of the default capacity (a growing pool's once grown; named here)
// are one 2 MiB huge page each and are filled lazily, so most of a reused
// span is never written before the pool reads what it needs. Fill a cached
// span with each byte pattern, then run a pool on it.
TEMPLATE_TEST_CASE("a pool on a cached 2 MiB span filled with garbage works", "[memory][misuse]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<p3, TestType>;
  if (!cache_works()) return;
  const bin_capacity full{travpool::default_bin_capacity<p3, typename pool_type::layout_type>};
  for (const int pattern : {0xff, 0x80, 0x00, 0x7f}) {
    CAPTURE(pattern);
    std::size_t span = 0;
    std::uintptr_t base = 0;
    {
      pool_type a(full);
      base = reinterpret_cast<std::uintptr_t>(a.create(p3{})) & ~(a.bin_span() - 1);
      span = a.bin_span();
    }
    auto& cache = travpool::detail::span_cache::instance();
    void* s = cache.take(span);
    REQUIRE(reinterpret_cast<std::uintptr_t>(s) == base);
    std::memset(s, pattern, span);
    REQUIRE(cache.put(s, span));

    pool_type b(full);
    std::set<p3*> model;
    random_ops(b, model, static_cast<std::uint64_t>(pattern) + 1, 30000, 70);
    REQUIRE(b.bin_count() == 1);
    REQUIRE((reinterpret_cast<std::uintptr_t>(*model.begin()) & ~(span - 1)) == base);  // the garbage span
    b.validate();
    std::vector<p3*> forward, backward;
    for (p3& e : b) forward.push_back(&e);
    for (auto it = b.end(); it != b.begin();) backward.push_back(&*--it);
    REQUIRE(std::set<p3*>(forward.begin(), forward.end()) == model);
    REQUIRE(forward.size() == model.size());
    REQUIRE(std::vector<p3*>(backward.rbegin(), backward.rend()) == forward);
    // Every chunk-aligned address of the span: live exactly when the model says so.
    std::size_t live = 0, wrong = 0;
    for (std::uintptr_t a = base; a + sizeof(p3) <= base + span; a += alignof(p3)) {
      auto* p = reinterpret_cast<p3*>(a);
      const bool in_model = model.count(p) != 0;
      wrong += b.contains(p) != in_model;
      live += in_model;
    }
    REQUIRE(wrong == 0);
    REQUIRE(live == model.size());
  }
  travpool::trim_span_cache();
}
