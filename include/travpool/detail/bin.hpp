// travpool/detail/bin.hpp: bins, chunks and the O(1) traversal repair.
//
// DESIGN NOTE
// ===========
// After C. Schüßler and R. Gruber, "A Traversable Fixed Size Small Object
// Allocator in C++" (sections 2 and 3), with the deallocation repair as
// corrected in shared/PAPER-NOTES.md (reading B).
//
// Layout
// ------
// A bin is one naturally aligned span from the OS (see bin_directory.hpp):
//
//   struct bin {                         // span-aligned, span = 2^k >= 64 KiB
//     bin_base header;                   // free list head, live count, links
//     byte     layout_extra[];           // per-layout metadata (none for
//                                        // layout::interleaved)
//     chunk    c[capacity + 4];          // at chunks_, aligned to >= 64
//   };
//
//   chunk index:  0    1    2 ... capacity+1    capacity+2   capacity+3
//                 A0   F0   user chunks         F1           A1
//
// A0 and A1 are assigned pseudo chunks and F0 and F1 free pseudo chunks
// ("sentinels"): every user chunk has a neighbour on both sides, every free
// run is bounded by assigned chunks, and no branch handles the bin's ends.
// Pseudo chunks are never on the free list and never visible to users.
//
// layout::interleaved (the paper's Listing 2, with 32-bit links):
//
//   struct chunk {
//     union {
//       T payload;                       // when assigned
//       struct { u32 next, prev; } link; // when free: chunk indices
//     };
//     u32 status;                        // bit 31: free; bits 0..30: index of
//   };                                   // the next free chunk (free list)
//
// Links are chunk indices relative to the bin rather than Chunk* as in the
// paper: the minimum chunk is 12 B instead of 20 B, and nothing else changes.
//
// layout::compact (detail/layout_compact.hpp) moves the status bit to a
// per-bin bitmap after the header and keeps {free_next, next, prev} inside
// the free payload: chunks are max(sizeof(T), 12) B apart, a 24-byte T
// takes 24 B. Both layouts provide the same accessors (is_free, free_next,
// mark_free, mark_assigned, link_next/prev, set_link_next/prev, payload);
// bin_algorithms below is written once over them.
//
// The header (128 B, one per 2 MiB bin by default) also holds the bin's
// lock and retired flag (sync::bin_locks) and its counters
// (stats::counters), in what would otherwise be padding.
//
// Invariants (S = the set of assigned chunk indices of a bin, A0, A1 in S)
// -----------------------------------------------------------------------
// Let succ(i) = min{ j in S : j > i } and pred(i) = max{ j in S : j < i }.
//
//   (V1) i-1 in S and i not in S  =>  link(i).next = succ(i)
//   (V2) i+1 in S and i not in S  =>  link(i).prev = pred(i)
//   (V3) head = free_head: if head <= capacity+1 then
//          link(head).next = succ(head)  and  link(head).prev = pred(head)
//   (V4) the free list is  h_0 -> h_1 -> ... -> h_m -> fresh -> fresh+1 ->
//        ... -> capacity+1 -> capacity+2 (= "full"), where h_0..h_m are the
//        free user chunks below `fresh`, each once, in LIFO order of release.
//   (V5) live = |S| - 2;  user chunks >= fresh are free and never assigned;
//        chunks fresh+1 .. capacity+1 are not yet written (lazy
//        initialisation: a fresh bin touches only its first and last page).
//
// (V1) and (V2) are section 3's validity conditions: they are all that a
// sweep needs. A sweep visits i+1 if it is assigned and otherwise jumps to
// link(i+1).next, which by (V1) is the next assigned chunk.
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
// its links (pred = fresh-1, succ = A1) were written when it was reached.
// tests/travpool/pool_exhaustive_test.cpp checks all of this over every
// reachable state of small pools, for every layout.
//
// Cost
// ----
//   create          O(1): pop, at most two boundary writes; a new bin is
//                   O(1) too (lazy initialisation), amortised over capacity
//   destroy         O(1): directory lookup (two loads), push, at most four
//                   link writes
//   ++it / --it     O(1) amortised: one step, or one jump over a free run;
//                   crossing to the next non-empty bin skips empty bins
//   contains,       O(1): directory lookup and a status read
//   get_iterator
//   partition data  per-bin live counts are maintained, O(1) per operation
//   sync::bin_locks create: + the thread's remembered bin, entered without
//                   a locked instruction while its lock is biased to this
//                   thread (detail::bin_lock), else one try_lock (a CAS);
//                   destroy: + that bin's biased section or its lock; a
//                   lock that revokes another thread's bias: + membarrier
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sync.hpp"

// The create and destroy fast paths are inlined into their callers even in
// programs that instantiate several pool types (GCC otherwise keeps the
// shared algorithm out of line and pays a call and spills per operation).
#if defined(__GNUC__)
#define TRAVPOOL_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define TRAVPOOL_ALWAYS_INLINE inline
#endif

namespace travpool::detail {

inline constexpr std::uint32_t free_bit = 0x8000'0000u;
inline constexpr std::uint32_t max_bin_capacity = 0x7fff'0000u;

// Index helpers; see the layout in the design note.
inline constexpr std::uint32_t first_user_chunk = 2;

struct bin_base {
  // Hot: read and written by every create and destroy of this bin.
  std::byte* chunks_ = nullptr;  // chunk 0 (A0)
  std::uint32_t capacity_ = 0;   // user chunks; 0 marks a pool's list root
  std::uint32_t live_ = 0;       // assigned user chunks
  std::uint32_t free_head_ = 0;  // top of the free list; capacity_+2 if full
  std::uint32_t fresh_ = 0;      // lowest never-assigned user chunk
  // Bin list, in traversal order; circular through the pool's root.
  bin_base* next_ = this;
  bin_base* prev_ = this;
  // Bins with a free chunk (null-terminated, doubly linked; avail_prev_
  // is on the cold line). sync::bin_locks: links the retired list.
  bin_base* avail_next_ = nullptr;
  // sync::bin_locks: the bin's lock, biased to its claimant (12 B, on the
  // hot line, beside what it guards).
  bin_lock lock_;
  bool in_avail_ = false;  // on the pool's available list
  // sync::bin_locks: shrink_to_fit retired the bin (retired bins stay
  // mapped, with their chunk pages returned to the OS, so that a thread that
  // still remembers one can look at its header safely).
  bool retired_ = false;
  // --- 64 B: the rest is cold, and fills what would otherwise be padding
  // of the 128-byte header, so no policy makes a bin larger.
  bin_base* avail_prev_ = nullptr;
  std::uint64_t owner_ = 0;  // id of the owning pool
  // stats::counters only, updated under the bin's lock or in its owner's
  // biased section (no shared atomics); summed by basic_pool::stats().
  struct counters {
    std::uint64_t creates = 0;
    std::uint64_t destroys = 0;
    std::uint64_t remote_destroys = 0;   // by a thread other than claim_
    std::uint32_t failed_try_locks = 0;  // by the creates that ended here
    std::uint32_t bins_scanned = 0;      // likewise
    std::uint32_t peak_live = 0;
  } counters_;
  // TRAVPOOL_CHECKS with sync::bin_locks: odd while a create or destroy is
  // changing this bin (a seqlock-style count), so sweeps can detect a race
  // without taking the lock.
  std::atomic<std::uint32_t> mods_{0};
  // sync::bin_locks: the thread (detail::thread_number) that allocates in
  // this bin (0: unclaimed). Written under the lock; read without it by the
  // claimant and by other threads' scans, which skip claimed bins. Also
  // what stats::counters compares destroys against.
  std::atomic<std::uint32_t> claim_{0};

  bool is_root() const noexcept { return capacity_ == 0; }
  std::uint32_t full_mark() const noexcept { return capacity_ + 2; }  // F1
  std::uint32_t last() const noexcept { return capacity_ + 3; }       // A1
  bool full() const noexcept { return free_head_ == full_mark(); }
};

inline std::uint32_t load_u32(const std::byte* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_u32(std::byte* p, std::uint32_t v) noexcept { std::memcpy(p, &v, sizeof v); }

constexpr std::size_t round_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }

// Layout accessors of layout::interleaved for element type T. Every layout
// provides this interface; bin_algorithms and the iterators use nothing else.
template <class T>
struct interleaved_chunks {
  static constexpr std::size_t payload_bytes = std::max<std::size_t>(sizeof(T), 8);
  static constexpr std::size_t chunk_align = std::max<std::size_t>(alignof(T), 4);
  static constexpr std::size_t status_offset = round_up(payload_bytes, 4);
  static constexpr std::size_t stride = round_up(status_offset + 4, chunk_align);

  // Bytes of per-bin metadata between the header and the chunks.
  static constexpr std::size_t extra_bytes(std::uint32_t) noexcept { return 0; }

  static std::byte* at(const bin_base& b, std::uint32_t i) noexcept { return b.chunks_ + std::size_t{i} * stride; }
  static void* payload(const bin_base& b, std::uint32_t i) noexcept { return at(b, i); }

  static std::uint32_t status(const bin_base& b, std::uint32_t i) noexcept {
    return load_u32(at(b, i) + status_offset);
  }
  static bool is_free(const bin_base& b, std::uint32_t i) noexcept { return (status(b, i) & free_bit) != 0; }
  static std::uint32_t free_next(const bin_base& b, std::uint32_t i) noexcept { return status(b, i) & ~free_bit; }
  static void mark_free(const bin_base& b, std::uint32_t i, std::uint32_t next_free) noexcept {
    store_u32(at(b, i) + status_offset, next_free | free_bit);
  }
  static void mark_assigned(const bin_base& b, std::uint32_t i) noexcept { store_u32(at(b, i) + status_offset, 0); }

  static std::uint32_t link_next(const bin_base& b, std::uint32_t i) noexcept { return load_u32(at(b, i)); }
  static std::uint32_t link_prev(const bin_base& b, std::uint32_t i) noexcept { return load_u32(at(b, i) + 4); }
  static void set_link_next(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept { store_u32(at(b, i), v); }
  static void set_link_prev(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept {
    store_u32(at(b, i) + 4, v);
  }
};

// The paper's algorithms, written once over the layout accessors `Ops`.
template <class Ops>
struct bin_algorithms {
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
    if constexpr (requires { Ops::init_bin(b); }) Ops::init_bin(b);
    const std::uint32_t a1 = b.last(), f1 = b.full_mark();
    Ops::mark_assigned(b, 0);
    Ops::mark_assigned(b, a1);
    write_free(b, 1, 0, a1, 0);
    write_free(b, f1, 0, a1, 0);
    write_free(b, first_user_chunk, first_user_chunk + 1, a1, 0);  // may be F1's neighbour
    b.free_head_ = first_user_chunk;
    b.fresh_ = first_user_chunk;
    b.live_ = 0;
  }

  // Requires: !b.full(). Returns: the head of the free list and its words.
  TRAVPOOL_ALWAYS_INLINE static popped peek(const bin_base& b) noexcept {
    const std::uint32_t h = b.free_head_;
    return {h, Ops::free_next(b, h), Ops::link_next(b, h), Ops::link_prev(b, h)};
  }

  // Effects: assigns the chunk `c` from peek(b) (Listing 4).
  TRAVPOOL_ALWAYS_INLINE static void commit_create(bin_base& b, const popped& c) noexcept {
    const std::uint32_t h = c.index;
    b.free_head_ = c.free_next;
    if (h == b.fresh_) {
      // Reach one chunk further: it becomes free, pred = h, succ = A1.
      const std::uint32_t n = h + 1;
      if (n != b.full_mark()) write_free(b, n, n + 1, b.last(), h);
      b.fresh_ = n;
    }
    Ops::mark_assigned(b, h);
    if (Ops::is_free(b, h - 1)) Ops::set_link_next(b, c.link_prev + 1, h);
    if (Ops::is_free(b, h + 1)) Ops::set_link_prev(b, c.link_next - 1, h);
    ++b.live_;
  }

  // Requires: chunk `c` of `b` is an assigned user chunk whose payload has
  // been destroyed. Effects: frees it (Listing 7 and the two repairs).
  TRAVPOOL_ALWAYS_INLINE static void release(bin_base& b, std::uint32_t c) noexcept {
    const bool left_free = Ops::is_free(b, c - 1);
    const bool right_free = Ops::is_free(b, c + 1);
    const std::uint32_t next = right_free ? Ops::link_next(b, c + 1) : c + 1;
    const std::uint32_t prev = left_free ? Ops::link_prev(b, c - 1) : c - 1;
    write_free(b, c, b.free_head_, next, prev);
    b.free_head_ = c;
    if (left_free) Ops::set_link_next(b, prev + 1, next);
    if (right_free) Ops::set_link_prev(b, next - 1, prev);
    --b.live_;
  }

  // Returns: the first assigned user chunk of `b`, or b.last() if none.
  static std::uint32_t first_assigned(const bin_base& b) noexcept { return Ops::link_next(b, 1); }
  // Returns: the last assigned user chunk of `b`, or 0 if none.
  static std::uint32_t last_assigned(const bin_base& b) noexcept { return Ops::link_prev(b, b.full_mark()); }

  // Returns: the next assigned chunk after assigned chunk `i` (b.last() at the end).
  static std::uint32_t step_forward(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (requires { Ops::next_assigned(b, i); }) return Ops::next_assigned(b, i);
    ++i;
    return Ops::is_free(b, i) ? Ops::link_next(b, i) : i;
  }
  // Returns: the previous assigned chunk before assigned chunk `i` (0 at the start).
  static std::uint32_t step_backward(const bin_base& b, std::uint32_t i) noexcept {
    if constexpr (requires { Ops::prev_assigned(b, i); }) return Ops::prev_assigned(b, i);
    --i;
    return Ops::is_free(b, i) ? Ops::link_prev(b, i) : i;
  }

 private:
  static void write_free(const bin_base& b, std::uint32_t i, std::uint32_t free_next, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    Ops::mark_free(b, i, free_next);
    Ops::set_link_next(b, i, next);
    Ops::set_link_prev(b, i, prev);
  }
};

}  // namespace travpool::detail
