// The pool iterator (detail/pool_iterator.hpp) against a model, for every
// layout x sync policy: forward, backward, mixed ++/--, const and
// non-const, std::ranges algorithms, over shapes that stress the cursor:
// empty bins, full bins, only the first and last chunk live, gaps across
// bitmap words, one element; and the invalidation rule that destroying
// other elements during a sweep keeps the iterator valid.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <ranges>
#include <span>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "../pool_types.hpp"
#include "../test_access.hpp"

namespace {

using travpool::detail::test_access;

static_assert(std::ranges::bidirectional_range<travpool::pool<int>>);
static_assert(std::ranges::bidirectional_range<const travpool::pool<int>>);
static_assert(std::ranges::bidirectional_range<travpool::concurrent_pool<int>>);
static_assert(std::ranges::bidirectional_range<travpool::basic_pool<int, travpool::layout::interleaved>>);
static_assert(std::bidirectional_iterator<travpool::pool<int>::iterator>);
static_assert(std::bidirectional_iterator<travpool::pool<int>::const_iterator>);
static_assert(std::bidirectional_iterator<travpool::basic_pool<int, travpool::layout::interleaved>::iterator>);
static_assert(std::ranges::common_range<travpool::pool<int>>);

// A pool of ints with bins of `cap` chunks and the model: the live values in
// traversal order (bin list order, then address order).
template <class Pool>
struct fixture {
  explicit fixture(std::uint32_t cap) : pool(travpool::bin_capacity{cap}) {}

  // Creates n elements, numbered on.
  void fill(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) live.push_back(pool.create(next++));
  }
  // Destroys the elements at traversal positions for which drop(k) holds.
  template <class F>
  void drop_if(F drop) {
    std::vector<int*> keep;
    for (int* p : sorted())
      if (drop(test_access::position(pool, p)))
        pool.destroy(p);
      else
        keep.push_back(p);
    live = keep;
  }
  std::vector<int*> sorted() const {
    std::vector<int*> v = live;
    std::sort(v.begin(), v.end(),
              [&](int* a, int* b) { return test_access::position(pool, a) < test_access::position(pool, b); });
    return v;
  }
  std::vector<int> model() const {
    std::vector<int> m;
    for (int* p : sorted()) m.push_back(*p);
    return m;
  }

  // Every way of walking the pool equals the model.
  void check() {
    pool.validate();
    const std::vector<int> m = model();
    const Pool& cp = pool;
    REQUIRE(std::vector<int>(pool.begin(), pool.end()) == m);
    REQUIRE(std::vector<int>(cp.cbegin(), cp.cend()) == m);
    std::vector<int> range_for;
    for (int& x : pool) range_for.push_back(x);
    REQUIRE(range_for == m);
    REQUIRE(std::vector<int>(pool.rbegin(), pool.rend()) == std::vector<int>(m.rbegin(), m.rend()));
    REQUIRE(std::vector<int>(cp.crbegin(), cp.crend()) == std::vector<int>(m.rbegin(), m.rend()));
    REQUIRE(std::ranges::distance(pool) == static_cast<std::ptrdiff_t>(m.size()));
    REQUIRE(std::ranges::count_if(cp, [](int x) { return x % 3 == 0; }) ==
            std::count_if(m.begin(), m.end(), [](int x) { return x % 3 == 0; }));
    for (int probe : {m.empty() ? -1 : m.front(), m.empty() ? -1 : m.back(), m.empty() ? -1 : m[m.size() / 2], -7}) {
      auto it = std::ranges::find_if(pool, [probe](int x) { return x == probe; });
      auto mit = std::find(m.begin(), m.end(), probe);
      REQUIRE((it == pool.end()) == (mit == m.end()));
      if (mit != m.end()) {
        REQUIRE(std::ranges::distance(pool.begin(), it) == mit - m.begin());
        REQUIRE(std::ranges::next(it, m.end() - mit) == pool.end());
        REQUIRE(std::ranges::prev(it, mit - m.begin()) == pool.begin());
      }
    }
    // A random walk of ++ and -- between begin() and end().
    std::mt19937 rng(static_cast<unsigned>(m.size()));
    auto it = pool.begin();
    std::size_t k = 0;
    for (int step = 0; step < 400 && !m.empty(); ++step) {
      if (k == m.size()) {
        REQUIRE(it == pool.end());
      } else {
        REQUIRE(*it == m[k]);
        REQUIRE(pool.get_iterator(&*it) == it);
      }
      const bool forward = k == 0 || (k < m.size() && rng() % 2 == 0);
      if (forward)
        ++it, ++k;
      else
        --it, --k;
    }
  }

  Pool pool;
  std::vector<int*> live;
  int next = 0;
};

constexpr std::uint32_t cap = 150;  // 154 chunks: three bitmap words

}  // namespace

TEMPLATE_TEST_CASE("iterators walk every shape of pool like the model", "[iterator]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  fixture<pool_type> f(cap);

  SECTION("empty pool") { f.check(); }
  SECTION("one element") {
    f.fill(1);
    f.check();
  }
  SECTION("full bins, and a partly filled last one") {
    f.fill(3 * cap + 5);
    f.check();
  }
  SECTION("only the first and the last chunk of every bin") {
    f.fill(3 * cap);
    f.drop_if([](auto pos) { return pos.second != 2 && pos.second != cap + 1; });
    f.check();
  }
  SECTION("empty bins between full ones") {
    f.fill(4 * cap);
    f.drop_if([](auto pos) { return pos.first == 1 || pos.first == 2; });
    f.check();
  }
  SECTION("gaps across bitmap word boundaries") {
    f.fill(2 * cap);
    f.drop_if(
        [](auto pos) { return (pos.second >= 60 && pos.second < 70) || (pos.second >= 100 && pos.second < 135); });
    f.check();
  }
  SECTION("random gaps, 10 % to 90 %") {
    for (int percent : {10, 50, 90}) {
      f.fill(3 * cap - f.live.size());
      std::mt19937 rng(static_cast<unsigned>(percent));
      f.drop_if([&](auto) { return static_cast<int>(rng() % 100) < percent; });
      f.check();
    }
  }
  SECTION("everything destroyed") {
    f.fill(2 * cap);
    f.drop_if([](auto) { return true; });
    f.check();
  }
}

// Clustered gaps (free runs of 1 to 1024 chunks) in bins of 63 bitmap
// words: the shapes the compact layout's sweep prefetch tells apart (full
// and established, clustered, random, short and long empty stretches,
// stretches reaching the end of a bin). Prefetching reads bitmap words only;
// the walks must still equal the model, and under ASan stay inside them.
TEMPLATE_TEST_CASE("iterators walk clustered gaps of every length like the model", "[iterator]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  constexpr std::uint32_t wide_cap = 4000;
  for (std::uint32_t run : {1u, 8u, 16u, 64u, 256u, 1024u}) {
    INFO("runs of " << run);
    fixture<pool_type> f(wide_cap);
    f.fill(2 * wide_cap + 300);
    std::mt19937 rng(run);
    std::vector<bool> erased(3 * wide_cap / run + 2);
    for (std::size_t i = 0; i < erased.size(); ++i) erased[i] = rng() % 2 == 0;
    f.drop_if([&](auto pos) { return erased[pos.second / run] ^ (pos.first % 2 == 1); });
    f.check();
    const std::vector<int> m = f.model();
    std::vector<int> visited;
    f.pool.for_each([&](int x) { visited.push_back(x); });
    REQUIRE(visited == m);
    if constexpr (requires { f.pool.segments(); }) {
      visited.clear();
      for (auto seg : f.pool.segments())
        for (int x : seg) visited.push_back(x);
      REQUIRE(visited == m);
    }
  }
}

TEMPLATE_TEST_CASE("an iterator stays valid while other elements of its bitmap word are destroyed", "[iterator]",
                   TRAVPOOL_TEST_LAYOUTS) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(travpool::bin_capacity{cap});
  std::vector<int*> ps;
  for (int i = 0; i < 100; ++i) ps.push_back(pool.create(i));
  // During the sweep, destroy the two elements after every multiple of 5.
  std::vector<int> seen;
  for (auto it = pool.begin(); it != pool.end(); ++it) {
    seen.push_back(*it);
    if (*it % 5 == 0 && *it + 2 < 100) {
      pool.destroy(ps[static_cast<std::size_t>(*it + 1)]);
      pool.destroy(ps[static_cast<std::size_t>(*it + 2)]);
    }
  }
  std::vector<int> expect;
  for (int i = 0; i < 100; ++i)
    if (i % 5 != 1 && i % 5 != 2) expect.push_back(i);
  REQUIRE(seen == expect);
  pool.validate();
}

TEST_CASE("segments() concatenate to the sweep over the same shapes", "[iterator][segments]") {
  struct wide {  // 16 B: compact runs are arrays
    std::int64_t v, pad;
  };
  using pool_type = travpool::pool<wide>;
  std::mt19937 rng(7);
  for (int shape = 0; shape < 6; ++shape) {
    pool_type pool(travpool::bin_capacity{cap});
    std::vector<wide*> ps;
    for (std::int64_t i = 0; i < 4 * cap; ++i) ps.push_back(pool.create(wide{i, 0}));
    for (wide* p : ps) {
      const auto [bin, chunk] = test_access::position(pool, p);
      const bool drop = shape == 0   ? false
                        : shape == 1 ? chunk != 2 && chunk != cap + 1
                        : shape == 2 ? bin == 1 || bin == 2
                        : shape == 3 ? (chunk >= 60 && chunk < 70) || (chunk >= 100 && chunk < 135)
                        : shape == 4 ? rng() % 2 == 0
                                     : rng() % 10 != 0;
      if (drop) pool.destroy(p);
    }
    std::vector<std::int64_t> sweep, runs;
    for (const wide& w : pool) sweep.push_back(w.v);
    for (auto seg : pool.segments()) {
      REQUIRE(!seg.empty());
      for (const wide& w : seg) runs.push_back(w.v);
    }
    INFO("shape " << shape);
    REQUIRE(runs == sweep);
  }
}

// A random walk of ++ and -- while other elements are destroyed around the
// iterator (in its bitmap word, the words beside it, other bins): every
// step lands on the model's neighbour among the elements still live, and
// begin()/end() are reached exactly at the model's ends. Destroying only
// (no create) makes the expected neighbour unique.
TEMPLATE_TEST_CASE("a walk stays on live elements while other elements are destroyed", "[iterator]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    fixture<pool_type> f(cap);
    f.fill(3 * cap + 17);
    std::mt19937 rng(seed);
    // Start from a sparse or dense shape.
    const unsigned percent = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 20 : 70;
    f.drop_if([&](auto) { return rng() % 100 < percent; });
    std::vector<int*> order = f.sorted();  // the model, in traversal order
    if (order.empty()) continue;
    std::size_t k = rng() % order.size();
    auto it = f.pool.get_iterator(order[k]);
    for (int step = 0; step < 3000 && order.size() > 1; ++step) {
      INFO("seed " << seed << " step " << step);
      // Destroy one or two other elements, often close to the iterator.
      for (int d = rng() % 3; d > 0 && order.size() > 1; --d) {
        const std::size_t span = rng() % 2 == 0 ? 4 : 200;
        const std::size_t lo = k > span ? k - span : 0;
        const std::size_t hi = std::min(order.size() - 1, k + span);
        const std::size_t victim = lo + rng() % (hi - lo + 1);
        if (victim == k) continue;
        f.pool.destroy(order[victim]);
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(victim));
        if (victim < k) --k;
      }
      f.live.assign(order.begin(), order.end());
      const bool forward = k == 0 || rng() % 2 == 0;
      if (forward) {
        ++it;
        if (k + 1 == order.size()) {
          REQUIRE(it == f.pool.end());
          --it;
        } else {
          ++k;
        }
      } else {
        --it;
        --k;
      }
      REQUIRE(&*it == order[k]);
    }
    f.check();
  }
}
