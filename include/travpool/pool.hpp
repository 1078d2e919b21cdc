// travpool/pool.hpp: a traversable fixed-size object pool.
//
//   travpool::pool<Vertex> vs;
//   Vertex* v = vs.create(x, y, z);     // O(1), pointer stable until destroy
//   for (Vertex& w : vs) ...            // live elements only, gaps jumped in O(1)
//   vs.destroy(v);                      // O(1), misuse throws usage_error
//
// Invalidation rules
// ------------------
// * Element pointers and references stay valid until that element is
//   destroyed (destroy, clear, the pool's destructor). Nothing else moves an
//   element: not create, not reserve, not shrink_to_fit, not moving the pool.
// * An iterator stays valid until its element is destroyed; create never
//   invalidates iterators, but an element created during a sweep may or may
//   not be visited by that sweep.
// * end() is invalidated by moving or swapping the pool (like std::list's).
// * shrink_to_fit and clear invalidate nothing but what they destroy.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/bin.hpp"
#include "detail/bin_directory.hpp"
#include "detail/layout_compact.hpp"
#include "detail/os_memory.hpp"
#include "detail/partition.hpp"
#include "detail/segments.hpp"
#include "detail/sync.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "stats.hpp"
#include "usage_error.hpp"

namespace travpool {

template <class T, class... Options>
class basic_pool;

namespace detail {

struct test_access;

template <class Layout, class T>
struct layout_chunks;
template <class T>
struct layout_chunks<layout::interleaved, T> {
  using type = interleaved_chunks<T>;
};
template <class T>
struct layout_chunks<layout::compact, T> {
  using type = compact_chunks<T>;
};

inline std::atomic<bool>& leak_reporting() noexcept {
  static std::atomic<bool> on{std::getenv("TRAVPOOL_LEAK_REPORT") != nullptr &&
                              std::getenv("TRAVPOOL_LEAK_REPORT")[0] == '1'};
  return on;
}

inline std::uint64_t next_pool_id() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The bin span that default_bin_capacity fills: one 2 MiB huge page.
inline constexpr std::size_t default_bin_span = std::size_t{2} << 20;
inline constexpr std::size_t bin_header_bytes = 128;

template <class Ops>
constexpr std::size_t chunks_offset(std::uint32_t cap) noexcept {
  return round_up(bin_header_bytes + Ops::extra_bytes(cap), std::max<std::size_t>(64, Ops::chunk_align));
}

template <class Ops>
constexpr std::size_t bin_bytes(std::uint32_t cap) noexcept {
  return chunks_offset<Ops>(cap) + (std::size_t{cap} + 4) * Ops::stride;
}

template <class Ops>
constexpr std::uint32_t default_capacity() noexcept {
  const std::size_t fixed = chunks_offset<Ops>(0) + 4 * Ops::stride;
  if (fixed + Ops::stride > default_bin_span) return 1;
  std::size_t cap = (default_bin_span - fixed) / Ops::stride;
  while (cap > 1 && bin_bytes<Ops>(static_cast<std::uint32_t>(cap)) > default_bin_span) --cap;
  return static_cast<std::uint32_t>(cap);
}

template <class T, class Ops, bool Const>
class pool_iterator {
  using algo = bin_algorithms<Ops>;

 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using iterator_concept = std::bidirectional_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = std::conditional_t<Const, const T*, T*>;
  using reference = std::conditional_t<Const, const T&, T&>;
  // The runs of a range of these iterators can be std::span<value type>.
  static constexpr bool contiguous_runs = [] {
    if constexpr (requires { Ops::contiguous; })
      return Ops::contiguous;
    else
      return false;
  }();
  using segments_type = detail::segment_range<std::conditional_t<Const, const T, T>, Ops>;

  pool_iterator() = default;
  // A const_iterator is constructible from an iterator.
  template <bool C = Const, class = std::enable_if_t<C>>
  pool_iterator(const pool_iterator<T, Ops, false>& o) noexcept : bin_(o.bin_), index_(o.index_) {}

  reference operator*() const noexcept(!TRAVPOOL_CHECKS) { return *operator->(); }
  pointer operator->() const noexcept(!TRAVPOOL_CHECKS) {
    check("dereferencing");
    return std::launder(static_cast<pointer>(Ops::payload(*bin_, index_)));
  }

  // Complexity: O(1) amortised (empty bins are skipped).
  pool_iterator& operator++() noexcept(!TRAVPOOL_CHECKS) {
    check("incrementing");
    index_ = algo::step_forward(*bin_, index_);
    if (index_ == bin_->last()) seek_forward(bin_->next_);
    return *this;
  }
  pool_iterator operator++(int) noexcept(!TRAVPOOL_CHECKS) {
    auto t = *this;
    ++*this;
    return t;
  }
  pool_iterator& operator--() noexcept(!TRAVPOOL_CHECKS) {
    if (bin_->is_root()) {
      seek_backward(bin_->prev_);
      return *this;
    }
    check("decrementing");
    index_ = algo::step_backward(*bin_, index_);
    if (index_ == 0) seek_backward(bin_->prev_);
    return *this;
  }
  pool_iterator operator--(int) noexcept(!TRAVPOOL_CHECKS) {
    auto t = *this;
    --*this;
    return t;
  }

  // Returns: an iterator at the first element of the first non-empty bin
  // from `b` on (end if none). Used by ranges over whole bins.
  static pool_iterator at_bin(bin_base* b) noexcept {
    pool_iterator it;
    it.seek_forward(b);
    return it;
  }

  // Returns: the runs of live elements from *this up to `last`, which must
  // be at a bin's first element or at end (as partition ranges are).
  segments_type segments_until(const pool_iterator& last) const noexcept requires contiguous_runs {
    return segments_type(bin_, index_, last.bin_);
  }

  friend bool operator==(const pool_iterator& a, const pool_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.index_ == b.index_;
  }

 private:
  template <class, class...>
  friend class ::travpool::basic_pool;
  template <class, class, bool>
  friend class pool_iterator;
  friend struct test_access;

  pool_iterator(bin_base* b, std::uint32_t i) noexcept : bin_(b), index_(i) {}

  // TRAVPOOL_CHECKS: no create or destroy may be under way in the bin
  // (sync::bin_locks pools mark one with an odd modification count; readers
  // such as contains() or other sweeps do not), and the element must still
  // be live. A destroyed element whose chunk was reused by a later create is
  // live again and cannot be told apart.
  void check([[maybe_unused]] const char* what) const {
    if constexpr (TRAVPOOL_CHECKS) {
      if (bin_ == nullptr || bin_->is_root())
        throw usage_error(std::string("travpool: ") + what + " an end or singular iterator");
      if ((bin_->mods_.load(std::memory_order_relaxed) & 1) != 0)
        throw usage_error(std::string("travpool: ") + what +
                          " an iterator while another thread modifies its bin (sweeps need a quiescent pool)");
      if (index_ >= bin_->fresh_ || Ops::is_free(*bin_, index_))
        throw usage_error(std::string("travpool: ") + what + " an iterator whose element was destroyed");
    }
  }

  // Positions on the first element of the first non-empty bin from `b` on, or on end.
  void seek_forward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->next_;
    bin_ = b;
    index_ = b->is_root() ? 0 : algo::first_assigned(*b);
  }
  // Positions on the last element of the last non-empty bin from `b` back.
  void seek_backward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->prev_;
    bin_ = b;
    index_ = b->is_root() ? 0 : algo::last_assigned(*b);
  }

  bin_base* bin_ = nullptr;
  std::uint32_t index_ = 0;
};

}  // namespace detail

// Effects: turns the leak report of pools destroyed with live elements on or
// off (TRAVPOOL_CHECKS builds only; default: TRAVPOOL_LEAK_REPORT=1).
inline void set_leak_reporting(bool on) noexcept { detail::leak_reporting().store(on); }

// The paper's default: "about 64,000 chunks per bin". travpool fills one
// 2 MiB span (86,918 chunks of 24 B for a 24-byte T in the compact layout,
// 65,528 of 32 B in the interleaved one); see README.
template <class T, class Layout = layout::compact>
inline constexpr std::uint32_t default_bin_capacity =
    detail::default_capacity<typename detail::layout_chunks<Layout, T>::type>();

namespace detail {

// Pool-wide synchronisation state per sync policy; empty for sync::none.
template <class Sync>
struct sync_state {
  no_guard guard() const noexcept { return {}; }
};
// Recursive, so that T's constructor and destructor may use the pool.
template <>
struct alignas(64) sync_state<sync::global_mutex> {
  mutable std::recursive_mutex mutex_;
  std::unique_lock<std::recursive_mutex> guard() const { return std::unique_lock<std::recursive_mutex>(mutex_); }
};
// On its own cache lines: written on slow paths only, so that it never
// shares a line with the read-mostly fields of the fast path.
template <>
struct alignas(64) sync_state<sync::bin_locks> {
  mutable std::shared_mutex list_mutex_;  // readers: scans; writer: bin list changes
  std::mutex spans_mutex_;                // guards basic_pool::spans_
  bin_base* retired_ = nullptr;           // retired bins, linked by avail_next_
  no_guard guard() const noexcept { return {}; }
};

}  // namespace detail

// A pool of T in bins of fixed-size chunks, traversable in O(live + bins).
//
// Options (tag types, any order, at most one per category):
//   layout::compact (default)       status bitmap, links in free payloads
//   layout::interleaved             the paper's chunk layout (Listing 2)
//   sync::none (default)            single-threaded
//   sync::bin_locks                 thread-safe, per-bin locks (concurrent_pool)
//   sync::global_mutex              thread-safe, one mutex (comparison point)
template <class T, class... Options>
class basic_pool {
  static_assert(detail::check_options<Options...>());
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_array_v<T>,
                "travpool: T must be a non-const, non-array object type");
  static_assert(std::is_nothrow_destructible_v<T>, "travpool: T's destructor must not throw");
  static_assert(sizeof(detail::bin_base) <= detail::bin_header_bytes);

 public:
  // The default layout is compact: it won every sweep, memory and erase
  // benchmark against the paper's interleaved chunk (docs/benchmarks.md).
  using layout_type = detail::select_option_t<detail::layout_category, layout::compact, Options...>;
  using sync_type = detail::select_option_t<detail::sync_category, sync::none, Options...>;
  using stats_type = detail::select_option_t<detail::stats_category, stats::none, Options...>;

 private:
  using ops = typename detail::layout_chunks<layout_type, T>::type;
  using algo = detail::bin_algorithms<ops>;
  using bin = detail::bin_base;
  static constexpr bool bin_locked = std::is_same_v<sync_type, sync::bin_locks>;
  static constexpr bool counting = std::is_same_v<stats_type, stats::counters>;
  // Pool-wide counters (stats::counters): bins, and what released bins counted.
  struct totals {
    std::uint64_t bins_allocated = 0;
    std::uint64_t bins_released = 0;
    std::uint64_t peak_live = 0;  // sync::none and global_mutex: exact
    bin::counters released;
  };

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = detail::pool_iterator<T, ops, false>;
  using const_iterator = detail::pool_iterator<T, ops, true>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  // Bytes between consecutive chunks.
  static constexpr std::size_t chunk_stride = ops::stride;

  // Effects: an empty pool; no memory is taken until the first create.
  // Throws: std::invalid_argument if cap.chunks is 0 or above 2^31 - 2^16.
  explicit basic_pool(travpool::bin_capacity cap = {default_bin_capacity<T, layout_type>})
      : bin_capacity_(cap.chunks), id_(detail::next_pool_id()) {
    if (cap.chunks == 0 || cap.chunks > detail::max_bin_capacity)
      throw std::invalid_argument("travpool: bin capacity must be in [1, 2^31 - 2^16]");
    span_ = std::max(std::bit_ceil(detail::bin_bytes<ops>(cap.chunks)), detail::bin_directory::granule);
  }

  basic_pool(const basic_pool&) = delete;
  basic_pool& operator=(const basic_pool&) = delete;

  // Effects: takes o's bins and identity; o becomes empty, with a new
  // identity. Element pointers and iterators to elements stay valid; end()
  // iterators do not. Not thread-safe. Complexity: O(1).
  basic_pool(basic_pool&& o) noexcept : bin_capacity_(o.bin_capacity_), span_(o.span_), id_(o.id_) { steal(o); }
  basic_pool& operator=(basic_pool&& o) noexcept {
    if (this != &o) {
      release_all();
      bin_capacity_ = o.bin_capacity_;
      span_ = o.span_;
      id_ = o.id_;
      steal(o);
    }
    return *this;
  }

  // Effects: destroys every live element and gives every bin back: to the
  // process's span cache while it has room (travpool/memory.hpp), where the
  // next pool's bins come from; else to the OS.
  // With TRAVPOOL_CHECKS and leak reporting on (travpool::set_leak_reporting
  // or TRAVPOOL_LEAK_REPORT=1 in the environment), first reports the
  // elements still live to stderr.
  ~basic_pool() {
    if constexpr (TRAVPOOL_CHECKS)
      if (detail::leak_reporting().load(std::memory_order_relaxed)) report_leaks(std::cerr);
    release_all();
  }

  // Effects: constructs a T from args in a free chunk. The chunk is taken
  // first and T is constructed afterwards, outside any lock, so T's
  // constructor may create and destroy elements of this pool.
  // Returns: a pointer that stays valid until the element is destroyed.
  // Throws: std::bad_alloc if a new bin cannot be mapped; whatever T's
  // constructor throws. In both cases the pool holds the same elements and
  // bins as before (strong guarantee); the chunk is back on its free list.
  // Complexity: O(1). With sync::bin_locks: when the thread's remembered bin
  // has room, no lock at all while that bin's lock is biased to this thread
  // (no other thread has locked it since the bias), else the bin's own lock;
  // otherwise an O(bins) scan under the shared list lock, or a new bin under
  // the exclusive one.
  template <class... A>
  T* create(A&&... args) {
    if constexpr (bin_locked) {
      detail::remembered_bin& slot = detail::remembered_for(id_);
      if (slot.pool_id == id_) {
        bin* b = slot.bin;
        // The bin is biased to this thread: no locked instruction. (Retiring
        // a bin takes its lock, which revokes the bias.)
        if (b->lock_.enter(detail::thread_number())) {
          if (!b->full()) {
            const std::uint32_t i = take_chunk(*b);
            b->lock_.leave();
            return construct(b, i, false, std::forward<A>(args)...);
          }
          b->lock_.leave();
        }
      }
      return create_locked(slot, std::forward<A>(args)...);
    } else {
      [[maybe_unused]] const auto guard = sync_.guard();
      bin* b = avail_head_;
      const bool new_bin = b == nullptr;
      if (new_bin) b = add_bin();
      const std::uint32_t i = take_chunk(*b);
      return construct(b, i, new_bin, std::forward<A>(args)...);
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
  void destroy(const T* p) {
    [[maybe_unused]] const auto guard = sync_.guard();
    bin* b = find_bin(p);
    if (b != nullptr) {
      if constexpr (bin_locked) {
        const std::uint32_t me = detail::thread_number();
        if (b->lock_.enter(me)) {  // the bin is biased to this thread
          const std::uint32_t i = live_index(*b, p);
          if (i != 0) {
            const detail::section_scope inside(b->lock_);  // ~T may not lock this bin
            destroy_at(*b, i);
          }
          b->lock_.leave();
          if (i != 0) return;
          throw_misuse("destroy", locate_error(b, p));
        }
        std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
        if (const auto i = live_index(*b, p); i != 0) {
          destroy_at(*b, i);
          if (b->claim_.load(std::memory_order_relaxed) == me) b->lock_.settle(me);  // after ~T
          return;
        }
      } else {
        if (const auto i = live_index(*b, p); i != 0) return destroy_at(*b, i);
      }
    }
    throw_misuse("destroy", locate_error(b, p));
  }

  // Effects: destroys the element at `it`. Returns: the iterator after it.
  // Requires: it is a dereferenceable iterator of this pool; not for
  // concurrent use (use destroy).
  iterator erase(const_iterator it) noexcept(!TRAVPOOL_CHECKS) {
    iterator next(it.bin_, it.index_);
    ++next;
    destroy_at(*it.bin_, it.index_);
    return next;
  }

  // Returns: true iff p points at a live element of this pool. Safe for any
  // pointer value. Complexity: O(1).
  bool contains(const T* p) const noexcept { return find_live(p).first != nullptr; }

  // Returns: an iterator to *p, or end() if p is not a live element of this
  // pool. Complexity: O(1).
  iterator get_iterator(const T* p) noexcept {
    const auto [b, i] = find_live(p);
    return b != nullptr ? iterator(b, i) : end();
  }
  const_iterator get_iterator(const T* p) const noexcept { return const_cast<basic_pool*>(this)->get_iterator(p); }

  // Returns: the number of live elements. Complexity: O(1); O(bins) with
  // sync::bin_locks, where it sums the bins' counts under their locks.
  size_type size() const noexcept {
    if constexpr (bin_locked) {
      std::shared_lock list(sync_.list_mutex_);
      size_type n = 0;
      for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
        std::lock_guard<detail::bin_lock> g(b->lock_);
        n += b->live_;
      }
      return n;
    } else {
      [[maybe_unused]] const auto guard = sync_.guard();
      return size_;
    }
  }
  bool empty() const noexcept { return size() == 0; }
  // Returns: the chunks of all bins held, live or free.
  size_type capacity() const noexcept { return bin_count() * bin_capacity_; }
  size_type bin_count() const noexcept { return bin_count_.load(std::memory_order_relaxed); }
  std::uint32_t bin_capacity() const noexcept { return bin_capacity_; }
  // Returns: the bytes of address space one bin takes (a power of two).
  size_type bin_span() const noexcept { return span_; }

  // Iteration visits live elements in address order within a bin and in
  // bin-list order across bins. Not thread-safe against create or destroy.
  iterator begin() noexcept { return iterator::at_bin(root_.next_); }
  iterator end() noexcept { return iterator(&root_, 0); }
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

  // Parallel traversal. Partitions and ranges are snapshots of the bin list:
  // they stay valid only while no element is created or destroyed (in any
  // thread) and the pool is not moved.
  using subrange = pool_subrange<iterator>;
  using const_subrange = pool_subrange<const_iterator>;
  using range_type = detail::bin_range<iterator>;
  using const_range_type = detail::bin_range<const_iterator>;

  // Returns: k ranges (k >= 1) that together cover every live element once,
  // in traversal order. Ranges consist of whole bins, cut where the running
  // live count is closest to r * size() / k, so each holds at most
  // size() / k + one bin's live elements (and at most 1.1 * size() / k +
  // bin_capacity() whenever bin_count() >= 4k). When k exceeds the number of
  // non-empty bins (in particular when k > size()), the surplus ranges are
  // empty. Throws: std::invalid_argument if k == 0; std::bad_alloc.
  // Complexity: O(bins + k log bins); no element is visited.
  std::vector<subrange> partition(std::size_t k) { return partition_impl<iterator>(k); }
  std::vector<const_subrange> partition(std::size_t k) const {
    return const_cast<basic_pool*>(this)->template partition_impl<const_iterator>(k);
  }

  // Returns: a TBB Range over all live elements (copyable, splittable by
  // live count at bin boundaries, divisible while it spans two bins), for
  // tbb::parallel_for(pool.range(), body) and tbb::parallel_reduce. The
  // body's sub-range has begin(), end() and size(). Complexity: O(bins).
  range_type range() { return range_type(std::make_shared<const detail::bin_index>(&root_)); }
  const_range_type range() const {
    return const_range_type(std::make_shared<const detail::bin_index>(const_cast<bin*>(&root_)));
  }

  // Returns: a forward range of std::span<T>, one per maximal run of
  // contiguous live elements, in iteration order, so that inner loops are
  // plain array loops the compiler can vectorise. Available when live runs
  // are arrays: layout::compact with sizeof(T) >= 12 and a multiple of
  // alignof(T). Valid while no element is created or destroyed.
  auto segments() noexcept requires iterator::contiguous_runs { return begin().segments_until(end()); }
  auto segments() const noexcept requires const_iterator::contiguous_runs { return begin().segments_until(end()); }

  // Effects: calls f(element) for every live element, bin by bin, in the
  // order of iteration. f must not create or destroy.
  template <class F>
  void for_each(F&& f) {
    for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
      if (b->live_ == 0) continue;
      if constexpr (requires { ops::for_each_live(*b, f); }) {
        ops::for_each_live(*b, f);
      } else {
        const std::uint32_t last = b->last();
        for (std::uint32_t i = algo::first_assigned(*b); i != last; i = algo::step_forward(*b, i))
          f(*std::launder(static_cast<T*>(ops::payload(*b, i))));
      }
    }
  }

  // Effects: destroys every element, in iteration order; keeps the bins
  // (capacity() unchanged). Without sync::bin_locks each chunk is freed as
  // its element goes, so a destructor may destroy elements not reached yet
  // (destroying one already destroyed is a usage_error). With bin_locks,
  // destructors must not use the pool.
  // Invalidates: every pointer and iterator to an element.
  // Complexity: O(size + bins).
  void clear() noexcept {
    [[maybe_unused]] const auto guard = sync_.guard();
    [[maybe_unused]] const auto list = exclusive_list();
    for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
      [[maybe_unused]] const auto bin_guard = lock_bin(b);
      begin_change(*b);
      destroy_elements(*b);
      if constexpr (counting) b->counters_.destroys += b->live_;
      algo::init(*b);
      end_change(*b);
    }
    if constexpr (!bin_locked) {
      // Like a new pool: bins are filled in list order again.
      while (avail_head_ != nullptr) avail_erase(avail_head_);
      for (bin* b = root_.next_; !b->is_root(); b = b->next_) avail_push_back(b);
    }
    size_ = 0;
  }

  // Effects: ensures capacity() >= n by adding bins.
  // Throws: std::bad_alloc; bins added before the failure stay.
  void reserve(size_type n) {
    [[maybe_unused]] const auto guard = sync_.guard();
    [[maybe_unused]] const auto list = exclusive_list();
    while (capacity() < n) add_bin();
  }

  // Effects: gives back every bin without a live element.
  // sync::none, sync::global_mutex: the bin goes to the process's span cache
  // (travpool/memory.hpp) while it has room, else it is unmapped. Cached
  // pages are MADV_FREE'd: they stay in the process's RSS until the kernel
  // needs memory, another pool reuses them, or trim_span_cache() unmaps them.
  // sync::bin_locks: its chunk pages are returned (madvise) but its address range stays
  // reserved until the pool is destroyed or a new bin reuses it, because
  // other threads may still remember it.
  // Invalidates: nothing (no element moves). Complexity: O(bins).
  void shrink_to_fit() noexcept {
    [[maybe_unused]] const auto guard = sync_.guard();
    [[maybe_unused]] const auto list = exclusive_list();
    for (bin* b = root_.next_; !b->is_root();) {
      bin* next = b->next_;
      if constexpr (bin_locked) {
        std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
        if (b->live_ == 0) retire_bin(b);
      } else {
        if (b->live_ == 0) release_bin(b);
      }
      b = next;
    }
  }

  // Returns: the counters, summed over bins (stats::counters only).
  // Thread-safe with sync::bin_locks (takes each bin's lock). O(bins).
  pool_stats stats() const requires counting {
    [[maybe_unused]] const auto guard = sync_.guard();
    std::shared_lock<std::shared_mutex> list;
    if constexpr (bin_locked) list = std::shared_lock(sync_.list_mutex_);
    pool_stats s;
    auto add = [&s](const bin::counters& c) {
      s.creates += c.creates, s.destroys += c.destroys, s.remote_destroys += c.remote_destroys;
      s.failed_try_locks += c.failed_try_locks, s.bins_scanned += c.bins_scanned;
      s.peak_live += c.peak_live;
    };
    add(totals_.released);
    for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
      [[maybe_unused]] const auto bin_guard = lock_bin(b);
      add(b->counters_);
      s.live += b->live_;
    }
    if constexpr (!bin_locked) s.peak_live = totals_.peak_live;
    s.bins_allocated = totals_.bins_allocated;
    s.bins_released = totals_.bins_released;
    return s;
  }

  // Effects: writes how many elements are live, in how many bins, and the
  // addresses of the first few, to os (llheap-style leak report).
  // Returns: the number of live elements. Requires a quiescent pool.
  std::size_t report_leaks(std::ostream& os) const {
    std::size_t live = 0, bins = 0, shown = 0;
    for (const bin* b = root_.next_; !b->is_root(); b = b->next_) live += b->live_, bins += b->live_ != 0;
    if (live == 0) return 0;
    os << "travpool: pool " << id_ << " has " << live << " live element(s) of " << sizeof(T) << " B in " << bins
       << " bin(s)";
    for (auto it = begin(); it != end() && shown < 8; ++it, ++shown) os << (shown == 0 ? ": " : ", ") << &*it;
    os << (live > shown ? ", ...\n" : "\n");
    return live;
  }

  // Effects: checks every invariant of the design note in detail/bin.hpp,
  // over every bin. Throws: std::logic_error naming the bin and chunk of the
  // first violation. Requires a quiescent pool. Complexity: O(capacity + bins).
  void validate() const;

  void swap(basic_pool& o) noexcept {
    basic_pool t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }
  friend void swap(basic_pool& a, basic_pool& b) noexcept { a.swap(b); }

 private:
  friend struct detail::test_access;

  // Requires: b has a free chunk (with bin_locks, b's lock is held).
  // Effects: assigns the free-list head of b (Listing 4) and counts it.
  // Returns: its chunk index; the payload is not constructed yet.
  TRAVPOOL_ALWAYS_INLINE std::uint32_t take_chunk(bin& b) noexcept {
    begin_change(b);
    const auto c = algo::peek(b);
    algo::commit_create(b, c);
    if constexpr (!bin_locked) {
      ++size_;
      if (b.full()) avail_erase(&b);
    }
    if constexpr (counting) {
      ++b.counters_.creates;
      b.counters_.peak_live = std::max(b.counters_.peak_live, b.live_);
      if constexpr (!bin_locked) totals_.peak_live = std::max<std::uint64_t>(totals_.peak_live, size_);
    }
    end_change(b);
    return c.index;
  }

  // Requires: b holds no lock of this thread. Effects: constructs T in chunk
  // i of b, taken by take_chunk; if the constructor throws, frees the chunk
  // again (and a bin added for it, if it is empty), then rethrows.
  template <class... A>
  T* construct(bin* b, std::uint32_t i, bool new_bin, A&&... args) {
    void* where = ops::payload(*b, i);
    if constexpr (std::is_nothrow_constructible_v<T, A&&...>) {
      return ::new (where) T(std::forward<A>(args)...);
    } else {
      try {
        return ::new (where) T(std::forward<A>(args)...);
      } catch (...) {
        untake_chunk(b, i, new_bin);
        throw;
      }
    }
  }

  void untake_chunk(bin* b, std::uint32_t i, bool new_bin) noexcept {
    if constexpr (bin_locked) {
      {
        std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
        free_chunk(*b, i);
        if constexpr (counting) --b->counters_.creates, --b->counters_.destroys;
      }
      if (new_bin) {
        // Strong guarantee: take the new bin back unless another thread
        // created in it meanwhile.
        std::unique_lock list(sync_.list_mutex_);
        std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
        if (b->live_ == 0 && !b->retired_) retire_bin(b);
      }
    } else {
      free_chunk(*b, i);
      if constexpr (counting) --b->counters_.creates, --b->counters_.destroys;
      if (new_bin && b->live_ == 0) release_bin(b);
    }
  }

  // TRAVPOOL_CHECKS with bin_locks: make b's change visible to sweeps.
  void begin_change([[maybe_unused]] bin& b) noexcept {
    if constexpr (TRAVPOOL_CHECKS && bin_locked)
      b.mods_.store(b.mods_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void end_change(bin& b) noexcept { begin_change(b); }

  // sync::bin_locks: the remembered bin is not biased to this thread, or is
  // full. If the thread still claims it, create there under its lock (and
  // count towards biasing it again); else leave it and scan.
  template <class... A>
  [[gnu::noinline]] T* create_locked(detail::remembered_bin& slot, A&&... args) {
    std::uint32_t failed = 0;
    const std::uint32_t me = detail::thread_number();
    if (slot.pool_id == id_) {
      bin* b = slot.bin;
      if (b->claim_.load(std::memory_order_relaxed) == me) {
        // Still this thread's bin: whoever holds its lock (a destroy from
        // another thread) holds it briefly, so wait rather than wander off.
        if (!b->lock_.try_lock()) {
          failed = 1;
          b->lock_.lock();
        }
        // The claim and retired_ are written under this lock, and may have
        // changed since the check above; a retired bin stays mapped.
        const bool still_mine = b->claim_.load(std::memory_order_relaxed) == me;
        if (still_mine && !b->retired_ && !b->full()) {
          b->lock_.settle(me);
          const std::uint32_t i = take_chunk(*b);
          b->lock_.unlock();
          return construct(b, i, false, std::forward<A>(args)...);
        }
        if (still_mine) release_claim(b);  // leaving it: others may use it
        b->lock_.unlock();
      }
    }
    return create_slow(slot, failed, std::forward<A>(args)...);
  }

  // sync::bin_locks: the remembered bin is missing, full or retired. Scan the
  // other bins with try_lock under the shared list lock, starting after the
  // remembered one, for a bin with room that no other thread claims (so
  // that threads never share the bin they fill); else append a bin. The bin
  // found is claimed. T is constructed after every lock is released.
  template <class... A>
  T* create_slow(detail::remembered_bin& slot, std::uint32_t failed, A&&... args) {
    std::uint32_t scanned = 0;
    const std::uint32_t me = detail::thread_number();
    {
      std::shared_lock list(sync_.list_mutex_);
      bin* start = root_.next_;
      // Under the list lock retired_ and the links are stable.
      if (slot.pool_id == id_ && !slot.bin->retired_) start = slot.bin->next_;
      const size_type n = bin_count();
      bin* b = start;
      for (size_type seen = 0; seen < n; b = b->next_) {
        if (b->is_root()) continue;
        ++seen;
        if constexpr (counting) ++scanned;
        // A bin another thread claims is skipped unlocked: locking it
        // would revoke that thread's bias.
        const std::uint32_t claim = b->claim_.load(std::memory_order_relaxed);
        if (claim != 0 && claim != me) continue;
        if (!b->lock_.try_lock()) {
          if constexpr (counting) ++failed;
          continue;
        }
        const std::uint32_t locked_claim = b->claim_.load(std::memory_order_relaxed);
        if (!b->full() && (locked_claim == 0 || locked_claim == me)) {
          b->claim_.store(me, std::memory_order_relaxed);
          b->lock_.settle(me);
          slot = {id_, b};
          count_scan(*b, failed, scanned);
          const std::uint32_t i = take_chunk(*b);
          b->lock_.unlock();
          list.unlock();
          return construct(b, i, false, std::forward<A>(args)...);
        }
        b->lock_.unlock();
      }
    }
    bin* b;
    std::uint32_t i;
    {
      std::unique_lock list(sync_.list_mutex_);
      b = reuse_retired();
      if (b == nullptr) {
        // Map and touch the new bin without the list lock: the other
        // threads' scans would otherwise sleep through its page fault.
        list.unlock();
        b = make_bin();
        b->claim_.store(me, std::memory_order_relaxed);  // before other scans can see it
        list.lock();
        link_bin(b);
      }
      std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
      b->claim_.store(me, std::memory_order_relaxed);
      b->lock_.settle(me);
      count_scan(*b, failed, scanned);
      i = take_chunk(*b);
    }
    slot = {id_, b};
    return construct(b, i, true, std::forward<A>(args)...);
  }

  // Returns: the bin whose span holds p if it belongs to this pool, else
  // nullptr. Reads only words that are fixed while the bin is registered.
  bin* find_bin(const T* p) const noexcept { return static_cast<bin*>(detail::bin_directory::find(p, id_)); }

  // Returns: the index of the user chunk whose payload starts at p, or 0 if
  // p is not the start of one. Reads only the bin's fixed words.
  static std::uint32_t chunk_index(const bin& b, const T* p) noexcept {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const auto base = reinterpret_cast<std::uintptr_t>(b.chunks_);
    const std::uintptr_t lo = base + detail::first_user_chunk * ops::stride;
    const std::uintptr_t hi = base + (std::uintptr_t{b.capacity_} + detail::first_user_chunk) * ops::stride;
    if (addr < lo || addr >= hi || (addr - base) % ops::stride != 0) return 0;
    return static_cast<std::uint32_t>((addr - base) / ops::stride);
  }

  // Returns: the chunk index of the live element p in b, or 0 if p is not
  // one. Requires: b == find_bin(p) (with bin_locks: b's lock held).
  std::uint32_t live_index(const bin& b, const T* p) const noexcept {
    const std::uint32_t i = chunk_index(b, p);
    if (i == 0 || b.retired_ || i >= b.fresh_ || ops::is_free(b, i)) return 0;
    return i;
  }

  // Returns: why p is not a live element of this pool.
  static const char* locate_error(const bin* b, const T* p) noexcept {
    if (b == nullptr) return "pointer does not belong to this pool";
    if (chunk_index(*b, p) == 0) return "pointer does not point at an element of this pool (interior or pseudo chunk)";
    return "element is not live (already destroyed, or never created)";
  }

  [[noreturn]] static void throw_misuse(const char* op, const char* why) {
    throw usage_error(std::string("travpool::") + op + ": " + why);
  }

  std::pair<bin*, std::uint32_t> find_live(const T* p) const noexcept {
    [[maybe_unused]] const auto guard = sync_.guard();
    bin* b = find_bin(p);
    if (b == nullptr) return {nullptr, 0};
    [[maybe_unused]] const auto bin_guard = lock_bin(b);
    const std::uint32_t i = live_index(*b, p);
    return {i != 0 ? b : nullptr, i};
  }

  // A lock on b's lock under bin_locks; nothing otherwise.
  auto lock_bin(bin* b) const noexcept {
    if constexpr (bin_locked)
      return std::lock_guard<detail::bin_lock>(b->lock_);
    else
      return detail::no_guard{};
  }
  // The lock on spans_ under bin_locks; nothing otherwise.
  auto lock_spans() {
    if constexpr (bin_locked)
      return std::unique_lock<std::mutex>(sync_.spans_mutex_);
    else
      return detail::no_guard{};
  }
  // The exclusive list lock under bin_locks; nothing otherwise.
  auto exclusive_list() const {
    if constexpr (bin_locked)
      return std::unique_lock<std::shared_mutex>(sync_.list_mutex_);
    else
      return detail::no_guard{};
  }

  template <class It>
  std::vector<pool_subrange<It>> partition_impl(std::size_t k) {
    if (k == 0) throw std::invalid_argument("travpool::partition: k must be at least 1");
    const detail::bin_index index(&root_);
    const auto cuts = detail::balanced_cuts(index, k);
    std::vector<pool_subrange<It>> parts;
    parts.reserve(k);
    for (std::size_t r = 0; r < k; ++r)
      parts.emplace_back(It::at_bin(index.bin_or_root(cuts[r])), It::at_bin(index.bin_or_root(cuts[r + 1])),
                         index.live(cuts[r], cuts[r + 1]));
    return parts;
  }

  // Requires: chunk i of b is live (with bin_locks: b's lock held).
  // Effects: destroys the element, then frees its chunk. Without bin_locks,
  // ~T may destroy or create other elements of this pool.
  void destroy_at(bin& b, std::uint32_t i) noexcept {
    begin_change(b);
    std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
    free_chunk(b, i);
    end_change(b);
  }

  // Effects: frees chunk i of b, whose payload is dead (Listing 7).
  TRAVPOOL_ALWAYS_INLINE void free_chunk(bin& b, std::uint32_t i) noexcept {
    const bool was_full = b.full();
    algo::release(b, i);
    if constexpr (counting) {
      ++b.counters_.destroys;
      if constexpr (bin_locked)
        if (const auto claim = b.claim_.load(std::memory_order_relaxed); claim != 0 && claim != detail::thread_number())
          ++b.counters_.remote_destroys;
    }
    if constexpr (!bin_locked) {
      --size_;
      if (was_full) avail_push_front(&b);
    }
  }

  // Effects: destroys every element of b. Without bin_locks each chunk is
  // freed as its element goes, so a destructor may destroy other elements.
  // With bin_locks the caller holds b's lock (or the pool is being
  // destroyed) and the chunks are reset by the caller.
  void destroy_elements(bin& b) noexcept {
    if constexpr (!std::is_trivially_destructible_v<T>) {
      if constexpr (bin_locked) {
        if (b.live_ == 0) return;
        const std::uint32_t last = b.last();
        for (std::uint32_t i = algo::first_assigned(b); i != last; i = algo::step_forward(b, i))
          std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
      } else {
        while (b.live_ != 0) destroy_at(b, algo::first_assigned(b));
      }
    }
  }

  // Effects: adds an empty bin at the end of the bin list (and of the
  // available list). With bin_locks, reuses a retired bin first; the caller
  // holds the exclusive list lock. Throws: std::bad_alloc.
  bin* add_bin() {
    if constexpr (bin_locked)
      if (bin* b = reuse_retired()) return b;
    bin* b = make_bin();
    link_bin(b);
    return b;
  }

  // bin_locks: requires the exclusive list lock. Effects: if a retired bin
  // exists, reinitialises it and links it at the end of the bin list.
  // Returns: that bin, or nullptr.
  bin* reuse_retired() noexcept {
    bin* b = sync_.retired_;
    if (b == nullptr) return nullptr;
    std::lock_guard<detail::bin_lock> bin_guard(b->lock_);
    algo::init(*b);
    detail::bin_directory::insert(b, span_, b, id_);  // its leaves exist: no throw
    sync_.retired_ = b->avail_next_;
    b->avail_next_ = nullptr;
    b->retired_ = false;
    link_bin(b);
    return b;
  }

  // Effects: maps and initialises a bin and registers it in the directory,
  // without linking it. Its first touch (a page fault, of a huge page where
  // the kernel gives one) happens here, so that with bin_locks it happens
  // outside the list lock. With bin_locks, spans_ is guarded by its own
  // mutex. Throws: std::bad_alloc; then nothing is mapped.
  bin* make_bin() {
    void* mem;
    {
      [[maybe_unused]] const auto spans_guard = lock_spans();
      mem = spans_.take(span_);
    }
    // The header is complete before the directory publishes it.
    bin* b = ::new (mem) bin();
    b->chunks_ = static_cast<std::byte*>(mem) + detail::chunks_offset<ops>(bin_capacity_);
    b->capacity_ = bin_capacity_;
    b->owner_ = id_;
    algo::init(*b);
    try {
      detail::bin_directory::insert(mem, span_, b, id_);
    } catch (...) {
      // Unmapped, not cached: a span the directory cannot hold would fail
      // every pool that took it from the cache.
      b->~bin();
      detail::unmap_aligned(mem, span_);
      throw;
    }
    return b;
  }

  // stats::counters: what a create's scan cost, kept in the bin it chose.
  void count_scan([[maybe_unused]] bin& b, [[maybe_unused]] std::uint32_t failed,
                  [[maybe_unused]] std::uint32_t scanned) noexcept {
    if constexpr (counting) {
      b.counters_.failed_try_locks += failed;
      b.counters_.bins_scanned += scanned;
    }
  }

  void link_bin(bin* b) noexcept {
    if constexpr (counting) ++totals_.bins_allocated;
    b->prev_ = root_.prev_;
    b->next_ = &root_;
    root_.prev_->next_ = b;
    root_.prev_ = b;
    bin_count_.store(bin_count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if constexpr (!bin_locked) avail_push_back(b);
  }

  void unlink_bin(bin* b) noexcept {
    if constexpr (!bin_locked)
      if (b->in_avail_) avail_erase(b);
    b->prev_->next_ = b->next_;
    b->next_->prev_ = b->prev_;
    bin_count_.store(bin_count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    detail::bin_directory::erase(b, span_);
    if constexpr (counting) {
      ++totals_.bins_released;
      auto& r = totals_.released;
      const auto& c = b->counters_;
      r.creates += c.creates, r.destroys += c.destroys, r.remote_destroys += c.remote_destroys;
      r.failed_try_locks += c.failed_try_locks, r.bins_scanned += c.bins_scanned;
      r.peak_live += c.peak_live;
      b->counters_ = {};
    }
  }

  // Requires: b holds no live element. Effects: unmaps b.
  void release_bin(bin* b) noexcept {
    unlink_bin(b);
    unmap_bin(b);
  }

  void unmap_bin(bin* b) noexcept {
    b->~bin();
    [[maybe_unused]] const auto spans_guard = lock_spans();
    spans_.give_back(b, span_);
  }

  // bin_locks: requires b's lock (so its bias is none or the caller's own:
  // taking the lock revoked any other). Effects: b is claimed by no thread
  // and biased to none, so other threads' scans may use it.
  void release_claim(bin* b) noexcept {
    b->lock_.unbias();
    b->claim_.store(0, std::memory_order_relaxed);
  }

  // bin_locks: requires the exclusive list lock and b's lock, and no live
  // element in b. Effects: unlinks b, returns its chunk pages to the OS and
  // keeps its header mapped for threads that still remember it.
  void retire_bin(bin* b) noexcept {
    unlink_bin(b);
    b->retired_ = true;
    release_claim(b);
    b->avail_next_ = sync_.retired_;
    sync_.retired_ = b;
    const auto first_page = detail::round_up(reinterpret_cast<std::uintptr_t>(b) + detail::bin_header_bytes, 4096);
    const auto end = reinterpret_cast<std::uintptr_t>(b) + span_;
    if (end > first_page) ::madvise(reinterpret_cast<void*>(first_page), end - first_page, MADV_DONTNEED);
  }

  void release_all() noexcept {
    for (bin* b = root_.next_; !b->is_root();) {
      bin* next = b->next_;
      destroy_elements(*b);
      release_bin(b);
      b = next;
    }
    if constexpr (bin_locked) {
      while (sync_.retired_ != nullptr) {
        bin* b = sync_.retired_;
        sync_.retired_ = b->avail_next_;
        unmap_bin(b);
      }
    }
    size_ = 0;
  }

  void steal(basic_pool& o) noexcept {
    root_.next_ = root_.prev_ = &root_;
    if (!o.root_.next_->is_root()) {
      root_.next_ = o.root_.next_;
      root_.prev_ = o.root_.prev_;
      root_.next_->prev_ = &root_;
      root_.prev_->next_ = &root_;
    }
    avail_head_ = std::exchange(o.avail_head_, nullptr);
    avail_tail_ = std::exchange(o.avail_tail_, nullptr);
    size_ = std::exchange(o.size_, 0);
    bin_count_.store(o.bin_count_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    if constexpr (bin_locked) sync_.retired_ = std::exchange(o.sync_.retired_, nullptr);
    if constexpr (counting) totals_ = std::exchange(o.totals_, totals{});
    o.root_.next_ = o.root_.prev_ = &o.root_;
    o.id_ = detail::next_pool_id();
  }

  void avail_push_front(bin* b) noexcept {
    b->in_avail_ = true;
    b->avail_prev_ = nullptr;
    b->avail_next_ = avail_head_;
    if (avail_head_ != nullptr)
      avail_head_->avail_prev_ = b;
    else
      avail_tail_ = b;
    avail_head_ = b;
  }
  void avail_push_back(bin* b) noexcept {
    b->in_avail_ = true;
    b->avail_next_ = nullptr;
    b->avail_prev_ = avail_tail_;
    if (avail_tail_ != nullptr)
      avail_tail_->avail_next_ = b;
    else
      avail_head_ = b;
    avail_tail_ = b;
  }
  void avail_erase(bin* b) noexcept {
    (b->avail_prev_ != nullptr ? b->avail_prev_->avail_next_ : avail_head_) = b->avail_next_;
    (b->avail_next_ != nullptr ? b->avail_next_->avail_prev_ : avail_tail_) = b->avail_prev_;
    b->avail_next_ = b->avail_prev_ = nullptr;
    b->in_avail_ = false;
  }

  // Read on every operation, written only by construction and moves.
  bin root_;  // list root: root_.next_ is the first bin
  std::uint32_t bin_capacity_;
  size_type span_ = 0;
  std::uint64_t id_;
  // sync::none and global_mutex only.
  bin* avail_head_ = nullptr;  // bins with a free chunk; create takes the head
  bin* avail_tail_ = nullptr;
  size_type size_ = 0;
  // Written when bins are added or removed.
  std::atomic<size_type> bin_count_{0};
  detail::span_source spans_;  // where new bins come from
  [[no_unique_address]] detail::sync_state<sync_type> sync_;
  [[no_unique_address]] std::conditional_t<counting, totals, detail::no_guard> totals_;
};

// A single-threaded pool with the default (compact) layout.
template <class T>
using pool = basic_pool<T>;

// A thread-safe pool: a lock per bin, a readers-writers lock on the bin
// list, a remembered bin per thread (the paper's section 4).
template <class T>
using concurrent_pool = basic_pool<T, sync::bin_locks>;

}  // namespace travpool

#include "detail/validate.hpp"
