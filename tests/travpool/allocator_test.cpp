// travpool::allocator: Allocator requirements, routing, and randomized
// operation sequences on every node container, checked against the same
// container with std::allocator.
#include <travpool/allocator.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <forward_list>
#include <functional>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using travpool::allocator;
using travpool::allocator_stats;
using travpool::concurrent_allocator;

// The two variants; the container tests run on both.
struct single_threaded {
  template <class T>
  using alloc = allocator<T>;
};
struct thread_safe {
  template <class T>
  using alloc = concurrent_allocator<T>;
};
struct global_mutex {  // any option set of basic_pool works
  template <class T>
  using alloc = travpool::basic_allocator<T, travpool::sync::global_mutex>;
};
struct compact {
  template <class T>
  using alloc = travpool::basic_allocator<T, travpool::layout::compact>;
};

template <class V, class T>
using tp_list = std::list<T, typename V::template alloc<T>>;
template <class V, class K>
using tp_set = std::set<K, std::less<K>, typename V::template alloc<K>>;
template <class V, class K>
using tp_mset = std::multiset<K, std::less<K>, typename V::template alloc<K>>;
template <class V, class K, class M>
using tp_map = std::map<K, M, std::less<K>, typename V::template alloc<std::pair<const K, M>>>;
template <class V, class K, class M>
using tp_umap =
    std::unordered_map<K, M, std::hash<K>, std::equal_to<K>, typename V::template alloc<std::pair<const K, M>>>;
template <class V, class K>
using tp_uset = std::unordered_set<K, std::hash<K>, std::equal_to<K>, typename V::template alloc<K>>;

template <class V = single_threaded>
std::size_t live_nodes() {
  return V::template alloc<int>::stats().nodes;
}

template <class A, class B>
bool same_sequence(const A& a, const B& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

template <class A, class B>
bool same_unordered(const A& a, const B& b) {
  if (a.size() != b.size()) return false;
  for (const auto& e : b) {
    auto it = a.find(e.first);
    if (it == a.end() || !(*it == e)) return false;
  }
  return true;
}

template <class A, class B>
bool same_unordered_set(const A& a, const B& b) {
  if (a.size() != b.size()) return false;
  for (const auto& e : b)
    if (a.count(e) != 1) return false;
  return true;
}

// A value whose copies own heap memory, so leaks and double destruction of
// values inside pooled nodes show up under ASan.
std::string value_for(int k) {
  return std::string(static_cast<std::size_t>(20 + k % 17), static_cast<char>('a' + k % 26));
}

}  // namespace

TEST_CASE("allocator: Allocator requirements and traits", "[allocator]") {
  using A = allocator<int>;
  using traits = std::allocator_traits<A>;
  STATIC_REQUIRE(std::is_same_v<traits::value_type, int>);
  STATIC_REQUIRE(std::is_same_v<traits::rebind_alloc<double>, allocator<double>>);
  STATIC_REQUIRE(std::is_same_v<traits::rebind_alloc<double>, travpool::basic_allocator<double>>);
  using compact_mt = travpool::basic_allocator<int, travpool::layout::compact, travpool::sync::bin_locks>;
  STATIC_REQUIRE(std::is_same_v<std::allocator_traits<compact_mt>::rebind_alloc<char>,
                                travpool::basic_allocator<char, travpool::layout::compact, travpool::sync::bin_locks>>);
  STATIC_REQUIRE(traits::is_always_equal::value);
  STATIC_REQUIRE(traits::propagate_on_container_move_assignment::value);
  STATIC_REQUIRE(!traits::propagate_on_container_copy_assignment::value);
  STATIC_REQUIRE(!traits::propagate_on_container_swap::value);
  STATIC_REQUIRE(std::is_nothrow_default_constructible_v<A>);
  STATIC_REQUIRE(std::is_nothrow_copy_constructible_v<A>);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<A>);
  STATIC_REQUIRE(std::is_nothrow_constructible_v<A, const allocator<double>&>);
  STATIC_REQUIRE(std::is_empty_v<A>);
  STATIC_REQUIRE(noexcept(std::declval<A&>().deallocate(nullptr, 1)));
  // Node pools use layout::interleaved unless a layout is named.
  STATIC_REQUIRE(std::is_same_v<travpool::allocator_pool_t<int>::layout_type, travpool::layout::interleaved>);
  STATIC_REQUIRE(std::is_same_v<travpool::allocator_pool_t<int, travpool::sync::bin_locks>::layout_type,
                                travpool::layout::interleaved>);
  STATIC_REQUIRE(std::is_same_v<travpool::allocator_pool_t<int, travpool::layout::compact>::layout_type,
                                travpool::layout::compact>);
  STATIC_REQUIRE(
      std::is_same_v<std::allocator_traits<concurrent_allocator<int>>::rebind_alloc<long>, concurrent_allocator<long>>);

  A a;
  const A b(a);
  const allocator<double> c(a);
  const A d(c);
  CHECK(a == b);
  CHECK(a == c);
  CHECK(d == a);
  CHECK_FALSE(a != c);
  CHECK(traits::select_on_container_copy_construction(a) == a);
  CHECK(a.max_size() == std::numeric_limits<std::size_t>::max() / sizeof(int));
}

TEST_CASE("allocator: allocate(1) takes a pool chunk, other requests go to operator new", "[allocator]") {
  allocator<int> a;
  const std::size_t base = live_nodes<>();
  int* p = a.allocate(1);
  CHECK(live_nodes<>() == base + 1);
  *p = 42;
  int* q = a.allocate(3);
  CHECK(live_nodes<>() == base + 1);  // not pooled
  q[0] = q[1] = q[2] = 7;
  a.deallocate(q, 3);
  CHECK(*p == 42);
  a.deallocate(p, 1);
  CHECK(live_nodes<>() == base);

  SECTION("pointers are distinct, aligned and reused after free") {
    std::vector<int*> ps;
    for (int i = 0; i < 1000; ++i) ps.push_back(a.allocate(1));
    std::vector<int*> sorted = ps;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    CHECK(live_nodes<>() == base + 1000);
    int* last = ps.back();
    a.deallocate(last, 1);
    CHECK(a.allocate(1) == last);  // LIFO reuse within its bin
    for (int* x : ps) a.deallocate(x, 1);
    CHECK(live_nodes<>() == base);
  }

  SECTION("over-aligned nodes") {
    struct alignas(64) wide {
      char c[80];
    };
    allocator<wide> w;
    std::vector<wide*> ps;
    for (int i = 0; i < 100; ++i) ps.push_back(w.allocate(1));
    for (wide* x : ps) CHECK(reinterpret_cast<std::uintptr_t>(x) % 64 == 0);
    wide* arr = w.allocate(5);
    CHECK(reinterpret_cast<std::uintptr_t>(arr) % 64 == 0);
    w.deallocate(arr, 5);
    for (wide* x : ps) w.deallocate(x, 1);
  }

  SECTION("nodes above max_node_bytes are not pooled") {
    struct big {
      char c[allocator<int>::max_node_bytes + 1];
    };
    STATIC_REQUIRE(!allocator<big>::pools_nodes);
    STATIC_REQUIRE(allocator<int>::pools_nodes);
    allocator<big> g;
    big* x = g.allocate(1);
    CHECK(live_nodes<>() == base);
    g.deallocate(x, 1);
  }

  SECTION("oversized requests throw") { CHECK_THROWS_AS(a.allocate(a.max_size() + 1), std::bad_array_new_length); }
}

namespace {
// A node type that holds containers of itself, allocated by travpool: legal
// with an allocator that meets [allocator.requirements.completeness] (the
// type is incomplete where its members are declared).
struct tree_node {
  int value = 0;
  std::list<tree_node, allocator<tree_node>> kids;
  std::forward_list<tree_node, concurrent_allocator<tree_node>> links;
  std::vector<tree_node, allocator<tree_node>> flat;
};
// Returns: the number of nodes of the tree under t, t included.
std::size_t count(const tree_node& t) {
  std::size_t n = 1;
  for (const tree_node& k : t.kids) n += count(k);
  for (const tree_node& k : t.links) n += count(k);
  for (const tree_node& k : t.flat) n += count(k);
  return n;
}
}  // namespace

TEST_CASE("allocator: a node type may hold containers of itself (incomplete at declaration)", "[allocator]") {
  const std::size_t base = live_nodes<>(), base_mt = concurrent_allocator<int>::stats().nodes;
  {
    tree_node root;
    for (int i = 0; i < 3; ++i) {
      tree_node& a = root.kids.emplace_back();
      a.value = i;
      for (int j = 0; j < 4; ++j) a.kids.emplace_back().links.emplace_front().value = j;
      a.flat.resize(2);
    }
    // List and forward_list nodes are pool chunks; the vector's arrays are not.
    CHECK(live_nodes<>() == base + 3 + 3 * 4);
    CHECK(concurrent_allocator<int>::stats().nodes == base_mt + 3 * 4);
    CHECK(count(root) == 1 + 3 + 3 * 4 + 3 * 4 + 3 * 2);
    CHECK(root.kids.back().value == 2);
    CHECK(root.kids.front().kids.back().links.front().value == 3);
  }
  CHECK(live_nodes<>() == base);
  CHECK(concurrent_allocator<int>::stats().nodes == base_mt);
}

TEST_CASE("allocator: the variants use separate pools", "[allocator]") {
  const std::size_t st = allocator<int>::stats().nodes;
  const std::size_t mt = concurrent_allocator<int>::stats().nodes;
  concurrent_allocator<int> c;
  int* p = c.allocate(1);
  CHECK(concurrent_allocator<int>::stats().nodes == mt + 1);
  CHECK(allocator<int>::stats().nodes == st);
  c.deallocate(p, 1);
  CHECK(concurrent_allocator<int>::stats().nodes == mt);
}

TEMPLATE_TEST_CASE("allocator: std::list random operations match std::allocator", "[allocator][list]", single_threaded,
                   thread_safe, global_mutex, compact) {
  const std::size_t base = live_nodes<TestType>();
  {
    std::mt19937 rng(1);
    tp_list<TestType, std::string> a, a2;
    std::list<std::string> r, r2;
    for (int step = 0; step < 20000; ++step) {
      const int k = static_cast<int>(rng() % 1000);
      switch (rng() % 12) {
        case 0:
        case 1:
          a.push_back(value_for(k));
          r.push_back(value_for(k));
          break;
        case 2:
          a.push_front(value_for(k));
          r.push_front(value_for(k));
          break;
        case 3:
          if (!r.empty()) {
            a.pop_front();
            r.pop_front();
          }
          break;
        case 4:
          if (!r.empty()) {
            a.pop_back();
            r.pop_back();
          }
          break;
        case 5: {  // insert / erase in the middle
          const auto pos = r.empty() ? 0 : rng() % r.size();
          a.insert(std::next(a.begin(), static_cast<long>(pos)), value_for(k));
          r.insert(std::next(r.begin(), static_cast<long>(pos)), value_for(k));
          break;
        }
        case 6:
          if (!r.empty()) {
            const auto pos = rng() % r.size();
            a.erase(std::next(a.begin(), static_cast<long>(pos)));
            r.erase(std::next(r.begin(), static_cast<long>(pos)));
          }
          break;
        case 7:  // splice into / out of the second list (equal allocators)
          if (rng() % 2 == 0) {
            a2.splice(a2.end(), a, a.begin(),
                      std::next(a.begin(), static_cast<long>(std::min<std::size_t>(3, a.size()))));
            r2.splice(r2.end(), r, r.begin(),
                      std::next(r.begin(), static_cast<long>(std::min<std::size_t>(3, r.size()))));
          } else {
            a.splice(a.begin(), a2);
            r.splice(r.begin(), r2);
          }
          break;
        case 8:
          a.remove_if([k](const std::string& s) { return s.size() == static_cast<std::size_t>(20 + k % 17); });
          r.remove_if([k](const std::string& s) { return s.size() == static_cast<std::size_t>(20 + k % 17); });
          break;
        case 9:
          if (rng() % 20 == 0) {
            a.sort();
            r.sort();
            a.unique();
            r.unique();
          } else {
            a.reverse();
            r.reverse();
          }
          break;
        case 10:
          if (rng() % 50 == 0) {
            a.clear();
            r.clear();
          }
          break;
        case 11: {
          std::size_t target = r.size() + rng() % 3;
          target -= std::min<std::size_t>(target, rng() % 4);
          a.resize(target, value_for(k));
          r.resize(target, value_for(k));
        } break;
      }
      if (step % 500 == 0) {
        REQUIRE(same_sequence(a, r));
        REQUIRE(same_sequence(a2, r2));
        REQUIRE(live_nodes<TestType>() == base + a.size() + a2.size());
      }
    }
    REQUIRE(same_sequence(a, r));
    REQUIRE(same_sequence(a2, r2));
  }
  CHECK(live_nodes<TestType>() == base);  // every node freed
}

TEMPLATE_TEST_CASE("allocator: std::forward_list random operations match std::allocator", "[allocator][forward_list]",
                   single_threaded, thread_safe, global_mutex, compact) {
  const std::size_t base = live_nodes<TestType>();
  {
    std::mt19937 rng(2);
    std::forward_list<int, typename TestType::template alloc<int>> a;
    std::forward_list<int> r;
    std::size_t n = 0;
    for (int step = 0; step < 20000; ++step) {
      const int k = static_cast<int>(rng() % 1000);
      switch (rng() % 7) {
        case 0:
        case 1:
          a.push_front(k);
          r.push_front(k);
          ++n;
          break;
        case 2:
          if (n != 0) {
            a.pop_front();
            r.pop_front();
            --n;
          }
          break;
        case 3: {
          const auto pos = n == 0 ? 0 : rng() % n;
          a.insert_after(std::next(a.before_begin(), static_cast<long>(pos)), k);
          r.insert_after(std::next(r.before_begin(), static_cast<long>(pos)), k);
          ++n;
          break;
        }
        case 4:
          if (n != 0) {
            const auto pos = rng() % n;
            a.erase_after(std::next(a.before_begin(), static_cast<long>(pos)));
            r.erase_after(std::next(r.before_begin(), static_cast<long>(pos)));
            --n;
          }
          break;
        case 5:
          a.remove(k);
          r.remove(k);
          n = static_cast<std::size_t>(std::distance(r.begin(), r.end()));
          break;
        case 6:
          if (rng() % 20 == 0) {
            a.sort();
            r.sort();
          } else {
            a.reverse();
            r.reverse();
          }
          break;
      }
      if (step % 500 == 0) {
        REQUIRE(same_sequence(a, r));
        REQUIRE(live_nodes<TestType>() == base + n);
      }
    }
    REQUIRE(same_sequence(a, r));
  }
  CHECK(live_nodes<TestType>() == base);
}

namespace {
// Random operations on Set (a set or multiset with variant V's allocator).
template <class V, class Set>
void check_ordered_random_operations() {
  const std::size_t base = live_nodes<V>();
  {
    std::mt19937 rng(3);
    Set a;
    std::multiset<int> r;  // reference: multiset semantics filtered below
    constexpr bool unique = std::is_same_v<Set, tp_set<V, int>>;
    for (int step = 0; step < 30000; ++step) {
      const int k = static_cast<int>(rng() % 2000);
      switch (rng() % 5) {
        case 0:
        case 1:
          a.insert(k);
          if (!unique || r.count(k) == 0) r.insert(k);
          break;
        case 2:
          CHECK(a.erase(k) == r.erase(k));
          break;
        case 3: {
          auto ia = a.lower_bound(k);
          auto ir = r.lower_bound(k);
          REQUIRE((ia == a.end()) == (ir == r.end()));
          if (ir != r.end()) {
            REQUIRE(*ia == *ir);
            a.erase(ia);
            r.erase(ir);
          }
          break;
        }
        case 4:
          if (rng() % 200 == 0) {
            a.clear();
            r.clear();
          }
          break;
      }
      if (step % 1000 == 0) {
        REQUIRE(same_sequence(a, r));
        REQUIRE(live_nodes<V>() == base + a.size());
      }
    }
    REQUIRE(same_sequence(a, r));
  }
  CHECK(live_nodes<V>() == base);
}
}  // namespace

TEMPLATE_TEST_CASE("allocator: std::set and std::multiset random operations match std::allocator", "[allocator][set]",
                   single_threaded, thread_safe, global_mutex, compact) {
  check_ordered_random_operations<TestType, tp_set<TestType, int>>();
  check_ordered_random_operations<TestType, tp_mset<TestType, int>>();
}

TEMPLATE_TEST_CASE("allocator: std::map random operations match std::allocator", "[allocator][map]", single_threaded,
                   thread_safe, global_mutex, compact) {
  const std::size_t base = TestType::template alloc<int>::stats().nodes;
  {
    std::mt19937 rng(4);
    tp_map<TestType, int, std::string> a;
    std::map<int, std::string> r;
    for (int step = 0; step < 30000; ++step) {
      const int k = static_cast<int>(rng() % 2000);
      switch (rng() % 6) {
        case 0:
          a[k] = value_for(k + step);
          r[k] = value_for(k + step);
          break;
        case 1:
          CHECK(a.emplace(k, value_for(k)).second == r.emplace(k, value_for(k)).second);
          break;
        case 2:
          CHECK(a.erase(k) == r.erase(k));
          break;
        case 3: {
          auto ia = a.upper_bound(k);
          auto ir = r.upper_bound(k);
          REQUIRE((ia == a.end()) == (ir == r.end()));
          if (ir != r.end()) {
            a.erase(ia);
            r.erase(ir);
          }
          break;
        }
        case 4: {  // node handles move nodes between containers of equal allocators
          auto na = a.extract(k);
          auto nr = r.extract(k);
          REQUIRE(na.empty() == nr.empty());
          if (!na.empty()) {
            na.mapped() += "x";
            nr.mapped() += "x";
            tp_map<TestType, int, std::string> other;
            other.insert(std::move(na));
            a.merge(other);
            REQUIRE(other.empty());
            r.insert(std::move(nr));
          }
          break;
        }
        case 5:
          if (rng() % 300 == 0) {
            a.clear();
            r.clear();
          }
          break;
      }
      if (step % 1000 == 0) {
        REQUIRE(same_sequence(a, r));
        REQUIRE(TestType::template alloc<int>::stats().nodes >= a.size());
      }
    }
    REQUIRE(same_sequence(a, r));
  }
  CHECK(TestType::template alloc<int>::stats().nodes == base);
}

TEMPLATE_TEST_CASE("allocator: std::unordered_map random operations match std::allocator", "[allocator][unordered_map]",
                   single_threaded, thread_safe, global_mutex, compact) {
  const std::size_t base = live_nodes<TestType>();
  {
    std::mt19937 rng(5);
    tp_umap<TestType, int, std::string> a;
    std::unordered_map<int, std::string> r;
    for (int step = 0; step < 30000; ++step) {
      const int k = static_cast<int>(rng() % 3000);
      switch (rng() % 6) {
        case 0:
        case 1:
          a[k] = value_for(k + step);
          r[k] = value_for(k + step);
          break;
        case 2:
          CHECK(a.erase(k) == r.erase(k));
          break;
        case 3: {
          auto ia = a.find(k);
          auto ir = r.find(k);
          REQUIRE((ia == a.end()) == (ir == r.end()));
          if (ir != r.end()) REQUIRE(ia->second == ir->second);
          break;
        }
        case 4:
          if (rng() % 100 == 0) {
            a.rehash(rng() % 5000);
            r.rehash(a.bucket_count());
          }
          break;
        case 5:
          if (rng() % 300 == 0) {
            a.clear();
            r.clear();
          }
          break;
      }
      if (step % 1000 == 0) {
        REQUIRE(same_unordered(a, r));
        REQUIRE(live_nodes<TestType>() >= base + a.size());
      }
    }
    REQUIRE(same_unordered(a, r));
  }
  CHECK(live_nodes<TestType>() == base);
}

TEMPLATE_TEST_CASE("allocator: std::unordered_set random operations match std::allocator", "[allocator][unordered_set]",
                   single_threaded, thread_safe, global_mutex, compact) {
  const std::size_t base = live_nodes<TestType>();
  {
    std::mt19937 rng(6);
    tp_uset<TestType, std::uint64_t> a;
    std::unordered_set<std::uint64_t> r;
    for (int step = 0; step < 30000; ++step) {
      const std::uint64_t k = rng() % 3000;
      switch (rng() % 4) {
        case 0:
        case 1:
          CHECK(a.insert(k).second == r.insert(k).second);
          break;
        case 2:
          CHECK(a.erase(k) == r.erase(k));
          break;
        case 3:
          if (rng() % 300 == 0) {
            a.clear();
            r.clear();
          }
          break;
      }
      if (step % 1000 == 0) REQUIRE(same_unordered_set(a, r));
    }
    REQUIRE(same_unordered_set(a, r));
  }
  CHECK(live_nodes<TestType>() == base);
}

TEMPLATE_TEST_CASE("allocator: copying, moving and swapping containers", "[allocator]", single_threaded, thread_safe,
                   global_mutex, compact) {
  const std::size_t base = live_nodes<TestType>();
  {
    tp_list<TestType, int> a{1, 2, 3, 4, 5};
    tp_list<TestType, int> b(a);  // copy
    CHECK(same_sequence(a, b));
    CHECK(a.get_allocator() == b.get_allocator());
    {
      // Equal allocators are interchangeable: a node from one (or from a
      // rebound copy) is freed by the other, and the node count says so.
      auto x = a.get_allocator(), y = b.get_allocator();
      const std::size_t before = live_nodes<TestType>();
      int* n = x.allocate(1);
      CHECK(live_nodes<TestType>() == before + 1);
      *n = 42;
      y.deallocate(n, 1);
      CHECK(live_nodes<TestType>() == before);
      typename TestType::template alloc<long> rebound(x);
      long* m = rebound.allocate(1);
      CHECK(live_nodes<TestType>() == before + 1);  // stats() counts every node size of the variant
      *m = 7;
      typename TestType::template alloc<long>(y).deallocate(m, 1);
      CHECK(live_nodes<TestType>() == before);
    }
    tp_list<TestType, int> c(std::move(a));  // move: nodes change owner, none copied
    CHECK(same_sequence(c, b));
    CHECK(a.empty());
    a.push_back(9);  // the moved-from list still allocates
    CHECK(live_nodes<TestType>() == base + 1 + 5 + 5);
    const int* first_c = &c.front();
    tp_list<TestType, int> d;
    d = std::move(c);  // propagating move assignment: O(1), nodes kept
    CHECK(&d.front() == first_c);
    b = d;  // copy assignment
    CHECK(same_sequence(b, d));
    d.push_back(6);
    swap(a, d);
    CHECK(a.size() == 6);
    CHECK(a.back() == 6);
    CHECK(d.size() == 1);
    CHECK(&a.front() == first_c);  // swap exchanged nodes, no copies
    a.swap(d);
    CHECK(d.size() == 6);

    tp_map<TestType, int, std::string> m{{1, "one"}, {2, "two"}};
    tp_map<TestType, int, std::string> m2 = m;
    m2[3] = "three";
    tp_map<TestType, int, std::string> m3(std::move(m2), m.get_allocator());  // allocator-extended move
    CHECK(m3.size() == 3);
    m = m3;
    CHECK(same_sequence(m, m3));
    std::swap(m, m2);
    CHECK(m2.size() == 3);

    tp_umap<TestType, int, int> u;
    for (int i = 0; i < 100; ++i) u[i] = i * i;
    tp_umap<TestType, int, int> u2(u);
    tp_umap<TestType, int, int> u3;
    u3 = std::move(u);
    CHECK(u3 == u2);
    u.swap(u2);
    CHECK(u == u3);

    tp_uset<TestType, int> s{1, 2, 3};
    tp_uset<TestType, int> s2;
    s2 = s;
    s2.insert(4);
    swap(s, s2);
    CHECK(s.size() == 4);
    CHECK(s2.size() == 3);

    // a vector works too: capacity 1 is a pooled node, growth goes to operator new.
    std::vector<int, typename TestType::template alloc<int>> v;
    for (int i = 0; i < 100; ++i) v.push_back(i);
    CHECK(v[99] == 99);
  }
  CHECK(live_nodes<TestType>() == base);
}

TEST_CASE("allocator: shrink_to_fit returns empty bins", "[allocator]") {
  struct node200 {
    char c[200];
  };
  tp_list<single_threaded, node200> l;
  for (int i = 0; i < 30000; ++i) l.emplace_back();
  const allocator_stats full = allocator<int>::stats();
  CHECK(full.nodes >= 30000);
  CHECK(full.bins >= 3);  // about 9,800 list nodes of 216 B per 2 MiB bin
  l.clear();
  CHECK(allocator<int>::stats().bins == full.bins);  // kept until asked
  allocator<node200>::shrink_to_fit();
  const allocator_stats after = allocator<int>::stats();
  CHECK(after.nodes == full.nodes - 30000);
  CHECK(after.bins + 3 <= full.bins);
  CHECK(after.bytes_mapped + 3 * (std::size_t{2} << 20) <= full.bytes_mapped);
  l.emplace_back();  // the pool still works after its bins went back
  CHECK(allocator<int>::stats().nodes == after.nodes + 1);
}
