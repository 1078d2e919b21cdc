// examples/mesh/element_range.hpp: a read-only view of one of the mesh's
// column pools, yielding typed handles.
//
// The mesh hands out these views, never its pools: a view can iterate,
// partition and list runs, but cannot create or destroy elements or
// reach the pool's columns, so connectivity cannot be broken through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include <travpool/column_pool.hpp>

#include "handles.hpp"

namespace travpool::mesh {

using element_pool = travpool::column_pool;

// Iterates live handles of a pool as Handle values (in the pool's order).
template <class Handle>
class handle_iterator {
  using base = element_pool::iterator;

 public:
  using iterator_category = std::forward_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = Handle;
  using reference = Handle;
  using pointer = void;

  handle_iterator() = default;
  explicit handle_iterator(base it) noexcept : it_(it) {}
  Handle operator*() const noexcept { return Handle(*it_); }
  handle_iterator& operator++() noexcept {
    ++it_;
    return *this;
  }
  handle_iterator operator++(int) noexcept {
    auto t = *this;
    ++it_;
    return t;
  }
  friend bool operator==(const handle_iterator&, const handle_iterator&) = default;

 private:
  base it_{};
};

// The live elements of one kind. Valid while the mesh lives; iterators are
// valid while no element of the kind is created or destroyed.
template <class Handle>
class element_range {
 public:
  explicit element_range(const element_pool& p) noexcept : p_(&p) {}
  handle_iterator<Handle> begin() const noexcept { return handle_iterator<Handle>(p_->begin()); }
  handle_iterator<Handle> end() const noexcept { return handle_iterator<Handle>(p_->end()); }
  std::size_t size() const noexcept { return p_->size(); }
  bool empty() const noexcept { return p_->empty(); }
  std::size_t bin_count() const noexcept { return p_->bin_count(); }
  // Returns: whether h names a live element of this kind; any value is safe.
  bool is_live(Handle h) const noexcept { return p_->is_live(h.idx()); }
  // Effects: f(h) for every live handle, a bitmap word at a time.
  template <class F>
  void for_each(F&& f) const {
    p_->for_each([&](std::uint32_t i) { f(Handle(i)); });
  }
  // Returns: maximal runs [first, last) of live handle indices.
  auto runs() const noexcept { return p_->runs(); }
  // Returns: k parts of whole bins (element_pool::partition).
  auto partition(std::size_t k) const { return p_->partition(k); }
  // Returns: a TBB Range over the bins (element_pool::range()).
  auto range() const { return p_->range(); }

 private:
  const element_pool* p_;
};

}  // namespace travpool::mesh
