// travpool/column.hpp: column<T, Handle>, the typed key of one column of a
// basic_column_pool (column_pool.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "handle.hpp"

namespace travpool {

// A typed key of one column: element h is (*this)[h], one load from a base
// that never changes. Valid until its column is removed or its pool is
// destroyed. Const-qualified T (column<const T>) gives read-only access.
// Handle is its pool's handle type (handle.hpp): a column of a typed pool is
// indexed by that pool's handles only; data()[i] reaches element i by index.
template <class T, class Handle = std::uint32_t>
class column {
 public:
  using value_type = T;
  using handle_type = Handle;

  column() = default;
  // Requires: h live (unchecked; basic_column_pool::at checks).
  T& operator[](Handle h) const noexcept { return data_[handle_index(h)]; }
  // Returns: element 0's address; data()[handle_index(h)] is element h.
  T* data() const noexcept { return data_; }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  operator column<const T, Handle>() const noexcept requires(!std::is_const_v<T>) {
    return column<const T, Handle>(data_, id_);
  }
  friend bool operator==(const column&, const column&) = default;

  column(T* data, const void* id) noexcept : data_(data), id_(id) {}  // for the pool
  const void* id() const noexcept { return id_; }

 private:
  T* data_ = nullptr;
  const void* id_ = nullptr;
};

}  // namespace travpool
