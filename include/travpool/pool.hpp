// travpool/pool.hpp: a traversable fixed-size object pool; the element layer.
//
//   travpool::pool<Vertex> vs;
//   Vertex* v = vs.create(x, y, z);     // O(1), pointer stable until destroy
//   for (Vertex& w : vs) ...            // live elements only, gaps jumped in O(1)
//   vs.destroy(v);                      // O(1), misuse throws usage_error
//
// DESIGN NOTE
// ===========
// basic_pool is the element layer, one class: it owns T's lifetime (create,
// destroy, erase, clear, the destructor), resolves pointers to elements,
// traverses, and states every public contract. Everything below it is
// chosen once by the composition root (detail/pool_layers.hpp) and held in
// one member, core_, the bin acquisition layer of the sync policy
// (detail/acquire_local.hpp, detail/bin_locks/concurrent_bins.hpp; the
// interface: detail/acquisition.hpp), over the bin
// storage (detail/bin_storage.hpp), the bin algorithms
// (detail/bin_algorithms.hpp) and a layout (detail/layouts.hpp). So
//   sizeof(basic_pool) = sizeof(core_)
//   element e live in the pool  <=>  its chunk is assigned in one of the
//                                    pool's bins (detail/bin.hpp: S)
//   size() = sum over the pool's bins b of b.live_
// Iterators are their own class (detail/pool_iterator.hpp); validation and
// the leak report are free functions (detail/validate.hpp), as are
// partitions (detail/partition.hpp) and segments (detail/segments.hpp).
//
// Sections of the class: types; construction and assignment; creation and
// destruction; lookup; traversal; container operations; diagnostics.
//
// Resolving a pointer
// -------------------
// A pointer is resolved in O(1) without trusting it: the bin directory
// (detail/bin_directory.hpp, through core_.find) maps any address to the
// bin of this pool whose span holds it, or to none; the bin maps it to a
// chunk index (bin_storage::chunk_index: 0 unless p is the start of a user
// chunk's payload); the chunk is live iff
//   i != 0  and  !b.retired_  and  i < b.fresh_  and  !is_free(b, i)
// (chunks at or above fresh_ were never assigned and are not yet marked).
// With sync::bin_locks contains and get_iterator take no lock: the words
// that say whether a chunk is live are written with relaxed stores and read
// with relaxed loads, and a retired bin stays mapped (it reads as free).
//
// Capacity (at any quiescent moment; B = bin_count(), C = bin_capacity())
// -----------------------------------------------------------------------
//   capacity() = sum over bins b of b.capacity_ >= size()
//              = B * C for a pool given a bin capacity, unless splice
//                brought in bins of another capacity
//   memory()   = sizeof(basic_pool) + sum over bins b of (span(b) + slot_bytes(b))
//                + R * (bin_span() + slot_bytes(bin_span()))
//                where R = retired bins (sync::bin_locks only, else 0),
//                slot_bytes(b) = 0 for a small bin, slot_bytes(span(b)) else
// Growth (basic_pool() without sync::bin_locks; detail/bin_storage.hpp):
// the k-th bin added (k = 0, 1, ...) fills 2^k KiB, as a small bin (one
// operator new allocation outside the bin directory) below 32 KiB while
// fewer than 16 small bins are listed, else as a registered span; from
// 2 MiB on (C chunks) every bin has C. A pool of 10 ints takes one 1 KiB
// allocation; destroy resolves a pointer in a registered bin in O(1) (the
// directory) and one in a small bin by a scan of the small bins (at most
// 16) after the directory misses. A pool given a bin capacity, and every
// concurrent pool, makes registered bins of exactly that capacity.
//   splice(o): size'(this) = size(this) + size(o), size'(o) = 0,
//              B'(this) = B(this) + B(o), B'(o) = 0
//   stats().live = size()   (stats::counters; exact when quiescent)
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
// Iteration order
// ---------------
// Always: bin-list order across bins, address order within a bin; bins
// are appended to the list when added (create, reserve) or spliced in.
//   end() = (root, null cursor);  begin() = first element of the first
//   bin with live_ > 0 from root->next_ on, or end()
//   distance(begin(), end()) = size()   (quiescent pool)
// Guaranteed: in a pool with sync::none or sync::global_mutex, as long as
// no element has been destroyed (by destroy, erase or erase_if) since the
// pool was constructed or last cleared (clear, assign), and nothing was
// spliced into it, iteration order is creation order. A create whose
// constructor threw does not count as a destroy. Why: create takes the
// first free chunk of the first bin with room; without a destroy every bin
// before that one is full, and its free list hands out fresh chunks in
// ascending address order. So a copy, and a pool built from a range,
// iterate in the order of their source.
// Not guaranteed once an element is destroyed: a freed chunk is reused
// last in, first out, and a bin that gets room again is filled first, so
// later elements may appear anywhere. splice appends other's bins, so its
// elements come after this pool's but later creates may go anywhere.
// sync::bin_locks: threads fill different bins, so no creation order holds.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <ranges>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"
#include "detail/bin.hpp"
#include "detail/bin_directory.hpp"
#include "detail/layout_traits.hpp"
#include "detail/partition.hpp"
#include "detail/pool_iterator.hpp"
#include "detail/pool_layers.hpp"
#include "detail/validate.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "stats.hpp"
#include "subrange.hpp"
#include "usage_error.hpp"

namespace travpool {

// Chunks per bin that fill one 2 MiB span: 86,918 for a 24-byte T in the
// compact layout, 65,528 in the interleaved one (the paper's "about 64,000").
template <class T, class Layout = layout::compact>
inline constexpr std::uint32_t default_bin_capacity =
    detail::layout_traits<detail::layout_ops_t<Layout, T>>::default_capacity();

namespace detail {

// segments() is there when a pool's chunks are arrays of T: layout::compact
// with sizeof(T) >= 12 and a multiple of alignof(T) (pool_iterator.hpp).
template <class Iterator>
concept segments_need_layout_compact_and_sizeof_T_at_least_12 = Iterator::contiguous_runs;

// create(args...) constructs T(args...), else T{args...} (an aggregate, on
// compilers without C++20's parenthesised aggregate initialisation).
template <class T, class... A>
concept constructible_from_args = std::is_constructible_v<T, A&&...> || requires(A&&... a) {
  T{std::forward<A>(a)...};
};

}  // namespace detail

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
class basic_pool {
  // These hold for incomplete types too; what needs T complete (its size,
  // its destructor) is checked in the members that use it (check_complete_type),
  // so that basic_pool<T> is a complete type while T is not yet (a struct
  // holding a pool of nodes that point back to it).
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_array_v<T>,
                "travpool: T must be a non-const, non-array object type");

  using layers = detail::element_layers<T, Options...>;
  using ops = typename layers::ops;
  using storage = typename layers::storage;
  using core_type = typename layers::core_type;  // the bin acquisition layer
  using bin = detail::bin_base;
  static constexpr bool checked = layers::checked;  // checks::on
  static constexpr bool unchecked = layers::checks == detail::checks_level::off;
  static constexpr bool bin_locked = layers::bin_locked;

 public:
  // ---------------------------------------------------------------------
  // Types
  // ---------------------------------------------------------------------

  // The default layout is compact: it won every sweep, memory and erase
  // benchmark against the paper's interleaved chunk (docs/benchmarks.md).
  using layout_type = typename layers::layout_type;
  using sync_type = typename layers::sync_type;
  using stats_type = typename layers::stats_type;
  using checks_type = typename layers::checks_type;

  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = detail::pool_iterator<T, ops, false, layers::checks, layers::bin_locked>;
  using const_iterator = detail::pool_iterator<T, ops, true, layers::checks, layers::bin_locked>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  using subrange = pool_subrange<iterator>;
  using const_subrange = pool_subrange<const_iterator>;
  using range_type = detail::bin_range<iterator>;
  using const_range_type = detail::bin_range<const_iterator>;

  // Bytes between consecutive chunks.
  static constexpr std::size_t chunk_stride = ops::stride;

  // ---------------------------------------------------------------------
  // Construction and assignment
  // ---------------------------------------------------------------------

  // Effects: an empty pool; no memory is taken until the first create.
  // Its bins grow (without sync::bin_locks): the first fills first_bin_bytes
  // (1 KiB, at least 8 chunks; a small bin from operator new), each next
  // one twice the bytes of the one before, up to bin_capacity() =
  // default_bin_capacity<T, layout_type> chunks (a 2 MiB span), and every
  // bin after that has bin_capacity(). With sync::bin_locks every bin has
  // bin_capacity().
  explicit basic_pool() : core_(default_bin_capacity<T, layout_type>) { start_growth(); }
  // Effects: an empty pool whose bins all have exactly cap.chunks chunks
  // (no growth); no memory is taken until the first create.
  // Throws: std::invalid_argument if cap.chunks is 0 or above 2^31 - 2^16.
  explicit basic_pool(travpool::bin_capacity cap) : core_(cap.chunks) {}

  // Effects: an empty pool (basic_pool(), or with bin capacity cap), then
  // insert(first, last).
  // Throws: as insert; the pool is then destroyed (nothing leaks).
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>> basic_pool(I first, S last) : basic_pool() {
    insert(std::move(first), std::move(last));
  }
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>> basic_pool(I first, S last, travpool::bin_capacity cap)
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
  basic_pool(std::initializer_list<T> il) : basic_pool() {
    static_assert(std::copy_constructible<T>, "travpool: constructing a pool from an initializer_list copies T");
    insert(il);
  }
  basic_pool(std::initializer_list<T> il, travpool::bin_capacity cap) : basic_pool(cap) {
    static_assert(std::copy_constructible<T>, "travpool: constructing a pool from an initializer_list copies T");
    insert(il);
  }

  // Effects: a deep copy of o with o's bin capacity (growing if o's bins
  // grow, from the first step: basic_pool()): one element
  // copy-constructed from each of o's, in o's iteration order, into bins
  // reserved up front, so the copy's iteration order equals o's.
  // Throws: std::bad_alloc, or what T's copy constructor throws; nothing
  // leaks and o is unchanged. Requires: no thread modifies o meanwhile.
  // Complexity: O(o.size() + o.bin_count()).
  basic_pool(const basic_pool& o) : basic_pool(same_bins{}, o) {
    static_assert(std::copy_constructible<T>, "travpool: copying a pool copies T");
    copy_from(o);
  }
  // Effects: replaces the elements of *this by copies of o's, in o's
  // iteration order. *this keeps its own bin capacity and growth (a
  // constructor option), takes a new identity as a moved-to pool does, and its end()
  // is invalidated. Strong guarantee: the copy is built in a new pool first;
  // if that throws, *this is unchanged.
  // Invalidates: every pointer and iterator to an element of *this.
  // Complexity: O(size() + o.size() + bins).
  basic_pool& operator=(const basic_pool& o) {
    static_assert(std::copy_constructible<T>, "travpool: copying a pool copies T");
    if (this != std::addressof(o)) {
      basic_pool copy(same_bins{}, *this);
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
    if (this != std::addressof(o)) {
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

  // Effects: clear(), then insert(first, last). The bins (and capacity())
  // are kept. Requires: the range is not a range of this pool.
  // Throws: as insert (basic guarantee: the pool then holds the elements
  // created before the exception). Invalidates: as clear.
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>>
  void assign(I first, S last) {
    clear();
    insert(std::move(first), std::move(last));
  }
  // (The members constrained on T are templates, so that the constraint is
  // checked where they are used: T may be incomplete where the pool type
  // is completed.)
  template <class U = T>
  requires std::copy_constructible<U>
  void assign(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <std::ranges::input_range R>
  requires std::constructible_from<T, std::ranges::range_reference_t<R>>
  void assign_range(R&& r) { assign(std::ranges::begin(r), std::ranges::end(r)); }

  // ---------------------------------------------------------------------
  // Creation and destruction
  // ---------------------------------------------------------------------

  // Effects: constructs a T from args in a free chunk. The chunk is taken
  // first and T is constructed afterwards, outside any lock, so T's
  // constructor may create and destroy elements of this pool.
  // Returns: a pointer that stays valid until the element is destroyed.
  // Throws: std::bad_alloc if a new bin cannot be mapped; whatever T's
  // constructor throws. In both cases the pool holds the same elements and
  // bins as before (strong guarantee); the chunk is back on its free list.
  // Complexity: O(1); with sync::bin_locks see detail/bin_locks/concurrent_bins.hpp.
  template <class... A>
  TRAVPOOL_ALWAYS_INLINE T* create(A&&... args) {
    check_complete_type();
    static_assert(detail::constructible_from_args<T, A...>,
                  "travpool: create(args...) constructs T(args...) or T{args...}: T has no constructor (and is no "
                  "aggregate) that takes these arguments");
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

  // Effects: create(*it) for each it in [first, last), in that order.
  // Requires: the range is not a range of this pool (creates during a
  // sweep may or may not be visited).
  // Throws: as create. Basic guarantee: the elements created before the
  // exception stay in the pool; the failed create leaves nothing behind.
  // Complexity: O(n) creates.
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>>
  void insert(I first, S last) {
    for (; first != last; ++first) create(*first);
  }
  template <class U = T>
  requires std::copy_constructible<U>
  void insert(std::initializer_list<T> il) { insert(il.begin(), il.end()); }
  // Effects: insert(ranges::begin(r), ranges::end(r)) (C++23's name).
  template <std::ranges::input_range R>
  requires std::constructible_from<T, std::ranges::range_reference_t<R>>
  void insert_range(R&& r) { insert(std::ranges::begin(r), std::ranges::end(r)); }

  // Effects: destroys *p and frees its chunk. With sync::bin_locks, from any
  // thread, under the owning bin's lock only: ~T may create, and may destroy
  // elements of other bins, but a ~T that destroys or looks up an element of
  // its own bin gets usage_error (instead of a deadlock), and a ~T that
  // creates must not run while another thread calls shrink_to_fit() or
  // clear() (docs/design.md, "Locks and their order"). Without bin_locks,
  // ~T may use the pool freely.
  // Throws: usage_error if p is not a live element of this pool (already
  // destroyed, foreign, interior, null); the pool is then unchanged.
  // Complexity: O(1); the owning bin is found through the bin directory.
  TRAVPOOL_ALWAYS_INLINE void destroy(const T* p) {
    check_complete_type();
    bin* b = core_.find(p);
    if (b != nullptr && core_.locked(*b, [&]() TRAVPOOL_ALWAYS_INLINE_LAMBDA {
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
  // concurrent use (use destroy). Throws (checks::on, checks::hardened):
  // usage_error if it is end() or its element was destroyed.
  iterator erase(const_iterator it) noexcept(unchecked) {
    it.check("erasing");
    bin& b = *it.bin_;
    const std::uint32_t i = it.index();
    // Found after ~T ran, which may have destroyed the next element: the
    // freed chunk's next link is the next assigned chunk (V3 for the head of
    // the free list), which the release returns as it writes it (read back,
    // it waited on that store: 2x a concurrent_hive's erase time).
    std::uint32_t next;
    if constexpr (checked && bin_locked) {
      // Without the bin's lock, as the pool is quiescent (Requires), which
      // the layer's lock contract check is told.
      const detail::quiescent_scope quiescent(b.lock_);
      next = destroy_at(b, i);
    } else {
      next = destroy_at(b, i);
    }
    return next != b.last() ? iterator(&b, next) : iterator::first_from(b.next_);
  }

  // Effects: erases the elements of [first, last) in iteration order, each
  // as erase(it) does, so a ~T may destroy other elements, in the range or
  // not. If a ~T destroys *last itself, erasing stops at the first element
  // live after last's position.
  // Returns: the iterator after the erased range: last, or in that case the
  // element where erasing stopped.
  // Requires: [first, last) is a range of this pool's iterators. Not for
  // concurrent use.
  // Throws (checks::on only): usage_error if last is not reachable from
  // first (last before first, an iterator of another pool, a destroyed or
  // end first) or the range is another pool's; the pool is then unchanged.
  // That check walks from first to last before anything is erased.
  // Invalidates: pointers and iterators to the erased elements.
  // Complexity: O(distance(first, last) + bins crossed); with checks, that
  // once more for the walk (up to O(size + bins) when last is before first).
  iterator erase(const_iterator first, const_iterator last) noexcept(unchecked) {
    if constexpr (checked) {
      if (first != last && first.bin_ != nullptr && !first.bin_->is_root() && first.bin_->owner_ != core_.id())
        detail::throw_misuse("erase", "the range belongs to another pool");
      const const_iterator e = cend();
      for (const_iterator it = first; it != last; ++it)
        if (it == e) detail::throw_misuse("erase", "last is not reachable from first (before it, or of another pool)");
    }
    while (first != last) {
      const bin* from = first.bin_;
      first = erase(first);
      if (passed(from, first, last)) break;  // a ~T destroyed *last
    }
    return mutable_iterator(first);
  }

  // Effects: destroys every element, in iteration order; keeps the bins
  // (capacity() unchanged). Without sync::bin_locks each chunk is freed as
  // its element goes, so a destructor may destroy elements not reached yet
  // (destroying one already destroyed is a usage_error). With bin_locks,
  // destructors must not use the pool.
  // Invalidates: every pointer and iterator to an element.
  // Complexity: O(size + bins).
  void clear() noexcept { core_.clear(payload_destroyer()); }

  // ---------------------------------------------------------------------
  // Lookup
  // ---------------------------------------------------------------------

  // Returns: true iff p points at a live element of this pool. Safe for any
  // pointer value. With sync::bin_locks it takes no lock (so it never
  // revokes another thread's biased bin): exact for an element whose create
  // or destroy happens before the call, either answer for one that another
  // thread creates or destroys meanwhile. Complexity: O(1).
  bool contains(const T* p) const noexcept { return find_live(p).first != nullptr; }

  // Returns: an iterator to *p, or end() if p is not a live element of this
  // pool. Complexity: O(1).
  iterator get_iterator(const T* p) noexcept {
    const auto [b, i] = find_live(p);
    if (b == nullptr) return end();
    // sync::bin_locks: no lock, so the cursor reads b's bitmap word relaxed
    // (another thread may be creating in b).
    if constexpr (bin_locked) return iterator::at_relaxed(b, i);
    return iterator(b, i);
  }
  const_iterator get_iterator(const T* p) const noexcept { return const_cast<basic_pool*>(this)->get_iterator(p); }

  // ---------------------------------------------------------------------
  // Traversal
  // ---------------------------------------------------------------------

  // Iteration visits live elements in address order within a bin and in
  // bin-list order across bins (the iteration order above). Not
  // thread-safe against create or destroy.
  iterator begin() noexcept { return iterator::first_from(core_.root()->next_); }
  iterator end() noexcept { return iterator::at_end(core_.root()); }
  const_iterator begin() const noexcept { return const_cast<basic_pool*>(this)->begin(); }
  const_iterator end() const noexcept { return const_cast<basic_pool*>(this)->end(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  // Effects: calls f(element) for every live element, bin by bin, in the
  // order of iteration. f must not create or destroy.
  template <class F>
  void for_each(F&& f) {
    begin().for_each_until(end(), f);
  }
  template <class F>
  void for_each(F&& f) const {
    begin().for_each_until(end(), f);
  }

  // Parallel traversal. Partitions and ranges are snapshots of the bin list:
  // they stay valid only while no element is created or destroyed (in any
  // thread) and the pool is not moved.

  // Returns: k ranges (k >= 1) that together cover every live element once,
  // in traversal order. Ranges consist of whole bins, cut where the running
  // live count is closest to r * size() / k, so each holds at most
  // size() / k + one bin's live elements (and at most 1.1 * size() / k +
  // bin_capacity() whenever bin_count() >= 4k). When k exceeds the number of
  // non-empty bins (in particular when k > size()), the surplus ranges are
  // empty. Throws: std::invalid_argument if k == 0; std::bad_alloc.
  // Complexity: O(bins + k log bins); no element is visited.
  std::vector<subrange> partition(std::size_t k) { return detail::partition<iterator>(core_.root(), k); }
  std::vector<const_subrange> partition(std::size_t k) const {
    return detail::partition<const_iterator>(core_.root(), k);
  }

  // Returns: a TBB Range over all live elements (copyable, splittable by
  // live count at bin boundaries, divisible while it spans two bins), for
  // tbb::parallel_for(pool.range(), body) and tbb::parallel_reduce. The
  // body's sub-range has begin(), end() and size(). Complexity: O(bins).
  range_type range() { return range_type(std::make_shared<const detail::bin_index>(core_.root())); }
  const_range_type range() const { return const_range_type(std::make_shared<const detail::bin_index>(core_.root())); }

  // Returns: a forward range of segments, one per bitmap word (64 chunks)
  // of a bin that holds live elements, in iteration order. A segment is a
  // range of T& (its loop is for_each's inner loop), with data() (chunk 0
  // of the block), mask() (bit j: data()[j] is live), size(), and, when
  // contiguous() (its live elements are one run, as in a dense pool),
  // span(), a std::span<T> for loops the compiler can vectorise. Available
  // when chunks are arrays of T: layout::compact with sizeof(T) >= 12 and a
  // multiple of alignof(T). Valid while no element is created or destroyed.
  // Complexity: O(1) per segment; free runs are jumped.
  // (Templates, so that the constraint is checked where segments() is
  // used, not where the pool type is completed: T may still be incomplete.)
  // The constraint is named for the rule, which compilers print when it
  // fails (segments() of a pool<float> names it).
  template <class It = iterator>
  auto segments() noexcept requires detail::segments_need_layout_compact_and_sizeof_T_at_least_12<It> {
    return begin().segments_until(end());
  }
  template <class It = const_iterator>
  auto segments() const noexcept requires detail::segments_need_layout_compact_and_sizeof_T_at_least_12<It> {
    return begin().segments_until(end());
  }

  // ---------------------------------------------------------------------
  // Container operations
  // ---------------------------------------------------------------------

  // Returns: the number of live elements. Complexity: O(1); O(bins) with
  // sync::bin_locks, where it sums the bins' counts without their locks
  // (under the shared list lock; it never revokes a bin's bias): exact while
  // no other thread creates or destroys, otherwise the sum of each bin's
  // count at some moment during the call.
  size_type size() const noexcept { return core_.size(); }
  bool empty() const noexcept { return size() == 0; }
  // Returns: the most elements a pool can hold: the chunks that fit the
  // bin directory's 48-bit address range.
  static constexpr size_type max_size() noexcept {
    return (size_type{1} << detail::bin_directory::address_bits) / chunk_stride;
  }
  // Returns: the chunks of all bins held, live or free.
  size_type capacity() const noexcept { return core_.chunk_count(); }
  size_type bin_count() const noexcept { return core_.bin_count(); }
  // Returns: the chunks of each bin this pool adds once its bins have
  // grown (basic_pool(): the first bins have fewer), or always if it was
  // given a bin capacity (bins spliced in from a pool of another bin
  // capacity keep theirs).
  std::uint32_t bin_capacity() const noexcept { return core_.capacity(); }
  // Returns: the bytes of address space each bin of bin_capacity() chunks
  // takes (a power of two).
  size_type bin_span() const noexcept { return core_.span(); }

  // Returns: the bytes this pool holds: sizeof(*this), plus the span of
  // each bin it holds (the bins on its list, and with sync::bin_locks the
  // retired bins shrink_to_fit keeps mapped), plus the bin directory's
  // slots that map those bins (16 B per 64 KiB of span; none for a small
  // bin, whose span is its allocation's bytes; the directory's
  // leaves are shared by all pools and not counted otherwise). A bin's
  // span is counted whole although only its touched pages are resident.
  // Not counted: address space the pool's span source mapped ahead of need
  // and has not handed out (never touched), and the process's span cache.
  // Thread-safe with sync::bin_locks. Complexity: O(1); O(retired bins)
  // with sync::bin_locks.
  size_type memory() const noexcept {
    // Spans are multiples of the directory's granule, so slot_bytes of
    // their sum is the sum of their slot_bytes. Retired bins have
    // bin_span() (concurrent pools hold bins of one capacity).
    // Small bins (growing pools' first bins) have no directory slots.
    const size_type listed = core_.span_bytes(), retired = core_.retired_count() * bin_span();
    return sizeof(basic_pool) + listed + detail::bin_directory::slot_bytes(listed - core_.small_span_bytes()) +
           retired + detail::bin_directory::slot_bytes(retired);
  }

  // Effects: ensures capacity() >= n by adding bins; growing bins skip
  // the steps of growth that the rest of n fills at once (reserve(20000)
  // on an empty pool<int>(): one bin of 256 KiB).
  // Throws: std::length_error if n > max_size(), at once (nothing added);
  // std::bad_alloc; bins added before the failure stay.
  void reserve(size_type n) {
    if (n > max_size()) throw std::length_error("travpool: reserve(n) with n > max_size()");
    core_.reserve(n);
  }

  // Effects: gives back every bin without a live element.
  // sync::none, sync::global_mutex: the bin goes to the process's span cache
  // (travpool/memory.hpp) while it has room, else it is unmapped. Cached
  // pages are MADV_FREE'd: they stay in the process's RSS until the kernel
  // needs memory, another pool reuses them, or trim_span_cache() unmaps them.
  // sync::bin_locks: its chunk pages are returned (madvise) but its address
  // range stays reserved until the pool is destroyed or a new bin reuses it,
  // because other threads may still remember it.
  // Invalidates: nothing (no element moves). Complexity: O(bins).
  void shrink_to_fit() noexcept { core_.shrink(); }

  // Effects: moves every bin of other, in its list order, to the end of
  // this pool's bin list. No element is moved, copied or destroyed: every
  // pointer and iterator to other's elements stays valid and now belongs
  // to *this (contains, get_iterator, destroy and erase through *this
  // accept them; through other they fail as for any foreign pointer).
  // other is left empty with no bins, keeps its bin capacity, and takes a
  // new identity; its end() stays valid. Iteration visits this pool's
  // elements, then other's, each in their previous order. The bins keep
  // their capacity: a pool may then hold bins of several capacities
  // (capacity() counts each bin's chunks; bins added later have
  // bin_capacity()).
  // stats::counters: the bins' counters move with them (they count as
  // allocated here and as released in other).
  // sync::bin_locks: not thread-safe: both pools must be quiescent (no
  // other thread creates or destroys in either, or sweeps them); the
  // threads' claims of other's bins are released, and what they remember
  // of other is forgotten. other's retired bins stay with other.
  // Throws: with sync::bin_locks, std::invalid_argument if the bin
  // capacities differ (a retired bin is reused as a bin of bin_capacity());
  // usage_error (checks::on, checks::hardened) if &other == this; without
  // checks splicing a pool into itself is a no-op. In these cases nothing
  // changes.
  // Complexity: O(sum of other's bin spans / 64 KiB): each bin's
  // directory entries are rewritten.
  void splice(basic_pool& other) {
    if (std::addressof(other) == this) {
      if constexpr (!unchecked) detail::throw_misuse("splice", "a pool cannot be spliced into itself");
      return;
    }
    if (bin_locked && other.bin_capacity() != bin_capacity())
      throw std::invalid_argument("travpool::splice: the concurrent pools' bin capacities differ");
    core_.splice(other.core_);
  }
  void splice(basic_pool&& other) { splice(other); }

  // Effects: exchanges the bins and identities of *this and o.
  // Invalidates: both end() iterators. Complexity: O(1).
  void swap(basic_pool& o) noexcept {
    basic_pool t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }
  friend void swap(basic_pool& a, basic_pool& b) noexcept { a.swap(b); }

  // Returns: true iff a and b hold equal elements in the same iteration
  // order (as std::list's ==); bin capacity and layout of memory are not
  // compared. Requires: neither pool is modified meanwhile.
  // Complexity: O(size + bins).
  template <class U = T>
  requires std::equality_comparable<U>
  friend bool operator==(const basic_pool& a, const basic_pool& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  // ---------------------------------------------------------------------
  // Diagnostics (the work is in detail/validate.hpp and the stats hooks)
  // ---------------------------------------------------------------------

  // Returns: the counters, summed over bins (stats::counters only).
  // Thread-safe with sync::bin_locks, without the bins' locks (each bin's
  // counters are read with relaxed loads, as size() reads live counts).
  // Complexity: O(bins).
  pool_stats stats() const requires std::is_same_v<stats_type, ::travpool::stats::counters> {
    return detail::collect_stats(core_);
  }

  // Effects: writes how many elements are live, in how many bins, and the
  // addresses of the first few, to os (llheap-style leak report).
  // Returns: the number of live elements. Requires a quiescent pool.
  template <class Ostream>
  std::size_t report_leaks(Ostream& os) const {
    std::string text;
    const std::size_t live = detail::describe_leaks<ops>(core_, sizeof(T), text);
    os << text;
    return live;
  }

  // Effects: checks every invariant of the design note in detail/bin.hpp,
  // over every bin. Throws: std::logic_error naming the bin and chunk of the
  // first violation. Requires a quiescent pool. Complexity: O(capacity + bins).
  void validate() const { detail::validate_bins<ops>(core_, size()); }

 private:
  friend struct detail::test_access;

  // Requires T complete: called by the members that create or destroy a T.
  static constexpr void check_complete_type() noexcept {
    static_assert(sizeof(T) > 0, "travpool: T must be a complete type where the pool is used");
    static_assert(std::is_nothrow_destructible_v<T>, "travpool: T's destructor must not throw");
  }

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
  // Returns: the first assigned chunk of b after i (b.last() if none).
  TRAVPOOL_ALWAYS_INLINE std::uint32_t destroy_at(bin& b, std::uint32_t i) noexcept {
    std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
    return core_.free_chunk(b, i);
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

  // Requires: *this is empty with o's bin capacity or its own. Effects:
  // one element copy-constructed from each of o's, in o's iteration order,
  // into bins reserved up front.
  // An empty pool with o's bin capacity, growing if o's bins grow.
  struct same_bins {};
  basic_pool(same_bins, const basic_pool& o) : core_(o.core_.capacity()) {
    if (o.core_.grows()) start_growth();
  }
  // The bytes of a growing pool's first bin.
  static constexpr std::size_t first_bin_bytes = 1024;
  void start_growth() noexcept {
    if constexpr (!bin_locked) core_.grow_from(first_bin_bytes);
  }

  void copy_from(const basic_pool& o) {
    reserve(o.size());
    for (const T& e : o) create(e);
  }

  // Returns: the chunk index of the live element p in b, or 0 if p is not
  // one. Requires: b == core_.find(p), inside core_.locked(b, ...).
  static std::uint32_t live_index(const bin& b, const T* p) noexcept {
    const std::uint32_t i = storage::chunk_index_below(b, p, b.fresh_);  // chunks >= fresh_ are free (V5)
    return i != 0 && !b.retired_ && !ops::is_free(b, i) ? i : 0;
  }

  // Returns: why p is not a live element of this pool.
  static const char* locate_error(const bin* b, const T* p) noexcept {
    if (b == nullptr) return "pointer does not belong to this pool";
    if (storage::chunk_index(*b, p) == 0)
      return "pointer does not point at an element of this pool (interior or pseudo chunk)";
    return "element is not live (already destroyed, or never created)";
  }

  // Returns: (bin, chunk index) of the live element p, or (nullptr, 0).
  std::pair<bin*, std::uint32_t> find_live(const T* p) const noexcept {
    bin* b = core_.find(p);
    if (b == nullptr) return {nullptr, 0};
    std::uint32_t i;
    if constexpr (bin_locked) {
      i = storage::live_index_relaxed(*b, p);  // no lock
    } else {
      i = const_cast<core_type&>(core_).locked(*b, [&] { return live_index(*b, p); });
    }
    return {i != 0 ? b : nullptr, i};
  }

  // Returns: whether `it`, just stepped forward from bin `from` by an
  // erase, lies beyond the position of `last` (whose element was then
  // destroyed meanwhile). O(1) within a bin, else O(bins crossed).
  static bool passed(const bin* from, const const_iterator& it, const const_iterator& last) noexcept {
    if (it.bin_ == last.bin_) return std::less<>{}(last.cur_.ptr, it.cur_.ptr);
    for (const bin* b = from; b != it.bin_; b = b->next_)
      if (b == last.bin_) return true;
    return false;
  }

  static iterator mutable_iterator(const_iterator c) noexcept {
    iterator it;
    it.bin_ = c.bin_;
    it.cur_ = c.cur_;
    return it;
  }

  core_type core_;
};

// Effects: erases every element e of p with pred(e), in iteration order
// (std::erase_if for standard containers; also found by argument-dependent
// lookup). Returns: the number erased. Not for concurrent use.
template <class T, class... Options, class Pred>
std::size_t erase_if(basic_pool<T, Options...>& p, Pred pred) {
  std::size_t erased = 0;
  for (auto it = p.begin(); it != p.end();) {
    if (pred(std::as_const(*it))) {
      it = p.erase(it);
      ++erased;
    } else {
      ++it;
    }
  }
  return erased;
}

// A single-threaded pool with the default (compact) layout.
template <class T>
using pool = basic_pool<T>;

// A thread-safe pool: a lock per bin, a readers-writers lock on the bin
// list, a remembered bin per thread (the paper's section 4).
template <class T>
using concurrent_pool = basic_pool<T, sync::bin_locks>;

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
