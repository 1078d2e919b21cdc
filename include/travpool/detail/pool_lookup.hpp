// travpool/detail/pool_lookup.hpp: from a pointer to the live element it
// points at, a base of basic_pool (as pool_container is): contains,
// get_iterator, and for destroy the chunk index of a live element and the
// reason a pointer is not one.
//
// DESIGN NOTE
// ===========
// A pointer is resolved in O(1) without trusting it: the bin directory
// (bin_directory.hpp, through Pool::core_.find) maps any address to the
// bin of this pool whose span holds it, or to none; the bin then maps it to
// a chunk index (bin_storage::chunk_index: 0 unless p is the start of a
// user chunk's payload); the chunk is live iff
//   i != 0  and  !b.retired_  and  i < b.fresh_  and  !is_free(b, i)
// (chunks at or above fresh_ were never assigned and are not yet marked).
// With sync::bin_locks contains and get_iterator take no lock: the words
// that say whether a chunk is live are written with relaxed stores and read
// with relaxed loads, and a retired bin stays mapped (it reads as free).
// Empty: basic_pool gets it by the empty base optimisation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "../usage_error.hpp"
#include "bin.hpp"
#include "pool_iterator.hpp"

namespace travpool::detail {

// Throws: usage_error "travpool::op: why". Kept out of line, so the fast
// paths that may throw stay small.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_misuse(const char* op, const char* why) {
  throw usage_error(std::string("travpool::") + op + ": " + why);
}

// PoolOptions: the pool's resolved options (pool_options in
// detail/pool_options.hpp).
template <class Pool, class T, class PoolOptions>
class pool_lookup {
  using ops = typename PoolOptions::ops;
  using storage = typename PoolOptions::storage;
  using iterator = pool_iterator<T, ops, false, PoolOptions::checked>;
  using const_iterator = pool_iterator<T, ops, true, PoolOptions::checked>;

 public:
  // Returns: true iff p points at a live element of this pool. Safe for any
  // pointer value. With sync::bin_locks it takes no lock (so it never
  // revokes another thread's biased bin): exact for an element whose create
  // or destroy happens before the call, either answer for one that another
  // thread creates or destroys meanwhile. Complexity: O(1).
  bool contains(const T* p) const noexcept { return find_live(p).first != nullptr; }

  // Returns: an iterator to *p, or end() if p is not a live element of this
  // pool. Complexity: O(1).
  iterator get_iterator(const T* p) noexcept {
    const auto [b, i] = find_live(p);
    return b != nullptr ? iterator(b, i) : static_cast<Pool&>(*this).end();
  }
  const_iterator get_iterator(const T* p) const noexcept { return const_cast<pool_lookup*>(this)->get_iterator(p); }

 protected:
  // Returns: the chunk index of the live element p in b, or 0 if p is not
  // one. Requires: b == core_.find(p), inside core_.locked(b, ...).
  static std::uint32_t live_index(const bin_base& b, const T* p) noexcept {
    const std::uint32_t i = storage::chunk_index(b, p);  // 0, or a user chunk: no need for is_live's lower bound
    return i != 0 && !b.retired_ && i < b.fresh_ && !ops::is_free(b, i) ? i : 0;
  }

  // Returns: why p is not a live element of this pool.
  static const char* locate_error(const bin_base* b, const T* p) noexcept {
    if (b == nullptr) return "pointer does not belong to this pool";
    if (storage::chunk_index(*b, p) == 0)
      return "pointer does not point at an element of this pool (interior or pseudo chunk)";
    return "element is not live (already destroyed, or never created)";
  }

  // Returns: (bin, chunk index) of the live element p, or (nullptr, 0).
  std::pair<bin_base*, std::uint32_t> find_live(const T* p) const noexcept {
    const auto& core = static_cast<const Pool&>(*this).core_;
    bin_base* b = core.find(p);
    if (b == nullptr) return {nullptr, 0};
    std::uint32_t i;
    if constexpr (PoolOptions::bin_locked) {
      // No lock: the bin's words that say whether a chunk is live are written
      // with relaxed stores; a retired bin stays mapped (reads as free).
      i = storage::chunk_index(*b, p);
      if (i != 0 && (load_relaxed(b->retired_) || !storage::algo::is_live_relaxed(*b, i))) i = 0;
    } else {
      i = const_cast<typename PoolOptions::core_type&>(core).locked(*b, [&] { return live_index(*b, p); });
    }
    return {i != 0 ? b : nullptr, i};
  }
};

}  // namespace travpool::detail
