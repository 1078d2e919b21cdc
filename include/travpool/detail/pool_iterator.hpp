// travpool/detail/pool_iterator.hpp: basic_pool's bidirectional iterator.
//
// An iterator is (bin, cursor): the cursor (layout_traits.hpp) is the
// position within the bin, with the current element's address in
// cursor.ptr, so dereferencing and comparing read no memory, and the
// iterator, a local in a loop, lives in registers. end() is (the pool's
// root, null): the root is a bin_base embedded in the pool with capacity 0,
// on the circular bin list, so ++ from a bin's last element and -- from
// end() need no pool pointer. Iterators are equal iff their addresses are.
//   ++: the next assigned chunk in the bin (layout_traits::cursor_next,
//       O(1): compact: clear a bit, AND the bitmap word, scan; the next
//       word inline; else a boundary link), else the first element of the
//       next non-empty bin, else end().
//   --: the mirror image.
// <, <=> etc.: iteration order, O(1) (bin ranks; operator<=> below).
// Every step that leaves the inline fast path calls a function that takes
// and returns the position by value (never `this`), so the iterator of a
// loop is never in memory and a range-for compiles to for_each's loop.
// Checks (options.hpp), each a usage_error, and then those operations are
// not noexcept:
//   checks::on        every dereference and step: the element is live and
//                     the iterator not at end; every step: its bin is not
//                     being modified (a dereference reads the bin's words
//                     relaxed and does not ask, so that a thread may use its
//                     own elements while others change the bin).
//   checks::hardened  every dereference (with relaxed reads where the bins
//                     are Shared), and every step where the layout
//                     could not step from a destroyed element (interleaved;
//                     compact steps by the bitmap word, which finds the next
//                     live element): the element is live and the iterator
//                     not at end (compact: one test of the bitmap word the
//                     cursor holds); a step into another bin, and
//                     for_each_until per bin: the bin is not being modified.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../options.hpp"
#include "../usage_error.hpp"
#include "bin.hpp"
#include "layout_traits.hpp"
#include "segments.hpp"

namespace travpool {
namespace detail {
// Whether A qualifies as an allocator for the deduction guides
// ([container.reqmts]: a type with a member value_type and an
// allocate(size_t); libc++'s __is_allocator asks the same). hive's
// explicit deduction guides are constrained by it (its constructors'
// implicit guides do not deduce Allocator), so that they drop out for a
// type that does not qualify. hive's class template itself is not: naming
// hive<Node, my_alloc<Node>> inside Node's definition must not ask it
// while Node is incomplete.
template <class A>
concept allocator_like = requires(A& a) {
  typename A::value_type;
  a.allocate(std::size_t{0});
};
}  // namespace detail

inline namespace TRAVPOOL_ABI_NAMESPACE {
template <class T, class... Options>
class basic_pool;
template <class T, class Allocator, class... Options>
class hive;
}  // namespace TRAVPOOL_ABI_NAMESPACE

namespace detail {

struct test_access;

// Shared: the pool's bins may change in other threads while this one
// holds the iterator (sync::bin_locks): a checked dereference reads the
// bin's words relaxed.
template <class T, class Ops, bool Const, checks_level Checks, bool Shared = false>
class pool_iterator {
  static constexpr bool unchecked = Checks == checks_level::off;
  using traits = layout_traits<Ops>;
  using element = std::conditional_t<Const, const T, T>;

 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using iterator_concept = std::bidirectional_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = element*;
  using reference = element&;
  // Live runs are arrays of element: segments() is available.
  static constexpr bool contiguous_runs = traits::contiguous;
  using segments_type = segment_range<element, Ops>;

  pool_iterator() = default;
  // A const_iterator is constructible from an iterator.
  template <bool C = Const, class = std::enable_if_t<C>>
  pool_iterator(const pool_iterator<T, Ops, false, Checks, Shared>& o) noexcept : bin_(o.bin_), cur_(o.cur_) {}

  // (Forced inline, as the steps: with checks GCC at -O2 would otherwise
  // keep them out of line, and the loop's iterator in memory.)
  TRAVPOOL_ALWAYS_INLINE reference operator*() const noexcept(unchecked) { return *operator->(); }
  TRAVPOOL_ALWAYS_INLINE pointer operator->() const noexcept(unchecked) {
    check_element();
    return std::launder(reinterpret_cast<pointer>(cur_.ptr));
  }

  // Complexity: O(1) amortised (empty bins are skipped).
  TRAVPOOL_ALWAYS_INLINE pool_iterator& operator++() noexcept(unchecked) {
    if constexpr (Checks == checks_level::full || !traits::steps_from_destroyed) {
      check("incrementing");
    } else if constexpr (Checks == checks_level::hardened) {
      if (traits::cursor_at_end(cur_)) [[unlikely]]  // end or singular: folds into `it != end()`
        throw_dead("incrementing");
    }
    if (!traits::cursor_next(*bin_, cur_)) [[unlikely]] {
      if constexpr (Checks == checks_level::hardened)
        *this = first_quiescent_from(bin_->next_);
      else
        *this = first_from(bin_->next_);
    }
    return *this;
  }
  pool_iterator operator++(int) noexcept(unchecked) {
    auto t = *this;
    ++*this;
    return t;
  }
  pool_iterator& operator--() noexcept(unchecked) {
    if (bin_->is_root()) {
      *this = last_from(bin_->prev_);
      return *this;
    }
    check("decrementing");
    traits::cursor_prev(*bin_, cur_);
    if (cur_.ptr == nullptr) *this = last_from(bin_->prev_);
    return *this;
  }
  pool_iterator operator--(int) noexcept(unchecked) {
    auto t = *this;
    --*this;
    return t;
  }

  // Returns: the first element of the first non-empty bin from `b` on, or
  // end (begin(), erase, ranges over whole bins). (Static and by value, as
  // the other steps, so that a loop's iterator never has its address taken
  // and stays in registers.)
  // (Pure: it reads the bin list and writes nothing, so a caller that
  // drops the result, as a loop of erase(it) calls may, skips the call.)
  [[gnu::pure]] TRAVPOOL_NOINLINE static pool_iterator first_from(bin_base* b) noexcept {
    b = b->next_nonempty();
    pool_iterator it;
    it.bin_ = b;
    if (!b->is_root()) {
      const std::uint32_t i = traits::first_assigned(*b);
      traits::prefetch_enter(*b, i);
      it.cur_ = traits::cursor_at(*b, i);
    }
    return it;
  }
  // Returns: the end iterator of the pool whose bin list root is `root`.
  static pool_iterator at_end(bin_base* root) noexcept {
    pool_iterator it;
    it.bin_ = root;
    return it;
  }

  // Returns: the segments (blocks of one bitmap word) of the live elements
  // from *this up to `last`, which must be at a bin's first element or at
  // end (as partition ranges are).
  segments_type segments_until(const pool_iterator& last) const noexcept requires contiguous_runs {
    return segments_type(bin_, index(), last.bin_);
  }

  // Requires: *this and `last` are each at a bin's first element or at end
  // (as partition ranges are), *this not after `last`.
  // Effects: f(element) for every element of [*this, last), whole bins at
  // a time with the layout's bulk sweep (for_each's loop).
  template <class F>
  void for_each_until(const pool_iterator& last, F& f) const {
    for (bin_base* b = bin_; b != last.bin_ && !b->is_root(); b = b->next_) {
      if constexpr (!unchecked) {
        if (changing(*b)) throw_racing("sweeping");
      }
      if (b->live_ != 0) traits::template for_each_live<element>(*b, f);
    }
  }

  friend bool operator==(const pool_iterator& a, const pool_iterator& b) noexcept {
    return traits::cursor_equal(a.cur_, b.cur_);
  }

  // Ordering of iterators of one pool (end() included, last): iteration
  // order, that is bin-list order, then address order within a bin.
  // Complexity: O(1): addresses within one bin, else the bins' ranks
  // (layout_traits::rank; a layout without ranks walks the bin list from
  // a's bin towards b's, O(bins)). Requires: both iterators of the same
  // pool, not singular.
  friend std::strong_ordering operator<=>(const pool_iterator& a, const pool_iterator& b) noexcept {
    if (a.bin_ == b.bin_) return std::compare_three_way{}(a.cur_.ptr, b.cur_.ptr);
    if constexpr (traits::keeps_rank) {
      if (a.bin_->is_root()) return std::strong_ordering::greater;
      if (b.bin_->is_root()) return std::strong_ordering::less;
      return traits::rank(*a.bin_) <=> traits::rank(*b.bin_);
    } else {
      return bin_before(a.bin_, b.bin_) ? std::strong_ordering::less : std::strong_ordering::greater;
    }
  }

  // ---- distance, advance, next, prev ([hive.overview]: P0447 asks that
  // they be overloaded for hive iterators) ---------------------------------
  // Whole bins are skipped by their live counts; within a bin the live
  // chunks are counted (or the n-th found) with a popcount per bitmap word
  // (layout_traits::count_between, nth_after). Found by argument-dependent
  // lookup (these hidden friends) and by std::distance, std::advance,
  // std::next and std::prev (the overloads at the end of this file).
  // Requires: as theirs (iterators of one pool, not singular), and no
  // other thread changes the pool meanwhile (concurrent_pool,
  // concurrent_hive: quiescent).

  // distance(a, b): the number of ++ from a to b; negative if b comes before a
  // (as plf::hive's distance). Complexity: O(1) to order them, then
  // O(bins between) plus, in a's and b's bins, a popcount per 64 chunks
  // of at most half of each bin (from the nearer end); within one bin,
  // one per 64 chunks between them.
  static difference_type distance_between(const pool_iterator& a, const pool_iterator& b) noexcept(unchecked) {
    a.check_position("measuring the distance from");
    b.check_position("measuring the distance to");
    if (a == b) return 0;
    if (b < a) return -static_cast<difference_type>(forward_distance(b, a));
    return static_cast<difference_type>(forward_distance(a, b));
  }
  // Effects: *this becomes the iterator n increments (-n decrements, n < 0)
  // away. Requires: that iterator exists (between begin() and end()); with
  // checks::on or checks::hardened, a step past end() or before begin()
  // throws usage_error (*this is then unchanged); without checks it stops
  // at end() (begin()). With checks, *this must also be at a live element
  // or at end(): checks::hardened too rejects an iterator whose element was
  // destroyed, although ++ from one in the compact layout (unchecked by
  // hardened there) steps to the next live element (docs/api.md, Checks).
  // Beyond step_limit, every bin whose live count or bitmap is read must
  // not be changing (with checks, the racing usage_error of ++); the steps
  // with ++ and -- check what they check. Complexity: as distance over the
  // elements passed.
  // Up to `step_limit` steps are taken with ++ and -- (a step costs about
  // a nanosecond; a count or search in the bitmap, several popcounts, ten
  // times that).
  void advance_by(difference_type n) noexcept(unchecked) {
    check_position("advancing");
    pool_iterator it = *this;  // *this changes only once the step is made
    if (n > 0) {
      if (n <= step_limit) {
        for (; n != 0 && !it.bin_->is_root(); --n) ++it;
        if (n == 0) {
          *this = it;
          return;
        }
      }
      *this = it.forward(static_cast<std::size_t>(n));  // at end: past it
    } else if (n < 0) {
      if (n >= -step_limit) {
        for (; n != 0; ++n) {
          const pool_iterator before = it;
          --it;
          if (it.bin_->is_root()) {  // -- from begin() wrapped around to end()
            it = before;
            break;
          }
        }
        if (n == 0) {
          *this = it;
          return;
        }
      }
      *this = it.backward(std::size_t{0} - static_cast<std::size_t>(n));  // at begin: before it
    }
  }
  friend difference_type distance(const pool_iterator& a, const pool_iterator& b) noexcept(unchecked) {
    return distance_between(a, b);
  }
  friend void advance(pool_iterator& it, difference_type n) noexcept(unchecked) { it.advance_by(n); }
  friend pool_iterator next(pool_iterator it, difference_type n = 1) noexcept(unchecked) {
    it.advance_by(n);
    return it;
  }
  friend pool_iterator prev(pool_iterator it, difference_type n = 1) noexcept(unchecked) {
    it.advance_by(-n);
    return it;
  }

 private:
  template <class, class...>
  friend class ::travpool::TRAVPOOL_ABI_NAMESPACE::basic_pool;
  template <class, class, class...>
  friend class ::travpool::TRAVPOOL_ABI_NAMESPACE::hive;
  template <class, class, bool, checks_level, bool>
  friend class pool_iterator;
  friend struct test_access;

  using cursor = typename traits::cursor;

  // Requires: chunk i of b is assigned.
  pool_iterator(bin_base* b, std::uint32_t i) noexcept : bin_(b), cur_(traits::cursor_at(*b, i)) {}
  // As pool_iterator(b, i), made while other threads may change b
  // (sync::bin_locks, without b's lock: get_iterator, concurrent_hive).
  static pool_iterator at_relaxed(bin_base* b, std::uint32_t i) noexcept {
    pool_iterator it;
    it.bin_ = b;
    it.cur_ = traits::cursor_at_relaxed(*b, i);
    return it;
  }

  // Returns: the chunk index of the current element.
  std::uint32_t index() const noexcept { return traits::cursor_index(*bin_, cur_); }

  // Checked: no create or destroy may be under way in the bin (sync::
  // bin_locks pools mark one with an odd modification count), and the
  // element must still be live. A destroyed element whose chunk was reused
  // by a later create is live again and cannot be told apart.
  // Hardened: the element must be live, which also rules out end and
  // singular iterators (one test where the layout keeps the bitmap word in
  // the cursor).
  void check([[maybe_unused]] const char* what) const {
    if constexpr (Checks == checks_level::full) {
      if (bin_ == nullptr || bin_->is_root()) throw_misuse(what, true);
      if (changing(*bin_)) throw_racing(what);
      if (!traits::cursor_live(bin_, cur_)) throw_misuse(what, false);
    } else if constexpr (Checks == checks_level::hardened) {
      if (!traits::cursor_live(bin_, cur_)) [[unlikely]]
        throw_dead(what);
    }
  }
  // Hardened: first_from, for a step that enters another bin, which must
  // not be changing (no create or destroy under way in it).
  TRAVPOOL_NOINLINE static pool_iterator first_quiescent_from(bin_base* b) {
    const pool_iterator it = first_from(b);
    if (!it.bin_->is_root() && changing(*it.bin_)) throw_racing("incrementing");
    return it;
  }
  // Dereferencing: the element must be live, and the iterator not at end
  // or singular (checks::on, checks::hardened). Whether another thread is
  // changing the bin is not asked: a thread may dereference an iterator to
  // an element no other thread creates or destroys while other threads
  // create and destroy in its bin (concurrent_pool, concurrent_hive), and
  // the answer is exact for that element; sweeps still check each step.
  // checks::on reads the words relaxed, as contains() does; hardened too
  // where the bins are Shared, and otherwise plainly: the load a step of a
  // range-for makes too, shared with it (callgrind, a hardened range-for,
  // bench/standalone/checked_range_for_count.cpp: 17.8 instructions per
  // element over pool<T>, 19.8 over concurrent_pool).
  TRAVPOOL_ALWAYS_INLINE void check_element() const {
    if constexpr (Checks == checks_level::full) {
      if (bin_ == nullptr || bin_->is_root()) [[unlikely]]
        throw_misuse("dereferencing", true);
      if (!traits::template cursor_live<true>(bin_, cur_)) [[unlikely]]
        throw_dead_element("dereferencing");
    } else if constexpr (Checks == checks_level::hardened) {
      if (!traits::template cursor_live<Shared>(bin_, cur_)) [[unlikely]]
        throw_dead("dereferencing");
    }
  }
  // checks::on: `what` an end or singular iterator (at_end), or one whose
  // element was destroyed.
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_misuse(const char* what, bool at_end) {
    throw usage_error(std::string("travpool: ") + what +
                      (at_end ? " an end or singular iterator" : " an iterator whose element was destroyed"));
  }
  // checks::on, a dereference that found its element destroyed: where
  // other threads may create and destroy (Shared), the likely cause is a
  // sweep that is not quiescent, so the message says so, and names a
  // change under way in the bin when it meets one.
  [[noreturn, gnu::cold, gnu::noinline]] void throw_dead_element(const char* what) const {
    if constexpr (Shared) {
      if (changing(*bin_)) throw_racing(what);
      throw usage_error(std::string("travpool: ") + what +
                        " an iterator whose element was destroyed: by this thread, or by another thread while "
                        "this thread swept the pool (a concurrent pool's sweep needs a quiescent pool: no "
                        "thread may create or destroy while it runs)");
    } else {
      throw_misuse(what, false);
    }
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_dead(const char* what) {
    throw usage_error(std::string("travpool: ") + what +
                      " an end or singular iterator, or one whose element was destroyed");
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_racing(const char* what) {
    throw usage_error(std::string("travpool: ") + what +
                      " an iterator while another thread modifies its bin (sweeps need a quiescent pool)");
  }

  // Returns: whether bin a (!= b) comes before bin b in their list, the
  // root (end) coming last.
  TRAVPOOL_NOINLINE static bool bin_before(const bin_base* a, const bin_base* b) noexcept {
    if (a->is_root()) return false;
    if (b->is_root()) return true;
    for (const bin_base* x = a->next_; !x->is_root(); x = x->next_)
      if (x == b) return true;
    return false;
  }

  static constexpr difference_type step_limit = 16;

  // distance and advance: the iterator must not be singular and, unless at
  // end, must be at a live element (checks::on, checks::hardened).
  void check_position([[maybe_unused]] const char* what) const {
    if constexpr (!unchecked) {
      if (bin_ == nullptr) throw_misuse(what, true);
      if (!bin_->is_root()) check(what);
    }
  }
  // checks::on, checks::hardened: a bin whose live count or bitmap
  // distance and advance read, passing over it or entering it, must not be
  // changing (as a step with ++ asks).
  static void check_quiescent([[maybe_unused]] const bin_base& b, [[maybe_unused]] const char* what) {
    if constexpr (!unchecked) {
      if (changing(b)) throw_racing(what);
    }
  }
  // Requires: a before b, both of one pool. Returns: the elements of
  // [a, b). Iterators of two pools (a's bin list ends at its root without
  // reaching b's bin): with checks, usage_error; without, the elements
  // from a to a's end (the precondition is broken, but the walk ends).
  static std::size_t forward_distance(const pool_iterator& a, const pool_iterator& b) noexcept(unchecked) {
    check_quiescent(*a.bin_, "measuring the distance from");  // a is not at end: it comes first
    if (a.bin_ == b.bin_) return 1 + traits::count_between(*a.bin_, a.index(), b.index());
    std::size_t n = traits::count_after(*a.bin_, a.index()) + 1;
    const bin_base* x = a.bin_->next_;
    for (; x != b.bin_ && !x->is_root(); x = x->next_) {
      check_quiescent(*x, "measuring the distance from");
      n += x->live_;
    }
    if (x != b.bin_) {
      if constexpr (!unchecked)
        throw usage_error("travpool: measuring the distance between iterators of different pools");
      return n;
    }
    if (!x->is_root()) {
      check_quiescent(*x, "measuring the distance to");
      n += traits::count_before(*x, b.index());
    }
    return n;
  }
  // Returns: the iterator n >= 1 increments after *this.
  pool_iterator forward(std::size_t n) const {
    bin_base* x = bin_;
    if (!x->is_root()) {
      check_quiescent(*x, "advancing");
      const std::uint32_t i = index();
      if (n < x->live_) {  // perhaps within this bin: look for it from i
        const std::uint32_t j = traits::nth_after(*x, i, n);
        if (j != x->last()) return pool_iterator(x, j);
      }
      n -= traits::count_after(*x, i) + 1;  // now: past the first element of the bins after x
      x = x->next_;
      while (!x->is_root()) {
        check_quiescent(*x, "advancing");
        if (n < x->live_) return pool_iterator(x, traits::nth_in_bin(*x, n));
        n -= x->live_;
        x = x->next_;
      }
      if (n == 0) return at_end(x);
    }
    if constexpr (!unchecked) throw usage_error("travpool: advancing an iterator past end()");
    return at_end(x);
  }
  // Returns: the iterator n >= 1 decrements before *this.
  pool_iterator backward(std::size_t n) const {
    bin_base* x = bin_;
    if (!x->is_root()) {
      check_quiescent(*x, "advancing");
      const std::uint32_t i = index();
      if (n < x->live_) {
        const std::uint32_t j = traits::nth_before(*x, i, n);
        if (j != 0) return pool_iterator(x, j);
      }
      n -= traits::count_before(*x, i);  // now: back from the end of the bins before x
    }
    x = x->prev_;
    while (!x->is_root()) {
      check_quiescent(*x, "advancing");
      if (n <= x->live_) return pool_iterator(x, traits::nth_in_bin(*x, x->live_ - n));
      n -= x->live_;
      x = x->prev_;
    }
    if constexpr (!unchecked) throw usage_error("travpool: advancing an iterator before begin()");
    return first_from(x->next_);
  }

  // Returns: the last element of the last non-empty bin from `b` back, or end.
  TRAVPOOL_NOINLINE static pool_iterator last_from(bin_base* b) noexcept {
    b = b->prev_nonempty();
    pool_iterator it;
    it.bin_ = b;
    if (!b->is_root()) it.cur_ = traits::cursor_at(*b, traits::last_assigned(*b));
    return it;
  }

  bin_base* bin_ = nullptr;
  cursor cur_{};
};

}  // namespace detail
}  // namespace travpool

// std::distance, std::advance, std::next and std::prev for travpool's
// iterators (pool<T>, concurrent_pool, hive, concurrent_hive) and their
// reverse_iterators, so that a qualified std::distance(first, last) skips
// whole bins too. The standard's own templates dispatch on the iterator
// category and step a bidirectional iterator one element at a time (so do
// libstdc++'s, libc++'s and MSVC's); P0447 asks that hive's iterators have
// these overloaded. These are more specialized than the standard's, so
// partial ordering picks them, but only for a qualified call in code that
// sees them: a template that calls std::distance and was defined in a
// header included before travpool's (the standard library's own algorithms
// among them) does not find them and keeps stepping. Adding overloads to
// namespace std is formally undefined behaviour ([namespace.std]); plf::hive,
// P0447's reference implementation, relies on it likewise, and no
// implementation rejects it. Defining TRAVPOOL_NO_STD_ITERATOR_OVERLOADS
// (config.hpp) before including travpool leaves them out; the hidden
// friends above, found by unqualified calls, stay.
#ifndef TRAVPOOL_NO_STD_ITERATOR_OVERLOADS
namespace std {
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type distance(
    travpool::detail::pool_iterator<T, Ops, C, K, S> first,
    travpool::detail::pool_iterator<T, Ops, C, K, S> last) noexcept(K == travpool::detail::checks_level::off) {
  return first.distance_between(first, last);
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S, class Distance>
void advance(travpool::detail::pool_iterator<T, Ops, C, K, S>& it,
             Distance n) noexcept(K == travpool::detail::checks_level::off) {
  it.advance_by(static_cast<typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type>(n));
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
travpool::detail::pool_iterator<T, Ops, C, K, S> next(
    travpool::detail::pool_iterator<T, Ops, C, K, S> it,
    typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type n =
        1) noexcept(K == travpool::detail::checks_level::off) {
  it.advance_by(n);
  return it;
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
travpool::detail::pool_iterator<T, Ops, C, K, S> prev(
    travpool::detail::pool_iterator<T, Ops, C, K, S> it,
    typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type n =
        1) noexcept(K == travpool::detail::checks_level::off) {
  it.advance_by(-n);
  return it;
}
// Reverse iterators: the same on their bases, in the other direction.
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type distance(
    reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>> first,
    reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>>
        last) noexcept(K == travpool::detail::checks_level::off) {
  return last.base().distance_between(last.base(), first.base());
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S, class Distance>
void advance(reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>>& it,
             Distance n) noexcept(K == travpool::detail::checks_level::off) {
  auto base = it.base();
  base.advance_by(-static_cast<typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type>(n));
  it = reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>>(base);
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>> next(
    reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>> it,
    typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type n =
        1) noexcept(K == travpool::detail::checks_level::off) {
  std::advance(it, n);
  return it;
}
template <class T, class Ops, bool C, travpool::detail::checks_level K, bool S>
reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>> prev(
    reverse_iterator<travpool::detail::pool_iterator<T, Ops, C, K, S>> it,
    typename travpool::detail::pool_iterator<T, Ops, C, K, S>::difference_type n =
        1) noexcept(K == travpool::detail::checks_level::off) {
  std::advance(it, -n);
  return it;
}
}  // namespace std
#endif  // TRAVPOOL_NO_STD_ITERATOR_OVERLOADS
