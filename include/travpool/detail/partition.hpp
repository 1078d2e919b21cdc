// travpool/detail/partition.hpp: splitting a pool's bin list into balanced
// ranges (the paper's section 5) from per-bin live counts alone.
//
// With n = size(), k ranges R_0..R_{k-1} of whole bins, cut where the
// running live count is closest to r * n / k:
//   R_0 + ... + R_{k-1} = every live element, once, in traversal order
//   |R_r| <= n / k + (the most live elements of one bin)
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../subrange.hpp"
#include "bin.hpp"

namespace travpool::detail {

// A snapshot of the bin list: bins_[i] and the live elements before it.
struct bin_index {
  std::vector<bin_base*> bins_;
  std::vector<std::size_t> before_;  // before_[i] = live in bins_[0..i); size bins_+1
  bin_base* root_ = nullptr;

  explicit bin_index(bin_base* root) : root_(root) {
    std::size_t live = 0;
    before_.push_back(0);
    for (bin_base* b = root->next_; !b->is_root(); b = b->next_) {
      bins_.push_back(b);
      live += b->live_;
      before_.push_back(live);
    }
  }
  std::size_t bins() const noexcept { return bins_.size(); }
  std::size_t live(std::size_t lo, std::size_t hi) const noexcept { return before_[hi] - before_[lo]; }
  bin_base* bin_or_root(std::size_t i) const noexcept { return i < bins_.size() ? bins_[i] : root_; }

  // Returns: the bin boundary in [lo, hi] whose live prefix is closest to
  // `target`. Complexity: O(log bins).
  std::size_t boundary_near(std::size_t lo, std::size_t hi, std::size_t target) const noexcept {
    auto it = std::lower_bound(before_.begin() + static_cast<std::ptrdiff_t>(lo),
                               before_.begin() + static_cast<std::ptrdiff_t>(hi) + 1, target);
    std::size_t j = static_cast<std::size_t>(it - before_.begin());
    if (j > hi) return hi;
    if (j > lo && target - before_[j - 1] <= before_[j] - target) --j;
    return j;
  }
};

// Returns: k+1 bin boundaries 0 = c_0 <= c_1 <= ... <= c_k = bins so that
// range r = bins [c_r, c_{r+1}) holds about live/k elements: each boundary is
// the one closest to r*live/k, so no range exceeds live/k + one bin's live
// count. Complexity: O(k log bins).
inline std::vector<std::size_t> balanced_cuts(const bin_index& index, std::size_t k) {
  std::vector<std::size_t> cuts(k + 1, 0);
  const std::size_t total = index.live(0, index.bins());
  cuts[k] = index.bins();
  for (std::size_t r = 1; r < k; ++r) {
    // r * total / k without overflow for any realistic total.
    const std::size_t target = static_cast<std::size_t>(
        (static_cast<long double>(total) * static_cast<long double>(r)) / static_cast<long double>(k));
    cuts[r] = index.boundary_near(cuts[r - 1], index.bins(), target);
  }
  return cuts;
}

// Returns: k ranges of whole bins that together cover the pool's live
// elements once, cut by balanced_cuts (see basic_pool::partition).
// Throws: std::invalid_argument if k == 0; std::bad_alloc.
template <class It>
std::vector<pool_subrange<It>> partition(bin_base* root, std::size_t k) {
  if (k == 0) throw std::invalid_argument("travpool::partition: k must be at least 1");
  const bin_index index(root);
  const auto cuts = balanced_cuts(index, k);
  std::vector<pool_subrange<It>> parts;
  parts.reserve(k);
  for (std::size_t r = 0; r < k; ++r)
    parts.emplace_back(It::first_from(index.bin_or_root(cuts[r])), It::first_from(index.bin_or_root(cuts[r + 1])),
                       index.live(cuts[r], cuts[r + 1]));
  return parts;
}

// A TBB Range (copyable, splittable) over a run of whole bins; see
// basic_pool::range(). Works with tbb::parallel_for / parallel_reduce
// without travpool including TBB: the splitting constructors accept
// tbb::split and tbb::proportional_split by shape.
template <class Iterator>
class bin_range {
 public:
  using iterator = Iterator;

  bin_range() = default;
  explicit bin_range(std::shared_ptr<const bin_index> index) : index_(std::move(index)), lo_(0), hi_(index_->bins()) {}

  // Splitting constructor: r keeps the first half (by live elements), this
  // takes the second.
  template <class Split>
  bin_range(bin_range& r, Split split) : index_(r.index_), hi_(r.hi_) {
    std::size_t num = 1, den = 2;
    if constexpr (requires {
                    split.left();
                    split.right();
                  }) {
      num = static_cast<std::size_t>(split.left());
      den = static_cast<std::size_t>(split.left() + split.right());
      if (den == 0) num = 1, den = 2;
    }
    const std::size_t live = index_->live(r.lo_, r.hi_);
    std::size_t mid = index_->boundary_near(r.lo_, r.hi_, index_->before_[r.lo_] + live * num / den);
    // Both halves must be non-empty in bins.
    mid = std::clamp(mid, r.lo_ + 1, r.hi_ - 1);
    lo_ = mid;
    r.hi_ = mid;
  }

  bool empty() const noexcept { return index_ == nullptr || index_->live(lo_, hi_) == 0; }
  // Divisible while it spans two or more bins holding elements.
  bool is_divisible() const noexcept { return index_ != nullptr && hi_ - lo_ > 1 && !empty(); }

  std::size_t size() const noexcept { return index_ == nullptr ? 0 : index_->live(lo_, hi_); }
  Iterator begin() const noexcept {
    return index_ == nullptr ? Iterator() : Iterator::first_from(index_->bin_or_root(lo_));
  }
  Iterator end() const noexcept {
    return index_ == nullptr ? Iterator() : Iterator::first_from(index_->bin_or_root(hi_));
  }

 private:
  std::shared_ptr<const bin_index> index_;
  std::size_t lo_ = 0;
  std::size_t hi_ = 0;
};

}  // namespace travpool::detail
