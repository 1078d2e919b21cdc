// travpool/detail/pool_container.hpp: the container operations of the
// element layer, a base of basic_pool (as pool_traversal and pool_sequence
// are): capacity and memory queries, reserve and shrink_to_fit, erasing a
// range, splice, swap, and the element-wise copy behind the copy
// constructor and copy assignment.
//
// DESIGN NOTE
// ===========
// None of these constructs or destroys a T itself: they move whole bins
// (splice, swap), ask the bin acquisition layer (Pool::core_) for counts,
// or go through the pool's own create and erase. So T's lifetime stays in
// pool.hpp, and this base only needs the pool's public members and core_
// (basic_pool befriends it). Empty: basic_pool gets it by the
// empty base optimisation, so sizeof(basic_pool) is sizeof(core_).
//
// Invariants (at any quiescent moment; B = bin_count(), C = bin_capacity())
// ------------------------------------------------------------------------
//   capacity() = B * C >= size()
//   memory()   = sizeof(Pool) + (B + R) * (bin_span() + slot_bytes(bin_span()))
//                where R = retired bins (sync::bin_locks only, else 0)
//   splice(o): size'(this) = size(this) + size(o), size'(o) = 0,
//              B'(this) = B(this) + B(o), B'(o) = 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>

#include "../config.hpp"
#include "bin.hpp"
#include "bin_directory.hpp"
#include "pool_iterator.hpp"
#include "pool_lookup.hpp"

namespace travpool::detail {

template <class Pool, class T, class Ops, bool Checked>
class pool_container {
  using iterator = pool_iterator<T, Ops, false, Checked>;
  using const_iterator = pool_iterator<T, Ops, true, Checked>;

 public:
  using size_type = std::size_t;

  // Bytes between consecutive chunks.
  static constexpr std::size_t chunk_stride = Ops::stride;

  // Returns: the number of live elements. Complexity: O(1); O(bins) with
  // sync::bin_locks, where it sums the bins' counts without their locks
  // (under the shared list lock; it never revokes a bin's bias): exact while
  // no other thread creates or destroys, otherwise the sum of each bin's
  // count at some moment during the call.
  size_type size() const noexcept { return core().size(); }
  bool empty() const noexcept { return size() == 0; }
  // Returns: the most elements a pool can hold: the chunks that fit the
  // bin directory's 48-bit address range.
  static constexpr size_type max_size() noexcept {
    return (size_type{1} << bin_directory::address_bits) / chunk_stride;
  }
  // Returns: the chunks of all bins held, live or free.
  size_type capacity() const noexcept { return bin_count() * bin_capacity(); }
  size_type bin_count() const noexcept { return core().bin_count(); }
  std::uint32_t bin_capacity() const noexcept { return core().capacity(); }
  // Returns: the bytes of address space one bin takes (a power of two).
  size_type bin_span() const noexcept { return core().span(); }

  // Returns: the bytes this pool holds: sizeof(*this), plus bin_span() for
  // each bin it holds (the bins on its list, and with sync::bin_locks the
  // retired bins shrink_to_fit keeps mapped), plus the bin directory's
  // slots that map those bins (16 B per 64 KiB of span; the directory's
  // leaves are shared by all pools and not counted otherwise). A bin's
  // span is counted whole although only its touched pages are resident.
  // Not counted: address space the pool's span source mapped ahead of need
  // and has not handed out (never touched), and the process's span cache.
  // Thread-safe with sync::bin_locks. Complexity: O(1); O(retired bins)
  // with sync::bin_locks.
  size_type memory() const noexcept {
    const size_type bins = bin_count() + core().retired_count();
    return sizeof(Pool) + bins * (bin_span() + bin_directory::slot_bytes(bin_span()));
  }

  // Effects: ensures capacity() >= n by adding bins.
  // Throws: std::bad_alloc; bins added before the failure stay.
  void reserve(size_type n) { core().reserve(n); }

  // Effects: gives back every bin without a live element.
  // sync::none, sync::global_mutex: the bin goes to the process's span cache
  // (travpool/memory.hpp) while it has room, else it is unmapped. Cached
  // pages are MADV_FREE'd: they stay in the process's RSS until the kernel
  // needs memory, another pool reuses them, or trim_span_cache() unmaps them.
  // sync::bin_locks: its chunk pages are returned (madvise) but its address
  // range stays reserved until the pool is destroyed or a new bin reuses it,
  // because other threads may still remember it.
  // Invalidates: nothing (no element moves). Complexity: O(bins).
  void shrink_to_fit() noexcept { core().shrink(); }

  // Effects: erases the elements of [first, last) in iteration order, each
  // as erase(it) does, so a ~T may destroy other elements, in the range or
  // not. If a ~T destroys *last itself, erasing stops at the first element
  // live after last's position.
  // Returns: the iterator after the erased range: last, or in that case the
  // element where erasing stopped.
  // Requires: [first, last) is a range of this pool's iterators. Not for
  // concurrent use.
  // Throws (checks::on only): usage_error if last is not reachable from
  // first (last before first, an iterator of another pool, a destroyed or
  // end first) or the range is another pool's; the pool is then unchanged.
  // That check walks from first to last before anything is erased.
  // Invalidates: pointers and iterators to the erased elements.
  // Complexity: O(distance(first, last) + bins crossed); with checks, that
  // once more for the walk (up to O(size + bins) when last is before first).
  iterator erase(const_iterator first, const_iterator last) noexcept(!Checked) {
    if constexpr (Checked) {
      if (first != last && first.bin_ != nullptr && !first.bin_->is_root() && first.bin_->owner_ != core().id())
        throw_misuse("erase", "the range belongs to another pool");
      const const_iterator e = std::as_const(self()).end();
      for (const_iterator it = first; it != last; ++it)
        if (it == e) throw_misuse("erase", "last is not reachable from first (before it, or of another pool)");
    }
    while (first != last) {
      const bin_base* from = first.bin_;
      first = self().erase(first);
      if (passed(from, first, last)) break;  // a ~T destroyed *last
    }
    return mutable_iterator(first);
  }

  // Effects: moves every bin of other, in its list order, to the end of
  // this pool's bin list. No element is moved, copied or destroyed: every
  // pointer and iterator to other's elements stays valid and now belongs
  // to *this (contains, get_iterator, destroy and erase through *this
  // accept them; through other they fail as for any foreign pointer).
  // other is left empty with no bins, keeps its bin capacity, and takes a
  // new identity; its end() stays valid. Iteration visits this pool's
  // elements, then other's, each in their previous order.
  // stats::counters: the bins' counters move with them (they count as
  // allocated here and as released in other).
  // sync::bin_locks: not thread-safe: both pools must be quiescent (no
  // other thread creates or destroys in either, or sweeps them); the
  // threads' claims of other's bins are released, and what they remember
  // of other is forgotten. other's retired bins stay with other.
  // Throws: std::invalid_argument if the bin capacities differ; usage_error
  // (checks::on) if &other == this; without checks splicing a pool into
  // itself is a no-op. In both cases nothing changes.
  // Complexity: O(other.bin_count() x bin_span() / 64 KiB): each bin's
  // directory entries are rewritten.
  void splice(Pool& other) {
    if (&other == &self()) {
      if constexpr (Checked) throw_misuse("splice", "a pool cannot be spliced into itself");
      return;
    }
    if (other.bin_capacity() != bin_capacity())
      throw std::invalid_argument("travpool::splice: the pools' bin capacities differ");
    core().splice(other.core_);
  }
  void splice(Pool&& other) { splice(other); }

  void swap(Pool& o) noexcept {
    Pool t(std::move(o));
    o = std::move(self());
    self() = std::move(t);
  }
  friend void swap(Pool& a, Pool& b) noexcept { a.swap(b); }

 protected:
  // Requires: *this is empty with o's bin capacity or its own. Effects:
  // one element copy-constructed from each of o's, in o's iteration order,
  // into bins reserved up front.
  void copy_from(const Pool& o) {
    reserve(o.size());
    for (const T& e : o) self().create(e);
  }

 private:
  Pool& self() noexcept { return static_cast<Pool&>(*this); }
  const Pool& self() const noexcept { return static_cast<const Pool&>(*this); }
  auto& core() noexcept { return self().core_; }
  const auto& core() const noexcept { return self().core_; }

  // Returns: whether `it`, just stepped forward from bin `from` by an
  // erase, lies beyond the position of `last` (whose element was then
  // destroyed meanwhile). O(1) within a bin, else O(bins crossed).
  static bool passed(const bin_base* from, const const_iterator& it, const const_iterator& last) noexcept {
    if (it.bin_ == last.bin_) return std::less<>{}(last.cur_.ptr, it.cur_.ptr);
    for (const bin_base* b = from; b != it.bin_; b = b->next_)
      if (b == last.bin_) return true;
    return false;
  }

  static iterator mutable_iterator(const_iterator c) noexcept {
    iterator it;
    it.bin_ = c.bin_;
    it.cur_ = c.cur_;
    return it;
  }
};

}  // namespace travpool::detail

namespace travpool {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// Effects: erases every element e of p with pred(e), in iteration order
// (std::erase_if for standard containers; also found by argument-dependent
// lookup). Returns: the number erased. Not for concurrent use.
template <class T, class... Options, class Pred>
std::size_t erase_if(basic_pool<T, Options...>& p, Pred pred) {
  std::size_t erased = 0;
  for (auto it = p.begin(); it != p.end();) {
    if (pred(std::as_const(*it))) {
      it = p.erase(it);
      ++erased;
    } else {
      ++it;
    }
  }
  return erased;
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
