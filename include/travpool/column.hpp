// travpool/column.hpp: column<T>, the typed key of one column of a
// basic_column_pool (column_pool.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

namespace travpool {

// A typed key of one column: element h is (*this)[h], one load from a base
// that never changes. Valid until its column is removed or its pool is
// destroyed. Const-qualified T (column<const T>) gives read-only access.
template <class T>
class column {
 public:
  column() = default;
  T& operator[](std::uint32_t h) const noexcept { return data_[h]; }
  // Returns: element 0's address; data()[h] is element h.
  T* data() const noexcept { return data_; }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  operator column<const T>() const noexcept requires(!std::is_const_v<T>) { return column<const T>(data_, id_); }
  friend bool operator==(const column&, const column&) = default;

  column(T* data, const void* id) noexcept : data_(data), id_(id) {}  // for the pool
  const void* id() const noexcept { return id_; }

 private:
  T* data_ = nullptr;
  const void* id_ = nullptr;
};

}  // namespace travpool
