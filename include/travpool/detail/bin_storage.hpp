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
//   chunk_count() = sum over b in L of b->capacity_
//   span_bytes()  = sum over b in L of span_of(*b)
//   for b in L not small: directory.find(b's span, id()) = b, b->owner_ = id(),
//               b's span = span_of(*b) = span_for(b->capacity_) bytes,
//               aligned to it (span_source) or to the directory's granule
//               (allocator_spans); either way the directory maps each
//               granule to at most one bin
//   span_for(c) = max(bit_ceil(bin_bytes(c)), directory granule, page)
//               (a small bin: below)
//   b before c in L  =>  rank(b) < rank(c)   (layout_traits::keeps_rank:
//               append and splice rank a bin above the list's last one)
// capacity() is the capacity of the bins make_bin() makes once grown
// (Growth, below), span() = span_for(capacity()). Every bin a pool makes has capacity(); bins of
// other capacities come in by splice, and stay until given back (or,
// with sync::bin_locks, retired: concurrent_bins reuses only retired bins
// of capacity(); concurrent_pool's splice requires equal capacities,
// concurrent_hive's does not).
// A bin off the list is either given back (span cache or OS) or, with
// sync::bin_locks, retired: still mapped, and out of the directory.
//
// Growth (pool<T> made without a bin capacity: grow_from; sync::none and
// sync::global_mutex only): next_capacity() is the capacity of the next
// bin make_bin makes; next_bytes_ what it fills (0: no growth):
//   next_bytes_ = 0  =>  next_capacity() = capacity()
//   growing: the k-th bin made fills first_bytes * 2^k (its capacity:
//            small_capacity_for(bytes), at least 8, below a granule,
//            else traits::capacity_for_span(bytes)), until that reaches
//            capacity() or span(); then next_capacity() = capacity()
// A growing bin below capacity() whose capacity is small is a small bin
// where the source makes them only while growing (small_span_source,
// Spans::small_bins_while_growing), so a pool given a bin capacity makes
// registered bins of exactly that capacity. A growing bin made registered
// fills its span: capacity min(capacity(), capacity_for_span(span_for(c))).
//
// Small bins (a hive's: Spans = allocator_spans, sync::none; a growing
// pool's: small_span_source; alignof of the chunks <= the span source's
// small_align, 16): a bin whose
// small_bytes(c) = bin_bytes(c) + small_gap (64), rounded up to 16, is at
// most 32 KiB is made as one allocation of exactly that size while fewer
// than max_small_bins (16) small bins are listed; else as a registered bin
// (a granule-aligned span). A small bin is not in the directory; its
// chunks start small_gap after where a registered bin's would, and the
// gap holds its record {next, prev, bytes}, which links the storage's
// small bins' list:
//   b small  <=>  b.chunks_ == (byte*)&b + chunks_offset(b.capacity_) + small_gap
//   span_of(b) = its record's bytes;  small_bin_count() = |small bins in L|,
//   each on the small list once, and no other bin is
//   find(p): the directory; on a miss, the small bin whose chunks [A0, A1]
//   hold p (a scan of the small list)
// The allocation of a small bin is not granule-aligned, so no granule of
// it is another bin's; registered bins own their granules whole.
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

// Returns: the inverse of odd m modulo 2^W, W the bits of uintptr_t
// (Newton's iteration x <- x (2 - m x): exact to 3 bits from x = m, it
// doubles them at each step, so 5 steps reach 96).
constexpr std::uintptr_t odd_inverse(std::uintptr_t m) noexcept {
  std::uintptr_t x = m;
  for (int k = 0; k < 5; ++k) x *= 2 - m * x;
  return x;
}
static_assert(odd_inverse(3) * 3 == 1 && odd_inverse(5) * 5 == 1 && odd_inverse(1) == 1);

inline std::uint64_t next_pool_id() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

struct no_lock {
  void lock() noexcept {}
  void unlock() noexcept {}
};

template <class Ops, class Stats, bool BinLocked, class Spans = span_source>
class bin_storage {
 public:
  using ops = Ops;
  using algo = bin_algorithms<Ops, BinLocked>;
  using traits = layout_traits<Ops>;
  using bin = bin_base;
  using stats_hook = Stats;

  using spans_type = Spans;

  // Effects: a storage without bins, whose bins will have `capacity`
  // chunks; its span source is made from `spans_args`.
  // Throws: std::invalid_argument if capacity is 0 or above 2^31 - 2^16.
  template <class... SpansArgs>
  explicit bin_storage(std::uint32_t capacity, SpansArgs&&... spans_args)
      : capacity_(capacity), id_(next_pool_id()), spans_(std::forward<SpansArgs>(spans_args)...) {
    set_capacity(capacity);
  }
  // Effects: the bins make_bin makes from now on have `capacity` chunks
  // (bins made before keep theirs).
  // Throws: std::invalid_argument if capacity is 0 or above 2^31 - 2^16;
  // then nothing changes.
  void set_capacity(std::uint32_t capacity) {
    if (capacity == 0 || capacity > max_bin_capacity)
      throw std::invalid_argument("travpool: bin capacity must be in [1, 2^31 - 2^16]");
    capacity_ = capacity;
    span_ = span_for(capacity);
    next_capacity_ = capacity;
    next_bytes_ = 0;
  }

  // Growth (pool<T> constructed without a bin capacity; design note):
  // Effects: the bins make_bin makes from now on grow: the next one fills
  // first_bytes (a power of two; a small bin where the source makes them,
  // else at least a granule), each one after it twice the bytes of the one
  // before, up to capacity() chunks; from then on they have capacity().
  // Requires: no bin was made yet.
  void grow_from(std::size_t first_bytes) noexcept {
    next_bytes_ = small_capacity(1) ? first_bytes : (std::max)(first_bytes, span_for(1));
    next_capacity_ = (std::min)(capacity_for_bytes(next_bytes_), capacity_);
  }
  // Returns: whether this storage was made to grow (grow_from).
  bool grows() const noexcept { return next_bytes_ != 0; }
  // Returns: the capacity of the next bin make_bin makes (capacity() once
  // grown, or without growth).
  std::uint32_t next_capacity() const noexcept { return next_capacity_; }
  // Effects: while the bins grow and the next one has fewer than `chunks`
  // chunks, skips a step of growth (reserve(n): bins that hold n at once).
  void grow_for(std::size_t chunks) noexcept {
    while (next_capacity_ != capacity_ && next_capacity_ < chunks) advance_growth();
  }
  // Returns: the span of a bin of `capacity` chunks. At least a page, so
  // that a span's advice and unmapping never reach a neighbour (pages of
  // more than 64 KiB exist on a few systems).
  static std::size_t span_for(std::uint32_t capacity) noexcept {
    return (std::max)({std::bit_ceil(traits::bin_bytes(capacity)), bin_directory::granule, page_size()});
  }
  // Returns: the span of bin b (b was made by a storage of this layout):
  // for a small bin, the bytes of its allocation.
  std::size_t span_of(const bin& b) const noexcept {
    if constexpr (small_bins) {
      if (is_small(b)) return small_record(b).bytes;
    }
    return b.capacity_ == capacity_ ? span_ : span_for(b.capacity_);
  }
  // Returns: the bytes of the listed small bins' allocations.
  std::size_t small_span_bytes() const noexcept {
    if constexpr (small_bins)
      return small_.bytes;
    else
      return 0;
  }

  // Small bins (design note above): whether this storage makes them, the
  // most it makes while it lists that many, and the largest allocation one
  // takes.
  static constexpr bool small_bins = [] {
    if constexpr (requires { Spans::small_bins; })
      return !BinLocked && Spans::small_bins;
    else
      return false;
  }();
  static constexpr std::size_t max_small_bins = 16;
  static constexpr std::size_t small_max_bytes = bin_directory::granule / 2;
  // The small bin record, between the layout's metadata and the chunks.
  struct small_record_type {
    bin* next;
    bin* prev;
    std::size_t bytes;  // of the allocation
  };
  static constexpr std::size_t small_gap = 64;
  // Returns: the bytes a small bin of `capacity` chunks takes.
  static constexpr std::size_t small_bytes(std::uint32_t capacity) noexcept {
    return round_up(traits::bin_bytes(capacity) + small_gap, small_unit());
  }
  // Returns: whether a bin of `capacity` chunks is made small (when fewer
  // than max_small_bins are listed).
  static constexpr bool small_capacity(std::uint32_t capacity) noexcept {
    if constexpr (small_bins)
      return Ops::chunk_align <= small_unit() && small_bytes(capacity) <= small_max_bytes;
    else
      return false;
  }
  // Returns: the largest capacity whose small bin takes at most `bytes`
  // (at least 1).
  static constexpr std::uint32_t small_capacity_for(std::size_t bytes) noexcept {
    const std::size_t whole = bytes / small_unit() * small_unit();
    return traits::capacity_for_span(whole > small_gap ? whole - small_gap : 0);
  }
  // Returns: whether b is a small bin: its chunks lie small_gap further
  // from its header than a registered bin's.
  static bool is_small(const bin& b) noexcept {
    if constexpr (small_bins)
      return b.chunks_ != reinterpret_cast<const std::byte*>(&b) + traits::chunks_offset(b.capacity_);
    else
      return false;
  }
  // Returns: the small bins listed.
  std::size_t small_bin_count() const noexcept {
    if constexpr (small_bins)
      return small_.count;
    else
      return 0;
  }
  bin_storage(const bin_storage&) = delete;
  bin_storage& operator=(const bin_storage&) = delete;

  bin* root() const noexcept { return const_cast<bin*>(&root_); }
  bin* first() const noexcept { return root_.next_; }
  std::uint32_t capacity() const noexcept { return capacity_; }
  std::size_t span() const noexcept { return span_; }
  std::uint64_t id() const noexcept { return id_; }
  std::size_t bin_count() const noexcept { return bin_count_.load(std::memory_order_relaxed); }
  Spans& spans() noexcept { return spans_; }
  const Spans& spans() const noexcept { return spans_; }
  // Returns: the chunks of the listed bins (of every capacity).
  std::size_t chunk_count() const noexcept { return chunk_count_.load(std::memory_order_relaxed); }
  // Returns: the bytes of the listed bins' spans.
  std::size_t span_bytes() const noexcept { return span_bytes_.load(std::memory_order_relaxed); }
  Stats& stats_hooks() noexcept { return stats_; }
  const Stats& stats_hooks() const noexcept { return stats_; }

  // Returns: the bin of this pool whose span holds p, or nullptr. O(1)
  // through the directory; with small bins, a miss then looks at each
  // small bin (at most max_small_bins, but for those spliced in).
  bin* find(const void* p) const noexcept {
    bin* const b = static_cast<bin*>(bin_directory::find(p, id_));
    if constexpr (small_bins) {
      if (b == nullptr && small_.head != nullptr) return find_small(p);
    }
    return b;
  }

  // Returns: the index i of the user chunk that starts at p if i < bound,
  // else 0. Requires: first_user_chunk <= bound <= capacity + 2 (fresh_,
  // or the end of the user chunks). Reads only the bin's fixed words.
  // (An exact division: with stride = m 2^s, m odd, and m' the inverse of
  // m modulo 2^W (W the bits of uintptr_t), i = rotr(d m', s) is d / stride
  // when stride divides d, and above (2^W - 1) / stride when it does not
  // (Granlund and Montgomery, "Division by invariant integers using
  // multiplication", section 9). So p between chunk starts, as p below
  // chunks_ (d wraps around), gives an i past any bound, since
  // bound * stride fits in a span; and one unsigned comparison tests
  // first_user_chunk <= i < bound.)
  static std::uint32_t chunk_index_below(const bin& b, const void* p, std::uint32_t bound) noexcept {
    // (Here, not members: Ops::stride needs a complete T.)
    constexpr int stride_shift = std::countr_zero(Ops::stride);
    constexpr std::uintptr_t stride_odd_inverse = odd_inverse(Ops::stride >> stride_shift);
    const std::uintptr_t d = reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(b.chunks_);
    const std::uintptr_t i = std::rotr(d * stride_odd_inverse, stride_shift);
    if (i - first_user_chunk >= bound - first_user_chunk) return 0;
    return static_cast<std::uint32_t>(i);
  }
  // Returns: the index of the live user chunk that starts at p, or 0; read
  // without b's lock while other threads may change b (BinLocked: the words
  // that say whether a chunk is live are written with relaxed stores, and a
  // retired bin stays mapped and reads as free).
  static std::uint32_t live_index_relaxed(const bin& b, const void* p) noexcept {
    const std::uint32_t i = chunk_index(b, p);
    return i != 0 && !load_relaxed(b.retired_) && algo::is_live_relaxed(b, i) ? i : 0;
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
    std::uint32_t cap = next_capacity_;
    if constexpr (small_bins) {
      if (small_.count < max_small_bins && small_capacity(cap) && (cap != capacity_ || !small_while_growing)) {
        if (bin* b = make_small_bin(cap)) {
          advance_growth();
          return b;
        }
      }
    }
    // A growing bin that is registered fills its span (a small capacity
    // past max_small_bins takes a granule's).
    if (cap != capacity_) cap = (std::min)(capacity_, traits::capacity_for_span(span_for(cap)));
    const std::size_t span = cap == capacity_ ? span_ : span_for(cap);
    typename Spans::taken t;
    {
      std::lock_guard<spans_lock> g(spans_mutex_);
      t = spans_.take_deferred(span);
    }
    t.touch.run(t.span, span);  // faults, outside the lock
    void* const mem = t.span;
    // The header is complete before the directory publishes it.
    bin* b = ::new (mem) bin();
    b->chunks_ = static_cast<std::byte*>(mem) + traits::chunks_offset(cap);
    b->capacity_ = cap;
    b->owner_ = id_;
    algo::init(*b);
    try {
      bin_directory::insert(mem, span, b, id_);
    } catch (...) {
      // Discarded, not cached: a span the directory cannot hold would
      // fail every pool that took it from the cache.
      b->~bin();
      std::lock_guard<spans_lock> g(spans_mutex_);
      spans_.discard(mem, span);
      throw;
    }
    advance_growth();
    return b;
  }

  // Requires: b's leaves exist in the directory (it was registered before).
  // Effects: registers b again (a retired bin being reused).
  void reregister(bin* b) noexcept { bin_directory::insert(b, span_of(*b), b, id_); }

  // Effects: appends b to the bin list.
  void link(bin* b) noexcept {
    stats_.on_bin_added();
    append(b);
  }

  // Effects: removes b from the list and the directory (a small bin: from
  // the small bins); its counters go to the pool's totals.
  void unlink(bin* b) noexcept {
    if (is_small(*b)) {
      small_erase(b);
      detach(b);
    } else {
      bin_directory::erase(b, detach(b));
    }
    stats_.on_bin_removed(*b);
  }

  // Requires: b is off the list. Effects: gives b's span back (span cache,
  // this pool's span source or the OS).
  void unmap_bin(bin* b) noexcept {
    const std::size_t span = span_of(*b);
    if constexpr (small_bins) {
      if (is_small(*b)) {
        b->~bin();
        spans_.give_back_small(b, span);
        return;
      }
    }
    b->~bin();
    std::lock_guard<spans_lock> g(spans_mutex_);
    spans_.give_back(b, span);
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
    next_capacity_ = o.next_capacity_;
    next_bytes_ = o.next_bytes_;
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
    chunk_count_.store(o.chunk_count_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    span_bytes_.store(o.span_bytes_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    stats_ = std::exchange(o.stats_, Stats{});
    spans_.adopt(o.spans_);
    if constexpr (small_bins) {
      small_ = std::exchange(o.small_, small_list{});
    }
  }

  // Requires: &o != this, b on o's list, both quiescent, no thread
  // remembers b (sync::none).
  // Effects: moves b to the end of this storage's list, owned by id() and
  // registered under it; its counters go with it (stats: spliced).
  // Complexity: O(b's span / 64 KiB).
  void move_bin(bin_storage& o, bin* b) noexcept {
    const bool small = is_small(*b);
    if (small) o.small_erase(b);
    const std::size_t span = o.detach(b);
    o.stats_.on_bins_spliced_out(1);
    b->owner_ = id_;
    if (small)
      small_push(b);
    else
      reregister(b);
    append(b);
    stats_.on_bins_spliced_in(1);
    spans_.adopt(o.spans_, b, span);
  }

  // Requires: &o != this, both quiescent (the layer above holds both
  // lists' locks). o's bins may have any capacity; they keep it.
  // Effects: moves o's listed bins, in their order, to the end of this
  // pool's list: each is owned by id() and registered under it in the
  // directory. o keeps its totals (and, with sync::bin_locks, its retired
  // bins) and takes a new identity, so what other threads remember of o
  // names no bin of this pool. Returns: the number of bins moved.
  // Complexity: O(bins of o x granules per bin).
  std::size_t splice(bin_storage& o) noexcept {
    std::size_t n = 0;
    bin* const first = o.root_.next_;
    std::uint64_t rank = 0;
    if constexpr (traits::keeps_rank) rank = next_rank();
    for (bin* b = first; !b->is_root(); b = b->next_, ++n) {
      b->owner_ = id_;
      if constexpr (traits::keeps_rank) traits::set_rank(*b, rank++);
      if (!is_small(*b)) reregister(b);
    }
    if constexpr (small_bins) {
      while (o.small_.head != nullptr) {
        bin* const s = o.small_.head;
        o.small_erase(s);
        small_push(s);
      }
    }
    if (n != 0) {
      bin* const last = o.root_.prev_;
      first->prev_ = root_.prev_;
      root_.prev_->next_ = first;
      last->next_ = &root_;
      root_.prev_ = last;
      o.root_.next_ = o.root_.prev_ = &o.root_;
      count_bins(n, o.chunk_count(), o.span_bytes());
      o.count_bins(-n, -o.chunk_count(), -o.span_bytes());  // to 0, 0, 0
      stats_.on_bins_spliced_in(n);
      o.stats_.on_bins_spliced_out(n);
      spans_.adopt(o.spans_);
    }
    o.id_ = next_pool_id();
    return n;
  }

 private:
  static constexpr std::size_t small_unit() noexcept {
    if constexpr (requires { Spans::small_align; })
      return Spans::small_align;
    else
      return 16;
  }
  // Whether small bins are made only while the bins grow (small_span_source).
  static constexpr bool small_while_growing = [] {
    if constexpr (requires { Spans::small_bins_while_growing; })
      return Spans::small_bins_while_growing;
    else
      return false;
  }();
  // Returns: the chunks of a bin that fills `bytes` (a power of two): a
  // small bin's below a granule where small bins are made (at least 8).
  static std::uint32_t capacity_for_bytes(std::size_t bytes) noexcept {
    if (bytes < bin_directory::granule && small_capacity(1))
      return (std::max)(std::uint32_t{8}, small_capacity_for(bytes));
    return traits::capacity_for_span(bytes);
  }
  // Effects: one step of growth: the next bin fills twice the bytes, and
  // has capacity() once that many chunks would reach it.
  void advance_growth() noexcept {
    if (next_capacity_ == capacity_) return;
    std::uint32_t c;
    do {  // (a large chunk: the least small bin may span a few doublings)
      next_bytes_ *= 2;
      c = capacity_for_bytes(next_bytes_);
    } while (c <= next_capacity_ && next_bytes_ < span_);
    next_capacity_ = c >= capacity_ || next_bytes_ >= span_ ? capacity_ : c;
  }
  static small_record_type& small_record(const bin& b) noexcept {
    return *std::launder(reinterpret_cast<small_record_type*>(b.chunks_ - small_gap));
  }
  // Returns: a new small bin of capacity() chunks, on the small bins'
  // list, or nullptr if the span source gave no suitably aligned memory.
  // Throws: what the allocator throws; then nothing is held.
  bin* make_small_bin(std::uint32_t capacity) {
    const std::size_t bytes = small_bytes(capacity);
    void* const mem = spans_.take_small(bytes);
    if (mem == nullptr) return nullptr;
    bin* b = ::new (mem) bin();
    b->chunks_ = static_cast<std::byte*>(mem) + traits::chunks_offset(capacity) + small_gap;
    b->capacity_ = capacity;
    b->owner_ = id_;
    ::new (static_cast<void*>(b->chunks_ - small_gap)) small_record_type{nullptr, nullptr, bytes};
    algo::init(*b);
    small_push(b);
    return b;
  }
  // The small bins' list (unordered, doubly linked through their records).
  void small_push([[maybe_unused]] bin* b) noexcept {
    if constexpr (small_bins) {
      small_record_type& r = small_record(*b);
      r.prev = nullptr;
      r.next = small_.head;
      if (small_.head != nullptr) small_record(*small_.head).prev = b;
      small_.head = b;
      ++small_.count;
      small_.bytes += r.bytes;
    }
  }
  void small_erase([[maybe_unused]] bin* b) noexcept {
    if constexpr (small_bins) {
      small_record_type& r = small_record(*b);
      (r.prev != nullptr ? small_record(*r.prev).next : small_.head) = r.next;
      if (r.next != nullptr) small_record(*r.next).prev = r.prev;
      --small_.count;
      small_.bytes -= r.bytes;
    }
  }
  // Returns: the small bin whose chunks hold p, or nullptr.
  TRAVPOOL_NOINLINE bin* find_small(const void* p) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (bin* b = small_.head; b != nullptr; b = small_record(*b).next) {
      const auto first = reinterpret_cast<std::uintptr_t>(b->chunks_);
      if (a - first < (std::size_t{b->capacity_} + 4) * Ops::stride) return b;
    }
    return nullptr;
  }

  // Effects: appends b to the list and adds it to the totals (its
  // directory entries and statistics are the caller's).
  void append(bin* b) noexcept {
    if constexpr (traits::keeps_rank) traits::set_rank(*b, next_rank());
    b->prev_ = root_.prev_;
    b->next_ = &root_;
    root_.prev_->next_ = b;
    root_.prev_ = b;
    count_bins(1, b->capacity_, span_of(*b));
  }
  // Returns: the rank for a bin appended now: above the last bin's
  // (layout_traits::rank).
  std::uint64_t next_rank() const noexcept { return root_.prev_->is_root() ? 0 : traits::rank(*root_.prev_) + 1; }
  // Effects: takes b off the list and out of the totals (likewise).
  // Returns: b's span.
  std::size_t detach(bin* b) noexcept {
    b->prev_->next_ = b->next_;
    b->next_->prev_ = b->prev_;
    const std::size_t span = span_of(*b);
    count_bins(static_cast<std::size_t>(-1), -std::size_t{b->capacity_}, -span);
    return span;
  }

  // Effects: adds the three deltas (modulo 2^64) to the list's totals.
  // Written only by the thread that changes the list; relaxed atomics so
  // that size and capacity queries may read them from any thread.
  void count_bins(std::size_t bins, std::size_t chunks, std::size_t bytes) noexcept {
    bin_count_.store(bin_count() + bins, std::memory_order_relaxed);
    chunk_count_.store(chunk_count() + chunks, std::memory_order_relaxed);
    span_bytes_.store(span_bytes() + bytes, std::memory_order_relaxed);
  }

  using spans_lock = std::conditional_t<BinLocked, std::mutex, no_lock>;

  // Read on every operation, written only by construction and moves.
  bin root_;  // list root: root_.next_ is the first bin
  std::uint32_t capacity_;
  std::uint32_t next_capacity_ = 0;  // of the next bin make_bin makes (growth)
  std::size_t span_ = 0;
  std::size_t next_bytes_ = 0;  // what the next growing bin fills; 0: no growth
  std::uint64_t id_;
  std::atomic<std::size_t> bin_count_{0};  // written when bins are added or removed
  std::atomic<std::size_t> chunk_count_{0};
  std::atomic<std::size_t> span_bytes_{0};
  Spans spans_;  // where new bins come from
  // Small bins (hive): the list of the listed ones, through their records
  // (nothing in storages without small bins).
  struct small_list {
    bin* head = nullptr;
    std::size_t count = 0;
    std::size_t bytes = 0;  // of their allocations
  };
  struct no_small_list {};
  [[no_unique_address]] std::conditional_t<small_bins, small_list, no_small_list> small_;
  [[no_unique_address]] spans_lock spans_mutex_;
  [[no_unique_address]] Stats stats_;
};

}  // namespace travpool::detail
