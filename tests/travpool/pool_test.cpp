// basic_pool: API contracts, misuse detection, exception safety, element
// types, move semantics and capacity management.
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <ranges>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

using travpool::bin_capacity;
using travpool::usage_error;
using travpool::detail::test_access;

namespace {

struct p3 {
  std::uint64_t x, y, z;
};

// The observable state of a pool, and optionally every internal word, for
// "unchanged" checks.
template <class Pool>
struct snapshot {
  std::string key;
  std::size_t size, bins, capacity;
  std::vector<const typename Pool::value_type*> elements;
  explicit snapshot(const Pool& p, bool internal = true)
      : key(internal ? test_access::state_key(p) : std::string()),
        size(p.size()),
        bins(p.bin_count()),
        capacity(p.capacity()) {
    for (auto& e : p) elements.push_back(&e);
  }
  bool operator==(const snapshot&) const = default;
};

template <class Pool>
void require_unchanged(const Pool& p, const snapshot<Pool>& before, bool internal = true) {
  p.validate();
  REQUIRE(snapshot<Pool>(p, internal) == before);
}

// Throws on the k-th construction (counting from 1) when armed.
struct throwing {
  static inline int countdown = -1;
  static inline int live = 0;
  static inline const void* failed_at = nullptr;
  std::uint64_t v;
  explicit throwing(std::uint64_t x) : v(x) {
    if (countdown > 0 && --countdown == 0) {
      failed_at = this;
      throw std::runtime_error("constructor failed");
    }
    ++live;
  }
  ~throwing() { --live; }
};

struct counted {
  static inline int live = 0;
  std::string name;
  explicit counted(std::string n) : name(std::move(n)) { ++live; }
  ~counted() { --live; }
};

struct alignas(64) cache_line {
  std::uint64_t v[3];
};
struct big {
  unsigned char bytes[4096];
};

}  // namespace

static_assert(std::ranges::bidirectional_range<travpool::pool<p3>>);
static_assert(std::ranges::bidirectional_range<const travpool::pool<p3>>);
static_assert(std::ranges::common_range<travpool::pool<p3>>);
static_assert(std::bidirectional_iterator<travpool::pool<p3>::const_iterator>);
static_assert(std::is_same_v<travpool::pool<p3>::sync_type, travpool::sync::none>);
static_assert(std::is_copy_constructible_v<travpool::pool<p3>>);  // a deep copy (pool_ops_test)
// Like std::vector, a pool of a move-only T is copy-constructible as far as
// the trait can tell (the copying members are unconstrained, so that T may
// be incomplete where a pool<T> member is declared); copying one would fail
// to compile. Moving is what it offers:
static_assert(std::is_nothrow_move_constructible_v<travpool::pool<std::unique_ptr<int>>>);
static_assert(std::is_nothrow_move_constructible_v<travpool::pool<p3>>);
// The paper's chunk: 24 B + 4 B status, padded to 32 B; the default compact
// layout stores the element in exactly 24 B.
static_assert(travpool::basic_pool<p3, travpool::layout::interleaved>::chunk_stride == 32);
static_assert(travpool::pool<p3>::chunk_stride == 24);
static_assert(std::is_same_v<travpool::pool<p3>::layout_type, travpool::layout::compact>);
static_assert(travpool::default_bin_capacity<p3> >= 64000);

TEMPLATE_TEST_CASE("create, destroy and sweep", "[pool]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<p3, TestType> pool(bin_capacity{10});
  REQUIRE(pool.empty());
  REQUIRE(pool.begin() == pool.end());
  REQUIRE(pool.bin_count() == 0);
  std::vector<p3*> v;
  for (std::uint64_t i = 0; i < 40; ++i) v.push_back(pool.create(p3{i, i, i}));
  REQUIRE(pool.size() == 40);
  REQUIRE(pool.bin_count() == 4);
  REQUIRE(pool.capacity() == 40);
  REQUIRE(pool.bin_capacity() == 10);
  std::uint64_t expect = 0;
  for (auto& e : pool) REQUIRE(e.x == expect++);
  // First chunks are handed out in address order.
  for (std::size_t i = 1; i < 10; ++i) REQUIRE(v[i] > v[i - 1]);
  pool.destroy(v[3]);
  pool.destroy(v[4]);
  // Freed chunks are reused last-in first-out.
  REQUIRE(pool.create(p3{100, 0, 0}) == v[4]);
  REQUIRE(pool.create(p3{101, 0, 0}) == v[3]);
  pool.validate();
}

TEMPLATE_TEST_CASE("erase returns the next iterator", "[pool]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<int, TestType> pool(bin_capacity{4});
  for (int i = 0; i < 20; ++i) pool.create(i);
  for (auto it = pool.begin(); it != pool.end();) it = (*it % 3 == 0) ? pool.erase(it) : std::next(it);
  std::vector<int> rest(pool.cbegin(), pool.cend());
  REQUIRE(rest == std::vector<int>{1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19});
  pool.validate();
}

TEMPLATE_TEST_CASE("every misuse throws usage_error and leaves the pool unchanged", "[pool][misuse]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<p3, TestType>;
  pool_type pool(bin_capacity{8}), other(bin_capacity{8});
  std::vector<p3*> v;
  for (std::uint64_t i = 0; i < 20; ++i) v.push_back(pool.create(p3{i, 0, 0}));
  for (int i = 0; i < 20; i += 3) pool.destroy(v[i]);
  p3* foreign = other.create(p3{});
  const snapshot<pool_type> before(pool);
  const auto bins = test_access::bins(pool);
  const auto* chunks = bins[0]->chunks_;
  const std::size_t stride = pool_type::chunk_stride;

  auto rejects = [&](const p3* p, const char* what) {
    INFO(what);
    REQUIRE_THROWS_AS(pool.destroy(p), usage_error);
    REQUIRE_FALSE(pool.contains(p));
    REQUIRE(pool.get_iterator(p) == pool.end());
    require_unchanged(pool, before);
  };

  p3 on_stack{};
  auto on_heap = std::make_unique<p3>();
  rejects(v[0], "double destroy");
  rejects(nullptr, "null pointer");
  rejects(&on_stack, "stack pointer");
  rejects(on_heap.get(), "heap pointer");
  rejects(foreign, "element of another pool");
  rejects(reinterpret_cast<const p3*>(reinterpret_cast<const char*>(v[1]) + 1), "interior pointer, +1 byte");
  rejects(reinterpret_cast<const p3*>(reinterpret_cast<const char*>(v[1]) + 8), "interior pointer, second field");
  rejects(reinterpret_cast<const p3*>(bins[0]), "bin header");
  rejects(reinterpret_cast<const p3*>(chunks), "pseudo chunk A0");
  rejects(reinterpret_cast<const p3*>(chunks + stride), "pseudo chunk F0");
  rejects(reinterpret_cast<const p3*>(chunks + 10 * stride), "pseudo chunk F1");
  rejects(reinterpret_cast<const p3*>(chunks + 11 * stride), "pseudo chunk A1");
  rejects(reinterpret_cast<const p3*>(chunks + 12 * stride), "past the last chunk, inside the bin's span");
  rejects(reinterpret_cast<const p3*>(reinterpret_cast<const char*>(bins[0]) + pool.bin_span() - 8),
          "last bytes of the bin's span");
  // A chunk of the last bin that was never handed out.
  const auto* last_chunks = bins.back()->chunks_;
  rejects(reinterpret_cast<const p3*>(last_chunks + 9 * stride), "never-created chunk");
  // The other pool is untouched too, and still works.
  other.validate();
  REQUIRE(other.contains(foreign));
  other.destroy(foreign);
}

TEST_CASE("a pointer into a destroyed pool's memory is rejected", "[pool][misuse]") {
  travpool::pool<p3> pool(bin_capacity{8});
  pool.create(p3{});  // map this pool's bin first, so it cannot reuse the other's
  const p3* stale;
  {
    travpool::pool<p3> gone(bin_capacity{8});
    stale = gone.create(p3{});
  }
  REQUIRE_FALSE(pool.contains(stale));
  REQUIRE_THROWS_AS(pool.destroy(stale), usage_error);
  pool.validate();
}

TEMPLATE_TEST_CASE("a throwing constructor leaves the pool unchanged", "[pool][exception]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<throwing, TestType>;
  for (int k = 1; k <= 14; ++k) {
    INFO("constructor throws on call " << k);
    throwing::live = 0;
    pool_type pool(bin_capacity{4});
    std::vector<throwing*> v;
    throwing::countdown = -1;
    for (int i = 0; i < 9; ++i) v.push_back(pool.create(static_cast<std::uint64_t>(i)));
    pool.destroy(v[2]);
    pool.destroy(v[5]);
    throwing::countdown = k;
    std::vector<snapshot<pool_type>> states;
    // Creating until the k-th call throws: into freed chunks (LIFO), then
    // fresh chunks, then a new bin.
    // The same elements, bins and order afterwards; internally only the
    // lazily initialised frontier may have moved on, which (V4) allows.
    bool threw = false;
    for (int i = 0; i < 20 && !threw; ++i) {
      const snapshot<pool_type> before(pool, false);
      try {
        pool.create(static_cast<std::uint64_t>(100 + i));
      } catch (const std::runtime_error&) {
        require_unchanged(pool, before, false);
        threw = true;
      }
    }
    REQUIRE(threw);
    throwing::countdown = -1;
    REQUIRE(throwing::live == static_cast<int>(pool.size()));
    // The chunk the constructor failed in is back on top of its free list.
    REQUIRE(static_cast<const void*>(pool.create(std::uint64_t{7})) == throwing::failed_at);
    pool.validate();
  }
}

TEMPLATE_TEST_CASE("non-trivial elements are destroyed by destroy, clear and the destructor", "[pool][types]",
                   TRAVPOOL_TEST_POLICIES) {
  counted::live = 0;
  {
    travpool::test::pool_t<counted, TestType> pool(bin_capacity{3});
    std::vector<counted*> v;
    for (int i = 0; i < 10; ++i)
      v.push_back(pool.create("a fairly long string that is heap allocated #" + std::to_string(i)));
    REQUIRE(counted::live == 10);
    pool.destroy(v[4]);
    REQUIRE(counted::live == 9);
    pool.clear();
    REQUIRE(counted::live == 0);
    REQUIRE(pool.empty());
    REQUIRE(pool.capacity() == 12);  // clear keeps the bins
    for (int i = 0; i < 7; ++i) pool.create(std::string(100, 'x'));
    REQUIRE(counted::live == 7);
    pool.validate();
  }
  REQUIRE(counted::live == 0);  // the destructor destroyed the rest
}

TEMPLATE_TEST_CASE("move-only elements", "[pool][types]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<std::unique_ptr<int>, TestType> pool(bin_capacity{5});
  for (int i = 0; i < 12; ++i) pool.create(std::make_unique<int>(i));
  int sum = 0;
  for (auto& p : pool) sum += *p;
  REQUIRE(sum == 66);
}

TEMPLATE_TEST_CASE("element sizes from 1 B to 4 KiB and alignment up to 64", "[pool][types]", TRAVPOOL_TEST_POLICIES) {
  SECTION("1 byte") {
    travpool::test::pool_t<char, TestType> pool;
    for (int i = 0; i < 100000; ++i) pool.create(static_cast<char>('a' + i % 26));
    std::size_t n = 0;
    for (char c : pool) REQUIRE(c == static_cast<char>('a' + n++ % 26));
    REQUIRE(n == 100000);
    pool.validate();
  }
  SECTION("alignas(64)") {
    travpool::test::pool_t<cache_line, TestType> pool(bin_capacity{100});
    for (int i = 0; i < 1000; ++i) {
      auto* p = pool.create();
      REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
    }
    pool.validate();
  }
  SECTION("4 KiB") {
    travpool::test::pool_t<big, TestType> pool;
    std::vector<big*> v;
    for (int i = 0; i < 2000; ++i) {
      v.push_back(pool.create());
      v.back()->bytes[0] = static_cast<unsigned char>(i);
      v.back()->bytes[4095] = static_cast<unsigned char>(i);
    }
    for (int i = 0; i < 2000; i += 2) pool.destroy(v[static_cast<std::size_t>(i)]);
    int i = 1;
    for (const big& b : pool) {
      REQUIRE(b.bytes[0] == static_cast<unsigned char>(i));
      REQUIRE(b.bytes[4095] == static_cast<unsigned char>(i));
      i += 2;
    }
    pool.validate();
  }
}

TEMPLATE_TEST_CASE("moving a pool keeps element pointers valid", "[pool]", TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<p3, TestType>;
  pool_type a(bin_capacity{4});
  std::vector<p3*> v;
  for (std::uint64_t i = 0; i < 10; ++i) v.push_back(a.create(p3{i, 0, 0}));
  auto it = a.get_iterator(v[5]);
  pool_type b(std::move(a));
  REQUIRE(b.size() == 10);
  REQUIRE(a.empty());  // NOLINT: moved-from is empty and usable
  REQUIRE(a.bin_count() == 0);
  REQUIRE(b.contains(v[3]));
  REQUIRE_FALSE(a.contains(v[3]));
  REQUIRE(it->x == 5);  // iterators to elements survive the move
  b.destroy(v[3]);
  REQUIRE_THROWS_AS(a.destroy(v[4]), usage_error);
  a.create(p3{99, 0, 0});
  a.validate();
  b.validate();
  pool_type c(bin_capacity{2});
  c.create(p3{});
  c = std::move(b);
  REQUIRE(c.size() == 9);
  c.validate();
  swap(a, c);
  REQUIRE(a.size() == 9);
  REQUIRE(c.size() == 1);
  a.validate();
  c.validate();
}

TEMPLATE_TEST_CASE("reserve, clear and shrink_to_fit", "[pool]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<p3, TestType> pool(bin_capacity{100});
  // Past max_size(): length_error at once, nothing added ([hive.capacity]).
  REQUIRE_THROWS_AS(pool.reserve(pool.max_size() + 1), std::length_error);
  REQUIRE_THROWS_AS(pool.reserve(std::numeric_limits<std::size_t>::max()), std::length_error);
  REQUIRE(pool.bin_count() == 0);
  pool.reserve(1000);
  REQUIRE(pool.bin_count() == 10);
  REQUIRE(pool.capacity() == 1000);
  std::vector<p3*> v;
  for (int i = 0; i < 1000; ++i) v.push_back(pool.create());
  REQUIRE(pool.bin_count() == 10);
  // Empty bins 2..4 and half of bin 5; keep the others.
  for (int i = 200; i < 550; ++i) pool.destroy(v[static_cast<std::size_t>(i)]);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 7);
  REQUIRE(pool.size() == 650);
  for (int i = 0; i < 200; ++i) REQUIRE(pool.contains(v[static_cast<std::size_t>(i)]));
  for (int i = 550; i < 1000; ++i) REQUIRE(pool.contains(v[static_cast<std::size_t>(i)]));
  pool.validate();
  pool.clear();
  REQUIRE(pool.bin_count() == 7);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 0);
  REQUIRE(pool.begin() == pool.end());
  pool.create();
  pool.validate();
}

TEST_CASE("bin capacity bounds", "[pool]") {
  REQUIRE_THROWS_AS(travpool::pool<int>(bin_capacity{0}), std::invalid_argument);
  REQUIRE_THROWS_AS(travpool::pool<int>(bin_capacity{0x8000'0000u}), std::invalid_argument);
  travpool::pool<int> one(bin_capacity{1});
  for (int i = 0; i < 5; ++i) one.create(i);
  REQUIRE(one.bin_count() == 5);
  one.validate();
}

TEMPLATE_TEST_CASE("iterators: const, reverse, bidirectional across empty bins", "[pool]", TRAVPOOL_TEST_POLICIES) {
  travpool::test::pool_t<int, TestType> pool(bin_capacity{3});
  std::vector<int*> v;
  for (int i = 0; i < 15; ++i) v.push_back(pool.create(i));
  for (int i = 3; i < 9; ++i) pool.destroy(v[static_cast<std::size_t>(i)]);  // bins 1 and 2 empty
  const auto& cp = pool;
  std::vector<int> fwd(cp.begin(), cp.end());
  std::vector<int> bwd(cp.rbegin(), cp.rend());
  REQUIRE(fwd == std::vector<int>{0, 1, 2, 9, 10, 11, 12, 13, 14});
  REQUIRE(std::vector<int>(bwd.rbegin(), bwd.rend()) == fwd);
  auto it = pool.get_iterator(v[2]);
  ++it;
  REQUIRE(*it == 9);
  --it;
  REQUIRE(*it == 2);
  typename decltype(pool)::const_iterator cit = it;  // iterator -> const_iterator
  REQUIRE(*cit == 2);
  REQUIRE(*--pool.end() == 14);
}

namespace {
// A tree node that creates its children in its constructor and destroys
// them in its destructor: both re-enter the pool.
template <class Pool>
struct tree_node {
  Pool* pool;
  tree_node* left = nullptr;
  tree_node* right = nullptr;
  tree_node(Pool& p, int depth) : pool(&p) {
    if (depth > 0) {
      left = p.create(p, depth - 1);
      right = p.create(p, depth - 1);
    }
  }
  ~tree_node() {
    if (left != nullptr) pool->destroy(left);
    if (right != nullptr) pool->destroy(right);
  }
};
template <class Opts>
struct tree_pool;
template <class... O>
struct tree_pool<travpool::test::options<O...>>
    : travpool::basic_pool<tree_node<tree_pool<travpool::test::options<O...>>>, O...> {
  using travpool::basic_pool<tree_node<tree_pool<travpool::test::options<O...>>>, O...>::basic_pool;
};
}  // namespace

TEMPLATE_TEST_CASE("constructors and destructors may create and destroy elements of their pool", "[pool][reentrant]",
                   travpool::test::options<travpool::layout::interleaved>,
                   travpool::test::options<travpool::layout::compact>,
                   (travpool::test::options<travpool::sync::global_mutex, travpool::layout::compact>)) {
  using pool_type = tree_pool<TestType>;
  pool_type pool(bin_capacity{5});
  auto* root = pool.create(pool, 6);  // 127 nodes, created from inside constructors
  REQUIRE(pool.size() == 127);
  pool.validate();
  pool.destroy(root->left);  // destroys 63 nodes from inside destructors
  root->left = nullptr;
  REQUIRE(pool.size() == 64);
  pool.validate();
  auto* small = pool.create(pool, 3);  // reuses freed chunks: children may now precede parents
  pool.destroy(root);                  // the root and its right subtree
  REQUIRE(pool.size() == 15);
  pool.validate();
  pool.destroy(small);
  REQUIRE(pool.empty());
  // clear() destroys in iteration order, freeing each chunk as it goes, so
  // destructors may destroy elements it has not reached yet. A freshly built
  // tree has every parent before its children.
  pool_type fresh(bin_capacity{5});
  fresh.create(fresh, 5);
  fresh.clear();
  REQUIRE(fresh.empty());
  fresh.validate();
  fresh.create(fresh, 4);
  // ... and the pool's destructor does the same.
}

TEST_CASE("concurrent_pool: constructors may create, destructors may destroy in other bins", "[pool][reentrant]") {
  using pool_type = tree_pool<travpool::test::options<travpool::sync::bin_locks>>;
  pool_type pool(bin_capacity{1});  // one node per bin: no destructor touches its own bin
  auto* root = pool.create(pool, 5);
  REQUIRE(pool.size() == 63);
  pool.destroy(root);
  REQUIRE(pool.empty());
  pool.validate();
}

TEST_CASE("a thread waiting for a bin lock it holds gets usage_error, not a hang", "[pool][reentrant]") {
  travpool::detail::spin_lock lock;
  lock.lock();
  REQUIRE_FALSE(lock.try_lock());
  REQUIRE_THROWS_AS(lock.lock(), usage_error);
  lock.unlock();
  REQUIRE(lock.try_lock());
  lock.unlock();
}

namespace {
struct point3 {  // an aggregate: no constructor from three doubles
  double x, y, z;
};
struct throwing_member {
  throwing_member(int v) : value(v) {  // NOLINT: converting on purpose
    if (v < 0) throw std::runtime_error("negative");
  }
  int value;
};
struct holds_throwing {
  throwing_member m;
  int tag;
};
}  // namespace

TEMPLATE_TEST_CASE("create(args...) builds aggregates, with braces where parentheses are not supported", "[pool]",
                   TRAVPOOL_TEST_LAYOUTS) {
  travpool::test::pool_t<point3, TestType> pool;
  point3* p = pool.create(1.0, 2.0, 3.0);
  REQUIRE((p->x == 1.0 && p->y == 2.0 && p->z == 3.0));
  travpool::test::pool_t<holds_throwing, TestType> h;
  REQUIRE(h.create(1, 2)->m.value == 1);
  REQUIRE_THROWS_AS(h.create(-1, 2), std::runtime_error);  // strong guarantee: the chunk is given back
  REQUIRE(h.size() == 1);
  h.validate();
}

TEMPLATE_TEST_CASE("erase returns the next element live after the destructor ran", "[pool][reentrant]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = typename travpool::test::chained_pool<TestType>::type;
  pool_type pool(travpool::bin_capacity{8});
  std::vector<typename pool_type::value_type*> ps;
  for (int i = 0; i < 20; ++i) ps.push_back(pool.create(&pool, i));
  ps[3]->victim = ps[4];    // erasing 3 destroys 4: erase must return 5
  ps[7]->victim = ps[8];    // 8 is the first chunk of the next bin
  ps[19]->victim = ps[18];  // a victim before it: the end comes next
  auto it = pool.get_iterator(ps[3]);
  it = pool.erase(it);
  REQUIRE(it->id == 5);
  it = pool.erase(pool.get_iterator(ps[7]));
  REQUIRE(it->id == 9);
  it = pool.erase(pool.get_iterator(ps[19]));
  REQUIRE(it == pool.end());
  REQUIRE(pool.size() == 14);
  pool.validate();
}

TEMPLATE_TEST_CASE("erase_if erases what the predicate selects, and max_size bounds the pool", "[pool]",
                   TRAVPOOL_TEST_POLICIES) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  pool_type pool(travpool::bin_capacity{16});
  for (int i = 0; i < 100; ++i) pool.create(i);
  REQUIRE(erase_if(pool, [](const int& x) { return x % 3 == 0; }) == 34);  // found by ADL
  REQUIRE(pool.size() == 66);
  for (int x : pool) REQUIRE(x % 3 != 0);
  REQUIRE(travpool::erase_if(pool, [](int) { return false; }) == 0);
  pool.validate();
  STATIC_REQUIRE(pool_type::max_size() >= (std::size_t{1} << 40) / pool_type::chunk_stride);
  REQUIRE(pool.size() <= pool.max_size());
  // ...and at most: every element takes its own sizeof(int) bytes or more
  // of the 48-bit address range the pool covers, and the count fits a
  // difference_type (what std::distance over the pool returns).
  STATIC_REQUIRE(pool_type::chunk_stride >= sizeof(int));
  STATIC_REQUIRE(pool_type::max_size() <= (std::size_t{1} << 48) / sizeof(int));
  STATIC_REQUIRE(pool_type::max_size() <= static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()));
  REQUIRE(pool.max_size() == pool_type::max_size());
}
