// The code of docs/migrating.md: each "before" and "after" of the three
// migrations. Blocks between "// [doc:NAME]" and "// [/doc]" appear verbatim
// in the guide (tests/travpool/migration_test.cpp checks that), compile as
// part of the test suite, and are run side by side by the test and by
// bench/allocator_bench.cpp (memory figures).
#pragma once

#include <travpool/allocator.hpp>
#include <travpool/parallel.hpp>
#include <travpool/pool.hpp>

#include <boost/pool/object_pool.hpp>
#include <boost/pool/pool_alloc.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <vector>

namespace migration {

struct particle {
  double x, y, z;
#if !defined(__cpp_aggregate_paren_init)
  // Compilers without C++20's parenthesized aggregate initialization
  // (P0960; clang before 16) cannot run boost::object_pool::construct(x, y, z)
  // on an aggregate.
  particle() = default;
  particle(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}
#endif
};

// ---------------------------------------------------------------------------
// (1) boost::object_pool<T> plus a std::vector<T*> for iteration
// ---------------------------------------------------------------------------

// [doc:object-pool-before]
struct particles_before {
  boost::object_pool<particle> pool;
  std::vector<particle*> all;  // only for iteration

  particle* add(double x, double y, double z) {
    particle* p = pool.construct(x, y, z);
    all.push_back(p);
    return p;
  }
  void remove(particle* p) {
    all.erase(std::find(all.begin(), all.end(), p));  // O(n)
    pool.destroy(p);                                  // O(n) too: ordered free list
  }
  double sum_x() const {
    double s = 0;
    for (const particle* p : all) s += p->x;  // one indirection per element
    return s;
  }
};
// [/doc]

// [doc:object-pool-after]
struct particles_after {
  travpool::pool<particle> pool;  // iterable: no side vector

  particle* add(double x, double y, double z) { return pool.create(x, y, z); }
  void remove(particle* p) { pool.destroy(p); }  // O(1); throws usage_error on a bad pointer
  double sum_x() const {
    double s = 0;
    for (const particle& p : pool) s += p.x;  // live elements only, gaps skipped in O(1)
    return s;
  }
};
// [/doc]

// ---------------------------------------------------------------------------
// (2) std::vector<T> with an index free list and garbage_collection()
// ---------------------------------------------------------------------------

struct vertex {
  double x, y, z;
};

// [doc:vector-before]
class vertex_store {
 public:
  using index = std::uint32_t;
  static constexpr index npos = std::numeric_limits<index>::max();

  index add(const vertex& v) {
    if (!free_.empty()) {  // recycle a dead slot
      const index i = free_.back();
      free_.pop_back();
      slots_[i] = v;
      alive_[i] = true;
      return i;
    }
    slots_.push_back(v);  // may reallocate: every vertex& is invalidated
    alive_.push_back(true);
    return static_cast<index>(slots_.size() - 1);
  }
  void remove(index i) {
    alive_[i] = false;
    free_.push_back(i);
  }
  vertex& operator[](index i) { return slots_[i]; }
  std::size_t size() const { return slots_.size() - free_.size(); }

  template <class F>
  void for_each(F f) {
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (alive_[i]) f(slots_[i]);  // visits dead slots too, to skip them
  }

  // Compacts the live vertices to the front and frees the rest. Invalidates
  // every index: returns old -> new (npos if removed), which every holder of
  // an index must apply.
  std::vector<index> garbage_collection() {
    std::vector<index> remap(slots_.size(), npos);
    index n = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (alive_[i]) {
        slots_[n] = slots_[i];
        remap[i] = n++;
      }
    slots_.resize(n);
    slots_.shrink_to_fit();
    alive_.assign(n, true);
    free_.clear();
    return remap;
  }

 private:
  std::vector<vertex> slots_;
  std::vector<bool> alive_;
  std::vector<index> free_;
};
// [/doc]

// [doc:vector-after]
// travpool::pool<vertex> is the whole store; a vertex* is the handle.
inline vertex* add(travpool::pool<vertex>& vs, const vertex& v) { return vs.create(v); }
inline void remove(travpool::pool<vertex>& vs, vertex* v) { vs.destroy(v); }

template <class F>
void for_each(travpool::pool<vertex>& vs, F f) {
  for (vertex& v : vs) f(v);  // or travpool::parallel_for_each(vs, f)
}

// There is no garbage_collection(): nothing ever moves. To give memory back,
//   vs.shrink_to_fit();   // unmaps every bin without a live vertex
// which invalidates nothing.
// [/doc]

// ---------------------------------------------------------------------------
// (3) boost::fast_pool_allocator
// ---------------------------------------------------------------------------

struct edge {
  std::uint32_t from, to;
  double weight;
};

// [doc:fast-pool-before]
using edge_list_before = std::list<edge, boost::fast_pool_allocator<edge>>;
using edge_map_before =
    std::map<std::uint64_t, edge, std::less<>, boost::fast_pool_allocator<std::pair<const std::uint64_t, edge>>>;
// Memory goes back only through the pool of the node size, which the user
// cannot name portably (the node type is the library's):
//   boost::singleton_pool<boost::fast_pool_allocator_tag, sizeof(node)>::release_memory();
// [/doc]

// [doc:fast-pool-after]
using edge_list_after = std::list<edge, travpool::allocator<edge>>;  // single-threaded
using edge_map_after =
    std::map<std::uint64_t, edge, std::less<>, travpool::allocator<std::pair<const std::uint64_t, edge>>>;
// Shared across threads? travpool::concurrent_allocator<edge> instead.
// Memory goes back with
//   travpool::allocator<edge>::shrink_to_fit();  // empty bins of every node size
// [/doc]

}  // namespace migration
