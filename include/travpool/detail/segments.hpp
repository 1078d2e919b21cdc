// travpool/detail/segments.hpp: maximal runs of contiguous live elements as
// std::span<T>, for layouts whose live runs are arrays (layout::compact
// with sizeof(T) a multiple of alignof(T) and >= 12).
#pragma once

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
  segment_iterator(bin_base* b, std::uint32_t start, bin_base* stop) noexcept : bin_(b), stop_(stop) {
    if (b == stop) {
      end_here();
      return;
    }
    start_ = start;
    end_ = Ops::run_end(*b, start);
  }

  std::span<T> operator*() const noexcept {
    return {std::launder(static_cast<T*>(Ops::payload(*bin_, start_))), std::size_t{end_ - start_}};
  }
  // Complexity: O(1) per run within a bin (a boundary link), plus the
  // bitmap words of the run; empty bins are skipped.
  segment_iterator& operator++() noexcept {
    const std::uint32_t next = Ops::link_next(*bin_, end_);  // end_ is free, after an assigned chunk: (V1)
    if (next != bin_->last()) {
      start_ = next;
      end_ = Ops::run_end(*bin_, next);
      return *this;
    }
    bin_base* b = bin_->next_;
    while (b != stop_ && !b->is_root() && b->live_ == 0) b = b->next_;
    if (b == stop_ || b->is_root()) return end_here();
    bin_ = b;
    start_ = traits::first_assigned(*b);
    end_ = Ops::run_end(*b, start_);
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
  segment_iterator& end_here() noexcept {
    bin_ = stop_;
    start_ = end_ = 0;
    return *this;
  }

  bin_base* bin_ = nullptr;
  std::uint32_t start_ = 0;
  std::uint32_t end_ = 0;
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
