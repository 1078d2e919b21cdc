// basic_pool's container operations (issue 17): erase(first, last), memory(),
// range and initializer_list construction, insert, assign, copies, ==,
// splice, iterator ordering, and the documented iteration order.
#include <algorithm>
#include <compare>
#include <cstdint>
#include <iterator>
#include <list>
#include <memory>
#include <random>
#include <ranges>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

using travpool::bin_capacity;
using travpool::usage_error;
using travpool::detail::test_access;

namespace {

// The pool of TestType's options with checks::on (or checks::off) in place
// of any checks option they name, for misuse tests (the release preset's
// default is checks::off).
template <class T, class Opts>
using checked_pool_t = travpool::test::pool_t<T, travpool::test::with_checks_t<Opts, travpool::checks::on>>;
template <class T, class Opts>
using unchecked_pool_t = travpool::test::pool_t<T, travpool::test::with_checks_t<Opts, travpool::checks::off>>;

template <class Pool>
std::vector<typename Pool::value_type> contents(const Pool& p) {
  return {p.begin(), p.end()};
}

template <class Pool>
std::vector<const typename Pool::value_type*> addresses(const Pool& p) {
  std::vector<const typename Pool::value_type*> v;
  for (auto& e : p) v.push_back(&e);
  return v;
}

// A pool whose order differs from creation order: elements 0..n-1, then
// every third destroyed and as many created again (LIFO reuse).
template <class Pool>
std::vector<int*> scrambled(Pool& pool, int n) {
  std::vector<int*> v;
  for (int i = 0; i < n; ++i) v.push_back(pool.create(i));
  for (int i = 0; i < n; i += 3) pool.destroy(v[static_cast<std::size_t>(i)]);
  for (int i = 0; i < n; i += 3) v[static_cast<std::size_t>(i)] = pool.create(1000 + i);
  return v;
}

// Copy construction throws on the k-th copy when armed.
struct copy_throws {
  static inline int countdown = -1;
  static inline int live = 0;
  int v;
  explicit copy_throws(int x) : v(x) { ++live; }
  copy_throws(const copy_throws& o) : v(o.v) {
    if (countdown > 0 && --countdown == 0) throw std::runtime_error("copy failed");
    ++live;
  }
  ~copy_throws() { --live; }
  bool operator==(const copy_throws&) const = default;
};

}  // namespace

// ---- erase(first, last) ----------------------------------------------------

TEMPLATE_TEST_CASE("erase(first, last) erases the range and returns last", "[pool][erase]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(bin_capacity{4});
  std::vector<int*> v;
  for (int i = 0; i < 20; ++i) v.push_back(pool.create(i));
  // Across bins: [3, 13).
  auto it = pool.erase(pool.get_iterator(v[3]), pool.get_iterator(v[13]));
  REQUIRE(*it == 13);
  REQUIRE(contents(pool) == std::vector<int>{0, 1, 2, 13, 14, 15, 16, 17, 18, 19});
  // An empty range erases nothing and returns last.
  auto same = pool.get_iterator(v[14]);
  REQUIRE(pool.erase(same, same) == same);
  REQUIRE(pool.size() == 10);
  // Up to end().
  REQUIRE(pool.erase(pool.get_iterator(v[17]), pool.cend()) == pool.end());
  REQUIRE(contents(pool) == std::vector<int>{0, 1, 2, 13, 14, 15, 16});
  // Everything.
  REQUIRE(pool.erase(pool.cbegin(), pool.cend()) == pool.end());
  REQUIRE(pool.empty());
  REQUIRE(pool.erase(pool.begin(), pool.end()) == pool.end());
  pool.validate();
}

TEMPLATE_TEST_CASE("erase(first, last) copes with destructors that destroy other elements", "[pool][erase][reentrant]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = typename travpool::test::chained_pool<TestType>::type;
  pool_type pool(bin_capacity{8});
  std::vector<typename pool_type::value_type*> ps;
  for (int i = 0; i < 30; ++i) ps.push_back(pool.create(&pool, i));
  ps[3]->victim = ps[4];    // inside the range, next in line
  ps[6]->victim = ps[9];    // inside the range, in the next bin
  ps[10]->victim = ps[25];  // outside the range, after it
  ps[11]->victim = ps[1];   // outside the range, before it
  auto it = pool.erase(pool.get_iterator(ps[2]), pool.get_iterator(ps[14]));
  REQUIRE(it->id == 14);
  std::vector<int> ids;
  for (auto& n : pool) ids.push_back(n.id);
  std::vector<int> expect{0};
  for (int i = 14; i < 30; ++i)
    if (i != 25) expect.push_back(i);
  REQUIRE(ids == expect);
  REQUIRE(pool.size() == expect.size());
  pool.validate();
}

TEMPLATE_TEST_CASE("erase(first, last) stops after last's position when a destructor destroys *last",
                   "[pool][erase][reentrant]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = typename travpool::test::chained_pool<TestType>::type;
  pool_type pool(bin_capacity{8});
  std::vector<typename pool_type::value_type*> ps;
  for (int i = 0; i < 40; ++i) ps.push_back(pool.create(&pool, i));
  auto ids = [&pool] {
    std::vector<int> v;
    for (auto& n : pool) v.push_back(n.id);
    return v;
  };
  // *last in the same bin as the element whose destructor destroys it.
  ps[3]->victim = ps[6];
  auto it = pool.erase(pool.get_iterator(ps[2]), pool.get_iterator(ps[6]));
  REQUIRE(it->id == 7);
  REQUIRE(ids().size() == 35);
  // *last in a later bin (16..23 is the third bin).
  ps[12]->victim = ps[20];
  it = pool.erase(pool.get_iterator(ps[10]), pool.get_iterator(ps[20]));
  REQUIRE(it->id == 21);
  // *last, the first element of the next bin (24..31).
  ps[23]->victim = ps[24];
  it = pool.erase(pool.get_iterator(ps[22]), pool.get_iterator(ps[24]));
  REQUIRE(it->id == 25);
  // *last, the only element of the last bin, which the erasure empties:
  // erasing stops at end().
  for (std::size_t i = 33; i < 40; ++i) pool.destroy(ps[i]);
  ps[27]->victim = ps[32];
  it = pool.erase(pool.get_iterator(ps[26]), pool.get_iterator(ps[32]));
  REQUIRE(it == pool.end());
  const std::vector<int> expect{0, 1, 7, 8, 9, 21, 25};
  REQUIRE(ids() == expect);
  pool.validate();
}

TEMPLATE_TEST_CASE("erase(first, last) with checks rejects an unreachable last and changes nothing",
                   "[pool][erase][misuse]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = checked_pool_t<int, TestType>;
  pool_type pool(bin_capacity{4}), other(bin_capacity{4});
  std::vector<int*> v;
  for (int i = 0; i < 20; ++i) v.push_back(pool.create(i));
  pool.destroy(v[7]);
  other.create(99);
  const auto before = contents(pool);
  const auto where = addresses(pool);
  auto rejects = [&](auto first, auto last, const char* what) {
    INFO(what);
    REQUIRE_THROWS_AS(pool.erase(first, last), usage_error);
    REQUIRE(contents(pool) == before);
    REQUIRE(addresses(pool) == where);
    pool.validate();
  };
  rejects(pool.get_iterator(v[10]), pool.get_iterator(v[2]), "last before first, other bin");
  rejects(pool.get_iterator(v[3]), pool.get_iterator(v[1]), "last before first, same bin");
  rejects(pool.cend(), pool.get_iterator(v[1]), "first is end");
  rejects(pool.get_iterator(v[3]), other.cbegin(), "last of another pool");
  rejects(other.cbegin(), other.cend(), "a range of another pool");
  // A first whose element was destroyed.
  typename pool_type::const_iterator dead = pool.get_iterator(v[8]);
  pool.erase(dead);
  const auto before2 = contents(pool);
  REQUIRE_THROWS_AS(pool.erase(dead, pool.cend()), usage_error);
  REQUIRE(contents(pool) == before2);
  pool.validate();
}

// ---- memory() ----------------------------------------------------------------

TEMPLATE_TEST_CASE("memory() counts the pool, its bins' spans and their directory slots", "[pool][memory]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(bin_capacity{1000});
  REQUIRE(pool.memory() == sizeof(pool_type));
  const std::size_t per_bin = pool.bin_span() + pool.bin_span() / 65536 * 16;
  std::vector<int*> v;
  for (int i = 0; i < 2500; ++i) v.push_back(pool.create(i));
  REQUIRE(pool.bin_count() == 3);
  REQUIRE(pool.memory() == sizeof(pool_type) + 3 * per_bin);
  REQUIRE(pool.memory() > pool.capacity() * sizeof(int));
  for (int i = 2000; i < 2500; ++i) pool.destroy(v[static_cast<std::size_t>(i)]);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 2);
  // A bin_locks pool keeps the retired bin mapped (and counts it).
  const std::size_t retired = std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks> ? 1 : 0;
  REQUIRE(pool.memory() == sizeof(pool_type) + (2 + retired) * per_bin);
}

// ---- growth: small first bins ----------------------------------------------------

TEMPLATE_TEST_CASE("a pool made without a bin capacity takes nothing empty, then small bins that grow",
                   "[pool][memory][growth]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  constexpr bool concurrent = std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>;
  const std::uint32_t full = travpool::default_bin_capacity<int, typename pool_type::layout_type>;
  const auto slots = [](std::size_t span) { return span / 65536 * 16; };
  pool_type pool;
  REQUIRE(pool.bin_capacity() == full);
  REQUIRE(pool.bin_span() == std::size_t{2} << 20);
  REQUIRE(pool.bin_count() == 0);
  REQUIRE(pool.memory() == sizeof(pool_type));  // empty: nothing allocated

  std::vector<int*> v{pool.create(0)};
  REQUIRE(pool.bin_count() == 1);
  if constexpr (concurrent) {
    // Concurrent pools keep one bin capacity.
    REQUIRE(pool.capacity() == full);
    REQUIRE(pool.memory() == sizeof(pool_type) + pool.bin_span() + slots(pool.bin_span()));
  } else {
    // One small bin of at most 1 KiB, outside the directory (no slots).
    REQUIRE(pool.capacity() >= 8);
    REQUIRE(pool.capacity() * sizeof(int) < 1024);
    REQUIRE(pool.memory() > sizeof(pool_type) + 512);
    REQUIRE(pool.memory() <= sizeof(pool_type) + 1024);
  }

  // Past two full bins: the bins grow, then all have bin_capacity().
  const int n = static_cast<int>(2 * full + 1000);
  for (int i = 1; i < n; ++i) v.push_back(pool.create(i));
  const auto bins = test_access::bins(pool);
  std::size_t growing = 0, full_count = 0;
  for (std::size_t k = 0; k < bins.size(); ++k) {
    const std::uint32_t c = bins[k]->capacity_;
    REQUIRE(c <= full);
    full_count += c == full;
    if (c < full) {
      ++growing;
      REQUIRE(k + 1 < bins.size());
      REQUIRE(bins[k + 1]->capacity_ > c);  // each bin fills twice the bytes
      REQUIRE(bins[k + 1]->capacity_ <= 2 * c + c / 8 + 64);
    }
  }
  if constexpr (concurrent) {
    REQUIRE(growing == 0);
    REQUIRE(pool.memory() == sizeof(pool_type) + bins.size() * (pool.bin_span() + slots(pool.bin_span())));
  } else {
    // 1, 2, ..., 32 KiB small bins, 64 KiB, ..., 1 MiB spans, then 2 MiB.
    REQUIRE(growing == 11);
    REQUIRE(bins.size() == growing + full_count);
    REQUIRE(full_count >= 2);
    const std::size_t registered = (std::size_t{2} << 20) - (std::size_t{64} << 10);
    const std::size_t full_bins = full_count * pool.bin_span();
    const std::size_t small =
        pool.memory() - sizeof(pool_type) - registered - slots(registered) - full_bins - slots(full_bins);
    REQUIRE(small > (std::size_t{32} << 10));
    REQUIRE(small <= (std::size_t{63} << 10));
  }
  REQUIRE(pool.size() == static_cast<std::size_t>(n));
  pool.validate();

  // destroy (every third element, small and registered bins alike),
  // lookup, iteration and partitions across the bins.
  std::multiset<int> model;
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 0)
      pool.destroy(v[static_cast<std::size_t>(i)]);
    else
      model.insert(i);
  }
  for (int i = 0; i < 3000; ++i) REQUIRE(pool.contains(v[static_cast<std::size_t>(i)]) == (i % 3 != 0));
  REQUIRE(std::multiset<int>(pool.begin(), pool.end()) == model);
  std::multiset<int> swept;
  for (const auto& r : pool.partition(5))
    for (int x : r) swept.insert(x);
  REQUIRE(swept == model);
  pool.validate();

  // A pointer into another pool's small bin is not this pool's.
  pool_type other;
  int* const foreign = other.create(7);
  REQUIRE_FALSE(pool.contains(foreign));
  REQUIRE(other.contains(foreign));

  // Copies grow as their source does; erase_if, shrink_to_fit.
  pool_type copy(pool);
  REQUIRE(copy.bin_capacity() == full);
  REQUIRE(std::multiset<int>(copy.begin(), copy.end()) == model);
  copy.validate();
  REQUIRE(travpool::erase_if(pool, [](int x) { return x >= 3000; }) == model.size() - 2000);
  pool.shrink_to_fit();
  pool.validate();
  REQUIRE(pool.size() == 2000);
  pool.clear();
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 0);
  if constexpr (!concurrent) REQUIRE(pool.memory() == sizeof(pool_type));  // (bin_locks keeps retired bins)

  // splice of a growing pool's bins (small ones among them) into a pool
  // given a bin capacity, and back (concurrent pools: equal capacities).
  pool_type fixed(bin_capacity{concurrent ? full : 1000});
  fixed.create(-1);
  fixed.splice(copy);
  REQUIRE(fixed.size() == model.size() + 1);
  REQUIRE(copy.bin_count() == 0);
  fixed.validate();
  other.splice(fixed);
  REQUIRE(other.size() == model.size() + 2);
  REQUIRE(other.contains(foreign));
  other.validate();
  std::size_t destroyed = 0;
  for (auto it = other.begin(); it != other.end();) {
    it = other.erase(it);
    ++destroyed;
  }
  REQUIRE(destroyed == model.size() + 2);
  other.validate();
}

TEMPLATE_TEST_CASE("a bin capacity given to the pool is every bin's, and reserve skips growth",
                   "[pool][memory][growth]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  constexpr bool concurrent = std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>;
  const std::uint32_t full = travpool::default_bin_capacity<int, typename pool_type::layout_type>;
  pool_type fixed(bin_capacity{64});
  for (int i = 0; i < 200; ++i) fixed.create(i);
  for (const auto* b : test_access::bins(fixed)) REQUIRE(b->capacity_ == 64);
  REQUIRE(fixed.memory() == sizeof(pool_type) + 4 * (fixed.bin_span() + 16));
  pool_type named(bin_capacity{full});  // the default capacity, named: no growth
  named.create(1);
  REQUIRE(named.capacity() == full);

  // reserve(n) makes one bin that holds n where growth allows it.
  pool_type grown;
  grown.reserve(20000);
  REQUIRE(grown.capacity() >= 20000);
  REQUIRE(grown.bin_count() == 1);
  if constexpr (concurrent)
    REQUIRE(grown.capacity() == full);
  else
    REQUIRE(grown.capacity() < full);
  pool_type big;
  big.reserve(3 * std::size_t{full});
  REQUIRE(big.bin_count() == 3);
  REQUIRE(big.capacity() == 3 * std::size_t{full});
}

// ---- construction from ranges, insert, assign ----------------------------------

TEMPLATE_TEST_CASE("construction from a range or an initializer_list, insert and assign", "[pool][insert]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  const std::vector<int> src{5, 3, 8, 1, 9, 2, 7};
  pool_type a(src.begin(), src.end(), bin_capacity{3});
  REQUIRE(a.bin_capacity() == 3);
  REQUIRE(contents(a) == src);
  pool_type b({4, 6, 2}, bin_capacity{2});
  REQUIRE(b.bin_capacity() == 2);
  REQUIRE(contents(b) == std::vector<int>{4, 6, 2});
  pool_type c{1, 2, 3};
  REQUIRE(c.bin_capacity() == travpool::default_bin_capacity<int, typename pool_type::layout_type>);
  REQUIRE(contents(c) == std::vector<int>{1, 2, 3});
  // An input-only range (a sentinel of another type).
  std::istringstream in("10 20 30");
  pool_type d(std::istream_iterator<int>(in), std::istream_iterator<int>(), bin_capacity{2});
  REQUIRE(contents(d) == std::vector<int>{10, 20, 30});

  const std::list<int> more{40, 50};
  d.insert(more.begin(), more.end());
  d.insert({60});
  d.insert_range(std::span<const int>(src.data(), 2));  // (Clang 14 lacks libstdc++'s views)
  REQUIRE(contents(d) == std::vector<int>{10, 20, 30, 40, 50, 60, 5, 3});
  d.validate();

  // After assign's clear, single-threaded pools create in creation order
  // again; a bin_locks pool resumes in its thread's bin (no order promised).
  auto holds = [&d](std::vector<int> expect) {
    auto got = contents(d);
    if constexpr (std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>) {
      std::sort(got.begin(), got.end());
      std::sort(expect.begin(), expect.end());
    }
    return got == expect;
  };
  const std::size_t cap = d.capacity();
  d.assign({7, 7});
  REQUIRE(holds({7, 7}));
  REQUIRE(d.capacity() == cap);  // assign keeps the bins
  d.assign(src.begin(), src.end());
  REQUIRE(holds(src));
  d.assign_range(more);
  REQUIRE(holds({40, 50}));
  d = {1, 2};
  REQUIRE(holds({1, 2}));
  d.validate();
}

TEMPLATE_TEST_CASE(
    "insert keeps what it created before a constructor threw, a throwing range constructor leaks nothing",
    "[pool][insert][exception]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<copy_throws, TestType>;
  copy_throws::live = 0;
  copy_throws::countdown = -1;
  {
    const std::vector<copy_throws> src{copy_throws(1), copy_throws(2), copy_throws(3), copy_throws(4)};
    REQUIRE(copy_throws::live == 4);
    pool_type pool(bin_capacity{2});
    pool.create(0);
    copy_throws::countdown = 3;
    REQUIRE_THROWS_AS(pool.insert(src.begin(), src.end()), std::runtime_error);
    REQUIRE(pool.size() == 3);  // 0, then the copies of 1 and 2
    REQUIRE(contents(pool) == std::vector<copy_throws>{copy_throws(0), copy_throws(1), copy_throws(2)});
    pool.validate();
    copy_throws::countdown = 2;
    REQUIRE_THROWS_AS(pool_type(src.begin(), src.end(), bin_capacity{2}), std::runtime_error);
    REQUIRE(copy_throws::live == 4 + 3);  // src and pool only
    copy_throws::countdown = -1;
  }
  REQUIRE(copy_throws::live == 0);
}

// ---- copies and == ---------------------------------------------------------------

TEMPLATE_TEST_CASE("a copy has the source's elements in the source's iteration order", "[pool][copy]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type src(bin_capacity{5});
  scrambled(src, 23);
  const auto order = contents(src);
  REQUIRE_FALSE(std::is_sorted(order.begin(), order.end()));  // not creation order
  const pool_type copy(src);
  REQUIRE(contents(copy) == order);
  REQUIRE(copy.bin_capacity() == 5);
  REQUIRE(copy == src);
  REQUIRE(contents(src) == order);  // the source is unchanged
  copy.validate();
  // Distinct elements.
  for (const int& e : copy) REQUIRE_FALSE(src.contains(&e));

  // Copy assignment keeps the target's bin capacity.
  pool_type target(bin_capacity{3});
  target.create(42);
  target = src;
  REQUIRE(target.bin_capacity() == 3);
  REQUIRE(contents(target) == order);
  REQUIRE(target == src);
  const pool_type& self = target;
  target = self;  // self-assignment changes nothing
  REQUIRE(contents(target) == order);
  target.validate();
}

TEMPLATE_TEST_CASE("== compares elements in iteration order", "[pool][copy]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type a{1, 2, 3}, b({1, 2, 3}, bin_capacity{2}), c{1, 3, 2}, d{1, 2}, e, f;
  REQUIRE(a == b);  // bin capacity does not matter
  REQUIRE(a != c);  // same elements, other order
  REQUIRE(a != d);
  REQUIRE(d != a);
  REQUIRE(e == f);
  REQUIRE(e != a);
  b.destroy(&*std::next(b.begin()));
  REQUIRE(a != b);
  b.create(2);
  // Single-threaded pools reuse the freed chunk: 2 is back in the middle.
  // A bin_locks pool creates in its thread's bin (the last one): 2 ends up last.
  if constexpr (std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>)
    REQUIRE(b == pool_type{1, 3, 2});
  else
    REQUIRE(a == b);
}

TEMPLATE_TEST_CASE("copy assignment gives the strong guarantee", "[pool][copy][exception]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<copy_throws, TestType>;
  copy_throws::live = 0;
  copy_throws::countdown = -1;
  {
    pool_type src(bin_capacity{2});
    for (int i = 0; i < 7; ++i) src.create(i);
    pool_type target(bin_capacity{2});
    std::vector<copy_throws*> kept;
    for (int i = 0; i < 3; ++i) kept.push_back(target.create(100 + i));
    const auto before = addresses(target);
    copy_throws::countdown = 5;
    REQUIRE_THROWS_AS(target = src, std::runtime_error);
    REQUIRE(addresses(target) == before);
    for (std::size_t i = 0; i < kept.size(); ++i) REQUIRE(kept[i]->v == 100 + static_cast<int>(i));
    REQUIRE(copy_throws::live == 7 + 3);
    copy_throws::countdown = 4;
    REQUIRE_THROWS_AS(pool_type(src), std::runtime_error);
    REQUIRE(copy_throws::live == 7 + 3);
    copy_throws::countdown = -1;
    target.validate();
  }
  REQUIRE(copy_throws::live == 0);
}

// ---- splice ----------------------------------------------------------------------

TEMPLATE_TEST_CASE("splice moves every bin, and the elements' ownership, without moving an element", "[pool][splice]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = checked_pool_t<int, TestType>;
  pool_type a(bin_capacity{4}), b(bin_capacity{4});
  auto va = scrambled(a, 10);
  auto vb = scrambled(b, 9);
  auto order = contents(a);
  const auto order_b = contents(b);
  order.insert(order.end(), order_b.begin(), order_b.end());
  auto where = addresses(a);
  const auto where_b = addresses(b);
  where.insert(where.end(), where_b.begin(), where_b.end());
  const std::size_t bins = a.bin_count() + b.bin_count();
  const auto b_end = b.end();

  a.splice(b);
  REQUIRE(b.empty());
  REQUIRE(b.bin_count() == 0);
  REQUIRE(b.begin() == b.end());
  REQUIRE(b.end() == b_end);  // other's end() stays valid
  REQUIRE(a.size() == 19);
  REQUIRE(a.bin_count() == bins);
  REQUIRE(contents(a) == order);   // a's elements, then b's
  REQUIRE(addresses(a) == where);  // none moved
  a.validate();                    // owner_ and directory entries are a's
  b.validate();
  for (int* p : vb) {
    REQUIRE(a.contains(p));
    REQUIRE(a.get_iterator(p) != a.end());
    REQUIRE_FALSE(b.contains(p));
    REQUIRE(b.get_iterator(p) == b.end());
    REQUIRE_THROWS_AS(b.destroy(p), usage_error);
  }
  // Destroy through the new owner, erase through it, create in both.
  a.destroy(vb[1]);
  a.erase(a.get_iterator(vb[2]));
  REQUIRE(a.size() == 17);
  int* nb = b.create(7);
  REQUIRE(b.size() == 1);
  REQUIRE(b.contains(nb));
  REQUIRE_FALSE(a.contains(nb));
  for (int i = 0; i < 10; ++i) a.create(500 + i);
  REQUIRE(a.size() == 27);
  a.validate();
  b.validate();
  for (int* p : va) REQUIRE(a.contains(p));
  // Splicing an empty pool changes nothing; splicing into an empty one
  // moves everything.
  pool_type empty(bin_capacity{4});
  a.splice(empty);
  REQUIRE(a.size() == 27);
  empty.splice(a);
  REQUIRE(a.empty());
  REQUIRE(empty.size() == 27);
  empty.validate();
  a.validate();
  // A pool whose emptied bins were given up (sync::bin_locks: retired,
  // kept for reuse) and then spliced from: the bins it reuses are its own
  // under its new identity.
  pool_type c(bin_capacity{4});
  for (int i = 0; i < 12; ++i) c.create(i);
  c.clear();
  c.shrink_to_fit();
  c.create(1);
  pool_type d(bin_capacity{4});
  d.splice(c);
  for (int i = 0; i < 8; ++i) REQUIRE(c.get_iterator(c.create(i)) != c.end());
  c.validate();
  d.validate();
}

TEMPLATE_TEST_CASE("splice takes an rvalue pool: a named one moved in, or a temporary", "[pool][splice]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type a(bin_capacity{4});
  std::multiset<int> model;
  for (int i = 0; i < 6; ++i) a.create(i), model.insert(i);
  std::vector<const int*> from_b;
  {
    pool_type b(bin_capacity{4});
    for (int i = 0; i < 9; ++i) from_b.push_back(b.create(100 + i)), model.insert(100 + i);
    a.splice(std::move(b));
    REQUIRE(b.empty());  // NOLINT(bugprone-use-after-move): splice leaves b empty and usable
    REQUIRE(b.bin_count() == 0);
    int* p = b.create(-1);
    REQUIRE(b.contains(p));
    REQUIRE_FALSE(a.contains(p));
  }  // b destroyed: the spliced elements are a's
  for (const int* p : from_b) REQUIRE(a.contains(p));
  // A temporary: its elements outlive it, in a.
  std::vector<const int*> from_t;
  a.splice([&] {
    pool_type t(bin_capacity{4});
    for (int i = 0; i < 5; ++i) from_t.push_back(t.create(200 + i)), model.insert(200 + i);
    return t;
  }());
  REQUIRE(a.size() == model.size());
  REQUIRE(std::multiset<int>(a.begin(), a.end()) == model);
  for (const int* p : from_t) {
    REQUIRE(a.contains(p));
    REQUIRE(*p >= 200);
  }
  a.validate();
  // The rvalue overload rejects what the lvalue one does.
  if constexpr (std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>) {
    REQUIRE_THROWS_AS(a.splice(pool_type(bin_capacity{8})), std::invalid_argument);
    REQUIRE(a.size() == model.size());
  }
}

TEMPLATE_TEST_CASE("splice of a pool with another bin capacity: each bin keeps its capacity", "[pool][splice]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  if constexpr (!std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>) {
    // a: bins of 4; b: bins of 100, then bins of 7 from c; a takes all.
    pool_type a(bin_capacity{4}), b(bin_capacity{100}), c(bin_capacity{7});
    std::multiset<int> model;
    std::vector<int*> ptrs;
    for (int i = 0; i < 10; ++i) ptrs.push_back(a.create(i)), model.insert(i);
    for (int i = 0; i < 150; ++i) ptrs.push_back(b.create(1000 + i)), model.insert(1000 + i);
    for (int i = 0; i < 20; ++i) ptrs.push_back(c.create(5000 + i)), model.insert(5000 + i);
    b.splice(c);
    REQUIRE(b.capacity() == 2 * 100 + 3 * 7);
    REQUIRE(b.bin_capacity() == 100);
    b.validate();
    const auto where = addresses(b);
    const std::size_t a_cap = a.capacity(), b_cap = b.capacity(), bins = a.bin_count() + b.bin_count();
    const std::size_t mem = a.memory() + b.memory() - sizeof(pool_type);
    a.splice(b);
    REQUIRE(a.bin_capacity() == 4);  // bins a adds later
    REQUIRE(a.bin_count() == bins);
    REQUIRE(a.capacity() == a_cap + b_cap);
    REQUIRE(a.memory() == mem);
    REQUIRE(b.capacity() == 0);
    REQUIRE(b.memory() == sizeof(pool_type));
    REQUIRE(a.size() == model.size());
    a.validate();
    for (int* p : ptrs) REQUIRE(a.contains(p));
    const auto all = addresses(a);  // a's elements, then b's, none moved
    REQUIRE(std::equal(where.begin(), where.end(), all.end() - static_cast<std::ptrdiff_t>(where.size())));
    // Destroy everywhere, create again: freed chunks in the big bins are
    // reused, the emptied bins given back, and each bin stays consistent.
    for (std::size_t k = 0; k < ptrs.size(); k += 2) {
      model.erase(model.find(*ptrs[k]));
      a.destroy(ptrs[k]);
    }
    a.validate();
    for (int i = 0; i < 200; ++i) a.create(-i), model.insert(-i);
    a.validate();
    REQUIRE(std::multiset<int>(a.begin(), a.end()) == model);
    erase_if(a, [](int x) { return x >= 1000; });
    std::erase_if(model, [](int x) { return x >= 1000; });
    a.shrink_to_fit();
    a.validate();
    REQUIRE(a.capacity() >= a.size());
    REQUIRE(std::multiset<int>(a.begin(), a.end()) == model);
    a.clear();
    a.shrink_to_fit();
    REQUIRE(a.capacity() == 0);
    REQUIRE(a.bin_count() == 0);
    REQUIRE(a.memory() == sizeof(pool_type));
    a.validate();
  } else {
    pool_type a(bin_capacity{4});
    REQUIRE_THROWS_AS(a.splice(pool_type(bin_capacity{8})), std::invalid_argument);
  }
}

TEMPLATE_TEST_CASE("splice rejects itself (with checks) and differing bin capacities of concurrent pools",
                   "[pool][splice][misuse]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = checked_pool_t<int, TestType>;
  pool_type a(bin_capacity{4}), b(bin_capacity{5});
  scrambled(a, 10);
  scrambled(b, 10);
  const auto ca = contents(a), cb = contents(b);
  const auto wa = addresses(a), wb = addresses(b);
  if constexpr (std::is_same_v<typename pool_type::sync_type, travpool::sync::bin_locks>)
    REQUIRE_THROWS_AS(a.splice(b), std::invalid_argument);
  REQUIRE_THROWS_AS(a.splice(a), usage_error);
  REQUIRE(contents(a) == ca);
  REQUIRE(addresses(a) == wa);
  REQUIRE(contents(b) == cb);
  REQUIRE(addresses(b) == wb);
  a.validate();
  b.validate();
  // Without checks, splicing a pool into itself is a no-op.
  unchecked_pool_t<int, TestType> u(bin_capacity{4});
  scrambled(u, 10);
  const auto cu = contents(u);
  u.splice(u);
  REQUIRE(contents(u) == cu);
  u.validate();
}

TEST_CASE("splice moves the bins' statistics with them", "[pool][splice]") {
  using pool_type = travpool::basic_pool<int, travpool::stats::counters>;
  pool_type a(bin_capacity{4}), b(bin_capacity{4});
  for (int i = 0; i < 6; ++i) a.create(i);
  for (int i = 0; i < 9; ++i) b.create(i);
  a.splice(b);
  const auto sa = a.stats(), sb = b.stats();
  REQUIRE(sa.creates == 15);
  REQUIRE(sa.bins_allocated - sa.bins_released == a.bin_count());
  REQUIRE(sa.peak_live == 15);
  REQUIRE(sb.creates == 0);
  REQUIRE(sb.bins_allocated == sb.bins_released);
}

// ---- iterator ordering -------------------------------------------------------------

TEMPLATE_TEST_CASE("iterators are ordered as iteration visits them", "[pool][iterator]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(bin_capacity{4}), other(bin_capacity{4});
  auto v = scrambled(pool, 30);
  // An empty bin in the middle: 8..11 are the third bin.
  for (std::size_t i = 8; i < 12; ++i) pool.destroy(v[i]);
  scrambled(other, 6);
  pool.splice(other);
  std::vector<typename pool_type::iterator> its;
  const auto check_order = [&] {
    its.clear();
    for (auto it = pool.begin(); it != pool.end(); ++it) its.push_back(it);
    its.push_back(pool.end());
    for (std::size_t i = 0; i < its.size(); ++i) {
      for (std::size_t j = 0; j < its.size(); ++j) {
        INFO(i << " vs " << j);
        REQUIRE((its[i] <=> its[j]) == (i <=> j));
        REQUIRE((its[i] < its[j]) == (i < j));
        REQUIRE((its[i] >= its[j]) == (i >= j));
        typename pool_type::const_iterator ci = its[i];
        REQUIRE((ci < its[j]) == (i < j));
        REQUIRE((its[j] <= ci) == (j <= i));
      }
    }
  };
  check_order();
  // Bins given back from the middle, and bins added at the end (the ranks
  // of bins appended after a splice).
  pool.shrink_to_fit();
  for (int i = 0; i < 12; ++i) pool.create(100 + i);
  check_order();
  pool.validate();
  auto shuffled = its;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(17));
  std::sort(shuffled.begin(), shuffled.end());
  REQUIRE(shuffled == its);
  STATIC_REQUIRE(std::totally_ordered<typename pool_type::iterator>);
  STATIC_REQUIRE(std::totally_ordered_with<typename pool_type::iterator, typename pool_type::const_iterator>);
}

// ---- iteration order -----------------------------------------------------------------

TEMPLATE_TEST_CASE("without a destroy, a single-threaded pool iterates in creation order", "[pool][order]",
                   travpool::test::options<travpool::layout::compact>,
                   travpool::test::options<travpool::layout::interleaved>,
                   (travpool::test::options<travpool::sync::global_mutex, travpool::layout::compact>),
                   (travpool::test::options<travpool::sync::global_mutex, travpool::layout::interleaved>)) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(bin_capacity{4});
  std::vector<int> created;
  auto make = [&](int x) {
    pool.create(x);
    created.push_back(x);
  };
  for (int i = 0; i < 6; ++i) make(i);
  pool.reserve(30);  // bins added ahead are filled in list order
  for (int i = 6; i < 13; ++i) make(i);
  // A failed create (a throwing argument conversion into a new chunk) is
  // not a destroy.
  struct boom {
    operator int() const { throw std::runtime_error("boom"); }
  };
  REQUIRE_THROWS_AS(pool.create(boom{}), std::runtime_error);
  for (int i = 13; i < 40; ++i) make(i);
  REQUIRE(contents(pool) == created);
  // clear resets the guarantee.
  pool.destroy(&*pool.begin());
  pool.clear();
  created.clear();
  for (int i = 40; i < 70; ++i) make(i);
  REQUIRE(contents(pool) == created);
  // After a destroy, the freed chunk is reused first (LIFO): no longer
  // creation order.
  pool.destroy(&*std::next(pool.begin(), 2));
  make(99);
  REQUIRE(contents(pool) != created);
  REQUIRE(*std::next(pool.begin(), 2) == 99);
}
