// travpool/subrange.hpp: pool_subrange, one part of a pool's traversal
// order, as partition(k) returns them (basic_pool, basic_column_pool).
#pragma once

#include <cstddef>

namespace travpool {

// A contiguous part of a pool's traversal order: [begin(), end()) with
// size() live elements. Valid while no element is created or destroyed.
template <class Iterator>
class pool_subrange {
 public:
  using iterator = Iterator;

  pool_subrange() = default;
  pool_subrange(Iterator first, Iterator last, std::size_t n) : begin_(first), end_(last), size_(n) {}

  Iterator begin() const noexcept { return begin_; }
  Iterator end() const noexcept { return end_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Effects: f(element) for every element of the range, with for_each's
  // loop (faster than iterating where the layout has a bulk sweep).
  template <class F>
  void for_each(F&& f) const {
    begin_.for_each_until(end_, f);
  }
  // Returns: this range's segments (see basic_pool::segments()).
  // (Nested requirements: an iterator without the flag has neither.)
  auto segments() const noexcept requires requires { requires Iterator::contiguous_runs; }
  { return begin_.segments_until(end_); }
  // Returns: this range's maximal runs of live handles (see
  // basic_column_pool::runs()).
  auto runs() const noexcept requires requires { requires Iterator::handle_runs; }
  { return begin_.runs_until(end_); }

 private:
  Iterator begin_{};
  Iterator end_{};
  std::size_t size_ = 0;
};

}  // namespace travpool
