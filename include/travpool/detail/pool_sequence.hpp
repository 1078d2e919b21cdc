// travpool/detail/pool_sequence.hpp: the sequence half of the element
// layer, a base of basic_pool (as pool_traversal is): elements created from
// ranges (insert, assign) and equality. Empty (basic_pool gets it by the
// empty base optimisation); reaches the pool through its public members
// only (create, clear, size, begin, end).
//   after insert(first, last) from an empty pool (sync::none or
//   global_mutex): iteration order = the range's order
//   a == b  <=>  a.size() = b.size() and the elements are equal pairwise in
//               iteration order
#pragma once

#include <algorithm>
#include <concepts>
#include <initializer_list>
#include <iterator>
#include <ranges>
#include <utility>

namespace travpool::detail {

template <class Pool, class T>
class pool_sequence {
 public:
  // Effects: create(*it) for each it in [first, last), in that order.
  // Requires: the range is not a range of this pool (creates during a
  // sweep may or may not be visited).
  // Throws: as create. Basic guarantee: the elements created before the
  // exception stay in the pool; the failed create leaves nothing behind.
  // Complexity: O(n) creates.
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>>
  void insert(I first, S last) {
    for (; first != last; ++first) self().create(*first);
  }
  // (The members constrained on T are templates, so that the constraint is
  // checked where they are used: T may be incomplete where the pool type
  // is completed.)
  template <class U = T>
  requires std::copy_constructible<U>
  void insert(std::initializer_list<T> il) { insert(il.begin(), il.end()); }
  // Effects: insert(ranges::begin(r), ranges::end(r)) (C++23's name).
  template <std::ranges::input_range R>
  requires std::constructible_from<T, std::ranges::range_reference_t<R>>
  void insert_range(R&& r) { insert(std::ranges::begin(r), std::ranges::end(r)); }

  // Effects: clear(), then insert(first, last). The bins (and capacity())
  // are kept. Requires: the range is not a range of this pool.
  // Throws: as insert (basic guarantee: the pool then holds the elements
  // created before the exception). Invalidates: as clear.
  template <std::input_iterator I, std::sentinel_for<I> S>
  requires std::constructible_from<T, std::iter_reference_t<I>>
  void assign(I first, S last) {
    self().clear();
    insert(std::move(first), std::move(last));
  }
  template <class U = T>
  requires std::copy_constructible<U>
  void assign(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <std::ranges::input_range R>
  requires std::constructible_from<T, std::ranges::range_reference_t<R>>
  void assign_range(R&& r) { assign(std::ranges::begin(r), std::ranges::end(r)); }

  // Returns: true iff a and b hold equal elements in the same iteration
  // order (as std::list's ==); bin capacity and layout of memory are not
  // compared. Requires: neither pool is modified meanwhile.
  // Complexity: O(size + bins).
  template <class U = T>
  requires std::equality_comparable<U>
  friend bool operator==(const Pool& a, const Pool& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  Pool& self() noexcept { return static_cast<Pool&>(*this); }
};

}  // namespace travpool::detail
