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
// Entries are atomic: a thread may look a handle up (is_live, destroy)
// while another gives a new bin its index (set), under sync::bin_locks.
// Setting and clearing are serialised by the caller.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>

#include "bin.hpp"
#include "slot_bins.hpp"

namespace travpool::detail {

class slot_index {
 public:
  // Throws: std::invalid_argument if bin_slots is not a power of two in
  // [4096, 2^15] or max_slots is 0 or above 2^32 - bin_slots; std::bad_alloc.
  slot_index(std::uint64_t max_slots, std::uint32_t bin_slots)
      : max_bins_(checked_max_bins(max_slots, checked_bin_slots(bin_slots))),
        shift_(static_cast<unsigned>(std::countr_zero(bin_slots))),
        bins_(new std::atomic<bin_base*>[max_bins_]) {
    clear_all();
  }
  // Effects: takes o's table; o has none (max_bins() = 0, every lookup null).
  slot_index(slot_index&& o) noexcept
      : max_bins_(std::exchange(o.max_bins_, 0)),
        shift_(o.shift_),
        bins_(std::move(o.bins_)),
        top_(o.top_.exchange(0, std::memory_order_relaxed)) {}
  slot_index& operator=(slot_index&& o) noexcept {
    max_bins_ = std::exchange(o.max_bins_, 0);
    shift_ = o.shift_;
    bins_ = std::move(o.bins_);
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
    return q < max_bins_ ? bins_[q].load(std::memory_order_acquire) : nullptr;
  }
  std::uint32_t chunk_of(std::uint32_t h) const noexcept {
    return (h & ((std::uint32_t{1} << shift_) - 1)) + first_user_chunk;
  }
  bin_base* at(std::uint32_t q) const noexcept { return bins_[q].load(std::memory_order_relaxed); }
  // Returns: b's index (from its handle base).
  std::uint32_t index_of(const bin_base& b) const noexcept { return (handle_base(b) + first_user_chunk) >> shift_; }

  // Returns: the lowest free index >= from, or max_bins() if none.
  std::uint32_t lowest_free(std::uint32_t from = 0) const noexcept {
    std::uint32_t q = from;
    while (q < max_bins_ && at(q) != nullptr) ++q;
    return q;
  }
  // Requires: q free. Effects: b takes index q (its handle base is written).
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
    for (std::uint32_t q = 0; q < max_bins_; ++q) bins_[q].store(nullptr, std::memory_order_relaxed);
    top_.store(0, std::memory_order_relaxed);
  }

  // Returns: why the table and the bin list starting after `root` disagree,
  // or nullptr. Requires a quiescent pool.
  const char* check(const bin_base* root) const noexcept {
    std::uint32_t indexed = 0, listed = 0;
    for (std::uint32_t q = 0; q < max_bins_; ++q) {
      const bin_base* b = at(q);
      if (b == nullptr) continue;
      ++indexed;
      if (handle_base(*b) != (q << shift_) - first_user_chunk) return "a bin has a wrong handle base";
    }
    for (const bin_base* b = root->next_; !b->is_root(); b = b->next_, ++listed) {
      const std::uint32_t q = index_of(*b);
      if (q >= max_bins_ || at(q) != b) return "a listed bin is not in the index table";
    }
    std::uint32_t top = max_bins_;
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

  std::uint32_t max_bins_;
  unsigned shift_;
  std::unique_ptr<std::atomic<bin_base*>[]> bins_;
  std::atomic<std::uint32_t> top_{0};
};

}  // namespace travpool::detail
