// travpool/detail/column_set.hpp: the columns of a column pool (their
// typed key, column<T>, is travpool/column.hpp).
//
// column_set owns the columns (column_storage.hpp) in the order added and
// applies per-slot and per-block operations to all of them, all or none:
//
//   construct(h)   every column's initial value at h (on a throw: none)
//   destroy(h)     every non-trivially destructible column's element at h
//                  (destroyers_ = those columns, so trivial ones cost nothing)
//   commit(q)      block q of every column (on a refusal: none)
//   decommit(q)    block q of every column
//   relocate(a, b) every column's element a moved to b (compact)
//
// Invariant: destroyers_ = { c in columns_ : c->needs_destroy() }.
// It knows nothing of bins: add and remove are told which blocks are
// committed and which handles are live.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "../column.hpp"
#include "../usage_error.hpp"
#include "column_storage.hpp"

namespace travpool::detail {

class column_set {
 public:
  // Effects: adds a column of T: block q committed for every q < max_bins
  // with committed(q), and a copy of init constructed at every handle of
  // `live`. Returns: its key. Throws: usage_error if the name is taken;
  // std::bad_alloc if the reservation or a commit is refused; what T's
  // copy constructor throws. On a throw nothing changed.
  template <class T, class Committed, class Live>
  column<T> add(std::string name, T init, std::uint32_t bin_slots, std::uint32_t max_bins, Committed committed,
                const Live& live) {
    if (find(name) != nullptr) throw usage_error("travpool: add_column: a column named '" + name + "' exists");
    auto c = std::make_unique<typed_column<T>>(std::move(name), std::move(init), bin_slots, max_bins, added_);
    for (std::uint32_t q = 0; q < max_bins; ++q)
      if (committed(q) && !c->commit(q)) throw std::bad_alloc();
    columns_.reserve(columns_.size() + 1);  // nothing below throws after the constructs
    destroyers_.reserve(columns_.size() + 1);
    auto failed = live.end();
    try {
      for (auto it = live.begin(); it != live.end(); ++it) failed = it, c->construct(*it);
    } catch (...) {
      for (auto it = live.begin(); it != failed; ++it) c->destroy(*it);
      throw;
    }
    column<T> key(c->data(), c.get());
    columns_.push_back(std::move(c));
    ++added_;
    refresh();
    return key;
  }

  // Effects: adds a generation column (generation_column) named `name`,
  // block q committed (zeroed) for every q with committed(q). Returns: its
  // key, read-only. Throws: as add.
  template <class Committed>
  column<const std::uint32_t> add_generations(std::string name, std::uint32_t bin_slots, std::uint32_t max_bins,
                                              Committed committed) {
    if (find(name) != nullptr) throw usage_error("travpool: add_column: a column named '" + name + "' exists");
    auto c = std::make_unique<generation_column>(std::move(name), bin_slots, max_bins, added_);
    for (std::uint32_t q = 0; q < max_bins; ++q)
      if (committed(q) && !c->commit(q)) throw std::bad_alloc();
    columns_.reserve(columns_.size() + 1);
    destroyers_.reserve(columns_.size() + 1);
    column<const std::uint32_t> key(c->data(), c.get());
    columns_.push_back(std::move(c));
    ++added_;
    refresh();
    return key;
  }

  // Returns: the key of the column named `name` (T may be const).
  // Throws: usage_error if there is none or its element type is not T.
  template <class T>
  column<T> get(std::string_view name) const {
    const column_base* c = find(name);
    if (c == nullptr) throw usage_error("travpool: get_column: no column named '" + std::string(name) + "'");
    if (c->type() != typeid(std::remove_const_t<T>))
      throw usage_error("travpool: get_column: column '" + std::string(name) + "' has another type");
    return column<T>(static_cast<std::remove_const_t<T>*>(c->base()), c);
  }

  // Effects: destroys the column's elements at every handle of `live` and
  // unmaps it. Throws: usage_error if `id` is not a column of this set.
  template <class Live>
  void remove(const void* id, const Live& live) {
    std::size_t k = 0;
    while (k < columns_.size() && columns_[k].get() != id) ++k;
    if (k == columns_.size()) throw usage_error("travpool: remove_column: not a column of this pool");
    if (columns_[k]->needs_destroy())
      for (std::uint32_t h : live) columns_[k]->destroy(h);
    columns_.erase(columns_.begin() + static_cast<std::ptrdiff_t>(k));
    refresh();
  }

  // Returns: the column named `name`, or nullptr.
  const column_base* find(std::string_view name) const noexcept {
    for (auto& c : columns_)
      if (c->name() == name) return c.get();
    return nullptr;
  }
  std::size_t size() const noexcept { return columns_.size(); }

  // Effects: every column's initial value at h. Throws: what a copy
  // constructor throws; then no column holds an element at h.
  void construct(std::uint32_t h) {
    std::size_t k = 0;
    try {
      for (; k < columns_.size(); ++k) columns_[k]->construct(h);
    } catch (...) {
      while (k != 0) columns_[--k]->destroy(h);
      throw;
    }
  }
  void destroy(std::uint32_t h) noexcept {
    for (column_base* c : destroyers_) c->destroy(h);
  }
  // Returns: whether block q of every column is committed; if false, none
  // was committed by this call.
  bool commit(std::uint32_t q) noexcept {
    std::size_t k = 0;
    while (k < columns_.size() && columns_[k]->commit(q)) ++k;
    if (k == columns_.size()) return true;
    while (k != 0) columns_[--k]->decommit(q);
    return false;
  }
  void decommit(std::uint32_t q) noexcept {
    for (auto& c : columns_) c->decommit(q);
  }
  void relocate(std::uint32_t from, std::uint32_t to) noexcept {
    for (auto& c : columns_) c->relocate(from, to);
  }

 private:
  void refresh() noexcept {  // capacity reserved by add
    destroyers_.clear();
    for (auto& c : columns_)
      if (c->needs_destroy()) destroyers_.push_back(c.get());
  }

  std::vector<std::unique_ptr<column_base>> columns_;
  std::vector<column_base*> destroyers_;
  std::size_t added_ = 0;  // columns ever added: staggers their offsets
};

}  // namespace travpool::detail
