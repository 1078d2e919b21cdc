// travpool/detail/slot_bins.hpp: bins without a payload, whose chunks are
// 32-bit handles (basic_column_pool), and the handle iterators.
//
// DESIGN NOTE
// ===========
// A column pool's bins are ordinary bins of the bin layer (bin.hpp,
// bin_algorithms.hpp, layout_compact.hpp) whose chunks hold nothing but the
// free-chunk links: slot_ops = compact_layout<6, 2, u16>, 6 B per slot plus
// one bitmap bit (16-bit links, so capacity <= 2^15). Every bin has a dense index q, chosen by the column pool when
// the bin is added, and its user chunk i (2 <= i < capacity + 2) is the slot
//
//   handle(q, i) = q * capacity + (i - 2)          capacity = 2^s
//   q = h >> s,  i = (h & (capacity - 1)) + 2
//
// The pseudo chunk A0 (chunk 0) is assigned and its payload is never read
// or written by bin_algorithms (only its bitmap bit), so it holds the bin's
// handle base:
//
//   handle_base(b) = q * capacity - 2  (mod 2^32),  handle(q, i) = handle_base(b) + i
//
// The iterators read it once per bin and otherwise work on the bitmap
// alone: a handle is handle_base + 64 k + j for bit j of word k.
//
//   handle_iterator<Handle>
//                    bidirectional, yields handles (as Handle: std::uint32_t
//                    or a strong handle, handle.hpp) in bin-list order and
//                    ascending handle order within a bin; its cursor is
//                    {bin, word, bits, base} (layout_compact.hpp's cursor
//                    with a handle instead of a pointer): ++ is
//                    bits = (bits & *word) & (bits - 1) and a bit scan
//   handle_run       [first, last): a maximal run of live handles of one bin
//   run_iterator     the runs of a sequence of bins: the end of a run is the
//                    first clear bit from its start (O(run / 64)); the next
//                    run starts at the free chunk's boundary link (V1), O(1)
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "../config.hpp"
#include "../handle.hpp"
#include "bin.hpp"
#include "bin_algorithms.hpp"
#include "layout_compact.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

// The layout of a column pool's bins: 6-byte chunks that hold the free
// links only, as 16-bit chunk indices.
using slot_ops = compact_layout<6, 2, std::uint16_t>;
// A column pool's emptied bins keep their free list (the last destroyed
// index is the next created), unlike a pool's (bin_algorithms::restart).
template <>
inline constexpr bool restarts_emptied_bins<slot_ops> = false;
// A0's payload holds the bin's handle base, not a rank (layout_traits.hpp).
template <>
inline constexpr bool keeps_rank_in_a0<slot_ops> = false;
// The largest bin_slots: a power of two whose chunk indices fit 16 bits.
inline constexpr std::uint32_t max_slot_bin_slots = std::bit_floor(slot_ops::max_capacity);
static_assert(max_slot_bin_slots == 1u << 15);
using slot_traits = layout_traits<slot_ops>;

// Returns: q * capacity - 2 for the bin of index q (stored in A0).
inline std::uint32_t handle_base(const bin_base& b) noexcept { return load_u32(b.chunks_); }
inline void set_handle_base(bin_base& b, std::uint32_t base) noexcept { store_u32(b.chunks_, base); }

// A maximal run of live handles: [first, last).
struct handle_run {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::size_t size() const noexcept { return last - first; }
  friend bool operator==(const handle_run&, const handle_run&) = default;
};

// Returns: the first free chunk of b at or after chunk i (F1 at the latest).
inline std::uint32_t run_end(const bin_base& b, std::uint32_t i) noexcept {
  const std::uint64_t* w = slot_ops::bits(b);
  std::size_t k = i >> 6;
  std::uint64_t free = ~w[k] & (~std::uint64_t{0} << (i & 63));
  while (free == 0) free = ~w[++k];
  return static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(free)));
}

// The runs of live handles of the bins from `first` up to (not into) `stop`
// (or the list's root), in bin-list order.
class run_iterator {
 public:
  using value_type = handle_run;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::forward_iterator_tag;
  using reference = handle_run;

  run_iterator() = default;
  // Requires: chunk i of b is assigned, or b == stop.
  run_iterator(bin_base* b, std::uint32_t i, bin_base* stop) noexcept : stop_(stop) {
    if (b == stop || b->is_root())
      bin_ = stop;
    else
      enter(b, i);
  }

  handle_run operator*() const noexcept { return {base_ + first_, base_ + last_}; }
  // Complexity: O(1) to the next run's start, O(run / 64) to its end.
  run_iterator& operator++() noexcept {
    // last_ is free and last_ - 1 assigned: the next assigned chunk is the
    // boundary link of last_, by (V1).
    const std::uint32_t i = slot_traits::next_assigned(*bin_, last_ - 1);
    if (i != bin_->last()) {
      first_ = i;
      last_ = run_end(*bin_, i);
      return *this;
    }
    bin_base* b = bin_->next_->next_nonempty(stop_);
    if (b == stop_ || b->is_root()) {
      bin_ = stop_;
      first_ = last_ = 0;
    } else {
      enter(b, slot_traits::first_assigned(*b));
    }
    return *this;
  }
  run_iterator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  friend bool operator==(const run_iterator& a, const run_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.first_ == b.first_;
  }

 private:
  void enter(bin_base* b, std::uint32_t i) noexcept {
    bin_ = b;
    base_ = handle_base(*b);
    first_ = i;
    last_ = run_end(*b, i);
  }

  bin_base* bin_ = nullptr;
  bin_base* stop_ = nullptr;
  std::uint32_t base_ = 0;   // handle_base(*bin_)
  std::uint32_t first_ = 0;  // chunk indices of the current run
  std::uint32_t last_ = 0;
};

class run_range {
 public:
  run_range(bin_base* first, std::uint32_t i, bin_base* stop) noexcept : begin_(first, i, stop), end_(stop, 0, stop) {}
  run_iterator begin() const noexcept { return begin_; }
  run_iterator end() const noexcept { return end_; }

 private:
  run_iterator begin_;
  run_iterator end_;
};

// The live handles of a column pool, in bin-list order, as Handle values.
// end() is at the list's root with no word. Equal iff at the same chunk (or
// both at end).
template <pool_handle Handle = std::uint32_t>
class handle_iterator {
 public:
  using value_type = Handle;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::bidirectional_iterator_tag;
  using iterator_category = std::input_iterator_tag;  // yields prvalues
  using reference = Handle;
  // pool_subrange offers runs().
  static constexpr bool handle_runs = true;

  handle_iterator() = default;

  // Returns: the first live handle of the first non-empty bin from b on
  // (end, at the root, if none).
  static handle_iterator first_from(bin_base* b) noexcept {
    b = b->next_nonempty();
    if (b->is_root()) return at_end(b);
    return at(b, slot_traits::first_assigned(*b));
  }
  static handle_iterator at_end(bin_base* root) noexcept {
    handle_iterator it;
    it.bin_ = root;
    return it;
  }
  // Requires: chunk i of b is assigned.
  static handle_iterator at(bin_base* b, std::uint32_t i) noexcept {
    handle_iterator it;
    it.bin_ = b;
    const std::size_t k = i >> 6;
    it.word_ = slot_ops::bits(*b) + k;
    it.bits_ = slot_ops::live_word(*b, k) & (~std::uint64_t{0} << (i & 63));
    it.base_ = handle_base(*b) + static_cast<std::uint32_t>(k * 64);
    return it;
  }

  Handle operator*() const noexcept {
    return make_handle<Handle>(base_ + static_cast<std::uint32_t>(std::countr_zero(bits_)));
  }

  // Complexity: O(1) amortised: one AND and a bit scan in a word; the next
  // word inline; else a jump over the free run or to the next bin.
  TRAVPOOL_ALWAYS_INLINE handle_iterator& operator++() noexcept {
    const std::uint64_t rest = (bits_ & *word_) & (bits_ - 1);
    if (rest != 0) [[likely]] {
      bits_ = rest;
      return *this;
    }
    const std::uint64_t* next = word_ + 1;
    if (next < slot_ops::bits(*bin_) + (bin_->last() >> 6)) {
      if (const std::uint64_t w = *next; w != 0) [[likely]] {
        word_ = next;
        bits_ = w;
        base_ += 64;
        return *this;
      }
    }
    *this = next_slow(*this);
    return *this;
  }
  handle_iterator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  // Complexity: O(1) amortised (a boundary link, or back over empty bins).
  handle_iterator& operator--() noexcept {
    *this = prev_slow(*this);
    return *this;
  }
  handle_iterator operator--(int) noexcept {
    auto t = *this;
    --*this;
    return t;
  }

  friend bool operator==(const handle_iterator& a, const handle_iterator& b) noexcept {
    return (a.bits_ == 0) == (b.bits_ == 0) && a.word_ == b.word_ &&
           (a.bits_ & (0 - a.bits_)) == (b.bits_ & (0 - b.bits_));
  }

  // Requires: *this and last are at a bin's first handle or at end.
  // Effects: f(h) for every live handle of [*this, last), a bitmap word at
  // a time.
  template <class F>
  void for_each_until(const handle_iterator& last, F& f) const {
    for (bin_base* b = bin_; b != last.bin_ && !b->is_root(); b = b->next_) {
      if (b->live_ == 0) continue;
      const std::size_t n = slot_ops::words(b->capacity_);
      const std::uint32_t base = handle_base(*b);
      for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t live = slot_ops::live_word(*b, k);
        const std::uint32_t h0 = base + static_cast<std::uint32_t>(k * 64);
        while (live != 0) {
          f(make_handle<Handle>(h0 + static_cast<std::uint32_t>(std::countr_zero(live))));
          live &= live - 1;
        }
      }
    }
  }
  // Requires: as for_each_until. Returns: the runs of [*this, last).
  run_range runs_until(const handle_iterator& last) const noexcept {
    return run_range(bin_, bits_ == 0 ? 0 : chunk(), last.bin_);
  }

 private:
  std::uint32_t chunk() const noexcept {
    return static_cast<std::uint32_t>(word_ - slot_ops::bits(*bin_)) * 64 +
           static_cast<std::uint32_t>(std::countr_zero(bits_));
  }
  TRAVPOOL_NOINLINE static handle_iterator next_slow(handle_iterator it) noexcept {
    const std::uint32_t i = slot_traits::next_assigned(*it.bin_, it.chunk());
    if (i != it.bin_->last()) return at(it.bin_, i);
    return first_from(it.bin_->next_);
  }
  TRAVPOOL_NOINLINE static handle_iterator prev_slow(handle_iterator it) noexcept {
    if (it.bits_ != 0) {
      const std::uint32_t i = slot_traits::prev_assigned(*it.bin_, it.chunk());
      if (i != 0) return at(it.bin_, i);
    }
    bin_base* b = it.bin_->prev_->prev_nonempty();
    return b->is_root() ? at_end(b) : at(b, slot_traits::last_assigned(*b));
  }

  bin_base* bin_ = nullptr;
  const std::uint64_t* word_ = nullptr;  // the current chunk's bitmap word
  std::uint64_t bits_ = 0;               // its live bits from the current chunk up; 0 at end
  std::uint32_t base_ = 0;               // the handle of the word's chunk 0
};

}  // namespace travpool::detail
