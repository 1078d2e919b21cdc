// travpool/column_pool.hpp: basic_column_pool, a pool of 32-bit handles
// with typed columns (structure of arrays) hanging off it.
//
// basic_column_pool<Tag, Options...>: Tag names the handle type
// (handle.hpp): std::uint32_t for raw handles (column_pool), a strong
// handle type (a class derived from basic_handle<H>, which may carry
// members of its own), or any other type, whose handles are handle<Tag>.
// A typed pool's create, destroy, is_live, at, get, iteration, partitions
// and columns take and yield its handle type only, so one kind's handle
// cannot reach another kind's pool or column; runs() are index ranges
// [first, last) for bulk access through column::data(). Everything below
// is in indices: h stands for handle_index(h).
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
//   construction      nothing is mapped or allocated (the index table,
//                     detail/slot_index.hpp, comes with the first bin: it
//                     grows with the indices taken, or under
//                     sync::bin_locks holds one pointer per possible bin)
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
// set_exclusive(true) (sync::bin_locks) is the caller's word that one
// thread at a time uses the pool until set_exclusive(false): create and
// destroy then skip the locks' protocol (no thread state, bias or claim is
// read or written) and a create takes its chunk from the bin of the last
// create or destroy (the hint) while it has room, else through take():
//   hint != null  =>  exclusive, and the hint is a bin with an index (not retired)
// so a pool that is concurrent only some of the time (the mesh's: parallel
// edit phases) costs its serial users what sync::none would.
//
// One class, in sections: types; construction; columns; handles;
// traversal; memory; diagnostics. Its layers are named by the composition
// root (detail/pool_layers.hpp): the bin acquisition layer of the sync
// policy (bins_type: local_bins or concurrent_bins, never mutex_bins),
// and under sync::global_mutex its own mutex serial_ around create,
// destroy, is_live and size, because a create also assigns a bin index and
// constructs column elements.
//
// Locks, in the order taken (every lock of travpool, in order:
// docs/design.md, "Locks and their order"):
//   serial_ (sync::global_mutex) -> index_mutex_ -> the bin layer's locks
//   (its list lock, then a bin's lock: detail/bin_locks/).
// index_mutex_ guards index_ while a bin gets or loses its index: in a
// create that got a new bin (taken after the bin layer's take() has
// returned, so no bin lock is held), in the untake of a failed create, and
// in reserve (around the bin layer's reserve).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "column.hpp"
#include "config.hpp"
#include "detail/bin.hpp"
#include "detail/column_set.hpp"
#include "detail/partition.hpp"
#include "detail/pool_layers.hpp"
#include "detail/slot_bins.hpp"
#include "detail/slot_index.hpp"
#include "detail/validate.hpp"
#include "handle.hpp"
#include "options.hpp"
#include "stats.hpp"
#include "subrange.hpp"
#include "usage_error.hpp"

namespace travpool {

// A maximal run [first, last) of live handles (runs()).
using handle_run = detail::handle_run;

inline constexpr std::uint32_t default_column_bin_slots = 1u << 15;
inline constexpr std::uint64_t default_max_slots = std::uint64_t{1} << 28;

// Old handle -> new handle, for the handles that compact() moved.
class handle_remap {
 public:
  using move = std::pair<std::uint32_t, std::uint32_t>;  // {old, new}
  handle_remap() = default;
  // Requires: moves sorted by old handle, each old handle once.
  explicit handle_remap(std::vector<move> moves) noexcept : moves_(std::move(moves)) {}
  // Returns: h's new handle (h itself if h did not move). O(log moves).
  std::uint32_t operator()(std::uint32_t h) const noexcept {
    auto it =
        std::lower_bound(moves_.begin(), moves_.end(), h, [](const move& m, std::uint32_t x) { return m.first < x; });
    return it != moves_.end() && it->first == h ? it->second : h;
  }
  // Returns: as above, for a typed pool's handle.
  template <strong_handle H>
  H operator()(H h) const noexcept {
    return H((*this)(h.idx()));
  }
  const std::vector<move>& moves() const noexcept { return moves_; }
  std::size_t size() const noexcept { return moves_.size(); }

 private:
  std::vector<move> moves_;
};

inline namespace TRAVPOOL_ABI_NAMESPACE {

// Tag: the handle type, as above (std::uint32_t: raw handles).
// Options: sync::{none, bin_locks, global_mutex}, stats::{none, counters},
// checks::{off, hardened, on} (default: default_checks). The layout is always
// compact (a layout option other than layout::compact is rejected).
template <class Tag, class... Options>
class basic_column_pool {
  static_assert(!detail::has_category<Tag>::value,
                "travpool: basic_column_pool<Tag, Options...>: the first argument names the handle type "
                "(std::uint32_t for raw handles); the options follow it");
  using layers = detail::pool_layers<detail::slot_ops, Options...>;
  static_assert(std::is_same_v<typename layers::layout_type, layout::compact>,
                "travpool: a column pool's slots are always layout::compact");
  using bin = detail::bin_base;
  using ops = typename layers::ops;
  using core_type = typename layers::bins_type;  // serialised by serial_ under global_mutex
  using algo = typename layers::storage::algo;
  static constexpr bool unchecked = layers::checks == detail::checks_level::off;
  static constexpr bool bin_locked = layers::bin_locked;
  static constexpr bool serialised = layers::serialised;
  // set_exclusive's unlocked path: bin_locks, without checks::on's lock
  // contract checks.
  static constexpr bool exclusive_path = bin_locked && !layers::checked;

 public:
  // ---------------------------------------------------------------------
  // Types
  // ---------------------------------------------------------------------

  using sync_type = typename layers::sync_type;
  using stats_type = typename layers::stats_type;
  using checks_type = typename layers::checks_type;
  using handle = detail::handle_of_t<Tag>;
  // Never issued, never live (the invalid handle of a typed pool).
  static constexpr handle null_handle = detail::make_handle<handle>(0xffff'ffffu);
  template <class T>
  using column_type = column<T, handle>;
  using iterator = detail::handle_iterator<handle>;
  using const_iterator = iterator;
  using subrange = pool_subrange<iterator>;
  using range_type = detail::bin_range<iterator>;
  using remap_type = handle_remap;

  // ---------------------------------------------------------------------
  // Construction
  // ---------------------------------------------------------------------

  // Effects: an empty pool for up to max_slots handles (rounded up to a
  // multiple of bin_slots) in bins of bin_slots slots. Maps and allocates
  // nothing (the index table comes with the first bin).
  // Throws: std::invalid_argument if bin_slots is not a power of two in
  // [4096, 2^15] or max_slots is 0 or above 2^32 - bin_slots.
  explicit basic_column_pool(std::uint64_t max_slots = default_max_slots,
                             std::uint32_t bin_slots = default_column_bin_slots)
      : core_(bin_slots), index_(max_slots, bin_slots) {}
  basic_column_pool(const basic_column_pool&) = delete;
  basic_column_pool& operator=(const basic_column_pool&) = delete;
  // Effects: takes o's handles, columns and memory: handles and column keys
  // of o name the same elements in *this. o is left empty, with no column
  // and no handle room (its create throws std::bad_alloc) until it is
  // assigned to. Requires: o quiescent. O(1).
  basic_column_pool(basic_column_pool&& o) noexcept : core_(o.bin_slots()), index_(std::move(o.index_)) {
    core_.steal(o.core_);
    columns_ = std::exchange(o.columns_, detail::column_set{});
    exclusive_ = std::exchange(o.exclusive_, {});
  }
  // Effects: release(), then as the move constructor.
  basic_column_pool& operator=(basic_column_pool&& o) noexcept {
    if (this != std::addressof(o)) {
      release();
      core_.steal(o.core_);
      columns_ = std::exchange(o.columns_, detail::column_set{});
      index_ = std::move(o.index_);
      exclusive_ = std::exchange(o.exclusive_, {});
    }
    return *this;
  }
  // Effects: destroys every element of every column and gives back all memory.
  ~basic_column_pool() { release(); }

  // ---------------------------------------------------------------------
  // Columns (quiescent pool). The columns live in columns_
  // (detail/column_set.hpp); the pool tells it which blocks are committed
  // (the bins that hold an index) and which handles are live (itself).
  // ---------------------------------------------------------------------

  // Effects: adds a column of T named `name`; every live handle gets a copy
  // of init, and so does every handle created later.
  // Returns: its key. Throws: usage_error if the name is taken;
  // std::bad_alloc if the reservation or a commit is refused; what T's copy
  // constructor throws. On a throw the pool is unchanged.
  // Complexity: O(size() + bins).
  template <class T>
  column<T, handle> add_column(std::string name, T init = T{}) {
    return typed(columns_.add(
        std::move(name), std::move(init), bin_slots(), index_.max_bins(),
        [this](std::uint32_t q) { return index_.at(q) != nullptr; }, indices()));
  }

  // Effects: adds a generation column named `name`: a read-only column of
  // std::uint32_t whose element at h counts the destroys of slot h (a
  // create keeps it), so {h, generations[h]} taken while h lives names that
  // element only, even after the slot is reused (detail/column_storage.hpp:
  // generation_column). shrink_to_fit sets the counts of the blocks it
  // gives back to 0. Returns: its key. Throws: as add_column. Cost: one
  // more column for create and destroy (a no-op call and an increment)
  // while it exists; nothing without one.
  column<const std::uint32_t, handle> add_generation_column(std::string name) {
    const column<const std::uint32_t> c = columns_.add_generations(
        std::move(name), bin_slots(), index_.max_bins(), [this](std::uint32_t q) { return index_.at(q) != nullptr; });
    return column<const std::uint32_t, handle>(c.data(), c.id());
  }

  // Returns: the key of the column named `name` if there is one, else the
  // key of a new one, as add_column(name, init) (get-or-add).
  // Throws: usage_error if the column exists with a type other than T; as
  // add_column if it is added.
  template <class T>
  column<T, handle> get_or_add_column(std::string name, T init = T{}) {
    if (has_column(name)) return get_column<T>(name);
    return add_column<T>(std::move(name), std::move(init));
  }

  // Returns: the key of the column named `name`.
  // Throws: usage_error if there is none or its type is not T.
  template <class T>
  column<T, handle> get_column(std::string_view name) {
    return typed(columns_.template get<T>(name));
  }
  template <class T>
  column<const T, handle> get_column(std::string_view name) const {
    return typed(columns_.template get<const T>(name));
  }
  bool has_column(std::string_view name) const noexcept { return columns_.find(name) != nullptr; }
  std::size_t column_count() const noexcept { return columns_.size(); }

  // Effects: destroys the column's elements and unmaps it; keys of it
  // become invalid. Throws: usage_error if it is not a column of this pool.
  template <class T>
  void remove_column(column<T, handle> key) {
    columns_.remove(key.id(), indices());
  }
  void remove_column(std::string_view name) {
    const detail::column_base* c = columns_.find(name);
    if (c == nullptr) throw usage_error("travpool: remove_column: no column named '" + std::string(name) + "'");
    columns_.remove(c, indices());
  }

  // ---------------------------------------------------------------------
  // Handles
  // ---------------------------------------------------------------------

  // Effects: a live handle whose every column holds a copy of its column's
  // initial value (a reused slot never shows what it held before).
  // Throws: std::bad_alloc if a new bin or its column blocks are refused,
  // or all max_slots handles are live; what a column's copy constructor
  // throws. Then the pool is unchanged. Complexity: O(1 + columns).
  // Thread-safe with sync::bin_locks and sync::global_mutex. Columns' copy
  // constructors and destructors must not use the pool.
  handle create() {
    [[maybe_unused]] auto g = serialise();
    const detail::taken t = take();
    if (t.new_bin) [[unlikely]]
      assign_index(t);
    const std::uint32_t h = detail::handle_base(*t.bin) + t.index;
    try {
      columns_.construct(h);
    } catch (...) {
      untake(t);
      throw;
    }
    return detail::make_handle<handle>(h);
  }

  // Effects: destroys h's elements in every column and frees its slot.
  // Throws: usage_error if h is not live (stale, never issued, foreign);
  // then nothing changes. Complexity: O(1 + non-trivial columns).
  // Thread-safe with sync::bin_locks and sync::global_mutex.
  void destroy(handle hd) {
    [[maybe_unused]] auto g = serialise();
    const std::uint32_t h = handle_index(hd);
    bin* b = index_.bin_of(h);
    if (b == nullptr) throw usage_error("travpool: destroy of a handle that names no bin of this pool");
    const std::uint32_t i = index_.chunk_of(h);
    if constexpr (exclusive_path) {
      if (exclusive_.on) {
        if (!algo::is_live(*b, i)) throw usage_error("travpool: destroy of a handle that is not live");
        destroy_values(h);
        core_.free_chunk(*b, i);
        exclusive_.hint = b;  // the next create reuses the chunk just freed (b has an index: never retired)
        return;
      }
    }
    core_.locked(*b, [&] {
      if (!algo::is_live(*b, i)) throw usage_error("travpool: destroy of a handle that is not live");
      destroy_values(h);
      core_.free_chunk(*b, i);
    });
  }

  // sync::bin_locks only. Effects: on: create and destroy take the caller's
  // word that no other thread uses the pool (as sync::none: one thread at a
  // time), and skip the bin locks' protocol (no thread state, bias or claim
  // is read); a create takes its chunk from the bin of the last create or
  // destroy while that bin has room. off (the default): as sync::bin_locks.
  // Requires: a quiescent pool, and a switch ordered with every other
  // thread's use of the pool (a join, a mutex). Under checks::on the locks'
  // protocol is kept either way (its lock contract checks need it).
  void set_exclusive(bool on) noexcept requires bin_locked {
    exclusive_.on = on;
    exclusive_.hint = nullptr;
  }
  // Returns: what set_exclusive set last (false for a pool without bin_locks).
  bool exclusive() const noexcept {
    if constexpr (bin_locked)
      return exclusive_.on;
    else
      return false;
  }

  // Returns: whether h is live; any value is safe. O(1). Thread-safe (with
  // sync::bin_locks exact for handles not created or destroyed meanwhile).
  bool is_live(handle hd) const noexcept {
    [[maybe_unused]] auto g = serialise();
    const std::uint32_t h = handle_index(hd);
    const bin* b = index_.bin_of(h);
    if (b == nullptr) return false;
    if constexpr (bin_locked)
      return algo::is_live_relaxed(*b, index_.chunk_of(h));
    else
      return algo::is_live(*b, index_.chunk_of(h));
  }

  // Returns: c[h]. Throws: usage_error if h is not live.
  template <class T>
  T& at(column<T, handle> c, handle h) const {
    if (!is_live(h)) throw usage_error("travpool: column access through a handle that is not live");
    return c[h];
  }
  // Returns: c[h]; checked as at() under checks::on and checks::hardened,
  // unchecked otherwise.
  template <class T>
  T& get(column<T, handle> c, handle h) const noexcept(unchecked) {
    if constexpr (!unchecked) return at(c, h);
    return c[h];
  }

  std::size_t size() const noexcept {
    [[maybe_unused]] auto g = serialise();
    return core_.size();
  }
  bool empty() const noexcept { return size() == 0; }
  std::size_t bin_count() const noexcept { return core_.bin_count(); }
  std::uint32_t bin_slots() const noexcept { return core_.capacity(); }
  // Returns: the handle bound: every handle is below max_slots().
  std::uint64_t max_slots() const noexcept { return index_.max_slots(); }
  // Returns: a bound above every live handle (h < handle_bound()), the
  // end of the highest bin's handles: a size for arrays indexed by handle
  // (CGAL's num_vertices(g)). O(1); thread-safe.
  std::uint64_t handle_bound() const noexcept { return index_.handle_bound(); }
  // Returns: slots in the bins held (live or not).
  std::size_t capacity() const noexcept { return bin_count() * bin_slots(); }

  // ---------------------------------------------------------------------
  // Traversal (quiescent pool)
  // ---------------------------------------------------------------------

  // Live handles in bin-list order, ascending within a bin. An iterator
  // stays valid until its own handle is destroyed (destroy(*it++) moves on
  // first); destroying other handles skips them, and a handle created
  // during a sweep may or may not be visited (as basic_pool's).
  iterator begin() const noexcept { return iterator::first_from(core_.first()); }
  iterator end() const noexcept { return iterator::at_end(core_.root()); }
  // Returns: the maximal runs [first, last) of live handles, in iteration
  // order, as indices; their union is exactly the live set. (Named runs, not segments:
  // basic_pool::segments() are blocks of one bitmap word.)
  detail::run_range runs() const noexcept { return begin().runs_until(end()); }
  // Returns: the runs of a part of partition() (also its runs()) or of a
  // range().
  template <class Range>
  static detail::run_range runs(const Range& r) noexcept {
    return r.begin().runs_until(r.end());
  }
  // Effects: f(h) for every live handle, a bitmap word at a time.
  template <class F>
  void for_each(F&& f) const {
    begin().for_each_until(end(), f);
  }
  // Returns: k parts of whole bins covering the live handles once, balanced
  // by live counts (as basic_pool::partition). Throws: std::invalid_argument
  // if k == 0. Complexity: O(bins + k log bins).
  std::vector<subrange> partition(std::size_t k) const { return detail::partition<iterator>(core_.root(), k); }
  // Returns: a TBB Range over the bins (as basic_pool::range()).
  range_type range() const { return range_type(std::make_shared<const detail::bin_index>(core_.root())); }

  // ---------------------------------------------------------------------
  // Memory (quiescent pool)
  // ---------------------------------------------------------------------

  // Effects: capacity() >= n. Each bin added takes the lowest free index
  // with its blocks of every column committed, as for a create that needs
  // a new bin; creates then fill the bins without growing. Invalidates
  // nothing. Throws: std::length_error if n > max_slots() (then nothing
  // changes); std::bad_alloc if a bin or a column block is refused (bins
  // added before the refusal stay). Complexity: O(bins added x columns +
  // max_bins).
  //
  // One bin at a time: block q of every column is committed before the bin
  // is added, so a refused commit adds nothing, and a refused bin gives the
  // block back (decommit) before the throw leaves. With a quiescent pool
  // every listed bin has an index, so n <= max_slots() leaves enough free
  // indices (taken in ascending order, one scan of the table), and
  // commit_free_index fails only by a refused commit.
  void reserve(std::size_t n) {
    [[maybe_unused]] auto g = serialise();
    if (n > max_slots()) throw std::length_error("travpool: column_pool::reserve past max_slots()");
    std::lock_guard<std::mutex> l(index_mutex_);
    std::uint32_t q = 0;
    while (capacity() < n) {
      q = commit_free_index(q);
      if (q == index_.max_bins()) throw std::bad_alloc();
      try {
        core_.reserve(capacity() + 1);  // exactly one bin, linked last
      } catch (...) {
        columns_.decommit(q);
        throw;
      }
      index_.set(q, *core_.root()->prev_);
    }
  }

  // Effects: every bin without a live handle decommits its column blocks,
  // frees its index and is given back. Live handles stay valid.
  void shrink_to_fit() noexcept {
    drop_hint();
    for (std::uint32_t q = 0; q < index_.table_size(); ++q) {
      bin* b = index_.at(q);
      if (b != nullptr && b->live_ == 0) drop_index(q);
    }
    core_.shrink();
  }
  // Effects: destroys every handle's elements; keeps bins and columns.
  void clear() noexcept {
    core_.clear([this](bin& b, std::uint32_t i) { destroy_values(detail::handle_base(b) + i); });
  }
  // Effects: within every bin, moves the live handles' elements down so
  // that the bin's live handles are its first live_ slots (one run per
  // bin). Never needed: iteration, runs and memory use do not depend
  // on it. Returns: old -> new for every handle that moved; every other
  // handle is unchanged. Complexity: O(size() x columns + bins).
  //
  // Per bin: the live chunks L_0 < L_1 < ... < L_{n-1} move to chunks
  // 2 .. n+1 in ascending order (chunk 2 + k <= L_k, and a target that was
  // live has moved already), then the bin is reinitialised and n chunks are
  // created again, which the fresh path hands out in ascending order. The
  // bin's live count, and so its place on the available list, is unchanged.
  handle_remap compact() {
    std::vector<handle_remap::move> moves;
    std::vector<std::uint32_t> live;
    for (bin* b = core_.first(); !b->is_root(); b = b->next_) {
      if (b->live_ == 0) continue;
      live.clear();
      const std::uint32_t last = b->last();
      for (std::uint32_t i = detail::slot_traits::first_assigned(*b); i != last;
           i = detail::slot_traits::next_assigned(*b, i))
        live.push_back(i);
      const std::uint32_t base = detail::handle_base(*b);
      for (std::uint32_t k = 0; k < live.size(); ++k) {
        const std::uint32_t to = detail::first_user_chunk + k;
        if (live[k] == to) continue;
        columns_.relocate(base + live[k], base + to);
        moves.emplace_back(base + live[k], base + to);
      }
      algo::init(*b);
      for (std::size_t k = 0; k < live.size(); ++k) algo::create(*b);
    }
    std::sort(moves.begin(), moves.end());
    return handle_remap(std::move(moves));
  }

  // ---------------------------------------------------------------------
  // Diagnostics
  // ---------------------------------------------------------------------

  // Effects: checks the bin invariants (V1)-(V5), the lists, and the index
  // table. Throws: std::logic_error naming the first violation.
  void validate() const {
    detail::validate_bins<ops>(core_, size());
    if (const char* why = index_.check(core_.root())) throw std::logic_error(std::string("travpool::validate: ") + why);
  }

  // Returns: the counters (stats::counters only), as basic_pool::stats().
  pool_stats stats() const requires std::is_same_v<stats_type, stats::counters> {
    [[maybe_unused]] auto g = serialise();
    return detail::collect_stats(core_);
  }

 private:
  // Returns: a lock of serial_ (sync::global_mutex), else nothing.
  auto serialise() const {
    if constexpr (serialised)
      return std::unique_lock<std::mutex>(serial_);
    else
      return no_serial{};
  }

  // Returns: a chunk from the bin layer: exclusively (set_exclusive) or
  // through its protocol.
  // The exclusive path is inline; the bin locks' protocol, and a new bin,
  // are a call (inlined, their registers would cost every create).
  TRAVPOOL_ALWAYS_INLINE detail::taken take() {
    if constexpr (exclusive_path) {
      bin* const b = exclusive_.hint;  // null unless on (and never retired)
      if (b != nullptr && !b->full()) [[likely]]
        return {b, core_.take_exclusive(*b), false};
      return take_slow();
    } else {
      return core_.take();
    }
  }
  // Returns: core_.take(); under set_exclusive its bin becomes the hint.
  TRAVPOOL_NOINLINE detail::taken take_slow() {
    const detail::taken t = core_.take();
    if constexpr (bin_locked) {
      if (exclusive_.on) exclusive_.hint = t.bin;
    }
    return t;
  }
  // Effects: forgets the exclusive create's bin (its bin may go).
  void drop_hint() noexcept {
    if constexpr (bin_locked) exclusive_.hint = nullptr;
  }

  // Returns: the live handles as indices (what column_set takes).
  pool_subrange<detail::handle_iterator<>> indices() const noexcept {
    return {detail::handle_iterator<>::first_from(core_.first()), detail::handle_iterator<>::at_end(core_.root()),
            size()};
  }
  template <class T>
  static column<T, handle> typed(column<T> c) noexcept {
    return column<T, handle>(c.data(), c.id());
  }

  // Effects: destroys every element, gives back every bin, drops every
  // column and index.
  void release() noexcept {
    drop_hint();
    core_.release_all([this](bin& b, std::uint32_t i) { destroy_values(detail::handle_base(b) + i); });
    columns_ = detail::column_set{};
    index_.clear_all();
  }

  void destroy_values(std::uint32_t h) noexcept { columns_.destroy(h); }

  // Effects: gives a new bin the lowest free index and commits its blocks.
  // Throws: std::bad_alloc (then the slot and the bin are given back).
  void assign_index(const detail::taken& t) {
    std::lock_guard<std::mutex> g(index_mutex_);
    const std::uint32_t q = commit_free_index(0);
    if (q == index_.max_bins()) {
      core_.untake(t);
      throw std::bad_alloc();
    }
    index_.set(q, *t.bin);
  }
  // Requires: index_mutex_. Effects: commits block q of every column for
  // the lowest free index q >= from. Returns: q, or max_bins() if there is
  // no free index, the index table cannot grow or a commit is refused
  // (then nothing is committed).
  std::uint32_t commit_free_index(std::uint32_t from) noexcept {
    const std::uint32_t q = index_.lowest_free(from);
    return q != index_.max_bins() && index_.make_room(q) && columns_.commit(q) ? q : index_.max_bins();
  }
  // Requires: the bin of index q has no live handle.
  void drop_index(std::uint32_t q) noexcept {
    columns_.decommit(q);
    index_.clear(q);
  }
  // Effects: core_.untake(t), dropping the bin's index first if untake is
  // about to give the bin back (a new bin that holds only t).
  void untake(const detail::taken& t) noexcept {
    if (t.new_bin) drop_hint();  // the bin may be retired
    if (t.new_bin && detail::load_relaxed(t.bin->live_) == 1) {
      std::lock_guard<std::mutex> g(index_mutex_);
      drop_index(index_.index_of(*t.bin));
    }
    core_.untake(t);
  }

  struct no_serial {};
  // set_exclusive's state (sync::bin_locks): whether it is on, and the bin
  // of the last exclusive create or destroy, or null (always null when off;
  // never a retired bin: shrink_to_fit, release and untake drop it).
  struct exclusive_state {
    bool on = false;
    bin* hint = nullptr;
  };

  core_type core_;
  detail::column_set columns_;
  std::mutex index_mutex_;                 // index_ while a bin gets or loses its index
  detail::slot_index<!bin_locked> index_;  // bin index <-> bin
  [[no_unique_address]] mutable std::conditional_t<serialised, std::mutex, no_serial> serial_;
  [[no_unique_address]] std::conditional_t<bin_locked, exclusive_state, no_serial> exclusive_;
};

}  // namespace TRAVPOOL_ABI_NAMESPACE

// The column pool of one thread at a time, and its thread-safe variant,
// with raw handles. (Typed: basic_column_pool<Tag> and
// basic_column_pool<Tag, sync::bin_locks>.)
using column_pool = basic_column_pool<std::uint32_t>;
using concurrent_column_pool = basic_column_pool<std::uint32_t, sync::bin_locks>;

}  // namespace travpool
