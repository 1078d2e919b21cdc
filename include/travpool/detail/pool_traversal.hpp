// travpool/detail/pool_traversal.hpp: the traversal half of the element
// layer, a base of basic_pool: iterators, reverse iterators, partitions,
// TBB ranges, segments and for_each, all from the pool's bin list root.
// Empty (basic_pool gets it by the empty base optimisation); reaches the
// pool's bins through Pool::core_.
//   end() = (root, null cursor);  begin() = first element of the first
//   bin with live_ > 0 from root->next_ on, or end()
//   distance(begin(), end()) = size()   (quiescent pool)
//
// Iteration order (the contract of basic_pool)
// --------------------------------------------
// Always: bin-list order across bins, address order within a bin; bins
// are appended to the list when added (create, reserve) or spliced in.
// Guaranteed: in a pool with sync::none or sync::global_mutex, as long as
// no element has been destroyed (by destroy, erase or erase_if) since the
// pool was constructed or last cleared (clear, assign), and nothing was
// spliced into it, iteration order is creation order. A create whose
// constructor threw does not count as a destroy. Why: create takes the
// first free chunk of the first bin with room; without a destroy every bin
// before that one is full, and its free list hands out fresh chunks in
// ascending address order. So a copy, and a pool built from a range,
// iterate in the order of their source.
// Not guaranteed once an element is destroyed: a freed chunk is reused
// last in, first out, and a bin that gets room again is filled first, so
// later elements may appear anywhere. splice appends other's bins, so its
// elements come after this pool's but later creates may go anywhere.
// sync::bin_locks: threads fill different bins, so no creation order holds.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

#include "bin.hpp"
#include "partition.hpp"
#include "pool_iterator.hpp"

namespace travpool::detail {

template <class Pool, class T, class Ops, bool Checked>
class pool_traversal {
 public:
  using iterator = pool_iterator<T, Ops, false, Checked>;
  using const_iterator = pool_iterator<T, Ops, true, Checked>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  // Iteration visits live elements in address order within a bin and in
  // bin-list order across bins. Not thread-safe against create or destroy.
  iterator begin() noexcept { return iterator::first_from(root()->next_); }
  iterator end() noexcept { return iterator::at_end(root()); }
  const_iterator begin() const noexcept { return const_cast<pool_traversal*>(this)->begin(); }
  const_iterator end() const noexcept { return const_cast<pool_traversal*>(this)->end(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  // Parallel traversal. Partitions and ranges are snapshots of the bin list:
  // they stay valid only while no element is created or destroyed (in any
  // thread) and the pool is not moved.
  using subrange = pool_subrange<iterator>;
  using const_subrange = pool_subrange<const_iterator>;
  using range_type = bin_range<iterator>;
  using const_range_type = bin_range<const_iterator>;

  // Returns: k ranges (k >= 1) that together cover every live element once,
  // in traversal order. Ranges consist of whole bins, cut where the running
  // live count is closest to r * size() / k, so each holds at most
  // size() / k + one bin's live elements (and at most 1.1 * size() / k +
  // bin_capacity() whenever bin_count() >= 4k). When k exceeds the number of
  // non-empty bins (in particular when k > size()), the surplus ranges are
  // empty. Throws: std::invalid_argument if k == 0; std::bad_alloc.
  // Complexity: O(bins + k log bins); no element is visited.
  std::vector<subrange> partition(std::size_t k) { return ::travpool::detail::partition<iterator>(root(), k); }
  std::vector<const_subrange> partition(std::size_t k) const {
    return ::travpool::detail::partition<const_iterator>(root(), k);
  }

  // Returns: a TBB Range over all live elements (copyable, splittable by
  // live count at bin boundaries, divisible while it spans two bins), for
  // tbb::parallel_for(pool.range(), body) and tbb::parallel_reduce. The
  // body's sub-range has begin(), end() and size(). Complexity: O(bins).
  range_type range() { return range_type(std::make_shared<const bin_index>(root())); }
  const_range_type range() const { return const_range_type(std::make_shared<const bin_index>(root())); }

  // Returns: a forward range of segments, one per bitmap word (64 chunks)
  // of a bin that holds live elements, in iteration order. A segment is a
  // range of T& (its loop is for_each's inner loop), with data() (chunk 0
  // of the block), mask() (bit j: data()[j] is live), size(), and, when
  // contiguous() (its live elements are one run, as in a dense pool),
  // span(), a std::span<T> for loops the compiler can vectorise. Available
  // when chunks are arrays of T: layout::compact with sizeof(T) >= 12 and a
  // multiple of alignof(T). Valid while no element is created or destroyed.
  // Complexity: O(1) per segment; free runs are jumped.
  // (Templates, so that the constraint is checked where segments() is
  // used, not where the pool type is completed: T may still be incomplete.)
  template <class It = iterator>
  auto segments() noexcept requires It::contiguous_runs {
    return begin().segments_until(end());
  }
  template <class It = const_iterator>
  auto segments() const noexcept requires It::contiguous_runs {
    return begin().segments_until(end());
  }

  // Effects: calls f(element) for every live element, bin by bin, in the
  // order of iteration. f must not create or destroy.
  template <class F>
  void for_each(F&& f) {
    begin().for_each_until(end(), f);
  }
  template <class F>
  void for_each(F&& f) const {
    begin().for_each_until(end(), f);
  }

 private:
  bin_base* root() const noexcept { return static_cast<const Pool*>(this)->core_.root(); }
};

}  // namespace travpool::detail
