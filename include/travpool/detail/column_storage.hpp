// travpool/detail/column_storage.hpp: the reserved columns of a column pool.
//
// DESIGN NOTE
// ===========
// A column of T is one virtual range reserved at add_column for every slot
// the pool may ever have, and never moved:
//
//   reserved  = max_bins * block + 4 KiB,  block = bin_slots * sizeof(T) (bytes)
//   base      = reservation + offset,     offset = (7 k mod 64) * 64 for column k
//   element h = base[h],                  0 <= h < max_bins * bin_slots
//   block q   = [q * block, (q + 1) * block)  holds the slots of bin index q
//
// Columns start at different 64-byte offsets within a page, so that x[h]
// and y[h] of two columns never share their low 12 address bits (4K
// aliasing: a store to y[h] stalls the loads of x near it; a sweep
// y = 2 x + 1 ran 1.8x slower than over two std::vectors without this).
// The range is reserved PROT_NONE (no commit charge); block q is committed
// (made writable, and advised huge or small as huge_page_choice decides at
// that moment: huge_pages.hpp) when a bin takes index q, or when
// the column is added while bin q exists, and decommitted (pages dropped,
// PROT_NONE again) when bin q is given back. Pages are taken on first
// touch only. Committing block q makes writable every 2 MiB granule it
// overlaps (within the reservation), not only its pages: a block is
// smaller than a huge page (32768 slots of 24 B: 768 KiB), and a first
// touch gets a huge page only if its whole aligned 2 MiB lies in one
// writable mapping; committed page by page, no column ever got one.
// Pages are the system's (page_size(): 4 to 64 KiB); decommitting block q
// drops the pages that lie in block q only (with 64 KiB pages, a block
// under 128 KiB may hold none, and then gives nothing back), so
//   committed(q)  =>  every 2 MiB granule that block q overlaps is writable
//   a page of block q only is dropped and PROT_NONE while !committed(q),
//                 unless a committed neighbour's granule made it writable
//                 (then it is untouched: zero, no memory)
//
// Elements are constructed by the pool (construct: a copy of the column's
// initial value) when a slot's handle is created and destroyed when it is
// destroyed, so at all times:
//   slot h live in the pool  <=>  base[h] is a constructed T
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "bin.hpp"  // round_up
#include "huge_pages.hpp"
#include "platform.hpp"

namespace travpool::detail {

// The type-erased part of a column, as the pool sees it.
class column_base {
 public:
  // Effects: reserves max_bins blocks of bin_slots elements of elem_bytes,
  // the first at `offset` bytes (a multiple of the alignment) into the
  // reservation. Throws: std::bad_alloc if the kernel refuses.
  column_base(std::string name, const std::type_info& type, std::size_t elem_bytes, std::uint32_t bin_slots,
              std::uint32_t max_bins, std::size_t offset)
      : name_(std::move(name)),
        type_(&type),
        block_(std::size_t{bin_slots} * elem_bytes),
        bytes_(block_ * max_bins + min_page_size) {
    map_ = static_cast<std::byte*>(reserve_range(bytes_));
    base_ = map_ + offset;
  }
  column_base(const column_base&) = delete;
  column_base& operator=(const column_base&) = delete;
  virtual ~column_base() { release_range(map_, bytes_); }

  // Effects: constructs the initial value at slot h. Throws: what T's copy
  // constructor throws (then nothing is constructed).
  virtual void construct(std::uint32_t h) = 0;
  // Effects: destroys the element at slot h.
  virtual void destroy(std::uint32_t h) noexcept = 0;
  // Requires: from constructed, to not. Effects: moves from -> to, then
  // destroys from.
  virtual void relocate(std::uint32_t from, std::uint32_t to) noexcept = 0;
  // Whether destroy does anything (T is not trivially destructible).
  virtual bool needs_destroy() const noexcept = 0;

  // Returns: whether block q is now committed (false: the kernel refused):
  // the 2 MiB granules that overlap it, within the reservation, so that
  // its first touches can take huge pages.
  bool commit(std::uint32_t q) noexcept {
    const auto lo = reinterpret_cast<std::uintptr_t>(map_), hi = lo + bytes_;
    const std::uintptr_t first = (std::max)(lo, at(q) / huge_page_bytes * huge_page_bytes);
    const std::uintptr_t last = (std::min)(hi, round_up(at(q + 1), huge_page_bytes));
    if (!commit_range(reinterpret_cast<void*>(first), last - first)) return false;
    advise_huge_pages(reinterpret_cast<void*>(first), last - first, huge_page_choice::want_huge());
    return true;
  }
  // Effects: drops the pages that lie inside block q only, and makes them
  // inaccessible (a page shared with a neighbour block stays committed).
  void decommit(std::uint32_t q) noexcept {
    const std::uintptr_t first = round_up(at(q), page_size()), last = round_down(at(q + 1));
    if (first < last) decommit_range(reinterpret_cast<void*>(first), last - first);
  }
  const std::string& name() const noexcept { return name_; }
  const std::type_info& type() const noexcept { return *type_; }
  void* base() const noexcept { return base_; }
  std::size_t reserved_bytes() const noexcept { return bytes_; }

 private:
  std::string name_;
  const std::type_info* type_;
  std::uintptr_t at(std::uint32_t q) const noexcept { return reinterpret_cast<std::uintptr_t>(base_ + q * block_); }
  static std::uintptr_t round_down(std::uintptr_t a) noexcept { return a / page_size() * page_size(); }

  std::size_t block_;
  std::size_t bytes_;  // reserved: max_bins blocks and 4 KiB for the offset
  std::byte* map_;     // the reservation
  std::byte* base_;    // element 0, at map_ + offset
};

template <class T>
class typed_column final : public column_base {
  static_assert(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>,
                "travpool: a column type must be nothrow move constructible and destructible");
  static_assert(alignof(T) <= min_page_size, "travpool: a column type must not be over-aligned past a page");

 public:
  // `stagger`: this column's number; columns start at different offsets
  // within a page (64-byte steps), so that x[h] and y[h] of two columns do
  // not share their low 12 address bits (4K aliasing: a store to y[h]
  // would stall the load of x[h + k]).
  typed_column(std::string name, T init, std::uint32_t bin_slots, std::uint32_t max_bins, std::size_t stagger)
      : column_base(std::move(name), typeid(T), sizeof(T), bin_slots, max_bins,
                    alignof(T) <= 64 ? (stagger * 7 % 64) * 64 : 0),
        init_(std::move(init)) {}

  T* data() const noexcept { return static_cast<T*>(base()); }

  void construct(std::uint32_t h) override { ::new (static_cast<void*>(data() + h)) T(init_); }
  void destroy(std::uint32_t h) noexcept override {
    if constexpr (!std::is_trivially_destructible_v<T>) std::launder(data() + h)->~T();
  }
  void relocate(std::uint32_t from, std::uint32_t to) noexcept override {
    T* src = std::launder(data() + from);
    ::new (static_cast<void*>(data() + to)) T(std::move(*src));
    src->~T();
  }
  bool needs_destroy() const noexcept override { return !std::is_trivially_destructible_v<T>; }

 private:
  T init_;
};

// The type a generation column reports (get_column<T> refuses it for any
// T, so no writable key of it is handed out).
struct generation_count {};

// A column of std::uint32_t generation counts (basic_column_pool::
// add_generation_column): a create leaves a slot's count as it was, a
// destroy adds 1 (mod 2^32), so the count tells a slot's lives apart:
//   h live  =>  count[h] = number of destroys of slot h since its block was
//               committed (blocks are committed zeroed)
// A block decommitted by shrink_to_fit starts at 0 again.
class generation_column final : public column_base {
 public:
  generation_column(std::string name, std::uint32_t bin_slots, std::uint32_t max_bins, std::size_t stagger)
      : column_base(std::move(name), typeid(generation_count), sizeof(std::uint32_t), bin_slots, max_bins,
                    (stagger * 7 % 64) * 64) {}
  std::uint32_t* data() const noexcept { return static_cast<std::uint32_t*>(base()); }
  void construct(std::uint32_t) override {}
  void destroy(std::uint32_t h) noexcept override { ++data()[h]; }
  // The element moves to a free slot (whose count is its own); from's
  // life ends.
  void relocate(std::uint32_t from, std::uint32_t) noexcept override { ++data()[from]; }
  bool needs_destroy() const noexcept override { return true; }
};

}  // namespace travpool::detail
