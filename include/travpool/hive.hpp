// travpool/hive.hpp: travpool::hive<T, Allocator>, the C++26 std::hive
// ([hive], P0447R28) on travpool's bins, usable from C++20.
//
//   travpool::hive<Vertex> vs;
//   auto it = vs.insert({x, y, z});     // O(1); the element never moves
//   for (Vertex& v : vs) ...            // skips erased slots, jumps gaps in O(1)
//   vs.erase(it);                       // O(1)
//   auto jt = vs.get_iterator(&*kt);    // O(1) from a pointer
//
// DESIGN NOTE
// ===========
// A hive is pool<T>'s layers (layout::compact; by default no
// synchronisation and the build's default checks; detail/pool_layers.hpp:
// hive_layers) whose bins are
// the hive's blocks and take their memory from the allocator
// (detail/allocator_spans.hpp), plus the [hive] members pool<T> lacks.
// So its sweeps are pool<T>'s sweeps, and a pointer's block is found
// through the bin directory in O(1) (get_iterator).
//
// Blocks
// ------
// A block of capacity c is a bin of c chunks, of one of two kinds
// (detail/bin_storage.hpp, "Small bins"):
// * small (hive, not concurrent_hive; alignof(T) <= alignof(max_align_t)):
//   a bin whose bytes and record take at most 32 KiB is one allocation of
//   exactly that size (rounded up to 16 B), outside the bin directory, on
//   the hive's list of small blocks, while the hive lists fewer than 16
//   small blocks;
// * registered: bit_ceil(bin_bytes(c)) bytes, at least 64 KiB (the
//   directory's granule), granule-aligned, mapped by the directory.
//   every block b:  limits.min <= b.capacity <= limits.max
//                   (block_capacity_limits(); blocks spliced in were
//                   checked against it, reshape re-establishes it)
//   capacity() = sum of the blocks' capacities,  size() <= capacity()
// A new block is made when an insertion finds no free chunk. Its
// capacity fills the blocks' total bytes rounded up to a power of two,
// from 1 KiB (64 KiB without small blocks) to 2 MiB, clamped to the
// limits, so the capacity roughly doubles per block: small blocks of 1, 1,
// 2, ..., 32 KiB, then registered ones until blocks fill 2 MiB (pool<T>'s
// bins). default limits: [the chunks that fill 1 KiB, at least 8 (without
// small blocks: those that fill 64 KiB), the chunks that fill 2 MiB]; hard
// limits: [1, 2^31 - 2^16]. get_iterator and contains: O(1) through the
// directory, and after a miss a scan of the small blocks (at most 16 that
// the hive made, plus those spliced in). Beyond 16 small blocks (small
// limits), a block below 64 KiB of chunks takes 64 KiB of address space.
//
// Where [hive] leaves a choice
// ----------------------------
// * Insertion reuses the most recently erased slot of the block that last
//   had room (LIFO, as plf::hive); iteration order is block order, then
//   address order (pool.hpp, "Iteration order").
// * splice(x) appends x's active blocks after this hive's: x's elements
//   iterate after the others. x keeps its reserved blocks.
// * reshape, and shrink_to_fit when it reallocates, move every element
//   into new blocks in iteration order (they keep their order).
// * sort moves the values, not the slots; unique keeps the first of each
//   group.
// * Iterator relational operators are O(1): addresses within a block, the
//   blocks' ranks across blocks (layout_traits::rank; pool_iterator.hpp).
// * std::advance, std::next, std::prev and std::distance are overloaded
//   for the iterators (in namespace std, as plf::hive does; also hidden
//   friends for ADL): whole blocks skipped by their live counts, a popcount
//   per 64 chunks within a block (pool_iterator.hpp).
//
// Threads
// -------
// hive<T, Allocator, Options...> takes a travpool::sync option (none, the
// default, or bin_locks) and a travpool::checks option (options.hpp).
// concurrent_hive<T, Allocator> = hive<T, Allocator, sync::bin_locks> is
// concurrent_pool's layers (a lock per block, biased to the thread that
// claims the block, under a readers-writers lock on the block list:
// detail/bin_locks/) with blocks from the allocator:
// * Thread-safe: insert and emplace of one element (and their hint forms),
//   erase(it) of an element no other thread erases, get_iterator,
//   contains, size, empty, capacity. Each thread inserts into a block of
//   its own, so two threads' insertions do not share a lock.
// * Everything else (iteration, the operations on whole hives, reserve,
//   trim_capacity, shrink_to_fit, reshape, clear, sort, unique, splice,
//   swap, assignment, partition) requires that no other thread uses the
//   hive meanwhile, as pool<T>'s concurrent_pool does. A thread may
//   dereference its iterators while others change their blocks (the
//   checks ask only that the element is live); a step is a sweep, and
//   checks::on reports a block another thread changes meanwhile.
// * erase(it) destroys the element under its block's lock; the iterator it
//   returns is the element after it at some moment during the call (found
//   under that lock, or under the shared list lock with relaxed reads of
//   the later blocks, as contains() reads them). ~T must not use the
//   elements of its own block (usage_error); under clear() it must not
//   use the hive.
// * The blocks it makes all have one capacity, the limits' max clamped to
//   the chunks that fill 2 MiB (and to the min): blocks are claimed per
//   thread, and a thread's first block is as large as a later one. Blocks
//   spliced in keep theirs; reshape makes blocks of a new capacity (and
//   moves the elements into them) when the old one leaves the limits.
// * An empty block that trim_capacity, shrink_to_fit, reshape or splice
//   gives up is retired, not deallocated (another thread may still
//   remember it): it leaves capacity(), std::allocator's pages go back to
//   the OS (all but the first page, which holds its header), and it is
//   the next block the hive makes if it has the capacity new blocks have;
//   the allocator gets it back when the hive is destroyed or its blocks
//   are replaced (move assignment, and reshape or shrink_to_fit when they
//   move the elements).
// * The allocator's allocate and deallocate are called under the hive's
//   span mutex; its construct and destroy from the inserting and erasing
//   threads, concurrently.
//
// Beyond [hive]: contains(p), for_each(f), partition(k), range() (TBB),
// parallel_for_each(h, f) (parallel.hpp), block_count(), validate(); a
// get_iterator(p) of a pointer that is not an element returns end() (it
// needs no precondition); erase, splice and the iterators check their
// arguments under checks::on and checks::hardened (pool.hpp, options.hpp).
#pragma once

#include <algorithm>
#include <bit>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#if __has_include(<memory_resource>)  // libc++ before 16 has none
#include <memory_resource>
#endif
#include <new>
#include <ranges>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "config.hpp"
#include "detail/bin.hpp"
#include "detail/bin_directory.hpp"
#include "detail/layout_traits.hpp"
#include "detail/partition.hpp"
#include "detail/pool_iterator.hpp"
#include "detail/pool_layers.hpp"
#include "detail/validate.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "subrange.hpp"
#include "usage_error.hpp"

// The [hive] revision travpool::hive follows: the value of __cpp_lib_hive
// in the C++26 working draft (P0447R28).
#define TRAVPOOL_HIVE 202502L

namespace travpool {

// The minimum and maximum capacity of a hive's blocks ([hive.syn]).
struct hive_limits {
  std::size_t min;
  std::size_t max;
  constexpr hive_limits(std::size_t minimum, std::size_t maximum) noexcept : min{minimum}, max{maximum} {}
};

// The tag of the constructors from a range (std::from_range_t where the
// standard library has it, C++23).
#if defined(__cpp_lib_containers_ranges) && __cpp_lib_containers_ranges >= 202202L
using std::from_range;
using std::from_range_t;
#else
struct from_range_t {
  explicit from_range_t() = default;
};
inline constexpr from_range_t from_range{};
#endif

namespace detail {
template <class R, class T>
concept container_compatible_range =
    std::ranges::input_range<R> && std::convertible_to<std::ranges::range_reference_t<R>, T>;
template <class I>
concept legacy_input_iterator = requires {
  typename std::iterator_traits<I>::iterator_category;
}
&&std::derived_from<typename std::iterator_traits<I>::iterator_category, std::input_iterator_tag>;
template <class I>
using iter_value_t = typename std::iterator_traits<I>::value_type;
}  // namespace detail

inline namespace TRAVPOOL_ABI_NAMESPACE {

template <class T, class Allocator = std::allocator<T>, class... Options>
class hive {
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_array_v<T>,
                "travpool::hive: T must be a non-const, non-array object type");
  static_assert(std::is_same_v<typename std::allocator_traits<Allocator>::value_type, T>,
                "travpool::hive: Allocator::value_type must be T");
  // Blocks are aligned to the bin directory's 64 KiB granule (no more:
  // allocator_spans.hpp), and chunks to alignof(T) within a block.
  static_assert(alignof(T) <= detail::bin_directory::granule, "travpool::hive: alignof(T) above 64 KiB");

  using layers = detail::hive_layers<T, Allocator, Options...>;
  using ops = typename layers::ops;
  using core_type = typename layers::core_type;
  using storage = typename layers::storage;
  using traits = detail::layout_traits<ops>;
  using bin = detail::bin_base;
  using alloc_traits = std::allocator_traits<Allocator>;
  static constexpr bool checked = layers::checked;
  static constexpr bool unchecked = layers::checks == detail::checks_level::off;
  // sync::bin_locks (concurrent_hive): insertion and erasure from any
  // thread (see "Threads" in the design note).
  static constexpr bool concurrent = layers::bin_locked;

 public:
  // ---------------------------------------------------------------------
  // Types
  // ---------------------------------------------------------------------

  using value_type = T;
  using allocator_type = Allocator;
  using pointer = typename alloc_traits::pointer;
  using const_pointer = typename alloc_traits::const_pointer;
  using reference = value_type&;
  using const_reference = const value_type&;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using iterator = detail::pool_iterator<T, ops, false, layers::checks, layers::bin_locked>;
  using const_iterator = detail::pool_iterator<T, ops, true, layers::checks, layers::bin_locked>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  using subrange = pool_subrange<iterator>;
  using const_subrange = pool_subrange<const_iterator>;
  using range_type = detail::bin_range<iterator>;
  using const_range_type = detail::bin_range<const_iterator>;
  // The checks policy (options.hpp): default_checks, as pool<T>'s.
  using checks_type = typename layers::checks_type;

  // ---------------------------------------------------------------------
  // Construction, assignment, destruction ([hive.cons])
  // ---------------------------------------------------------------------

  // Effects: an empty hive with the default block limits; no memory is
  // taken until the first insertion.
  hive() noexcept(noexcept(Allocator())) : hive(Allocator()) {}
  explicit hive(const Allocator& a) noexcept : hive(block_capacity_default_limits(), a) {}
  // Throws: std::length_error if !is_within_hard_limits(limits) (then the
  // hive is not constructed).
  explicit hive(hive_limits limits, const Allocator& a = Allocator())
      : core_(first_capacity(checked_limits(limits)), a), limits_(limits) {}

  // Effects: n default-inserted elements. Throws: as the allocator and
  // T's constructor, and (the limits forms) std::length_error as above.
  explicit hive(size_type n, const Allocator& a = Allocator()) : hive(n, block_capacity_default_limits(), a) {}
  hive(size_type n, hive_limits limits, const Allocator& a = Allocator()) : hive(limits, a) {
    reserve(n);
    for (; n != 0; --n) emplace();
  }
  // Effects: n copies of v. (The allocator's type, here and in the
  // initializer_list constructors, is std::type_identity_t<Allocator>, so
  // that their implicit deduction guides do not deduce Allocator: the
  // explicit guides after the class do, constrained.)
  hive(size_type n, const T& v, const std::type_identity_t<Allocator>& a = Allocator())
      : hive(n, v, block_capacity_default_limits(), a) {}
  hive(size_type n, const T& v, hive_limits limits, const std::type_identity_t<Allocator>& a = Allocator())
      : hive(limits, a) {
    insert(n, v);
  }
  // Effects: the elements of [first, last), which iterate in that order.
  template <detail::legacy_input_iterator InputIterator>
  hive(InputIterator first, InputIterator last, const Allocator& a = Allocator())
      : hive(std::move(first), std::move(last), block_capacity_default_limits(), a) {}
  template <detail::legacy_input_iterator InputIterator>
  hive(InputIterator first, InputIterator last, hive_limits limits, const Allocator& a = Allocator())
      : hive(limits, a) {
    insert(std::move(first), std::move(last));
  }
  template <detail::container_compatible_range<T> R>
  hive(from_range_t, R&& r, const Allocator& a = Allocator())
      : hive(from_range, std::forward<R>(r), block_capacity_default_limits(), a) {}
  template <detail::container_compatible_range<T> R>
  hive(from_range_t, R&& r, hive_limits limits, const Allocator& a = Allocator()) : hive(limits, a) {
    insert_range(std::forward<R>(r));
  }
  hive(std::initializer_list<T> il, const std::type_identity_t<Allocator>& a = Allocator())
      : hive(il, block_capacity_default_limits(), a) {}
  hive(std::initializer_list<T> il, hive_limits limits, const std::type_identity_t<Allocator>& a = Allocator())
      : hive(limits, a) {
    insert(il);
  }

  // Effects: a copy of x (its limits, its elements in its iteration
  // order), with select_on_container_copy_construction of x's allocator,
  // or with a.
  hive(const hive& x) : hive(x, alloc_traits::select_on_container_copy_construction(x.get_allocator())) {}
  hive(const hive& x, const std::type_identity_t<Allocator>& a) : hive(x.limits_, a) {
    reserve(x.size());
    for (const T& e : x) emplace(e);
  }
  // Effects: takes x's blocks and allocator; x is left empty, with no
  // blocks. Complexity: O(1). Invalidates: x's end() only.
  hive(hive&& x) noexcept : core_(x.core_.capacity(), x.get_allocator()), limits_(x.limits_) { core_.steal(x.core_); }
  // Effects: as hive(hive&&) if a == x.get_allocator(); otherwise each
  // element of x is moved into a block from a, and x is cleared.
  hive(hive&& x, const std::type_identity_t<Allocator>& a) : hive(x.limits_, a) {
    if (a == x.get_allocator()) {
      core_.steal(x.core_);
    } else {
      reserve(x.size());
      for (T& e : x) emplace(std::move(e));
      x.clear();
    }
  }

  ~hive() { release_all(); }

  // Effects: *this holds copies of x's elements (its limits unchanged);
  // with propagate_on_container_copy_assignment, x's allocator (this
  // hive's blocks are given back first if the allocators differ).
  hive& operator=(const hive& x) {
    if (this == std::addressof(x)) return *this;
    if constexpr (alloc_traits::propagate_on_container_copy_assignment::value) {
      if (get_allocator() != x.get_allocator()) {
        release_all();
        // A new identity (concurrent_hive: what threads remember of the
        // old one names blocks given back).
        core_type fresh(core_.capacity(), x.get_allocator());
        core_.steal(fresh);
      }
      core_.spans().set_allocator(x.get_allocator());
    }
    assign(x.begin(), x.end());
    return *this;
  }
  // Effects: if the allocator propagates or the two are equal, gives back
  // this hive's blocks and takes x's (and x's limits); otherwise moves x's
  // elements one by one into this hive's blocks. x is left empty.
  hive& operator=(hive&& x) noexcept(alloc_traits::propagate_on_container_move_assignment::value ||
                                     alloc_traits::is_always_equal::value) {
    if (this == std::addressof(x)) return *this;
    constexpr bool propagate = alloc_traits::propagate_on_container_move_assignment::value;
    if (propagate || alloc_traits::is_always_equal::value || get_allocator() == x.get_allocator()) {
      release_all();
      if constexpr (propagate) core_.spans().set_allocator(x.get_allocator());
      core_.steal(x.core_);
      limits_ = x.limits_;
    } else {
      assign(std::make_move_iterator(x.begin()), std::make_move_iterator(x.end()));
      x.clear();
    }
    return *this;
  }
  hive& operator=(std::initializer_list<T> il) {
    assign(il);
    return *this;
  }

  // Effects: replaces the elements with those of [first, last) (or r, il,
  // n copies of v), in this hive's blocks, which are kept.
  template <detail::legacy_input_iterator InputIterator>
  void assign(InputIterator first, InputIterator last) {
    clear();
    insert(std::move(first), std::move(last));
  }
  template <detail::container_compatible_range<T> R>
  void assign_range(R&& r) {
    clear();
    insert_range(std::forward<R>(r));
  }
  void assign(size_type n, const T& v) {
    clear();
    insert(n, v);
  }
  void assign(std::initializer_list<T> il) { assign(il.begin(), il.end()); }

  allocator_type get_allocator() const noexcept { return core_.spans().allocator(); }

  // ---------------------------------------------------------------------
  // Iterators
  // ---------------------------------------------------------------------

  iterator begin() noexcept { return iterator::first_from(core_.root()->next_); }
  iterator end() noexcept { return iterator::at_end(core_.root()); }
  const_iterator begin() const noexcept { return const_cast<hive*>(this)->begin(); }
  const_iterator end() const noexcept { return const_cast<hive*>(this)->end(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  // ---------------------------------------------------------------------
  // Capacity ([hive.capacity])
  // ---------------------------------------------------------------------

  bool empty() const noexcept { return size() == 0; }
  size_type size() const noexcept { return core_.size(); }
  // Returns: the most elements a hive can hold: the chunks that fit the
  // bin directory's 48-bit address range, and what the allocator allows.
  size_type max_size() const noexcept {
    const size_type chunks = (size_type{1} << detail::bin_directory::address_bits) / ops::stride;
    return std::min<size_type>(chunks, alloc_traits::max_size(core_.spans().allocator()));
  }
  // Returns: the chunks of all blocks, active or reserved.
  size_type capacity() const noexcept { return core_.chunk_count(); }

  // Effects: capacity() >= n, adding blocks within the limits (of up to
  // the chunks that fill 2 MiB each). Throws: std::length_error if
  // n > max_size() (at once, nothing added); what the allocator throws
  // (the blocks added before stay). Invalidates nothing.
  void reserve(size_type n) {
    if (n > max_size()) throw std::length_error("travpool::hive::reserve: n > max_size()");
    if constexpr (concurrent) {
      core_.reserve(n);  // blocks of the one capacity
      return;
    }
    while (capacity() < n) {
      const size_type need = n - capacity();
      core_.set_capacity(within_limits(std::max<size_type>(std::min<size_type>(need, largest_block), smallest_block)));
      core_.reserve(capacity() + 1);  // one block
    }
  }
  // Effects: trim_capacity(), then, when the free chunks left exceed both
  // size() and the next block's capacity, moves every element (in
  // iteration order) into as few blocks as fit them. Throws: as the
  // allocator and T's move (copy, if its move may throw) constructor; the
  // elements are then unchanged (the reserved blocks are gone).
  // Invalidates: every iterator, pointer and reference if it moves the
  // elements.
  void shrink_to_fit() {
    trim_capacity();
    const size_type free_chunks = capacity() - size();
    if (free_chunks > size() && free_chunks > next_capacity()) rebuild(limits_);
  }
  // Effects: gives back every reserved block (one without elements).
  void trim_capacity() noexcept { core_.shrink(); }
  // Effects: gives back reserved blocks, in block order, while capacity()
  // stays >= n.
  void trim_capacity(size_type n) noexcept {
    core_.shrink([&](const bin& b) noexcept { return capacity() - b.capacity_ >= n; });
  }

  hive_limits block_capacity_limits() const noexcept { return limits_; }
  static constexpr hive_limits block_capacity_default_limits() noexcept { return {smallest_block, largest_block}; }
  static constexpr hive_limits block_capacity_hard_limits() noexcept { return {1, hard_max}; }
  static constexpr bool is_within_hard_limits(hive_limits l) noexcept {
    return 1 <= l.min && l.min <= l.max && l.max <= hard_max;
  }

  // Effects: the limits become `limits`; reserved blocks outside them are
  // given back, and if an active block is outside them, every element is
  // moved (in iteration order) into new blocks within them.
  // Throws: std::length_error if !is_within_hard_limits(limits) (nothing
  // changes); as the allocator and T's move (copy, if its move may throw)
  // constructor: the elements and limits are then unchanged (the reserved
  // blocks outside the new limits are gone).
  // Invalidates: every iterator, pointer and reference if it moves the
  // elements.
  void reshape(hive_limits limits) {
    checked_limits(limits);
    core_.shrink([&](const bin& b) noexcept { return !within(b, limits); });
    bool fits = true;
    for (const bin* b = core_.first(); !b->is_root(); b = b->next_) fits = fits && within(*b, limits);
    // concurrent_hive: the blocks it makes have one capacity; if that is
    // outside the limits, a new hive's blocks take every element (none
    // when no block is listed).
    if constexpr (concurrent) fits = fits && within(core_.capacity(), limits);
    if (!fits) rebuild(limits);
    limits_ = limits;
  }

  // ---------------------------------------------------------------------
  // Modifiers ([hive.modifiers])
  // ---------------------------------------------------------------------

  // Effects: constructs a T from args (allocator_traits::construct) in a
  // free chunk, making a block if there is none. Returns: its iterator.
  // Throws: what the allocator or T's constructor throws; then *this is
  // unchanged (strong guarantee). Invalidates nothing. Complexity: O(1).
  // concurrent_hive: thread-safe; T is constructed outside any lock.
  template <class... Args>
  TRAVPOOL_ALWAYS_INLINE iterator emplace(Args&&... args) {
    if constexpr (!concurrent) {
      if (core_.avail_head() == nullptr) [[unlikely]]
        core_.set_capacity(next_capacity());
    }
    const detail::taken t = core_.take();
    T* const where = static_cast<T*>(ops::payload(*t.bin, t.index));
    if constexpr (std::is_nothrow_constructible_v<T, Args&&...> && is_std_allocator) {
      ::new (static_cast<void*>(where)) T(std::forward<Args>(args)...);
    } else {
      try {
        alloc_traits::construct(core_.spans().allocator(), where, std::forward<Args>(args)...);
      } catch (...) {
        core_.untake(t);
        throw;
      }
    }
    // concurrent_hive: the block's lock is not held here, so the cursor
    // reads its bitmap word relaxed (another thread may be erasing in it).
    if constexpr (concurrent) return iterator::at_relaxed(t.bin, t.index);
    return iterator(t.bin, t.index);
  }
  // The hint is not used: where an element goes is the hive's choice.
  template <class... Args>
  TRAVPOOL_ALWAYS_INLINE iterator emplace_hint(const_iterator, Args&&... args) {
    return emplace(std::forward<Args>(args)...);
  }
  TRAVPOOL_ALWAYS_INLINE iterator insert(const T& v) { return emplace(v); }
  TRAVPOOL_ALWAYS_INLINE iterator insert(T&& v) { return emplace(std::move(v)); }
  TRAVPOOL_ALWAYS_INLINE iterator insert(const_iterator, const T& v) { return emplace(v); }
  TRAVPOOL_ALWAYS_INLINE iterator insert(const_iterator, T&& v) { return emplace(std::move(v)); }
  // Effects: inserts each element, in order. Throws: as emplace; the
  // elements inserted before the exception stay (basic guarantee).
  void insert(std::initializer_list<T> il) { insert(il.begin(), il.end()); }
  template <detail::container_compatible_range<T> R>
  void insert_range(R&& r) {
    if constexpr (std::ranges::sized_range<R>) reserve(size() + std::ranges::size(r));
    for (auto&& e : r) emplace(std::forward<decltype(e)>(e));
  }
  template <detail::legacy_input_iterator InputIterator>
  void insert(InputIterator first, InputIterator last) {
    if constexpr (std::forward_iterator<InputIterator>)
      reserve(size() + static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first) emplace(*first);
  }
  void insert(size_type n, const T& v) {
    reserve(size() + n);
    for (; n != 0; --n) emplace(v);
  }

  // Effects: destroys the element at `it` (allocator_traits::destroy) and
  // frees its chunk. Returns: the iterator after it. Invalidates:
  // iterators, pointers and references to that element only.
  // concurrent_hive: thread-safe, under the block's lock; a ~T that uses
  // the elements of its own block gets usage_error (instead of a
  // deadlock), and a ~T that inserts or erases must not run while another
  // thread calls a member that is not thread-safe (concurrent_pool's rule).
  // Throws (checks::on, checks::hardened): usage_error if it is end() or
  // its element was erased; *this is then unchanged. Complexity: O(1).
  TRAVPOOL_ALWAYS_INLINE iterator erase(const_iterator it) noexcept(unchecked && !concurrent) {
    if constexpr (concurrent) return erase_locked(it);
    it.check("erasing");
    if constexpr (!unchecked) {
      if (it.bin_->owner_ != core_.id()) detail::throw_misuse("hive::erase", "the iterator belongs to another hive");
    }
    bin& b = *it.bin_;
    const std::uint32_t next = destroy_at(b, it.index());
    return next != b.last() ? iterator(&b, next) : iterator::first_from(b.next_);
  }
  // Effects: erases [first, last). Returns: last.
  // Throws (checks::on): usage_error if last is not reachable from first;
  // *this is then unchanged. Complexity: O(distance + blocks crossed).
  iterator erase(const_iterator first, const_iterator last) noexcept(unchecked) {
    if constexpr (checked) {
      if (first != last && first.bin_ != nullptr && !first.bin_->is_root() && first.bin_->owner_ != core_.id())
        detail::throw_misuse("hive::erase", "the range belongs to another hive");
      const const_iterator e = cend();
      for (const_iterator it = first; it != last; ++it)
        if (it == e) detail::throw_misuse("hive::erase", "last is not reachable from first");
    }
    while (first != last) first = erase(first);
    return mutable_iterator(last);
  }

  // Effects: exchanges the contents, limits and (with
  // propagate_on_container_swap) allocators. Requires: equal allocators
  // unless they propagate. Complexity: O(1).
  void swap(hive& x) noexcept(alloc_traits::propagate_on_container_swap::value ||
                              alloc_traits::is_always_equal::value) {
    if (this == std::addressof(x)) return;
    core_type t(x.core_.capacity(), x.get_allocator());
    t.steal(x.core_);
    x.core_.steal(core_);
    core_.steal(t);
    if constexpr (alloc_traits::propagate_on_container_swap::value) {
      Allocator a = get_allocator();
      core_.spans().set_allocator(x.get_allocator());
      x.core_.spans().set_allocator(a);
    }
    std::swap(limits_, x.limits_);
  }

  // Effects: erases every element; the blocks stay (capacity() unchanged).
  // concurrent_hive: under the list lock, so ~T must not use the hive.
  void clear() noexcept { core_.clear(payload_destroyer()); }

  // ---------------------------------------------------------------------
  // Operations ([hive.operations])
  // ---------------------------------------------------------------------

  // Effects: moves x's active blocks (with their elements: none is copied
  // or moved, every pointer and iterator stays valid and now belongs to
  // *this) to the end of this hive's block list; x is left empty, with
  // its reserved blocks ([hive.operations]: they are not transferred).
  // Throws: std::length_error if an active block of x is outside this
  // hive's limits; usage_error (checks::on, checks::hardened) if
  // &x == this or the allocators differ. Then nothing changes.
  // Complexity: O(x's blocks x 64 KiB granules per block).
  void splice(hive& x) {
    const bool self = std::addressof(x) == this;
    if (self || get_allocator() != x.get_allocator()) {
      if constexpr (!unchecked)
        detail::throw_misuse("hive::splice",
                             self ? "a hive cannot be spliced into itself" : "the hives' allocators differ");
      if (self) return;
    }
    for (const bin* b = x.core_.first(); !b->is_root(); b = b->next_)
      if (b->live_ != 0 && !within(*b, limits_))
        throw std::length_error("travpool::hive::splice: a block of x is outside this hive's block capacity limits");
    if constexpr (concurrent) {
      x.core_.shrink();  // x keeps its reserved blocks (retired)
      core_.splice(x.core_);
    } else {
      core_.splice_if(x.core_, [](const bin& b) noexcept { return b.live_ != 0; });
    }
  }
  void splice(hive&& x) { splice(x); }

  // Effects: erases every element i for which pred(*i, *prev) is true,
  // prev being the element kept last before it, so that the first of each
  // group of consecutive equivalent elements stays. Requires: pred is an
  // equivalence relation (then prev may as well be the element just
  // before i, as [hive.operations] says). Returns: the number erased.
  // Complexity: size() - 1 predicate calls.
  template <class BinaryPredicate = std::equal_to<T>>
  size_type unique(BinaryPredicate pred = BinaryPredicate()) {
    size_type erased = 0;
    iterator it = begin();
    const iterator e = end();
    if (it == e) return 0;
    for (iterator prev = it++; it != e;) {
      if (pred(std::as_const(*it), std::as_const(*prev))) {
        it = erase(it);
        ++erased;
      } else {
        prev = it++;
      }
    }
    return erased;
  }

  // Effects: sorts the values by comp (not stable); the elements stay in
  // their chunks, their values move. A sort of pointers, then: with a T
  // whose moves cannot throw, every value moved out in sorted order and
  // back in iteration order (sequential writes, 2N moves); otherwise the
  // permutation applied cycle by cycle with swap (T is Swappable,
  // [hive.operations]; at most N - 1 swaps, no value buffer).
  // Throws: what comp, the allocator or T's swap throw; the elements are
  // then in an unspecified order (a swap that throws part-way may leave a
  // moved-from value, as in std::sort).
  // Complexity: N log N comparisons. Scratch memory from the allocator:
  // N pointers and N values, or N (pointer, index) pairs and N pointers.
  template <class Compare = std::less<T>>
  void sort(Compare comp = Compare()) {
    if (size() < 2) return;
    if constexpr (std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>) {
      using ptr_alloc = typename alloc_traits::template rebind_alloc<T*>;
      std::vector<T*, ptr_alloc> order{ptr_alloc(get_allocator())};
      order.reserve(size());
      for (T& e : *this) order.push_back(std::addressof(e));
      std::sort(order.begin(), order.end(), [&](const T* a, const T* b) { return comp(*a, *b); });
      std::vector<T, Allocator> values(get_allocator());
      values.reserve(order.size());
      for (T* p : order) values.push_back(std::move(*p));
      auto v = values.begin();
      for (T& e : *this) e = std::move(*v++);
    } else {
      sort_by_swaps(comp);
    }
  }

  // Returns: the iterator of the element *p, or end() if p points at no
  // element of this hive (travpool: no precondition). Complexity: O(1),
  // through the bin directory; for a pointer the directory does not map,
  // plus a look at each small block (at most 16 made by this hive, plus
  // those spliced in; design note). concurrent_hive: thread-safe, without a
  // lock (exact for an element inserted or erased before the call).
  iterator get_iterator(const_pointer p) noexcept {
    const T* const q = std::to_address(p);
    bin* b = core_.find(q);
    if (b == nullptr) return end();
    if constexpr (concurrent) {
      // No lock (pool<T>'s find_live).
      const std::uint32_t i = storage::live_index_relaxed(*b, q);
      return i != 0 ? iterator::at_relaxed(b, i) : end();
    }
    const std::uint32_t i = storage::chunk_index_below(*b, q, b->fresh_);
    return i != 0 && !ops::is_free(*b, i) ? iterator(b, i) : end();
  }
  const_iterator get_iterator(const_pointer p) const noexcept { return const_cast<hive*>(this)->get_iterator(p); }

  // ---------------------------------------------------------------------
  // travpool's extras
  // ---------------------------------------------------------------------

  // Returns: whether p points at an element of this hive. Complexity: as
  // get_iterator.
  bool contains(const T* p) const noexcept { return get_iterator(p) != end(); }

  // Effects: f(element) for every element, in iteration order, block by
  // block (pool<T>'s sweep). f must not insert or erase.
  template <class F>
  void for_each(F&& f) {
    begin().for_each_until(end(), f);
  }
  template <class F>
  void for_each(F&& f) const {
    begin().for_each_until(end(), f);
  }

  // Returns: k ranges of whole blocks that together cover every element
  // once, balanced by element count (pool<T>::partition). Throws:
  // std::invalid_argument if k == 0; std::bad_alloc.
  std::vector<subrange> partition(std::size_t k) { return detail::partition<iterator>(core_.root(), k); }
  std::vector<const_subrange> partition(std::size_t k) const {
    return detail::partition<const_iterator>(core_.root(), k);
  }

  // Returns: a TBB Range over every element, split by element count at
  // block boundaries (pool<T>::range): tbb::parallel_for(h.range(), body).
  // Complexity: O(blocks).
  range_type range() { return range_type(std::make_shared<const detail::bin_index>(core_.root())); }
  const_range_type range() const { return const_range_type(std::make_shared<const detail::bin_index>(core_.root())); }

  // Returns: the blocks held, active or reserved. Complexity: O(1).
  size_type block_count() const noexcept { return core_.bin_count(); }
  // The name parallel_for_each (parallel.hpp) asks pools for.
  size_type bin_count() const noexcept { return block_count(); }

  // Effects: checks every invariant of the blocks (pool<T>::validate) and
  // that every block is within the limits. Throws: std::logic_error naming
  // the first violation.
  void validate() const {
    detail::validate_bins<ops>(core_, size());
    for (const bin* b = core_.first(); !b->is_root(); b = b->next_)
      if (!within(*b, limits_)) throw std::logic_error("travpool::hive::validate: a block is outside the limits");
  }

 private:
  static constexpr bool is_std_allocator = std::is_same_v<Allocator, std::allocator<T>>;
  static constexpr std::size_t hard_max = std::min<std::size_t>(detail::max_bin_capacity, ops::max_capacity);
  static constexpr std::size_t granule = detail::bin_directory::granule;
  // Whether the blocks below a granule are small blocks (design note):
  // hive, not concurrent_hive, and alignof(T) <= alignof(max_align_t).
  static constexpr bool small_blocks = core_type::small_capacity(1);
  // The bytes of a default hive's first block, a small one.
  static constexpr std::size_t first_block_bytes = 1024;
  // The fewest bytes a new block fills: first_block_bytes, or a granule
  // where blocks are not small.
  static constexpr std::size_t least_block_bytes = small_blocks ? first_block_bytes : granule;
  // The chunks of a default hive's first block: those that fill
  // first_block_bytes, at least 8 (without small blocks: those that fill
  // a granule); and those that fill a block of 2 MiB.
  static constexpr std::size_t largest_block = traits::default_capacity();
  static constexpr std::size_t smallest_block = std::min<std::size_t>(
      small_blocks ? (std::max)(std::size_t{8}, std::size_t{core_type::small_capacity_for(first_block_bytes)})
                   : traits::capacity_for_span(granule),
      largest_block);
  // Returns: the chunks of a block that fills `bytes` (a power of two).
  static std::uint32_t capacity_for_bytes(std::size_t bytes) noexcept {
    return bytes < granule && small_blocks ? core_type::small_capacity_for(bytes) : traits::capacity_for_span(bytes);
  }

  static hive_limits checked_limits(hive_limits l) {
    if (!is_within_hard_limits(l))
      throw std::length_error(
          "travpool::hive: block capacity limits outside block_capacity_hard_limits(), or min > max");
    return l;
  }
  static bool within(std::size_t capacity, hive_limits l) noexcept { return l.min <= capacity && capacity <= l.max; }
  static bool within(const bin& b, hive_limits l) noexcept { return within(b.capacity_, l); }
  std::uint32_t within_limits(std::size_t c) const noexcept {
    return static_cast<std::uint32_t>(std::clamp<std::size_t>(c, limits_.min, limits_.max));
  }
  // The capacity of the first block; concurrent_hive's blocks all have it.
  static std::uint32_t first_capacity(hive_limits l) noexcept {
    return static_cast<std::uint32_t>(
        std::clamp<std::size_t>(concurrent ? largest_block : smallest_block, l.min, l.max));
  }
  // Returns: the capacity of the next block made: one that fills the
  // blocks' total bytes rounded up to a power of two, from
  // least_block_bytes (1 KiB, or a granule) to 2 MiB, within the limits.
  std::uint32_t next_capacity() const noexcept {
    if constexpr (concurrent) return core_.capacity();
    const std::size_t bytes =
        std::clamp(std::bit_ceil(core_.span_bytes()), least_block_bytes, detail::default_bin_span);
    return within_limits(capacity_for_bytes(bytes));
  }

  // Effects: moves every element (move_if_noexcept), in iteration order,
  // into new blocks within `limits`, then gives the old blocks back.
  // Throws: as reserve and T's constructor; *this is then unchanged.
  void rebuild(hive_limits limits) {
    hive t(limits, get_allocator());
    t.reserve(size());
    for (T& e : *this) t.emplace(std::move_if_noexcept(e));
    release_all();
    core_.steal(t.core_);
  }

  // concurrent_hive's erase: the element is checked and destroyed, and the
  // next one in its block found, under the block's lock; a next element in
  // a later block is found under the shared list lock, without the later
  // blocks' locks (concurrent_bins::first_live_after).
  iterator erase_locked(const_iterator it) {
    if constexpr (!unchecked) {
      if (it.bin_ == nullptr || it.bin_->is_root()) it.check("erasing");  // throws: an end or singular iterator
      if (it.bin_->owner_ != core_.id()) detail::throw_misuse("hive::erase", "the iterator belongs to another hive");
    }
    bin& b = *it.bin_;
    const std::uint32_t i = it.index();
    const std::uint32_t next = core_.locked(b, [&]() TRAVPOOL_ALWAYS_INLINE_LAMBDA {
      it.check("erasing");
      return destroy_at(b, i);
    });
    if (next != b.last()) return iterator::at_relaxed(&b, next);
    const auto [c, j] = core_.first_live_after(b);
    return c != nullptr ? iterator::at_relaxed(c, j) : end();
  }

  // Effects: destroys the element in chunk i of b (its chunk stays
  // assigned).
  TRAVPOOL_ALWAYS_INLINE void destroy_value(bin& b, std::uint32_t i) noexcept {
    alloc_traits::destroy(core_.spans().allocator(), std::launder(static_cast<T*>(ops::payload(b, i))));
  }
  // Returns: the first assigned chunk after i (b.last() if none), found
  // after ~T ran.
  TRAVPOOL_ALWAYS_INLINE std::uint32_t destroy_at(bin& b, std::uint32_t i) noexcept {
    destroy_value(b, i);
    return core_.free_chunk(b, i);
  }
  // The element destructor of clear and release_all (nullptr: none to run).
  auto payload_destroyer() noexcept {
    if constexpr (std::is_trivially_destructible_v<T> && is_std_allocator)
      return nullptr;
    else
      return [this](bin& b, std::uint32_t i) noexcept { destroy_value(b, i); };
  }
  void release_all() noexcept { core_.release_all(payload_destroyer()); }

  // sort's path for a T whose moves may throw: a sort of (pointer,
  // position) pairs, then the permutation applied cycle by cycle with swap.
  template <class Compare>
  void sort_by_swaps(Compare& comp) {
    using entry = std::pair<T*, size_type>;  // an element, and its position in iteration order
    using entry_alloc = typename alloc_traits::template rebind_alloc<entry>;
    std::vector<entry, entry_alloc> order{entry_alloc(get_allocator())};
    order.reserve(size());
    for (T& e : *this) order.emplace_back(std::addressof(e), order.size());
    std::sort(order.begin(), order.end(), [&](const entry& a, const entry& b) { return comp(*a.first, *b.first); });
    // Position k (in iteration order) takes the value now at position
    // order[k].second; slot[k] is the element at position k.
    using ptr_alloc = typename alloc_traits::template rebind_alloc<T*>;
    std::vector<T*, ptr_alloc> slot(order.size(), nullptr, ptr_alloc(get_allocator()));
    for (const entry& e : order) slot[e.second] = e.first;
    for (size_type k = 0; k < order.size(); ++k) {
      size_type j = k;
      while (order[j].second != k) {
        const size_type from = order[j].second;
        using std::swap;
        swap(*slot[j], *slot[from]);
        order[j].second = j;
        j = from;
      }
      order[j].second = j;
    }
  }

  static iterator mutable_iterator(const_iterator c) noexcept {
    iterator it;
    it.bin_ = c.bin_;
    it.cur_ = c.cur_;
    return it;
  }

  core_type core_;
  hive_limits limits_;
};

// Effects: x.swap(y).
template <class T, class Allocator, class... Options>
void swap(hive<T, Allocator, Options...>& x, hive<T, Allocator, Options...>& y) noexcept(noexcept(x.swap(y))) {
  x.swap(y);
}

// Effects: erases every element e of c with pred(e), in iteration order.
// Returns: the number erased.
template <class T, class Allocator, class... Options, class Predicate>
typename hive<T, Allocator, Options...>::size_type erase_if(hive<T, Allocator, Options...>& c, Predicate pred) {
  typename hive<T, Allocator, Options...>::size_type erased = 0;
  for (auto it = c.begin(), e = c.end(); it != e;) {
    if (pred(std::as_const(*it))) {
      it = c.erase(it);
      ++erased;
    } else {
      ++it;
    }
  }
  return erased;
}
// Effects: erase_if(c, [&](const auto& e) { return e == value; }).
template <class T, class Allocator, class... Options, class U = T>
typename hive<T, Allocator, Options...>::size_type erase(hive<T, Allocator, Options...>& c, const U& value) {
  return erase_if(c, [&](const T& e) { return e == value; });
}

// The deduction guides take no part in overload resolution when the type
// deduced for Allocator does not qualify as an allocator
// ([container.reqmts]). The constructors that take T and an allocator
// (n copies, initializer_list) take it as type_identity_t<Allocator>, so
// their implicit guides deduce only T (Allocator defaults to
// std::allocator<T>), and the guides for them with an allocator are
// explicit, constrained, here. (Constraining those constructors instead
// did not serve: Clang instantiates hive<T, float> to check such a
// constraint.) The class template itself is unconstrained, so that
// hive<Node, my_alloc<Node>> may be named inside Node's definition, while
// Node is incomplete.
template <class T, detail::allocator_like Allocator>
hive(std::size_t, T, Allocator) -> hive<T, Allocator>;
template <class T, detail::allocator_like Allocator>
hive(std::size_t, T, hive_limits, Allocator) -> hive<T, Allocator>;
template <class T, detail::allocator_like Allocator>
hive(std::initializer_list<T>, Allocator) -> hive<T, Allocator>;
template <class T, detail::allocator_like Allocator>
hive(std::initializer_list<T>, hive_limits, Allocator) -> hive<T, Allocator>;
template <detail::legacy_input_iterator InputIterator,
          detail::allocator_like Allocator = std::allocator<detail::iter_value_t<InputIterator>>>
hive(InputIterator, InputIterator, Allocator = Allocator()) -> hive<detail::iter_value_t<InputIterator>, Allocator>;
template <detail::legacy_input_iterator InputIterator,
          detail::allocator_like Allocator = std::allocator<detail::iter_value_t<InputIterator>>>
hive(InputIterator, InputIterator, hive_limits, Allocator = Allocator())
    -> hive<detail::iter_value_t<InputIterator>, Allocator>;
template <std::ranges::input_range R, detail::allocator_like Allocator = std::allocator<std::ranges::range_value_t<R>>>
hive(from_range_t, R&&, Allocator = Allocator()) -> hive<std::ranges::range_value_t<R>, Allocator>;
template <std::ranges::input_range R, detail::allocator_like Allocator = std::allocator<std::ranges::range_value_t<R>>>
hive(from_range_t, R&&, hive_limits, Allocator = Allocator()) -> hive<std::ranges::range_value_t<R>, Allocator>;

// A hive whose insertions and erasures may come from any thread (the
// design note's "Threads"; blocks of one capacity).
template <class T, class Allocator = std::allocator<T>>
using concurrent_hive = hive<T, Allocator, sync::bin_locks>;

#if defined(__cpp_lib_memory_resource)
namespace pmr {
// A hive whose blocks come from a std::pmr::memory_resource (std::pmr::hive).
template <class T>
using hive = travpool::hive<T, std::pmr::polymorphic_allocator<T>>;
template <class T>
using concurrent_hive = travpool::concurrent_hive<T, std::pmr::polymorphic_allocator<T>>;
}  // namespace pmr
#endif

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
