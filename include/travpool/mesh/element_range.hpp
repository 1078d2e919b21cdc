// travpool/mesh/element_range.hpp: a read-only view of one of the mesh's
// column pools, yielding its typed handles.
//
// The mesh hands out these views, never its pools: a view can iterate,
// partition and list runs, but cannot create or destroy elements or
// reach the pool's columns, so connectivity cannot be broken through it.
// Its iterators, partitions and ranges are the pool's own, which yield
// Handle (the pool is a basic_column_pool<Handle, sync::bin_locks>).
#pragma once

#include <cstddef>
#include <cstdint>

#include <travpool/column_pool.hpp>

#include "handles.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// The pool of the elements of kind Handle (Vertex, Edge or Face):
// concurrent (sync::bin_locks), so threads can create and destroy elements
// of one mesh at once; the mesh runs it exclusively (set_exclusive) outside
// a parallel phase (mesh.hpp, design note, "Concurrency").
template <class Handle>
using element_pool = travpool::basic_column_pool<Handle, travpool::sync::bin_locks>;

// The live elements of one kind. Valid while the mesh lives. An iterator
// stays valid until its own element is deleted (m.delete_face(*it++) moves
// on first); other elements deleted meanwhile are skipped, elements
// created meanwhile may or may not be visited. Partitions and ranges are
// snapshots: valid while nothing of the kind is created or deleted.
template <class Handle>
class element_range {
 public:
  using pool_type = element_pool<Handle>;
  using iterator = typename pool_type::iterator;

  explicit element_range(const pool_type& p) noexcept : p_(&p) {}
  iterator begin() const noexcept { return p_->begin(); }
  iterator end() const noexcept { return p_->end(); }
  std::size_t size() const noexcept { return p_->size(); }
  bool empty() const noexcept { return p_->empty(); }
  std::size_t bin_count() const noexcept { return p_->bin_count(); }
  // Returns: whether h names a live element of this kind; any value is safe.
  bool is_live(Handle h) const noexcept { return p_->is_live(h); }
  // Effects: f(h) for every live handle, a bitmap word at a time.
  template <class F>
  void for_each(F&& f) const {
    p_->for_each(f);
  }
  // Returns: maximal runs [first, last) of live handle indices.
  auto runs() const noexcept { return p_->runs(); }
  // Returns: k parts of whole bins (basic_column_pool::partition), each
  // yielding Handle.
  auto partition(std::size_t k) const { return p_->partition(k); }
  // Returns: a TBB Range over the bins (basic_column_pool::range()).
  auto range() const { return p_->range(); }

 private:
  const pool_type* p_;
};

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
