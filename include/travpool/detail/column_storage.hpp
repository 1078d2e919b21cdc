// travpool/detail/column_storage.hpp: the reserved columns of a column pool.
//
// DESIGN NOTE
// ===========
// A column of T is one virtual range reserved at add_column for every slot
// the pool may ever have, and never moved:
//
//   reserved  = max_bins * block,  block = bin_slots * sizeof(T)   (bytes)
//   element h = base[h],           0 <= h < max_bins * bin_slots
//   block q   = [q * block, (q + 1) * block)  holds the slots of bin index q
//
// bin_slots is a power of two >= 4096, so every block is whole pages and no
// two bins share a page. The range is reserved PROT_NONE (no commit charge,
// huge pages advised); block q is committed (made writable) when a bin
// takes index q, or when the column is added while bin q exists, and
// decommitted (pages dropped, PROT_NONE again) when bin q is given back.
// Pages are taken on first touch only.
//
// Elements are constructed by the pool (construct: a copy of the column's
// initial value) when a slot's handle is created and destroyed when it is
// destroyed, so at all times:
//   slot h live in the pool  <=>  base[h] is a constructed T
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "platform.hpp"

namespace travpool::detail {

// The type-erased part of a column, as the pool sees it.
class column_base {
 public:
  // Effects: reserves max_bins blocks of bin_slots elements of elem_bytes.
  // Throws: std::bad_alloc if the kernel refuses the reservation.
  column_base(std::string name, const std::type_info& type, std::size_t elem_bytes, std::uint32_t bin_slots,
              std::uint32_t max_bins)
      : name_(std::move(name)), type_(&type), block_(std::size_t{bin_slots} * elem_bytes), bytes_(block_ * max_bins) {
    base_ = static_cast<std::byte*>(reserve_range(bytes_));
  }
  column_base(const column_base&) = delete;
  column_base& operator=(const column_base&) = delete;
  virtual ~column_base() { release_range(base_, bytes_); }

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

  // Returns: whether block q is now committed (false: the kernel refused).
  bool commit(std::uint32_t q) noexcept { return commit_range(base_ + q * block_, block_); }
  // Effects: drops block q's pages and makes it inaccessible.
  void decommit(std::uint32_t q) noexcept { decommit_range(base_ + q * block_, block_); }

  const std::string& name() const noexcept { return name_; }
  const std::type_info& type() const noexcept { return *type_; }
  void* base() const noexcept { return base_; }
  std::size_t reserved_bytes() const noexcept { return bytes_; }

 private:
  std::string name_;
  const std::type_info* type_;
  std::size_t block_;
  std::size_t bytes_;
  std::byte* base_ = nullptr;
};

template <class T>
class typed_column final : public column_base {
  static_assert(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>,
                "travpool: a column type must be nothrow move constructible and destructible");
  static_assert(alignof(T) <= page_size, "travpool: a column type must not be over-aligned past a page");

 public:
  typed_column(std::string name, T init, std::uint32_t bin_slots, std::uint32_t max_bins)
      : column_base(std::move(name), typeid(T), sizeof(T), bin_slots, max_bins), init_(std::move(init)) {}

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

}  // namespace travpool::detail
