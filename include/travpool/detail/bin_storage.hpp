// travpool/detail/bin_storage.hpp: the bin storage layer. It owns a pool's
// bins and nothing of their payload: spans from the span source, their
// registration in the bin directory, and the bin list. The acquisition
// layers (acquire_local.hpp, bin_locks/concurrent_bins.hpp) derive from it; the
// element layer (pool.hpp) sits on top of them.
//
//   root_ <-> bin_1 <-> bin_2 <-> ... <-> bin_n <-> root_   (circular list)
//
// Invariants, with L = the bins on the list:
//   bin_count() = |L|
//   for b in L: directory.find(b's span, id()) = b, b->owner_ = id(),
//               b->capacity_ = capacity(), b's span = span() bytes,
//               aligned to span() (so the directory maps each granule to
//               at most one bin)
//   span() = max(bit_ceil(bin_bytes(capacity())), directory granule, page)
// A bin off the list is either given back (span cache or OS) or, with
// sync::bin_locks, retired: still mapped and registered with no owner.
//
// Layout-generic: `Ops` gives the chunk stride and per-bin metadata only
// (layout_traits.hpp), so bins can hold any payload or none.
// Thread safety: `BinLocked` guards the span source with a mutex (bins are
// added and given back under the acquisition layer's locks; lock order:
// docs/design.md, "Locks and their order"); the list itself is guarded by
// the layer above.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "bin.hpp"
#include "bin_algorithms.hpp"
#include "bin_directory.hpp"
#include "layout_traits.hpp"
#include "span_cache.hpp"

namespace travpool::detail {

inline std::uint64_t next_pool_id() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

struct no_lock {
  void lock() noexcept {}
  void unlock() noexcept {}
};

template <class Ops, class Stats, bool BinLocked>
class bin_storage {
 public:
  using ops = Ops;
  using algo = bin_algorithms<Ops, BinLocked>;
  using traits = layout_traits<Ops>;
  using bin = bin_base;
  using stats_hook = Stats;

  // Throws: std::invalid_argument if capacity is 0 or above 2^31 - 2^16.
  explicit bin_storage(std::uint32_t capacity) : capacity_(capacity), id_(next_pool_id()) {
    if (capacity == 0 || capacity > max_bin_capacity)
      throw std::invalid_argument("travpool: bin capacity must be in [1, 2^31 - 2^16]");
    // At least a page, so that a span's advice and unmapping never reach a
    // neighbour (pages of more than 64 KiB exist on a few systems).
    span_ = std::max({std::bit_ceil(traits::bin_bytes(capacity)), bin_directory::granule, page_size()});
  }
  bin_storage(const bin_storage&) = delete;
  bin_storage& operator=(const bin_storage&) = delete;

  bin* root() const noexcept { return const_cast<bin*>(&root_); }
  bin* first() const noexcept { return root_.next_; }
  std::uint32_t capacity() const noexcept { return capacity_; }
  std::size_t span() const noexcept { return span_; }
  std::uint64_t id() const noexcept { return id_; }
  std::size_t bin_count() const noexcept { return bin_count_.load(std::memory_order_relaxed); }
  Stats& stats_hooks() noexcept { return stats_; }
  const Stats& stats_hooks() const noexcept { return stats_; }

  // Returns: the bin of this pool whose span holds p, or nullptr. O(1).
  bin* find(const void* p) const noexcept { return static_cast<bin*>(bin_directory::find(p, id_)); }

  // Returns: the index i of the user chunk that starts at p if i < bound,
  // else 0. Requires: first_user_chunk <= bound <= capacity + 2 (fresh_,
  // or the end of the user chunks). Reads only the bin's fixed words.
  static std::uint32_t chunk_index_below(const bin& b, const void* p, std::uint32_t bound) noexcept {
    // Below chunks_, d wraps around and i is far past any bound; one
    // unsigned comparison tests first_user_chunk <= i < bound.
    const std::uintptr_t d = reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(b.chunks_);
    const std::uintptr_t i = d / Ops::stride;
    if (i * Ops::stride != d || i - first_user_chunk >= bound - first_user_chunk) return 0;
    return static_cast<std::uint32_t>(i);
  }
  // Returns: the index of the user chunk that starts at p, or 0 if p is not
  // the start of one.
  static std::uint32_t chunk_index(const bin& b, const void* p) noexcept {
    return chunk_index_below(b, p, b.capacity_ + first_user_chunk);
  }

  // Effects: maps, initialises and registers an empty bin, without linking
  // it. Its first touch (a page fault) happens here.
  // Throws: std::bad_alloc; then nothing is mapped.
  // Out of line (once per bin): inlined, it changed how GCC compiled the
  // create fast path that calls it.
  TRAVPOOL_NOINLINE bin* make_bin() {
    span_source::taken t;
    {
      std::lock_guard<spans_lock> g(spans_mutex_);
      t = spans_.take_deferred(span_);
    }
    t.touch.run(t.span, span_);  // faults, outside the lock
    void* const mem = t.span;
    // The header is complete before the directory publishes it.
    bin* b = ::new (mem) bin();
    b->chunks_ = static_cast<std::byte*>(mem) + traits::chunks_offset(capacity_);
    b->capacity_ = capacity_;
    b->owner_ = id_;
    algo::init(*b);
    try {
      bin_directory::insert(mem, span_, b, id_);
    } catch (...) {
      // Unmapped, not cached: a span the directory cannot hold would fail
      // every pool that took it from the cache.
      b->~bin();
      unmap(mem, span_);
      throw;
    }
    return b;
  }

  // Requires: b's leaves exist in the directory (it was registered before).
  // Effects: registers b again (a retired bin being reused).
  void reregister(bin* b) noexcept { bin_directory::insert(b, span_, b, id_); }

  // Effects: appends b to the bin list.
  void link(bin* b) noexcept {
    stats_.on_bin_added();
    b->prev_ = root_.prev_;
    b->next_ = &root_;
    root_.prev_->next_ = b;
    root_.prev_ = b;
    bin_count_.store(bin_count() + 1, std::memory_order_relaxed);
  }

  // Effects: removes b from the list and the directory; its counters go to
  // the pool's totals.
  void unlink(bin* b) noexcept {
    b->prev_->next_ = b->next_;
    b->next_->prev_ = b->prev_;
    bin_count_.store(bin_count() - 1, std::memory_order_relaxed);
    bin_directory::erase(b, span_);
    stats_.on_bin_removed(*b);
  }

  // Requires: b is off the list. Effects: gives b's span back (span cache,
  // this pool's span source or the OS).
  void unmap_bin(bin* b) noexcept {
    b->~bin();
    std::lock_guard<spans_lock> g(spans_mutex_);
    spans_.give_back(b, span_);
  }

  // Effects: destroy_elements(b) for every listed bin, then gives it back.
  template <class F>
  void release_all(F&& destroy_elements) noexcept {
    for (bin* b = root_.next_; !b->is_root();) {
      bin* next = b->next_;
      destroy_elements(*b);
      unlink(b);
      unmap_bin(b);
      b = next;
    }
  }

  // Effects: takes o's bins, identity and totals; o becomes empty with a
  // new identity. O(1).
  void steal(bin_storage& o) noexcept {
    capacity_ = o.capacity_;
    span_ = o.span_;
    id_ = std::exchange(o.id_, next_pool_id());
    root_.next_ = root_.prev_ = &root_;
    if (!o.root_.next_->is_root()) {
      root_.next_ = o.root_.next_;
      root_.prev_ = o.root_.prev_;
      root_.next_->prev_ = &root_;
      root_.prev_->next_ = &root_;
    }
    o.root_.next_ = o.root_.prev_ = &o.root_;
    bin_count_.store(o.bin_count_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    stats_ = std::exchange(o.stats_, Stats{});
  }

  // Requires: &o != this, o.capacity() == capacity(), both quiescent (the
  // layer above holds both lists' locks).
  // Effects: moves o's listed bins, in their order, to the end of this
  // pool's list: each is owned by id() and registered under it in the
  // directory. o keeps its totals (and, with sync::bin_locks, its retired
  // bins) and takes a new identity, so what other threads remember of o
  // names no bin of this pool. Returns: the number of bins moved.
  // Complexity: O(bins of o x granules per bin).
  std::size_t splice(bin_storage& o) noexcept {
    std::size_t n = 0;
    bin* const first = o.root_.next_;
    for (bin* b = first; !b->is_root(); b = b->next_, ++n) {
      b->owner_ = id_;
      reregister(b);
    }
    if (n != 0) {
      bin* const last = o.root_.prev_;
      first->prev_ = root_.prev_;
      root_.prev_->next_ = first;
      last->next_ = &root_;
      root_.prev_ = last;
      o.root_.next_ = o.root_.prev_ = &o.root_;
      bin_count_.store(bin_count() + n, std::memory_order_relaxed);
      o.bin_count_.store(0, std::memory_order_relaxed);
      stats_.on_bins_spliced_in(n);
      o.stats_.on_bins_spliced_out(n);
    }
    o.id_ = next_pool_id();
    return n;
  }

 private:
  using spans_lock = std::conditional_t<BinLocked, std::mutex, no_lock>;

  // Read on every operation, written only by construction and moves.
  bin root_;  // list root: root_.next_ is the first bin
  std::uint32_t capacity_;
  std::size_t span_ = 0;
  std::uint64_t id_;
  std::atomic<std::size_t> bin_count_{0};  // written when bins are added or removed
  span_source spans_;                      // where new bins come from
  [[no_unique_address]] spans_lock spans_mutex_;
  [[no_unique_address]] Stats stats_;
};

}  // namespace travpool::detail
