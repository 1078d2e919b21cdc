// travpool/detail/pool_iterator.hpp: basic_pool's bidirectional iterator.
//
// An iterator is (bin, chunk index). end() is (the pool's root, 0): the
// root is a bin_base embedded in the pool with capacity 0, on the circular
// bin list, so ++ from a bin's last element and -- from end() need no
// pool pointer.
//   ++: the next assigned chunk in the bin (layout_traits::next_assigned,
//       O(1): a bitmap scan or a boundary link), else the first element of
//       the next non-empty bin, else end().
//   --: the mirror image.
// With checks (Checked = true) every dereference and step first checks
// that the element is live and its bin is not being modified, and throws
// usage_error otherwise; those operations are then not noexcept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../usage_error.hpp"
#include "bin.hpp"
#include "layout_traits.hpp"
#include "segments.hpp"

namespace travpool {
inline namespace TRAVPOOL_ABI_NAMESPACE {
template <class T, class... Options>
class basic_pool;
}

namespace detail {

struct test_access;

template <class T, class Ops, bool Const, bool Checked>
class pool_iterator {
  using traits = layout_traits<Ops>;
  using element = std::conditional_t<Const, const T, T>;

 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using iterator_concept = std::bidirectional_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = element*;
  using reference = element&;
  // The runs of a range of these iterators can be std::span<element>.
  static constexpr bool contiguous_runs = traits::contiguous;
  using segments_type = segment_range<element, Ops>;

  pool_iterator() = default;
  // A const_iterator is constructible from an iterator.
  template <bool C = Const, class = std::enable_if_t<C>>
  pool_iterator(const pool_iterator<T, Ops, false, Checked>& o) noexcept : bin_(o.bin_), index_(o.index_) {}

  reference operator*() const noexcept(!Checked) { return *operator->(); }
  pointer operator->() const noexcept(!Checked) {
    check("dereferencing");
    return std::launder(static_cast<pointer>(Ops::payload(*bin_, index_)));
  }

  // Complexity: O(1) amortised (empty bins are skipped).
  pool_iterator& operator++() noexcept(!Checked) {
    check("incrementing");
    index_ = traits::next_assigned(*bin_, index_);
    if (index_ == bin_->last()) seek_forward(bin_->next_);
    return *this;
  }
  pool_iterator operator++(int) noexcept(!Checked) {
    auto t = *this;
    ++*this;
    return t;
  }
  pool_iterator& operator--() noexcept(!Checked) {
    if (bin_->is_root()) {
      seek_backward(bin_->prev_);
      return *this;
    }
    check("decrementing");
    index_ = traits::prev_assigned(*bin_, index_);
    if (index_ == 0) seek_backward(bin_->prev_);
    return *this;
  }
  pool_iterator operator--(int) noexcept(!Checked) {
    auto t = *this;
    --*this;
    return t;
  }

  // Returns: an iterator at the first element of the first non-empty bin
  // from `b` on (end if none). Used by ranges over whole bins.
  static pool_iterator at_bin(bin_base* b) noexcept {
    pool_iterator it;
    it.seek_forward(b);
    return it;
  }

  // Returns: the runs of live elements from *this up to `last`, which must
  // be at a bin's first element or at end (as partition ranges are).
  segments_type segments_until(const pool_iterator& last) const noexcept requires contiguous_runs {
    return segments_type(bin_, index_, last.bin_);
  }

  friend bool operator==(const pool_iterator& a, const pool_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.index_ == b.index_;
  }

 private:
  template <class, class...>
  friend class ::travpool::TRAVPOOL_ABI_NAMESPACE::basic_pool;
  template <class, class, bool, bool>
  friend class pool_iterator;
  friend struct test_access;

  pool_iterator(bin_base* b, std::uint32_t i) noexcept : bin_(b), index_(i) {}

  // Checked: no create or destroy may be under way in the bin (sync::
  // bin_locks pools mark one with an odd modification count), and the
  // element must still be live. A destroyed element whose chunk was reused
  // by a later create is live again and cannot be told apart.
  void check([[maybe_unused]] const char* what) const {
    if constexpr (Checked) {
      if (bin_ == nullptr || bin_->is_root())
        throw usage_error(std::string("travpool: ") + what + " an end or singular iterator");
      if ((bin_->mods_.load(std::memory_order_relaxed) & 1) != 0)
        throw usage_error(std::string("travpool: ") + what +
                          " an iterator while another thread modifies its bin (sweeps need a quiescent pool)");
      if (index_ >= bin_->fresh_ || Ops::is_free(*bin_, index_))
        throw usage_error(std::string("travpool: ") + what + " an iterator whose element was destroyed");
    }
  }

  // Positions on the first element of the first non-empty bin from `b` on, or on end.
  void seek_forward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->next_;
    bin_ = b;
    index_ = b->is_root() ? 0 : traits::first_assigned(*b);
  }
  // Positions on the last element of the last non-empty bin from `b` back.
  void seek_backward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->prev_;
    bin_ = b;
    index_ = b->is_root() ? 0 : traits::last_assigned(*b);
  }

  bin_base* bin_ = nullptr;
  std::uint32_t index_ = 0;
};

}  // namespace detail
}  // namespace travpool
