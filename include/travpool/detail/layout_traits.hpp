// travpool/detail/layout_traits.hpp: one place that resolves a layout's
// optional hooks, with defaults, and the geometry of its bins.
//
// A layout `Ops` (layout_compact.hpp, layout_interleaved.hpp) must provide
//   stride, chunk_align, extra_bytes(cap), payload, is_free, free_next,
//   mark_free, mark_assigned, link_next, link_prev, set_link_next,
//   set_link_prev
// and may provide
//   init_bin(b)                    per-bin metadata reset     default: none
//   write_free(b, i, free_next,    mark_free and both links    default:
//              next, prev)                                      the three
//   mark_fresh(b, i, free_next,    write_free of a never-      default:
//              next, prev)         assigned chunk               write_free
//   next_assigned(b, i)            O(1) step to the next live  default: the
//   prev_assigned(b, i)            chunk, and back              boundary link
//   neighbours(b, c)               pred(c) and succ(c), as a   default: the
//                                  release reads them           boundary links
//   contiguous                     live runs are arrays        default: false
//   bits(b), live_word(b, k)       the status bitmap           (segments)
//   for_each_live<T>(b, f)         a bulk sweep of one bin     default: steps
//   cursor, cursor_at, cursor_next, the iterators' position    default:
//   cursor_prev, cursor_index,     within a bin                 {payload, index}
//   cursor_equal
//   prefetch_enter(b, i)           a sweep's prefetches on      default: none
//                                  entering bin b at chunk i
//   lazy_tail, run_prev(b, i)      the tail run keeps no prev   default: false,
//                                  links (bin.hpp (V6))          the links
//   run_linked(p, n)               whether the free run between default: true
//                                  p and n keeps its links (V7)
//
// Geometry (bytes from the bin's start):
//   chunks_offset(cap) = round_up(bin_header_bytes + extra_bytes(cap),
//                                 max(64, chunk_align))
//   bin_bytes(cap)     = chunks_offset(cap) + (cap + 4) * stride
//   default_capacity() = the largest cap with bin_bytes(cap) <= 2 MiB
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "../config.hpp"
#include "bin.hpp"

namespace travpool::detail {

// The bin span that default_capacity fills: one 2 MiB huge page.
inline constexpr std::size_t default_bin_span = std::size_t{2} << 20;

// Whether a bin keeps its rank (bin_storage, pool_iterator's ordering) in
// A0's payload: chunk 0 is assigned and never a user chunk, so the bin
// algorithms never read or write its payload. Not the column pool's slot
// bins, whose A0 holds their handle base (slot_bins.hpp).
template <class Ops>
inline constexpr bool keeps_rank_in_a0 = true;

template <class Ops>
struct layout_traits {
  static constexpr std::size_t stride = Ops::stride;
  static constexpr bool contiguous = [] {
    if constexpr (requires { Ops::contiguous; })
      return Ops::contiguous;
    else
      return false;
  }();

  template <bool BinLocked = false>
  static void init_bin(const bin_base& b) noexcept {
    if constexpr (requires { Ops::init_bin(b); }) Ops::template init_bin<BinLocked>(b);
  }

  // Effects: writes chunk i as a free chunk: Ops::mark_free(b, i,
  // next_free) and its boundary links.
  template <bool BinLocked = false>
  static void write_free(const bin_base& b, std::uint32_t i, std::uint32_t next_free, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    if constexpr (requires { Ops::template write_free<BinLocked>(b, i, next_free, next, prev); }) {
      Ops::template write_free<BinLocked>(b, i, next_free, next, prev);
    } else {
      Ops::template mark_free<BinLocked>(b, i, next_free);
      Ops::set_link_next(b, i, next);
      Ops::set_link_prev(b, i, prev);
    }
  }
  // Effects: write_free for user chunk i >= fresh (never assigned since
  // init or restart). A layout whose status already reads such chunks as
  // free (Ops::mark_fresh: the compact bitmap) writes the three links only.
  template <bool BinLocked = false>
  static void mark_fresh(const bin_base& b, std::uint32_t i, std::uint32_t next_free, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    if constexpr (requires { Ops::mark_fresh(b, i, next_free, next, prev); })
      Ops::mark_fresh(b, i, next_free, next, prev);
    else
      write_free<BinLocked>(b, i, next_free, next, prev);
  }

  // Returns: the next assigned chunk after assigned chunk `i` (b.last() at
  // the end): by (V1), i+1 if it is assigned, else link(i+1).next.
  static std::uint32_t next_assigned(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (requires { Ops::next_assigned(b, i); }) {
      return Ops::next_assigned(b, i);
    } else {
      ++i;
      return Ops::is_free(b, i) ? Ops::link_next(b, i) : i;
    }
  }
  // Returns: the previous assigned chunk before assigned chunk `i` (0 at the
  // start), likewise by (V2).
  static std::uint32_t prev_assigned(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (requires { Ops::prev_assigned(b, i); }) {
      return Ops::prev_assigned(b, i);
    } else {
      --i;
      return Ops::is_free(b, i) ? Ops::link_prev(b, i) : i;
    }
  }
  // Returns: {pred(c), succ(c)} of assigned user chunk `c`, for a release:
  // by (V2) and (V1), c - 1 if it is assigned, else link(c - 1).prev, and
  // c + 1 if it is assigned, else link(c + 1).next.
  TRAVPOOL_ALWAYS_INLINE static neighbour_pair neighbours(const bin_base& b, std::uint32_t c) noexcept {
    if constexpr (requires { Ops::neighbours(b, c); }) {
      return Ops::neighbours(b, c);
    } else {
      return {Ops::is_free(b, c - 1) ? Ops::link_prev(b, c - 1) : c - 1,
              Ops::is_free(b, c + 1) ? Ops::link_next(b, c + 1) : c + 1};
    }
  }
  // Returns: whether the free run between assigned chunks p < n (p + 1 <
  // n) keeps boundary links, (V1) and (V2) (bin.hpp): every run, unless the
  // layout finds the ends of a run by other means (Ops::run_linked: the
  // compact layout's bit scans find p and n when they share a bitmap word).
  static constexpr bool run_linked(std::uint32_t p, std::uint32_t n) noexcept {
    if constexpr (requires { Ops::run_linked(p, n); })
      return Ops::run_linked(p, n);
    else
      return true;
  }
  // Returns: the first assigned user chunk of `b`, or b.last() if none:
  // the step from A0 (F0's next link, or in layout::compact a scan of word
  // 0 first, (V7)).
  static std::uint32_t first_assigned(const bin_base& b) noexcept { return next_assigned(b, 0); }
  // Returns: the last assigned user chunk of `b`, or 0 if none: the step
  // back from A1 (F1's prev link read as run_prev, or a scan of F1's word
  // first).
  static std::uint32_t last_assigned(const bin_base& b) noexcept { return prev_assigned(b, b.last()); }

  // The bin's rank: bin_storage gives every bin it appends a rank above
  // the list's last one, so that along a list
  //   b before c  <=>  rank(b) < rank(c)
  // and iterators compare across bins in O(1). 64 bits: never wraps.
  static constexpr bool keeps_rank = keeps_rank_in_a0<Ops>;
  // Both layouts' chunk 0 then has 8 payload bytes (compact: 3 links of 4
  // bytes; interleaved: a payload of at least 8 bytes before the status).
  static_assert(!keeps_rank || Ops::stride >= 12, "travpool: A0 has no room for the bin's rank");
  static std::uint64_t rank(const bin_base& b) noexcept {
    std::uint64_t r;
    std::memcpy(&r, Ops::payload(b, 0), sizeof r);
    return r;
  }
  static void set_rank(const bin_base& b, std::uint64_t r) noexcept { std::memcpy(Ops::payload(b, 0), &r, sizeof r); }

  // Whether the tail run [fresh, F1] keeps its prev links lazily (bin.hpp,
  // (V6)): then create_fresh writes only the fresh chunk's next link, and
  // the tail's prev links are read through run_prev.
  static constexpr bool lazy_tail = [] {
    if constexpr (requires { Ops::lazy_tail; })
      return Ops::lazy_tail;
    else
      return false;
  }();
  // Returns: the prev link of free chunk i that (V2) and (V3) speak of:
  // link(i).prev, or the tail's virtual one (Ops::run_prev).
  static std::uint32_t run_prev(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (lazy_tail)
      return Ops::run_prev(b, i);
    else
      return Ops::link_prev(b, i);
  }

  // Effects: f(T&) for every live chunk of `b`, in address order.
  template <class T, class F>
  static void for_each_live(const bin_base& b, F& f) {
    if constexpr (requires { Ops::template for_each_live<T>(b, f); }) {
      Ops::template for_each_live<T>(b, f);
    } else {
      const std::uint32_t last = b.last();
      for (std::uint32_t i = first_assigned(b); i != last; i = next_assigned(b, i))
        f(*std::launder(static_cast<T*>(Ops::payload(b, i))));
    }
  }

  // The iterators' position within a bin: at least `ptr`, the payload of
  // the current chunk (nullptr at end). The layout's own (compact: the
  // bitmap word in registers), else the chunk's payload and index.
  struct index_cursor {
    std::byte* ptr = nullptr;
    std::uint32_t index = 0;
  };
  static constexpr bool own_cursor = requires { typename Ops::cursor; };
  using cursor = typename decltype([] {
    if constexpr (own_cursor)
      return std::type_identity<typename Ops::cursor>{};
    else
      return std::type_identity<index_cursor>{};
  }())::type;

  // Returns: whether a and b are at the same element (or both null).
  static bool cursor_equal(const cursor& a, const cursor& b) noexcept {
    if constexpr (requires { Ops::cursor_equal(a, b); })
      return Ops::cursor_equal(a, b);
    else
      return a.ptr == b.ptr;
  }
  // Requires: chunk i of b is assigned. Returns: the cursor at chunk i.
  TRAVPOOL_ALWAYS_INLINE static cursor cursor_at(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (own_cursor)
      return Ops::cursor_at(b, i);
    else
      return {static_cast<std::byte*>(Ops::payload(b, i)), i};
  }
  // As cursor_at, without a lock while other threads change b
  // (sync::bin_locks): what the cursor reads of b, it reads relaxed.
  static cursor cursor_at_relaxed(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (own_cursor)
      return Ops::template cursor_at<true>(b, i);
    else
      return {static_cast<std::byte*>(Ops::payload(b, i)), i};
  }
  static std::uint32_t cursor_index(const bin_base& b, const cursor& c) noexcept {
    if constexpr (own_cursor)
      return Ops::cursor_index(b, c);
    else
      return c.index;
  }
  // Whether cursor_next from an element destroyed since the cursor reached
  // it finds the next live element (compact: the step masks the cursor's
  // bits with the bitmap word) rather than reading the freed chunk.
  static constexpr bool steps_from_destroyed = [] {
    if constexpr (requires { Ops::steps_from_destroyed; })
      return Ops::steps_from_destroyed;
    else
      return false;
  }();
  // Returns: whether c is the null cursor (end, singular), by the test
  // cursor_equal makes, so that it folds into a loop's `it != end()`.
  static bool cursor_at_end(const cursor& c) noexcept {
    if constexpr (requires { Ops::cursor_at_end(c); })
      return Ops::cursor_at_end(c);
    else
      return c.ptr == nullptr;
  }
  // Returns: whether c is at a live element of b (false for the null
  // cursor; b may then be null or the root). Compact: the current bit of
  // the bitmap word the cursor holds. Relaxed: b's words read with relaxed
  // loads, as other threads may be changing them (sync::bin_locks): exact
  // for an element that no other thread creates or destroys meanwhile.
  template <bool Relaxed = false>
  static bool cursor_live(const bin_base* b, const cursor& c) noexcept {
    if constexpr (requires { Ops::template cursor_live<Relaxed>(c); }) {
      return Ops::template cursor_live<Relaxed>(c);
    } else if constexpr (Relaxed) {
      return c.ptr != nullptr && cursor_index(*b, c) < load_relaxed(b->fresh_) &&
             !Ops::is_free_relaxed(*b, cursor_index(*b, c));
    } else {
      return c.ptr != nullptr && cursor_index(*b, c) < b->fresh_ && !Ops::is_free(*b, cursor_index(*b, c));
    }
  }
  // Effects: c moves to the next (previous) assigned chunk of b, or to the
  // null cursor (ptr == nullptr) past b's last (first) element.
  // Returns (cursor_next): c.ptr != nullptr.
  TRAVPOOL_ALWAYS_INLINE static bool cursor_next(const bin_base& b, cursor& c) noexcept {
    if constexpr (own_cursor) {
      return Ops::cursor_next(b, c);
    } else {
      const std::uint32_t i = next_assigned(b, c.index);
      if (i == b.last()) {
        c = cursor{};
        return false;
      }
      c = cursor_at(b, i);
      return true;
    }
  }
  // Effects: the layout's sweep prefetches (layout_compact.hpp) for a sweep
  // that enters bin b at chunk i; none by default.
  static void prefetch_enter(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (requires { Ops::prefetch_enter(b, i); }) Ops::prefetch_enter(b, i);
  }
  static void cursor_prev(const bin_base& b, cursor& c) noexcept {
    if constexpr (own_cursor) {
      Ops::cursor_prev(b, c);
    } else {
      const std::uint32_t i = prev_assigned(b, c.index);
      c = i == 0 ? cursor{} : cursor_at(b, i);
    }
  }

  // ---- Counting and selecting live chunks (the iterators' distance and
  // advance) --------------------------------------------------------------
  // With a status bitmap (compact: Ops::live_word), 64 chunks per word, a
  // popcount each; otherwise step by step. Only chunks below b.fresh_ can
  // be assigned, so no scan reads past its word.
  static constexpr bool counts_by_word = requires(const bin_base& b) { Ops::live_word(b, std::size_t{0}); };

  // Returns: the number of set bits of w.
  static constexpr int popcount(std::uint64_t w) noexcept {
    if constexpr (requires { Ops::count_bits(w); })
      return Ops::count_bits(w);
    else
      return std::popcount(w);
  }
  // Requires: n < popcount(w). Returns: the position of w's n-th set bit
  // (0-based, from the lowest).
  // (No pdep: it is microcoded, hundreds of cycles, on AMD before Zen 3.)
  static unsigned select_bit(std::uint64_t w, unsigned n) noexcept {
    unsigned at = 0;
    for (unsigned half = 32; half >= 8; half /= 2) {  // narrow to a byte by the halves' counts
      const auto low = static_cast<unsigned>(popcount(w & ((std::uint64_t{1} << half) - 1)));
      if (n >= low) {
        n -= low;
        w >>= half;
        at += half;
      }
    }
    for (; n != 0; --n) w &= w - 1;
    return at + static_cast<unsigned>(std::countr_zero(w));
  }
  // Requires: n < popcount(w). Returns: the position of w's n-th set bit
  // from the highest (0-based).
  static unsigned select_bit_high(std::uint64_t w, unsigned n) noexcept {
    return select_bit(w, static_cast<unsigned>(popcount(w)) - 1 - n);
  }

  // Requires: i < j, i assigned (A0, 0, allowed), j assigned or b.last().
  // Returns: the assigned user chunks strictly between i and j.
  // Complexity: (j - i) / 64 words, or the chunks between, stepped.
  static std::size_t count_between(const bin_base& b, std::uint32_t i, std::uint32_t j) noexcept {
    if constexpr (counts_by_word) {
      j = (std::min)(j, b.fresh_);  // none at or above fresh_ (A1 is not a user chunk)
      if (j <= i + 1) return 0;
      const std::size_t ki = i >> 6, kj = j >> 6;
      const std::uint64_t from_i = ~std::uint64_t{1} << (i & 63);  // bits above i
      const std::uint64_t below_j = (std::uint64_t{1} << (j & 63)) - 1;
      if (ki == kj) return static_cast<std::size_t>(popcount(Ops::live_word(b, ki) & from_i & below_j));
      std::size_t n = static_cast<std::size_t>(popcount(Ops::live_word(b, ki) & from_i));
      for (std::size_t k = ki + 1; k < kj; ++k) n += static_cast<std::size_t>(popcount(Ops::live_word(b, k)));
      if (below_j != 0) n += static_cast<std::size_t>(popcount(Ops::live_word(b, kj) & below_j));
      return n;
    } else {
      std::size_t n = 0;
      for (std::uint32_t k = next_assigned(b, i); k < j; k = next_assigned(b, k)) ++n;
      return n;
    }
  }
  // Requires: user chunk i of b is assigned. Returns: the assigned user
  // chunks of b after i (before i), counted from whichever end of the bin
  // is nearer (b.live_ holds them all).
  static std::size_t count_after(const bin_base& b, std::uint32_t i) noexcept {
    if (i > b.fresh_ / 2) return count_between(b, i, b.last());
    return b.live_ - 1 - count_between(b, 0, i);
  }
  static std::size_t count_before(const bin_base& b, std::uint32_t i) noexcept {
    return b.live_ - 1 - count_after(b, i);
  }

  // Requires: n >= 1, i assigned (A0 allowed). Returns: the n-th assigned
  // user chunk after i, or b.last() if there are fewer than n.
  // Complexity: the words (chunks) between i and that chunk.
  static std::uint32_t nth_after(const bin_base& b, std::uint32_t i, std::size_t n) noexcept {
    if constexpr (counts_by_word) {
      const std::size_t end = b.fresh_ == 0 ? 0 : ((std::size_t{b.fresh_} - 1) >> 6) + 1;  // words below fresh_
      std::size_t k = i >> 6;
      std::uint64_t w = k < end ? Ops::live_word(b, k) & (~std::uint64_t{1} << (i & 63)) : 0;
      --n;  // now 0-based
      while (k < end) {
        const auto c = static_cast<std::size_t>(popcount(w));
        if (n < c) return static_cast<std::uint32_t>((k << 6) + select_bit(w, static_cast<unsigned>(n)));
        n -= c;
        if (++k < end) w = Ops::live_word(b, k);
      }
      return b.last();
    } else {
      std::uint32_t k = i;
      while (n-- != 0 && k != b.last()) k = next_assigned(b, k);
      return k;
    }
  }
  // Requires: n >= 1, j assigned or b.last(). Returns: the n-th assigned
  // user chunk before j, or 0 (A0) if there are fewer than n.
  static std::uint32_t nth_before(const bin_base& b, std::uint32_t j, std::size_t n) noexcept {
    if constexpr (counts_by_word) {
      j = (std::min)(j, b.fresh_);
      --n;
      std::size_t k = j >> 6;
      std::uint64_t w = (j & 63) != 0 ? Ops::live_word(b, k) & ((std::uint64_t{1} << (j & 63)) - 1) : 0;
      for (;;) {
        const auto c = static_cast<std::size_t>(popcount(w));
        if (n < c) return static_cast<std::uint32_t>((k << 6) + select_bit_high(w, static_cast<unsigned>(n)));
        n -= c;
        if (k == 0) return 0;
        w = Ops::live_word(b, --k);
      }
    } else {
      std::uint32_t k = j;
      while (n-- != 0 && k != 0) k = prev_assigned(b, k);
      return k;
    }
  }
  // Requires: n < b.live_. Returns: the n-th (0-based) assigned user chunk
  // of b, found from whichever end is nearer in rank.
  static std::uint32_t nth_in_bin(const bin_base& b, std::size_t n) noexcept {
    return n < b.live_ / 2 ? nth_after(b, 0, n + 1) : nth_before(b, b.last(), b.live_ - n);
  }

  static constexpr std::size_t chunks_offset(std::uint32_t cap) noexcept {
    return round_up(bin_header_bytes + Ops::extra_bytes(cap), std::max<std::size_t>(64, Ops::chunk_align));
  }
  static constexpr std::size_t bin_bytes(std::uint32_t cap) noexcept {
    return chunks_offset(cap) + (std::size_t{cap} + 4) * Ops::stride;
  }
  // The paper's "about 64,000 chunks per bin", as one 2 MiB span: 86,918
  // chunks of 24 B in the compact layout, 65,528 of 32 B interleaved.
  static constexpr std::uint32_t default_capacity() noexcept { return capacity_for_span(default_bin_span); }
  // Returns: the largest cap with bin_bytes(cap) <= span, at least 1 and
  // at most max_bin_capacity.
  static constexpr std::uint32_t capacity_for_span(std::size_t span) noexcept {
    const std::size_t fixed = chunks_offset(0) + 4 * Ops::stride;
    if (fixed + Ops::stride > span) return 1;
    std::size_t cap = std::min<std::size_t>((span - fixed) / Ops::stride, max_bin_capacity);
    while (cap > 1 && bin_bytes(static_cast<std::uint32_t>(cap)) > span) --cap;
    return static_cast<std::uint32_t>(cap);
  }
};

}  // namespace travpool::detail
