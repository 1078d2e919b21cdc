// travpool/detail/bin_algorithms.hpp: the paper's create (Listing 4) and
// destroy (Listing 7 with the two neighbour repairs), written once over the
// layout accessors, for any layout and without a payload type.
//
// Why the O(1) repair keeps them true
// -----------------------------------
// create pops h = head and reads link(h) (valid by (V3)), then:
//   if h-1 is free: the first chunk of the left run is link(h).prev + 1; its
//                   next becomes h                             (Listing 4)
//   if h+1 is free: the last chunk of the right run is link(h).next - 1; its
//                   prev becomes h
// Only the two boundary chunks of the runs that h split had stale links, so
// (V1) and (V2) hold again.
// Listing 7 as printed stops after setting c's own links. That leaves the
// structure invalid at once: create one element, destroy it, and F0's next
// link still names c, so a sweep would visit a free chunk. The full repair:
// destroy of c pushes c and sets both of its links to pred(c) and succ(c),
// found in O(1) through its neighbours' boundary links (Listing 7), then:
//   if c-1 is free: the first chunk of the left run gets next = link(c).next
//   if c+1 is free: the last chunk of the right run gets prev = link(c).prev
// (the two if-clauses the paper's text asks for), restoring (V1) and (V2),
// and (V3) holds for c by construction.
// (V3) after a pop: the free list is a stack, so allocation runs in the
// reverse order of deallocation. When h_1 becomes head again, every chunk
// pushed after it has been popped again, so S is exactly what it was when
// h_1 was pushed; the repairs rewrite boundary links as a function of S
// alone, so h_1's links are again the valid ones written by its push.
// `fresh` is valid when it becomes head: everything below it is assigned and
// its links (pred = fresh-1, succ = A1) were written when it was reached
// (lazy_tail: its next link only; its prev is (V6)'s, from fresh_).
// (V6) for link(F1).prev: fresh-1 stops being assigned only by its release,
// whose right run is the tail, so the repair writes link(F1).prev; from
// then on every change of pred(F1) is a release or a create whose right
// run is the tail, and writes it too. Only create_fresh skips it, and it
// leaves fresh-1 assigned. (With (V7), below: a release writes it only
// while the tail run is linked, and only then is it read.)
// A release that empties a bin restarts it (restart()): the state init()
// leaves, for which (V1) to (V5) hold as for a new bin.
// (V7), layout::compact: a release writes the merged run's two boundary
// links only if the run is linked (run_linked(pred(c), succ(c))); a
// create repairs as above. Every link either writes is the true pred or
// succ of its chunk at that moment, and a run's bounds change only by the
// create that splits it or the release that merges it, which write the
// new runs' outer ends when they are linked; a split-off run's inner end
// (h-1's prev, h+1's next) was valid at h's push and untouched since, as
// h and h-1 (h+1) stayed free. So (V1) and (V2) hold for linked runs.
// (V3) no longer follows from "links are functions of S": the first
// chunk x of an unlinked run may keep a stale next link. It follows, by
// induction together with (V1) and (V2) for linked runs (which make
// neighbours() right, so every link written is the true pred or succ),
// from this: between x's push and its pop, fresh does not move (no fresh
// create while x is on the stack; a restart empties the stack), and the
// operations are nested balanced pairs release(y) ... create(y). Take a
// pair that starts with x-1 assigned and link(x).next = succ(x) (true at
// x's push). If y = succ(x), the create writes link(x).next = y again,
// since create repairs unconditionally. If y = x-1, x is no run's first
// chunk inside the pair, and nothing writes its next link. Otherwise
// release(y) and create(y) do not write it, and the pairs nested inside
// keep it by induction. A free x with x-1 free is never a run's first
// chunk while it is on the stack (LIFO keeps x-1 free), so its next link
// is untouched. Prev links likewise, mirrored (x+1 = fresh stays free).
// Making create's repairs conditional too breaks (V3):
// bin_algorithms_test's windows find a case in four operations.
// tests/travpool/pool_exhaustive_test.cpp checks all of this over every
// reachable state of small pools, for every layout.
//
#pragma once

#include <bit>
#include <cstdint>

#include "../config.hpp"
#include "bin.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

// Whether release() restarts a bin it empties (bin_algorithms::restart).
// Not for the column pool's slots (slot_bins.hpp): a column pool gives a
// destroyed handle's index to the next create, as a LIFO free list does.
template <class Ops>
inline constexpr bool restarts_emptied_bins = true;

// BinLocked (sync::bin_locks): the words that other threads read without
// the bin's lock (live_, fresh_, status words) are written with relaxed
// atomic stores; otherwise with plain ones.
template <class Ops, bool BinLocked = false>
struct bin_algorithms {
  using traits = layout_traits<Ops>;

  // The words of the free-list head, read before it is assigned.
  struct popped {
    std::uint32_t index;
    std::uint32_t free_next;
    std::uint32_t link_next;
    std::uint32_t link_prev;
  };

  // Effects: makes `b` an empty bin: sentinels written, free list = 2, 3, ...
  // Touches only chunks 0, 1, 2 and the last two.
  static void init(bin_base& b) noexcept {
    traits::template init_bin<BinLocked>(b);
    const std::uint32_t a1 = b.last(), f1 = b.full_mark();
    Ops::template mark_assigned<BinLocked>(b, 0);
    Ops::template mark_assigned<BinLocked>(b, a1);
    write_free(b, 1, 0, a1, 0);
    write_free(b, f1, 0, a1, 0);
    write_free(b, first_user_chunk, first_user_chunk + 1, a1, 0);  // may be F1's neighbour
    b.free_head_ = first_user_chunk;
    publish<BinLocked>(b.fresh_, first_user_chunk);
    publish<BinLocked>(b.live_, std::uint32_t{0});
  }

  // Requires: !b.full(). Returns: the head of the free list and its words.
  TRAVPOOL_ALWAYS_INLINE static popped peek(const bin_base& b) noexcept {
    const std::uint32_t h = b.free_head_;
    return {h, Ops::free_next(b, h), Ops::link_next(b, h), Ops::link_prev(b, h)};
  }

  // Effects: assigns the chunk `c` from peek(b) (Listing 4).
  TRAVPOOL_ALWAYS_INLINE static void commit_create(bin_base& b, const popped& c) noexcept {
    const std::uint32_t h = c.index;
    if (h == b.fresh_) return create_fresh(b);
    b.free_head_ = c.free_next;
    Ops::template mark_assigned<BinLocked>(b, h);
    if (Ops::is_free(b, h - 1)) Ops::set_link_next(b, c.link_prev + 1, h);
    if (Ops::is_free(b, h + 1)) Ops::set_link_prev(b, c.link_next - 1, h);
    publish<BinLocked>(b.live_, b.live_ + 1);  // read unlocked by size()
  }

  // Requires: !b.full(). Effects: assigns the head of the free list.
  // Returns: its chunk index.
  TRAVPOOL_ALWAYS_INLINE static std::uint32_t create(bin_base& b) noexcept {
    const std::uint32_t h = b.free_head_;
    if (h == b.fresh_) {
      create_fresh(b);
    } else {
      commit_create(b, peek(b));
    }
    return h;
  }

  // Requires: chunk `c` of `b` is an assigned user chunk whose payload has
  // been destroyed. Effects: frees it (Listing 7 and the two repairs, the
  // repairs only for a linked run (V7): in random order most runs a
  // release makes lie inside one bitmap word, and their neighbours' chunks,
  // in lines no recent operation touched, are not stored to).
  // Returns: the first assigned chunk after c (A1 = b.last() if none): c's
  // next link, as written, so that an erase need not read it back.
  TRAVPOOL_ALWAYS_INLINE static std::uint32_t release(bin_base& b, std::uint32_t c) noexcept {
    const auto [prev, next] = traits::neighbours(b, c);
    write_free(b, c, b.free_head_, next, prev);
    b.free_head_ = c;
    if (traits::run_linked(prev, next)) {
      if (prev != c - 1) Ops::set_link_next(b, prev + 1, next);  // c - 1 is free
      if (next != c + 1) Ops::set_link_prev(b, next - 1, prev);  // c + 1 is free
    }
    publish<BinLocked>(b.live_, b.live_ - 1);
    if constexpr (restarts_emptied_bins<Ops>)
      if (b.live_ == 0) [[unlikely]]
        restart(b);
    return next;
  }

  // Requires: b.live_ == 0. Effects: the state init(b) leaves, without
  // clearing the status words (every user chunk is free already): the
  // free list is 2, 3, ... again instead of the order of the last
  // destroys, so the next creates in b write its chunks in address order,
  // as into a new bin, rather than in the (after random destroys, random)
  // order they were freed. Touches chunks 1, 2 and the last one.
  static void restart(bin_base& b) noexcept {
    const std::uint32_t a1 = b.last(), f1 = b.full_mark();
    write_free(b, 1, 0, a1, 0);
    write_free(b, f1, 0, a1, 0);
    write_free(b, first_user_chunk, first_user_chunk + 1, a1, 0);
    b.free_head_ = first_user_chunk;
    publish<BinLocked>(b.fresh_, first_user_chunk);
  }

  // Returns: whether chunk `i` of `b` holds a live element (any index).
  static bool is_live(const bin_base& b, std::uint32_t i) noexcept {
    return i >= first_user_chunk && i < b.fresh_ && !Ops::is_free(b, i);
  }
  // Returns: is_live(b, i), read with relaxed atomic loads, so that a thread
  // that does not hold b's lock may ask while b's owner creates and
  // destroys (sync::bin_locks' contains()). Exact for a chunk whose create
  // or destroy happens before the call; either answer for one created or
  // destroyed meanwhile.
  static bool is_live_relaxed(const bin_base& b, std::uint32_t i) noexcept {
    return i >= first_user_chunk && i < load_relaxed(b.fresh_) && !Ops::is_free_relaxed(b, i);
  }
  // Returns: the first user chunk of b that reads as assigned, or 0 if
  // none does; relaxed loads only, as is_live_relaxed (no lock needed, and
  // none taken). Complexity: O(fresh_ / 64) bitmap words in the compact
  // layout, O(fresh_) status words in the interleaved one.
  static std::uint32_t first_live_relaxed(const bin_base& b) noexcept {
    const std::uint32_t end = load_relaxed(b.fresh_);
    if constexpr (requires { Ops::bits(b); }) {
      std::uint64_t* const w = Ops::bits(b);
      for (std::uint32_t k = 0; k * 64 < end; ++k) {
        std::uint64_t m = load_relaxed(w[k]);
        if (k == 0) m &= ~std::uint64_t{0} << first_user_chunk;  // A0 and F0 are no user chunks
        if (m != 0) {
          const std::uint32_t i = k * 64 + static_cast<std::uint32_t>(std::countr_zero(m));
          return i < end ? i : 0;
        }
      }
      return 0;
    } else {
      for (std::uint32_t i = first_user_chunk; i < end; ++i)
        if (!Ops::is_free_relaxed(b, i)) return i;
      return 0;
    }
  }

 private:
  // Requires: b.free_head_ == b.fresh_ = h. Effects: commit_create(b,
  // peek(b)) without reading h's words, which (V4) and (V5) fix: every user
  // chunk below h is assigned, so h's free run is h .. F1 (F0 .. F1 if h
  // is the first user chunk), with free_next h + 1, next A1 and prev h - 1.
  // The run becomes h + 1 .. F1: h + 1 is written as its first chunk (and
  // the free-list head), F1 gets prev = h, and F0, if it was the run's
  // first chunk, next = h. The status of h + 1 is written only where the
  // layout does not already read never-assigned chunks as free
  // (traits::mark_fresh). A lazy_tail layout (layout::compact) writes only
  // h + 1's next link (A1): (V6) gives the tail's prev links from fresh_
  // and the status words, so a fresh create stores h's status bit, one
  // link and the header words.
  TRAVPOOL_ALWAYS_INLINE static void create_fresh(bin_base& b) noexcept {
    // Every header word is read before the first store to a chunk, which
    // the compiler must assume may alias them.
    const std::uint32_t h = b.fresh_, n = h + 1, f1 = b.full_mark(), a1 = b.last(), live = b.live_;
    if constexpr (traits::lazy_tail) {
      Ops::set_link_next(b, n, a1);  // n may be F1, whose next is A1 already
    } else {
      Ops::set_link_prev(b, f1, h);
      if (n != f1) traits::template mark_fresh<BinLocked>(b, n, n + 1, a1, h);
    }
    if (h == first_user_chunk) Ops::set_link_next(b, first_user_chunk - 1, h);
    Ops::template mark_assigned<BinLocked>(b, h);
    b.free_head_ = n;
    publish<BinLocked>(b.fresh_, n);        // read unlocked by contains()
    publish<BinLocked>(b.live_, live + 1);  // read unlocked by size()
  }

  static void write_free(const bin_base& b, std::uint32_t i, std::uint32_t free_next, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    traits::template write_free<BinLocked>(b, i, free_next, next, prev);
  }
};

}  // namespace travpool::detail
