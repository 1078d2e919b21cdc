// travpool/column_pool.hpp: basic_column_pool, a pool of 32-bit handles
// with typed columns (structure of arrays) hanging off it.
//
// DESIGN NOTE
// ===========
// The slots are the chunks of payload-less bins of the bin layer
// (detail/slot_bins.hpp): the bitmap, the LIFO free list, free-run
// skipping, live counts, partitions and the sync policies are basic_pool's
// own (bin_storage + the acquisition layer of the sync policy +
// bin_algorithms over compact_layout<6, 2, u16>). Every bin takes a dense index
// q < max_bins when it is added:
//
//   capacity  = bin_slots = 2^s (s >= 12),   max_bins = max_slots / bin_slots
//   handle    = q * bin_slots + (i - 2)      for user chunk i of bin q
//   bins_[q]  = the bin of index q, or null (detail/slot_index.hpp);
//              handle_base(bins_[q]) = q * bin_slots - 2
//   is_live(h) <=> bins_[h >> s] != null and chunk (h & (bin_slots - 1)) + 2 is assigned
//
// Columns (detail/column_storage.hpp) are reserved for max_slots elements
// each when added, so an element is column.data()[h] and never moves:
//
//   bins_[q] != null  =>  block q of every column is committed
//   bins_[q] == null  =>  block q's own pages are not (a page it shares with
//                         a neighbour block may be: columns are staggered)
//   h live            <=>  every column holds a constructed T at h
//
// What happens when:
//   construction      nothing is mapped; bins_ (one pointer per possible bin)
//   add_column        the column's reservation; block q committed for every
//                     bin q, and init copied to every live handle
//   create            a slot from the bin layer; a new bin takes the lowest
//                     free index q and commits block q of every column; then
//                     init is copied into every column at h
//   destroy           every column's element at h destroyed, the slot freed
//                     (Listing 7): O(1 + non-trivially destructible columns)
//   reserve(n)        as create's new bin, until capacity >= n: block q of
//                     every column committed before the bin is added
//   shrink_to_fit     empty bins: blocks decommitted, index freed, bin given
//                     back; live handles are unchanged
//   remove_column     its live elements destroyed, its range unmapped
//   destruction       every element destroyed, bins and ranges given back
//
// Concurrency (sync::bin_locks, sync::global_mutex): create, destroy,
// is_live and size are thread-safe. A new bin gets its index before any
// other thread can create in it: under bin_locks it is claimed by the
// creating thread (other threads' scans skip it) until that thread takes
// another bin, and under global_mutex the whole create holds the one mutex
// (the bin layer is then local_bins). Everything else (adding, finding and removing
// columns, iterating, partitioning, reserve, shrink_to_fit, compact, clear,
// validate) needs a quiescent pool. Reading and writing column elements is
// the caller's business: distinct handles are distinct memory.
//
// Files: detail/column_pool_parts.hpp (options, bin layer, column set,
// locks), detail/column_pool_columns.hpp (the column API, a base),
// detail/column_pool_impl.hpp (compact, validate).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "detail/acquire_concurrent.hpp"
#include "detail/acquire_local.hpp"
#include "detail/bin_storage.hpp"
#include "detail/column_pool_columns.hpp"
#include "detail/column_pool_parts.hpp"
#include "detail/partition.hpp"
#include "detail/slot_bins.hpp"
#include "detail/slot_index.hpp"
#include "detail/stats_hooks.hpp"
#include "detail/validate.hpp"
#include "options.hpp"
#include "stats.hpp"
#include "usage_error.hpp"

namespace travpool {

// A maximal run [first, last) of live handles (segments()).
using handle_run = detail::handle_run;

inline constexpr std::uint32_t default_column_bin_slots = 1u << 15;
inline constexpr std::uint64_t default_max_slots = std::uint64_t{1} << 28;

inline namespace TRAVPOOL_ABI_NAMESPACE {

// Options: sync::{none, bin_locks, global_mutex}, stats::{none, counters},
// checks::{off, on} (default: TRAVPOOL_CHECKS). The layout is always
// compact (a layout option other than layout::compact is rejected).
template <class... Options>
class basic_column_pool : private detail::column_pool_parts<Options...>,
                          public detail::column_pool_columns<basic_column_pool<Options...>> {
  using parts = detail::column_pool_parts<Options...>;
  friend detail::column_pool_columns<basic_column_pool>;
  using bin = detail::bin_base;
  using ops = detail::slot_ops;
  using core_type = typename parts::core_type;
  using algo = typename parts::storage::algo;
  static constexpr bool checked = parts::checked;
  static constexpr bool bin_locked = parts::bin_locked;

 public:
  using sync_type = typename parts::sync_type;
  using stats_type = typename parts::stats_type;
  using checks_type = typename parts::checks_type;
  using handle = std::uint32_t;
  static constexpr handle null_handle = 0xffff'ffffu;
  using iterator = detail::handle_iterator;
  using const_iterator = iterator;
  using subrange = pool_subrange<iterator>;
  using range_type = detail::bin_range<iterator>;
  using remap_type = handle_remap;

  // Effects: an empty pool for up to max_slots handles (rounded up to a
  // multiple of bin_slots) in bins of bin_slots slots. Maps nothing.
  // Throws: std::invalid_argument if bin_slots is not a power of two in
  // [4096, 2^15] or max_slots is 0 or above 2^32 - bin_slots.
  explicit basic_column_pool(std::uint64_t max_slots = default_max_slots,
                             std::uint32_t bin_slots = default_column_bin_slots)
      : parts(bin_slots), index_(max_slots, bin_slots) {}
  basic_column_pool(const basic_column_pool&) = delete;
  basic_column_pool& operator=(const basic_column_pool&) = delete;
  // Effects: takes o's handles, columns and memory: handles and column keys
  // of o name the same elements in *this. o is left empty, with no column
  // and no handle room (its create throws std::bad_alloc) until it is
  // assigned to. Requires: o quiescent. O(1).
  basic_column_pool(basic_column_pool&& o) noexcept : parts(o.bin_slots()), index_(std::move(o.index_)) {
    this->core_.steal(o.core_);
    this->columns_ = std::exchange(o.columns_, detail::column_set{});
  }
  // Effects: release(), then as the move constructor.
  basic_column_pool& operator=(basic_column_pool&& o) noexcept {
    if (this != &o) {
      release();
      this->core_.steal(o.core_);
      this->columns_ = std::exchange(o.columns_, detail::column_set{});
      index_ = std::move(o.index_);
    }
    return *this;
  }
  // Effects: destroys every element of every column and gives back all memory.
  ~basic_column_pool() { release(); }

  // --- columns (quiescent pool): add_column, get_column, has_column,
  // column_count, remove_column (detail/column_pool_columns.hpp) ---

  // --- handles ---

  // Effects: a live handle whose every column holds a copy of its column's
  // initial value (a reused slot never shows what it held before).
  // Throws: std::bad_alloc if a new bin or its column blocks are refused,
  // or all max_slots handles are live; what a column's copy constructor
  // throws. Then the pool is unchanged. Complexity: O(1 + columns).
  // Thread-safe with sync::bin_locks and sync::global_mutex. Columns' copy
  // constructors and destructors must not use the pool.
  handle create() {
    [[maybe_unused]] auto g = this->serialise();
    const detail::taken t = this->core_.take();
    if (t.new_bin) [[unlikely]]
      assign_index(t);
    const handle h = detail::handle_base(*t.bin) + t.index;
    try {
      this->columns_.construct(h);
    } catch (...) {
      untake(t);
      throw;
    }
    return h;
  }

  // Effects: destroys h's elements in every column and frees its slot.
  // Throws: usage_error if h is not live (stale, never issued, foreign);
  // then nothing changes. Complexity: O(1 + non-trivial columns).
  // Thread-safe with sync::bin_locks and sync::global_mutex.
  void destroy(handle h) {
    [[maybe_unused]] auto g = this->serialise();
    bin* b = index_.bin_of(h);
    if (b == nullptr) throw usage_error("travpool: destroy of a handle that names no bin of this pool");
    const std::uint32_t i = index_.chunk_of(h);
    this->core_.locked(*b, [&] {
      if (!algo::is_live(*b, i)) throw usage_error("travpool: destroy of a handle that is not live");
      destroy_values(h);
      this->core_.free_chunk(*b, i);
    });
  }

  // Returns: whether h is live; any value is safe. O(1). Thread-safe (with
  // sync::bin_locks exact for handles not created or destroyed meanwhile).
  bool is_live(handle h) const noexcept {
    [[maybe_unused]] auto g = this->serialise();
    const bin* b = index_.bin_of(h);
    if (b == nullptr) return false;
    if constexpr (bin_locked)
      return algo::is_live_relaxed(*b, index_.chunk_of(h));
    else
      return algo::is_live(*b, index_.chunk_of(h));
  }

  // Returns: c[h]. Throws: usage_error if h is not live.
  template <class T>
  T& at(column<T> c, handle h) const {
    if (!is_live(h)) throw usage_error("travpool: column access through a handle that is not live");
    return c[h];
  }
  // Returns: c[h]; checked as at() under checks::on, unchecked otherwise.
  template <class T>
  T& get(column<T> c, handle h) const noexcept(!checked) {
    if constexpr (checked) return at(c, h);
    return c[h];
  }

  std::size_t size() const noexcept {
    [[maybe_unused]] auto g = this->serialise();
    return this->core_.size();
  }
  bool empty() const noexcept { return size() == 0; }
  std::size_t bin_count() const noexcept { return this->core_.bin_count(); }
  std::uint32_t bin_slots() const noexcept { return this->core_.capacity(); }
  // Returns: the handle bound: every handle is below max_slots().
  std::uint64_t max_slots() const noexcept { return index_.max_slots(); }
  // Returns: slots in the bins held (live or not).
  std::size_t capacity() const noexcept { return bin_count() * bin_slots(); }

  // --- traversal (quiescent pool) ---

  // Live handles in bin-list order, ascending within a bin. Valid while no
  // handle is created or destroyed (a destroyed handle drops out).
  iterator begin() const noexcept { return iterator::first_from(this->core_.first()); }
  iterator end() const noexcept { return iterator::at_end(this->core_.root()); }
  // Returns: the maximal runs [first, last) of live handles, in iteration
  // order; their union is exactly the live set.
  detail::run_range segments() const noexcept { return begin().segments_until(end()); }
  // Returns: the runs of a part of partition() or of a range().
  template <class Range>
  static detail::run_range segments(const Range& r) noexcept {
    return r.begin().segments_until(r.end());
  }
  // Effects: f(h) for every live handle, a bitmap word at a time.
  template <class F>
  void for_each(F&& f) const {
    begin().for_each_until(end(), f);
  }
  // Returns: k parts of whole bins covering the live handles once, balanced
  // by live counts (as basic_pool::partition). Throws: std::invalid_argument
  // if k == 0. Complexity: O(bins + k log bins).
  std::vector<subrange> partition(std::size_t k) const { return detail::partition<iterator>(this->core_.root(), k); }
  // Returns: a TBB Range over the bins (as basic_pool::range()).
  range_type range() const { return range_type(std::make_shared<const detail::bin_index>(this->core_.root())); }

  // --- memory (quiescent pool) ---

  // Effects: capacity() >= n. Each bin added takes the lowest free index
  // with its blocks of every column committed, as for a create that needs
  // a new bin; creates then fill the bins without growing. Invalidates
  // nothing. Throws: std::length_error if n > max_slots() (then nothing
  // changes); std::bad_alloc if a bin or a column block is refused (bins
  // added before the refusal stay). Complexity: O(bins added x columns +
  // max_bins).
  void reserve(std::size_t n);

  // Effects: every bin without a live handle decommits its column blocks,
  // frees its index and is given back. Live handles stay valid.
  void shrink_to_fit() noexcept {
    for (std::uint32_t q = 0; q < index_.max_bins(); ++q) {
      bin* b = index_.at(q);
      if (b != nullptr && b->live_ == 0) drop_index(q);
    }
    this->core_.shrink();
  }
  // Effects: destroys every handle's elements; keeps bins and columns.
  void clear() noexcept {
    this->core_.clear([this](bin& b, std::uint32_t i) { destroy_values(detail::handle_base(b) + i); });
  }
  // Effects: within every bin, moves the live handles' elements down so
  // that the bin's live handles are its first live_ slots (one segment per
  // bin). Never needed: iteration, segments and memory use do not depend
  // on it. Returns: old -> new for every handle that moved; every other
  // handle is unchanged. Complexity: O(size() x columns + bins).
  handle_remap compact();

  // Effects: checks the bin invariants (V1)-(V5), the lists, and the index
  // table. Throws: std::logic_error naming the first violation.
  void validate() const;

  // Returns: the counters (stats::counters only), as basic_pool::stats().
  pool_stats stats() const requires std::is_same_v<stats_type, stats::counters> {
    [[maybe_unused]] auto g = this->serialise();
    return this->collect_stats();
  }

 private:
  // Effects: destroys every element, gives back every bin, drops every
  // column and index.
  void release() noexcept {
    this->core_.release_all([this](bin& b, std::uint32_t i) { destroy_values(detail::handle_base(b) + i); });
    this->columns_ = detail::column_set{};
    index_.clear_all();
  }

  void destroy_values(handle h) noexcept { this->columns_.destroy(h); }

  // Effects: gives a new bin the lowest free index and commits its blocks.
  // Throws: std::bad_alloc (then the slot and the bin are given back).
  void assign_index(const detail::taken& t) {
    std::lock_guard<std::mutex> g(this->index_mutex_);
    const std::uint32_t q = commit_free_index(0);
    if (q == index_.max_bins()) {
      this->core_.untake(t);
      throw std::bad_alloc();
    }
    index_.set(q, *t.bin);
  }
  // Requires: index_mutex_. Effects: commits block q of every column for
  // the lowest free index q >= from. Returns: q, or max_bins() if there is
  // no free index or a commit is refused (then nothing is committed).
  std::uint32_t commit_free_index(std::uint32_t from) noexcept {
    const std::uint32_t q = index_.lowest_free(from);
    return q != index_.max_bins() && this->columns_.commit(q) ? q : index_.max_bins();
  }
  // Requires: the bin of index q has no live handle.
  void drop_index(std::uint32_t q) noexcept {
    this->columns_.decommit(q);
    index_.clear(q);
  }
  // Effects: core_.untake(t), dropping the bin's index first if untake is
  // about to give the bin back (a new bin that holds only t).
  void untake(const detail::taken& t) noexcept {
    if (t.new_bin && detail::load_relaxed(t.bin->live_) == 1) {
      std::lock_guard<std::mutex> g(this->index_mutex_);
      drop_index(index_.index_of(*t.bin));
    }
    this->core_.untake(t);
  }

  detail::slot_index index_;  // bin index <-> bin
};

}  // namespace TRAVPOOL_ABI_NAMESPACE

// The column pool of one thread at a time, and its thread-safe variant.
using column_pool = basic_column_pool<>;
using concurrent_column_pool = basic_column_pool<sync::bin_locks>;

}  // namespace travpool

#include "detail/column_pool_impl.hpp"
