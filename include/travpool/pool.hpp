// travpool/pool.hpp: a traversable fixed-size object pool; the element layer.
//
//   travpool::pool<Vertex> vs;
//   Vertex* v = vs.create(x, y, z);     // O(1), pointer stable until destroy
//   for (Vertex& w : vs) ...            // live elements only, gaps jumped in O(1)
//   vs.destroy(v);                      // O(1), misuse throws usage_error
//
// DESIGN NOTE
// ===========
// Layers (docs/design.md): basic_pool owns T's lifetime (create, destroy,
// erase, clear, the destructor) and states the public contracts. Below it,
// one bin acquisition layer per sync policy (detail/acquire_local.hpp,
// detail/acquire_concurrent.hpp; chosen in detail/pool_options.hpp) hands
// out chunks, over the bin storage layer (detail/bin_storage.hpp), over the
// bin algorithms (detail/bin_algorithms.hpp) and a layout
// (detail/layouts.hpp). The rest of the element layer is in empty CRTP
// bases, each reaching the pool through its public members and core_:
//   detail/pool_traversal.hpp   iterators, partitions, ranges, segments,
//                               for_each, and the iteration order
//   detail/pool_sequence.hpp    insert, assign, ==
//   detail/pool_container.hpp   size and capacity, memory, reserve,
//                               shrink_to_fit, erase(first, last), splice,
//                               swap, erase_if, the copy behind copy/assign
//   detail/pool_lookup.hpp      contains, get_iterator, pointer -> chunk
//   detail/pool_diagnostics.hpp stats, report_leaks, validate
// so sizeof(basic_pool) = sizeof(core_), and
//   element e live in the pool  <=>  its chunk is assigned in one of the
//                                    pool's bins (detail/bin.hpp: S)
//   size() = sum over the pool's bins b of b.live_
//
// Invalidation rules
// ------------------
// * Element pointers and references stay valid until that element is
//   destroyed (destroy, erase, clear, the pool's destructor). Nothing else
//   moves an element: not create, not reserve, not shrink_to_fit, not
//   moving the pool.
// * An iterator stays valid until its element is destroyed; create never
//   invalidates iterators, but an element created during a sweep may or may
//   not be visited by that sweep.
// * end() is invalidated by moving or swapping the pool (like std::list's).
// * shrink_to_fit and clear invalidate nothing but what they destroy.
// * splice(other) invalidates no pointer or iterator to an element: they
//   now belong to *this. other's end() stays valid (and other is empty).
//
// Iteration order: detail/pool_traversal.hpp (creation order while
// nothing was destroyed, with sync::none and sync::global_mutex).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "detail/partition.hpp"
#include "detail/pool_container.hpp"
#include "detail/pool_diagnostics.hpp"
#include "detail/pool_iterator.hpp"
#include "detail/pool_lookup.hpp"
#include "detail/pool_options.hpp"
#include "detail/pool_sequence.hpp"
#include "detail/pool_traversal.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "stats.hpp"
#include "usage_error.hpp"

namespace travpool {

inline namespace TRAVPOOL_ABI_NAMESPACE {

// A pool of T in bins of fixed-size chunks, traversable in O(live + bins).
//
// Options (tag types, any order, at most one per category):
//   layout::compact (default)       status bitmap, links in free payloads
//   layout::interleaved             the paper's chunk layout (Listing 2)
//   sync::none (default)            single-threaded
//   sync::bin_locks                 thread-safe, per-bin locks (concurrent_pool)
//   sync::global_mutex              thread-safe, one mutex (comparison point)
//   stats::none (default), stats::counters
//   checks::off, checks::on         default: default_checks
template <class T, class... Options>
class basic_pool
    : public detail::pool_traversal<basic_pool<T, Options...>, T, typename pool_options<T, Options...>::ops,
                                    pool_options<T, Options...>::checked>,
      public detail::pool_sequence<basic_pool<T, Options...>, T>,
      public detail::pool_container<basic_pool<T, Options...>, T, typename pool_options<T, Options...>::ops,
                                    pool_options<T, Options...>::checked>,
      public detail::pool_diagnostics<basic_pool<T, Options...>, T, typename pool_options<T, Options...>::ops,
                                      typename pool_options<T, Options...>::stats_type>,
      public detail::pool_lookup<basic_pool<T, Options...>, T, pool_options<T, Options...>> {
  // These hold for incomplete types too; what needs T complete (its size,
  // its destructor) is checked in the members that use it (check_complete_type),
  // so that basic_pool<T> is a complete type while T is not yet (a struct
  // holding a pool of nodes that point back to it).
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_array_v<T>,
                "travpool: T must be a non-const, non-array object type");

 public:
  // The default layout is compact: it won every sweep, memory and erase
  // benchmark against the paper's interleaved chunk (docs/benchmarks.md).
  using layout_type = typename pool_options<T, Options...>::layout_type;
  using sync_type = typename pool_options<T, Options...>::sync_type;
  using stats_type = typename pool_options<T, Options...>::stats_type;
  using checks_type = typename pool_options<T, Options...>::checks_type;

 private:
  using options = pool_options<T, Options...>;
  using ops = typename options::ops;
  using bin = detail::bin_base;
  static constexpr bool checked = options::checked;
  static constexpr bool bin_locked = options::bin_locked;
  using storage = typename options::storage;
  using core_type = typename options::core_type;  // the bin acquisition layer

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using traversal = detail::pool_traversal<basic_pool, T, ops, checked>;
  using traversal::begin;  // names of a dependent base, used below
  using traversal::end;
  using sequence = detail::pool_sequence<basic_pool, T>;
  using sequence::assign;
  using sequence::insert;
  using typename traversal::const_iterator;
  using typename traversal::iterator;
  using container = detail::pool_container<basic_pool, T, ops, checked>;
  using container::bin_capacity;
  using container::erase;
  using diagnostics = detail::pool_diagnostics<basic_pool, T, ops, stats_type>;
  using lookup = detail::pool_lookup<basic_pool, T, options>;

  // Bytes between consecutive chunks.
  static constexpr std::size_t chunk_stride = ops::stride;

  // Effects: an empty pool; no memory is taken until the first create.
  // Throws: std::invalid_argument if cap.chunks is 0 or above 2^31 - 2^16.
  explicit basic_pool(travpool::bin_capacity cap = {default_bin_capacity<T, layout_type>}) : core_(cap.chunks) {}

  // Effects: an empty pool with bin capacity cap, then insert(first, last).
  // Throws: as insert; the pool is then destroyed (nothing leaks).
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>> basic_pool(
      I first, S last, travpool::bin_capacity cap = {default_bin_capacity<T, layout_type>})
      : basic_pool(cap) {
    insert(std::move(first), std::move(last));
  }
  // Effects: an empty pool with bin capacity cap, then insert(il): the
  // elements iterate in il's order.
  // The copying members are not constrained on T (as std::vector's are
  // not): a constraint would be checked where a class holding a pool<T> is
  // completed, and T may be incomplete there. They static_assert instead,
  // so std::is_copy_constructible of a pool of a move-only T is true, and
  // copying one does not compile.
  basic_pool(std::initializer_list<T> il, travpool::bin_capacity cap = {default_bin_capacity<T, layout_type>})
      : basic_pool(cap) {
    static_assert(std::copy_constructible<T>, "travpool: constructing a pool from an initializer_list copies T");
    insert(il);
  }

  // Effects: a deep copy of o with o's bin capacity: one element
  // copy-constructed from each of o's, in o's iteration order, into bins
  // reserved up front, so the copy's iteration order equals o's.
  // Throws: std::bad_alloc, or what T's copy constructor throws; nothing
  // leaks and o is unchanged. Requires: no thread modifies o meanwhile.
  // Complexity: O(o.size() + o.bin_count()).
  basic_pool(const basic_pool& o) : basic_pool(travpool::bin_capacity{o.bin_capacity()}) {
    static_assert(std::copy_constructible<T>, "travpool: copying a pool copies T");
    this->copy_from(o);
  }
  // Effects: replaces the elements of *this by copies of o's, in o's
  // iteration order. *this keeps its own bin capacity (a constructor
  // option), takes a new identity as a moved-to pool does, and its end()
  // is invalidated. Strong guarantee: the copy is built in a new pool first;
  // if that throws, *this is unchanged.
  // Invalidates: every pointer and iterator to an element of *this.
  // Complexity: O(size() + o.size() + bins).
  basic_pool& operator=(const basic_pool& o) {
    static_assert(std::copy_constructible<T>, "travpool: copying a pool copies T");
    if (this != &o) {
      basic_pool copy(travpool::bin_capacity{bin_capacity()});
      copy.copy_from(o);
      *this = std::move(copy);
    }
    return *this;
  }
  // Effects: assign(il).
  basic_pool& operator=(std::initializer_list<T> il) {
    static_assert(std::copy_constructible<T>, "travpool: assigning an initializer_list to a pool copies T");
    assign(il);
    return *this;
  }

  // Effects: takes o's bins and identity; o becomes empty, with a new
  // identity. Element pointers and iterators to elements stay valid; end()
  // iterators do not. Not thread-safe. Complexity: O(1).
  basic_pool(basic_pool&& o) noexcept : core_(o.core_.capacity()) { core_.steal(o.core_); }
  basic_pool& operator=(basic_pool&& o) noexcept {
    if (this != &o) {
      release_all();
      core_.steal(o.core_);
    }
    return *this;
  }

  // Effects: destroys every live element and gives every bin back: to the
  // process's span cache while it has room (travpool/memory.hpp), where the
  // next pool's bins come from; else to the OS. With checks::on and leak
  // reporting on (set_leak_reporting, TRAVPOOL_LEAK_REPORT=1), first
  // reports the elements still live to stderr.
  ~basic_pool() {
    check_complete_type();
    if constexpr (checked) detail::report_leaks_at_exit<ops>(core_, sizeof(T));
    release_all();
  }

  // Effects: constructs a T from args in a free chunk. The chunk is taken
  // first and T is constructed afterwards, outside any lock, so T's
  // constructor may create and destroy elements of this pool.
  // Returns: a pointer that stays valid until the element is destroyed.
  // Throws: std::bad_alloc if a new bin cannot be mapped; whatever T's
  // constructor throws. In both cases the pool holds the same elements and
  // bins as before (strong guarantee); the chunk is back on its free list.
  // Complexity: O(1); with sync::bin_locks see detail/acquire_concurrent.hpp.
  template <class... A>
  TRAVPOOL_ALWAYS_INLINE T* create(A&&... args) {
    check_complete_type();
    const detail::taken t = core_.take();
    void* where = ops::payload(*t.bin, t.index);
    if constexpr (nothrow_construct<A...>) {
      return construct(where, std::forward<A>(args)...);
    } else {
      try {
        return construct(where, std::forward<A>(args)...);
      } catch (...) {
        core_.untake(t);
        throw;
      }
    }
  }

  // Effects: destroys *p and frees its chunk. With sync::bin_locks, from any
  // thread, under the owning bin's lock only: ~T may create, and may destroy
  // elements of other bins, but a ~T that destroys or looks up an element of
  // its own bin gets usage_error (instead of a deadlock). Without bin_locks,
  // ~T may use the pool freely.
  // Throws: usage_error if p is not a live element of this pool (already
  // destroyed, foreign, interior, null); the pool is then unchanged.
  // Complexity: O(1); the owning bin is found through the bin directory.
  TRAVPOOL_ALWAYS_INLINE void destroy(const T* p) {
    check_complete_type();
    bin* b = core_.find(p);
    if (b != nullptr && core_.locked(*b, [&] {
          const std::uint32_t i = live_index(*b, p);
          if (i != 0) destroy_at(*b, i);
          return i != 0;
        }))
      return;
    detail::throw_misuse("destroy", locate_error(b, p));
  }

  // Effects: destroys the element at `it`. Returns: the iterator to the
  // element after it that is live once ~T has run (~T may destroy others).
  // Requires: it is a dereferenceable iterator of this pool; not for
  // concurrent use (use destroy).
  iterator erase(const_iterator it) noexcept(!checked) {
    it.check("erasing");
    bin& b = *it.bin_;
    const std::uint32_t i = it.index();
    destroy_at(b, i);
    // Found after ~T ran, which may have destroyed the next element: the
    // freed chunk's next link is the next assigned chunk (V3 for the head of
    // the free list).
    const std::uint32_t next = ops::link_next(b, i);
    return next != b.last() ? iterator(&b, next) : iterator::first_from(b.next_);
  }

  // Effects: destroys every element, in iteration order; keeps the bins
  // (capacity() unchanged). Without sync::bin_locks each chunk is freed as
  // its element goes, so a destructor may destroy elements not reached yet
  // (destroying one already destroyed is a usage_error). With bin_locks,
  // destructors must not use the pool.
  // Invalidates: every pointer and iterator to an element.
  // Complexity: O(size + bins).
  void clear() noexcept { core_.clear(payload_destroyer()); }

 private:
  friend struct detail::test_access;

  // Requires T complete: called by the members that create or destroy a T.
  static constexpr void check_complete_type() noexcept {
    static_assert(sizeof(T) > 0, "travpool: T must be a complete type where the pool is used");
    static_assert(std::is_nothrow_destructible_v<T>, "travpool: T's destructor must not throw");
  }
  friend traversal;  // reach core_
  friend container;
  friend diagnostics;
  friend lookup;
  using lookup::find_live;  // (and test_access)
  using lookup::live_index;
  using lookup::locate_error;

  // T(args...), or T{args...} for an aggregate without such a constructor
  // (compilers without C++20's parenthesised aggregate initialisation).
  template <class... A>
  static constexpr bool nothrow_construct = [] {
    if constexpr (std::is_constructible_v<T, A&&...>)
      return std::is_nothrow_constructible_v<T, A&&...>;
    else
      return noexcept(T{std::declval<A&&>()...});
  }();
  template <class... A>
  static T* construct(void* where, A&&... args) noexcept(nothrow_construct<A...>) {
    if constexpr (std::is_constructible_v<T, A&&...>)
      return ::new (where) T(std::forward<A>(args)...);
    else
      return ::new (where) T{std::forward<A>(args)...};
  }

  // Requires: chunk i of b is live (inside core_.locked(b, ...) or
  // quiescent). Effects: destroys the element, then frees its chunk.
  TRAVPOOL_ALWAYS_INLINE void destroy_at(bin& b, std::uint32_t i) noexcept {
    std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
    core_.free_chunk(b, i);
  }

  // The ~T callback of clear and release_all (nullptr: nothing to run).
  static auto payload_destroyer() noexcept {
    if constexpr (std::is_trivially_destructible_v<T>)
      return nullptr;
    else
      return
          [](bin& b, std::uint32_t i) noexcept { std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i)))); };
  }

  void release_all() noexcept { core_.release_all(payload_destroyer()); }

  core_type core_;
};

// A single-threaded pool with the default (compact) layout.
template <class T>
using pool = basic_pool<T>;

// A thread-safe pool: a lock per bin, a readers-writers lock on the bin
// list, a remembered bin per thread (the paper's section 4).
template <class T>
using concurrent_pool = basic_pool<T, sync::bin_locks>;

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
