// travpool/detail/segments.hpp: segments(), the live elements in blocks of
// one bitmap word, for layouts whose chunks are arrays of the payload type
// (layout::compact with sizeof(T) a multiple of alignof(T) and >= 12).
//
// A segment is the live chunks among 64 consecutive chunks of one bin:
//
//   segment = { T* base;  u64 mask }     // chunk j of the block is base[j],
//                                        // live iff bit j of mask is set
//
// Why blocks and not maximal runs: a run costs its loop's exit branch,
// which mispredicts when run lengths vary; at 50 % random gaps runs are
// about two elements long and that branch costs more than the elements.
// A block's loop is for_each's inner loop (bit scan, clear lowest bit) and
// exits once per 64 chunks, whatever the gaps. A block whose live chunks
// are one run (every block of a dense pool) also gives them as a
// std::span<T>, for loops that the compiler vectorises.
//
// The segment iterator walks the words of each bin: the next word if it has
// a live chunk, else next_assigned's O(1) jump over the free run (boundary
// link, (V1)); empty bins are skipped by their live count. A0 and A1 are
// masked out of the first and last word.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <span>

#include "bin.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

// The live elements of one block of 64 chunks (see above).
template <class T>
class segment {
 public:
  // A forward iterator over the live elements of the segment, in address
  // order; end() is std::default_sentinel.
  class iterator {
   public:
    using value_type = std::remove_cv_t<T>;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::forward_iterator_tag;
    using reference = T&;
    using pointer = T*;

    iterator() = default;
    iterator(T* base, std::uint64_t mask) noexcept : base_(base), mask_(mask) {}
    T& operator*() const noexcept { return base_[std::countr_zero(mask_)]; }
    T* operator->() const noexcept { return std::addressof(**this); }
    iterator& operator++() noexcept {
      mask_ &= mask_ - 1;
      return *this;
    }
    iterator operator++(int) noexcept {
      auto t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.mask_ == b.mask_; }
    friend bool operator==(const iterator& a, std::default_sentinel_t) noexcept { return a.mask_ == 0; }

   private:
    T* base_ = nullptr;
    std::uint64_t mask_ = 0;
  };

  segment() = default;
  segment(T* base, std::uint64_t mask) noexcept : base_(base), mask_(mask) {}

  iterator begin() const noexcept { return {base_, mask_}; }
  std::default_sentinel_t end() const noexcept { return {}; }
  // Returns: the number of live elements (1 to 64).
  std::size_t size() const noexcept { return static_cast<std::size_t>(std::popcount(mask_)); }
  bool empty() const noexcept { return mask_ == 0; }
  // Returns: chunk 0 of the block, and which chunks are live.
  T* data() const noexcept { return base_; }
  std::uint64_t mask() const noexcept { return mask_; }
  // Returns: true if the live elements are one run of neighbours.
  bool contiguous() const noexcept {
    const std::uint64_t m = mask_ >> std::countr_zero(mask_);
    return (m & (m + 1)) == 0;
  }
  // Requires: contiguous(). Returns: the live elements as one array.
  std::span<T> span() const noexcept { return {base_ + std::countr_zero(mask_), size()}; }

 private:
  T* base_ = nullptr;
  std::uint64_t mask_ = 0;
};

template <class T, class Ops>
class segment_iterator {
  using traits = layout_traits<Ops>;

 public:
  using value_type = segment<T>;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::forward_iterator_tag;
  using reference = segment<T>;

  segment_iterator() = default;
  // The block holding chunk `start` of b, from `start` on, then the blocks
  // up to (not into) bin `stop`.
  segment_iterator(bin_base* b, std::uint32_t start, bin_base* stop) noexcept : stop_(stop) {
    if (b == stop || b->is_root()) {
      bin_ = stop_;
      return;
    }
    enter(b, start);
  }

  segment<T> operator*() const noexcept {
    return {std::launder(reinterpret_cast<T*>(bin_->chunks_ + word_ * 64 * Ops::stride)), mask_};
  }
  // Complexity: O(1): the next word, else a jump over the free run; empty
  // bins are skipped.
  segment_iterator& operator++() noexcept {
    const std::size_t next = word_ + 1;
    if (next < last_word_) [[likely]] {
      if (const std::uint64_t w = Ops::bits(*bin_)[next]; w != 0) {
        Ops::prefetch_for(*bin_, next + Ops::prefetch_ahead);
        word_ = next;
        mask_ = w;
        return *this;
      }
    }
    // The last live chunk of this word starts a free run (or is the bin's
    // last element): its successor is the boundary link's, by (V1).
    const auto highest =
        static_cast<std::uint32_t>(word_ * 64 + 63 - static_cast<std::size_t>(std::countl_zero(mask_)));
    const std::uint32_t i = traits::next_assigned(*bin_, highest);
    if (i != bin_->last()) {
      if ((i >> 6) > word_) Ops::prefetch_jump(*bin_, word_, i >> 6);
      word_ = i >> 6;
      mask_ = Ops::live_word(*bin_, word_) & (~std::uint64_t{0} << (i & 63));
      return *this;
    }
    bin_base* b = bin_->next_->next_nonempty(stop_);
    if (b == stop_ || b->is_root()) {
      bin_ = stop_;
      word_ = 0;
      mask_ = 0;
      return *this;
    }
    enter(b, traits::first_assigned(*b));
    return *this;
  }
  segment_iterator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  friend bool operator==(const segment_iterator& a, const segment_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.word_ == b.word_ && a.mask_ == b.mask_;
  }

 private:
  // Requires: chunk i of b is assigned.
  void enter(bin_base* b, std::uint32_t i) noexcept {
    Ops::prefetch_enter(*b, i);
    bin_ = b;
    last_word_ = b->last() >> 6;
    word_ = i >> 6;
    mask_ = Ops::live_word(*b, word_) & (~std::uint64_t{0} << (i & 63));
  }

  bin_base* bin_ = nullptr;
  std::size_t word_ = 0;       // the block's word in bin_'s bitmap
  std::size_t last_word_ = 0;  // bin_'s last word (holds A1)
  std::uint64_t mask_ = 0;     // the block's live chunks; 0 only at the end
  bin_base* stop_ = nullptr;
};

template <class T, class Ops>
class segment_range {
 public:
  segment_range(bin_base* first, std::uint32_t start, bin_base* stop) noexcept
      : begin_(first, start, stop), end_(stop, 0, stop) {}
  segment_iterator<T, Ops> begin() const noexcept { return begin_; }
  segment_iterator<T, Ops> end() const noexcept { return end_; }

 private:
  segment_iterator<T, Ops> begin_;
  segment_iterator<T, Ops> end_;
};

}  // namespace travpool::detail
