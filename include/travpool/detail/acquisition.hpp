// travpool/detail/acquisition.hpp: the bin acquisition interface, the only
// way the pools (pool.hpp, column_pool.hpp) change bins, as a concept.
// Implemented by local_bins (sync::none) and mutex_bins<local_bins>
// (sync::global_mutex) in acquire_local.hpp, and by concurrent_bins
// (sync::bin_locks) in bin_locks/concurrent_bins.hpp; pool_layers.hpp
// checks all three against bin_acquisition. Which locks each takes, and in
// what order: docs/design.md, "Locks and their order".
//
// The acquisition interface (every sync policy's layer provides it; the
// element layer in pool.hpp uses nothing else to change bins):
//
//   taken take()                 assigns a chunk of a bin with room, adding
//                                a bin if none has room; T is not built yet
//   void  untake(taken)          undoes take (T's constructor threw)
//   R     locked(b, f)           runs f() with b's chunks stable: nothing
//                                (local), the pool's mutex, or b's lock
//   u32   free_chunk(b, i)       Listing 7 on chunk i, whose T is destroyed;
//                                caller is inside locked(b, ...) or quiescent;
//                                returns the next assigned chunk (b.last(): none)
//   size_t size()                live elements
//   void  reserve(n), shrink()
//   void  clear(d), release_all(d)   every element destroyed, by
//                                d(b, i): ~T at chunk i (nullptr: trivial)
//   void  splice(o)              moves o's bins to the end of this layer's
//                                (quiescent pools, equal capacities)
//   size_t retired_count()       bins held off the list (bin_locks only)
//   void  for_each_bin_unlocked(f)  f(b) for every listed bin, without the
//                                bins' locks where they are per bin (under
//                                the pool's mutex or shared list lock): f
//                                reads live_ and counters_ with load_relaxed
//
//   and from the bin storage below (bin_storage.hpp): find(p), root(),
//   first(), capacity(), span(), bin_count(), id(), steal(o),
//   stats_hooks(), and exact_size (size() is exact, not a sum of relaxed
//   loads).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "bin.hpp"

namespace travpool::detail {

// A chunk that take() assigned: bin, chunk index, whether the bin is new.
struct taken {
  bin_base* bin;
  std::uint32_t index;
  bool new_bin;
};

template <class A>
concept bin_acquisition = requires(A& a, const A& ca, A& other, const taken& t, bin_base& b, std::uint32_t i,
                                   std::size_t n, const void* p) {
  { a.take() } -> std::same_as<taken>;
  { a.untake(t) }
  noexcept;
  {
    a.locked(b, [] { return 1; })
    } -> std::same_as<int>;
  { a.free_chunk(b, i) }
  noexcept;
  { ca.size() }
  noexcept->std::same_as<std::size_t>;
  a.reserve(n);
  { a.shrink() }
  noexcept;
  { a.clear(nullptr) }
  noexcept;
  { a.release_all(nullptr) }
  noexcept;
  { a.splice(other) }
  noexcept;
  { a.steal(other) }
  noexcept;
  { ca.retired_count() }
  noexcept->std::same_as<std::size_t>;
  ca.for_each_bin_unlocked([](const bin_base&) {});
  { ca.find(p) }
  noexcept->std::same_as<bin_base*>;
  { ca.root() }
  noexcept->std::same_as<bin_base*>;
  { ca.first() }
  noexcept->std::same_as<bin_base*>;
  { ca.capacity() }
  noexcept->std::same_as<std::uint32_t>;
  { ca.span() }
  noexcept->std::same_as<std::size_t>;
  { ca.bin_count() }
  noexcept->std::same_as<std::size_t>;
  { ca.id() }
  noexcept->std::same_as<std::uint64_t>;
  ca.stats_hooks();
  { A::exact_size } -> std::convertible_to<bool>;
};

}  // namespace travpool::detail
