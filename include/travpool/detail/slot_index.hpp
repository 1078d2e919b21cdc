// travpool/detail/slot_index.hpp: the table from bin index to bin, and so
// from handle to (bin, chunk), of a column pool.
//
//   bin_slots = 2^s,  max_bins = ceil(max_slots / bin_slots)
//   q(h)      = h >> s,  chunk(h) = (h & (bin_slots - 1)) + 2
//   bins_[q]  = the bin of index q, or null
//   bins_[q] = b != null  =>  handle_base(b) = q * bin_slots - 2  (mod 2^32)
//   top_      = 1 + the highest q with bins_[q] != null, or 0: every live
//               handle h < top_ * bin_slots
//
// The table holds size_ entries, 0 until the first bin takes an index
// (make_room): an empty pool allocates nothing. A growing table (sync::none,
// sync::global_mutex: no thread reads it while another changes it) doubles
// to hold the highest index taken, from 16 entries; otherwise it is
// allocated whole (max_bins entries) by the first make_room, and never
// again, so a thread that reads size_ (acquire) reads a table that stays:
//   q >= size_  =>  bins_[q] is null (no entry)
// Entries are atomic: a thread may look a handle up (is_live, destroy)
// while another gives a new bin its index (set), under sync::bin_locks.
// Setting and clearing are serialised by the caller.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "bin.hpp"
#include "slot_bins.hpp"

namespace travpool::detail {

// Grows: the table grows (no thread reads it while another changes it:
// sync::none, sync::global_mutex; its size is a plain word); otherwise it
// is allocated whole, and its size is read with acquire loads.
template <bool Grows>
class slot_index {
  using size_word = std::conditional_t<Grows, std::uint32_t, std::atomic<std::uint32_t>>;

 public:
  // Effects: an index without a table (nothing allocated).
  // Throws: std::invalid_argument if bin_slots is not a power of two in
  // [4096, 2^15] or max_slots is 0 or above 2^32 - bin_slots.
  slot_index(std::uint64_t max_slots, std::uint32_t bin_slots)
      : max_bins_(checked_max_bins(max_slots, checked_bin_slots(bin_slots))),
        shift_(static_cast<unsigned>(std::countr_zero(bin_slots))) {}
  // Effects: takes o's table; o has none (max_bins() = 0, every lookup null).
  slot_index(slot_index&& o) noexcept
      : max_bins_(std::exchange(o.max_bins_, 0)),
        shift_(o.shift_),
        bins_(std::move(o.bins_)),
        size_(take_size(o)),
        top_(o.top_.exchange(0, std::memory_order_relaxed)) {}
  slot_index& operator=(slot_index&& o) noexcept {
    max_bins_ = std::exchange(o.max_bins_, 0);
    shift_ = o.shift_;
    bins_ = std::move(o.bins_);
    store_size(take_size(o));
    top_.store(o.top_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
    return *this;
  }

  std::uint32_t max_bins() const noexcept { return max_bins_; }
  std::uint64_t max_slots() const noexcept { return std::uint64_t{max_bins_} << shift_; }
  // Returns: top_ * bin_slots, above every live handle. O(1); while another
  // thread adds a bin, the value before or after.
  std::uint64_t handle_bound() const noexcept { return std::uint64_t{top_.load(std::memory_order_relaxed)} << shift_; }

  // Returns: the bin of h's index, or nullptr (any h). O(1).
  bin_base* bin_of(std::uint32_t h) const noexcept {
    const std::uint32_t q = h >> shift_;
    std::uint32_t size;
    if constexpr (Grows)
      size = size_;
    else
      size = size_.load(std::memory_order_acquire);
    return q < size ? bins_[q].load(std::memory_order_acquire) : nullptr;
  }
  std::uint32_t chunk_of(std::uint32_t h) const noexcept {
    return (h & ((std::uint32_t{1} << shift_) - 1)) + first_user_chunk;
  }
  // Returns: the bin of index q, or nullptr (any q; the caller changes
  // the table, or the pool is quiescent).
  bin_base* at(std::uint32_t q) const noexcept {
    return q < table_size() ? bins_[q].load(std::memory_order_relaxed) : nullptr;
  }
  // Returns: the entries the table holds.
  std::uint32_t table_size() const noexcept {
    if constexpr (Grows)
      return size_;
    else
      return size_.load(std::memory_order_relaxed);
  }
  // Returns: b's index (from its handle base).
  std::uint32_t index_of(const bin_base& b) const noexcept { return (handle_base(b) + first_user_chunk) >> shift_; }

  // Returns: the lowest free index >= from, or max_bins() if none.
  std::uint32_t lowest_free(std::uint32_t from = 0) const noexcept {
    const std::uint32_t size = table_size();
    std::uint32_t q = from;
    while (q < size && at(q) != nullptr) ++q;
    return (std::min)(q, max_bins_);
  }
  // Requires: q < max_bins(), serialised with set and clear.
  // Effects: the table holds index q (design note). Returns: false if the
  // table could not be allocated (then nothing changed).
  bool make_room(std::uint32_t q) noexcept {
    const std::uint32_t size = table_size();
    if (q < size) return true;
    const std::uint32_t n =
        Grows ? (std::min)(max_bins_, (std::max)(std::uint32_t{16}, std::bit_ceil(q + 1))) : max_bins_;
    std::unique_ptr<std::atomic<bin_base*>[]> t(new (std::nothrow) std::atomic<bin_base*>[n]);
    if (t == nullptr) return false;
    for (std::uint32_t i = 0; i < n; ++i) t[i].store(i < size ? at(i) : nullptr, std::memory_order_relaxed);
    bins_ = std::move(t);  // (a table is replaced only when it grows: no reader)
    store_size(n);
    return true;
  }
  // Requires: q free, q < table_size(). Effects: b takes index q (its
  // handle base is written).
  void set(std::uint32_t q, bin_base& b) noexcept {
    set_handle_base(b, (q << shift_) - first_user_chunk);
    bins_[q].store(&b, std::memory_order_release);
    if (q >= top_.load(std::memory_order_relaxed)) top_.store(q + 1, std::memory_order_relaxed);
  }
  // Effects: q is free; top_ drops past the free indices below it.
  // O(1 + the free indices it passes).
  void clear(std::uint32_t q) noexcept {
    bins_[q].store(nullptr, std::memory_order_release);
    std::uint32_t t = top_.load(std::memory_order_relaxed);
    while (t > 0 && at(t - 1) == nullptr) --t;
    top_.store(t, std::memory_order_relaxed);
  }
  void clear_all() noexcept {
    for (std::uint32_t q = 0; q < table_size(); ++q) bins_[q].store(nullptr, std::memory_order_relaxed);
    top_.store(0, std::memory_order_relaxed);
  }

  // Returns: why the table and the bin list starting after `root` disagree,
  // or nullptr. Requires a quiescent pool.
  const char* check(const bin_base* root) const noexcept {
    std::uint32_t indexed = 0, listed = 0;
    for (std::uint32_t q = 0; q < table_size(); ++q) {
      const bin_base* b = at(q);
      if (b == nullptr) continue;
      ++indexed;
      if (handle_base(*b) != (q << shift_) - first_user_chunk) return "a bin has a wrong handle base";
    }
    for (const bin_base* b = root->next_; !b->is_root(); b = b->next_, ++listed) {
      const std::uint32_t q = index_of(*b);
      if (q >= max_bins_ || at(q) != b) return "a listed bin is not in the index table";
    }
    std::uint32_t top = table_size();
    while (top > 0 && at(top - 1) == nullptr) --top;
    if (top != top_.load(std::memory_order_relaxed)) return "the index table's top is wrong";
    return listed == indexed ? nullptr : "the index table holds bins off the list";
  }

 private:
  static std::uint32_t checked_bin_slots(std::uint32_t s) {
    if (!std::has_single_bit(s) || s < 4096 || s > max_slot_bin_slots)
      throw std::invalid_argument("travpool: bin_slots must be a power of two in [4096, 2^15]");
    return s;
  }
  static std::uint32_t checked_max_bins(std::uint64_t max_slots, std::uint32_t s) {
    if (max_slots == 0 || max_slots > (std::uint64_t{1} << 32) - s)
      throw std::invalid_argument("travpool: max_slots must be in [1, 2^32 - bin_slots]");
    return static_cast<std::uint32_t>((max_slots + s - 1) / s);
  }

  static std::uint32_t take_size(slot_index& o) noexcept {
    if constexpr (Grows)
      return std::exchange(o.size_, 0);
    else
      return o.size_.exchange(0, std::memory_order_relaxed);
  }
  // Effects: publishes a table of n entries (release: a reader that sees
  // n sees the table).
  void store_size(std::uint32_t n) noexcept {
    if constexpr (Grows)
      size_ = n;
    else
      size_.store(n, std::memory_order_release);
  }

  std::uint32_t max_bins_;
  unsigned shift_;
  std::unique_ptr<std::atomic<bin_base*>[]> bins_;
  size_word size_{0};  // entries of bins_
  std::atomic<std::uint32_t> top_{0};
};

}  // namespace travpool::detail
