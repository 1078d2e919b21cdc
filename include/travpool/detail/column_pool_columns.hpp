// travpool/detail/column_pool_columns.hpp: the column API of
// basic_column_pool (add_column, get_column, has_column, column_count,
// remove_column), an empty base of the pool, as pool_container is of
// basic_pool.
//
// The columns themselves live in the pool's column_set (column_set.hpp);
// this base forwards to it, with the pool's bin geometry (which blocks are
// committed: the bins that hold an index) and its live handles (the pool
// itself is the range of them). All of it requires a quiescent pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "../usage_error.hpp"
#include "column_set.hpp"

namespace travpool::detail {

template <class Pool>
class column_pool_columns {
 public:
  // Effects: adds a column of T named `name`; every live handle gets a copy
  // of init, and so does every handle created later.
  // Returns: its key. Throws: usage_error if the name is taken;
  // std::bad_alloc if the reservation or a commit is refused; what T's copy
  // constructor throws. On a throw the pool is unchanged.
  // Complexity: O(size() + bins).
  template <class T>
  column<T> add_column(std::string name, T init = T{}) {
    Pool& p = pool();
    return p.columns_.add(
        std::move(name), std::move(init), p.bin_slots(), p.index_.max_bins(),
        [&p](std::uint32_t q) { return p.index_.at(q) != nullptr; }, p);
  }

  // Returns: the key of the column named `name`.
  // Throws: usage_error if there is none or its type is not T.
  template <class T>
  column<T> get_column(std::string_view name) {
    return pool().columns_.template get<T>(name);
  }
  template <class T>
  column<const T> get_column(std::string_view name) const {
    return pool().columns_.template get<const T>(name);
  }
  bool has_column(std::string_view name) const noexcept { return pool().columns_.find(name) != nullptr; }
  std::size_t column_count() const noexcept { return pool().columns_.size(); }

  // Effects: destroys the column's elements and unmaps it; keys of it
  // become invalid. Throws: usage_error if it is not a column of this pool.
  template <class T>
  void remove_column(column<T> key) {
    pool().columns_.remove(key.id(), pool());
  }
  void remove_column(std::string_view name) {
    const column_base* c = pool().columns_.find(name);
    if (c == nullptr) throw usage_error("travpool: remove_column: no column named '" + std::string(name) + "'");
    pool().columns_.remove(c, pool());
  }

 private:
  Pool& pool() noexcept { return static_cast<Pool&>(*this); }
  const Pool& pool() const noexcept { return static_cast<const Pool&>(*this); }
};

}  // namespace travpool::detail
