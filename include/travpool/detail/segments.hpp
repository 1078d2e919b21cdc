// travpool/detail/segments.hpp: maximal runs of contiguous live elements as
// std::span<T>, for layouts whose live runs are arrays (layout::compact
// with sizeof(T) a multiple of alignof(T) and >= 12).
//
// The iterator keeps the bin's chunk array, bitmap and A1 index in its own
// state, so a loop body that writes elements never makes it reload them.
// A step costs a few bit operations per run: the next run starts at the
// next set bit of the current bitmap word or, past the word, at the
// boundary link of the free chunk that ends the run (V1), so long gaps are
// jumped in O(1); the run ends at the next clear bit.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <span>

#include "bin.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

template <class T, class Ops>
class segment_iterator {
  using traits = layout_traits<Ops>;

 public:
  using value_type = std::span<T>;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::forward_iterator_tag;
  using reference = std::span<T>;

  segment_iterator() = default;
  // The run holding chunk `start` of b, then runs up to (not into) `stop`.
  segment_iterator(bin_base* b, std::uint32_t start, bin_base* stop) noexcept : stop_(stop) {
    if (b == stop || b->is_root()) {
      end_here();
      return;
    }
    enter(b);
    start_ = start;
    end_ = run_end(start);
  }

  std::span<T> operator*() const noexcept {
    return {std::launder(reinterpret_cast<T*>(chunks_ + std::size_t{start_} * Ops::stride)),
            std::size_t{end_ - start_}};
  }
  // Complexity: O(1) per run within a bin, plus the bitmap words of the
  // run; empty bins are skipped.
  segment_iterator& operator++() noexcept {
    // end_ is free and end_ - 1 assigned: the next assigned chunk is a set
    // bit further up this word, or else end_'s boundary link (V1).
    const std::uint64_t w = bits_[end_ >> 6] & (~std::uint64_t{0} << (end_ & 63));
    const std::uint32_t next = w != 0 ? (end_ & ~63u) + static_cast<std::uint32_t>(std::countr_zero(w))
                                      : load_u32(chunks_ + std::size_t{end_} * Ops::stride + Ops::next_offset);
    if (next != last_) [[likely]] {
      start_ = next;
      end_ = run_end(next);
      return *this;
    }
    bin_base* b = bin_->next_;
    while (b != stop_ && !b->is_root() && b->live_ == 0) b = b->next_;
    if (b == stop_ || b->is_root()) return end_here();
    enter(b);
    start_ = traits::first_assigned(*b);
    end_ = run_end(start_);
    return *this;
  }
  segment_iterator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  friend bool operator==(const segment_iterator& a, const segment_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.start_ == b.start_;
  }

 private:
  void enter(bin_base* b) noexcept {
    bin_ = b;
    chunks_ = b->chunks_;
    bits_ = Ops::bits(*b);
    last_ = b->last();
  }
  // The end of the run at assigned chunk i (the layout's bitmap scan).
  std::uint32_t run_end(std::uint32_t i) const noexcept { return Ops::run_end(*bin_, i); }
  segment_iterator& end_here() noexcept {
    bin_ = stop_;
    start_ = end_ = 0;
    return *this;
  }

  bin_base* bin_ = nullptr;
  std::byte* chunks_ = nullptr;
  const std::uint64_t* bits_ = nullptr;
  std::uint32_t start_ = 0;
  std::uint32_t end_ = 0;
  std::uint32_t last_ = 0;
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
