// travpool/detail/bin.hpp: the bin header, the layout of a bin and the
// invariants every layer relies on.
//
// DESIGN NOTE
// ===========
// After C. Schüßler and R. Gruber, "A Traversable Fixed Size Small Object
// Allocator in C++" (sections 2 and 3), with the deallocation of Listing 7
// completed by the two neighbour repairs its text asks for (see
// bin_algorithms.hpp and docs/design.md): Listing 7 as printed leaves the
// structure invalid after one create and one destroy.
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
// layout::interleaved (layout_interleaved.hpp; the paper's Listing 2, with
// 32-bit links):
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
// mark_free, mark_assigned, link_next/prev, set_link_next/prev, payload),
// and optional hooks that layout_traits.hpp resolves; bin_algorithms.hpp is
// written once over them. Layouts depend on the chunk's size and alignment
// only, so bins work without a payload type.
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
//   (V5) live = |S| - 2;  user chunks >= fresh are free and not assigned
//        since b was initialised or last restarted (bin_algorithms::
//        restart); chunks fresh+1 .. capacity+1 are not read before fresh
//        reaches them: not yet written in a new bin (lazy initialisation:
//        a fresh bin touches only its first and last page), stale after a
//        restart.
//
//   (V6) lazy_tail layouts (layout::compact; layout_traits::run_prev):
//        the tail run fresh .. F1 keeps no prev links of its own. In (V2)
//        and (V3), link(i).prev is read as
//          run_prev(i) = fresh-1 if it is an assigned user chunk,
//                        else link(F1).prev          for i >= fresh
//          run_prev(i) = link(i).prev                for i <  fresh
//        so link(F1).prev = pred(F1) whenever fresh-1 is not an assigned
//        user chunk (and, by (V7), the tail run is linked), and a fresh
//        create writes one link: fresh's next.
//        Nor is fresh's free_next written: (V4)'s fresh -> fresh+1 is
//        implied (create never reads the head's words when it is fresh).
//
//   (V7) run_linked layouts (layout::compact; layout_traits::run_linked):
//        (V1) and (V2) hold for the free runs [s, e] whose bounds lie in
//        different bitmap words, (s-1)/64 != (e+1)/64, and need not hold
//        for the others. Such a run lies inside one word with both bounds
//        in it, and every reader of a boundary link (next_assigned,
//        prev_assigned, neighbours, first_assigned, last_assigned) first
//        scans the words it is in, reading a link only for a run that
//        reaches past them: only a linked run's links are read. (V3) holds
//        for every run.
//
// (V1) and (V2) are section 3's validity conditions: they are all that a
// sweep needs. A sweep visits i+1 if it is assigned and otherwise jumps to
// link(i+1).next, which by (V1) is the next assigned chunk.
//
// Cost
// ----
//   create          O(1): pop, at most two boundary writes; a new bin is
//                   O(1) too (lazy initialisation), amortised over capacity
//   destroy         O(1): directory lookup (three loads), push, at most four
//                   link writes; pred and succ from the neighbours' links,
//                   or, in layout::compact, from bit scans of at most two
//                   bitmap words, the links read only past them, and the
//                   neighbours' links written only for runs that leave the
//                   word (V7)
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

#include "../config.hpp"
#include "bin_locks/bin_lock.hpp"

namespace travpool::detail {

inline constexpr std::uint32_t free_bit = 0x8000'0000u;
inline constexpr std::uint32_t max_bin_capacity = 0x7fff'0000u;

// Index helpers; see the layout in the design note.
inline constexpr std::uint32_t first_user_chunk = 2;
// pred(c) and succ(c) of an assigned chunk c (the notation of the
// invariants below), as a release reads them.
struct neighbour_pair {
  std::uint32_t prev;
  std::uint32_t next;
};
// Bytes reserved for bin_base at the start of every bin; per-layout
// metadata follows at this offset.
inline constexpr std::size_t bin_header_bytes = 128;

struct bin_base {
  // Hot: read and written by every create and destroy of this bin.
  std::byte* chunks_ = nullptr;  // chunk 0 (A0)
  std::uint32_t capacity_ = 0;   // user chunks; 0 marks a pool's list root
  std::uint32_t live_ = 0;       // assigned user chunks (bin_locks: store_relaxed)
  std::uint32_t free_head_ = 0;  // top of the free list; capacity_+2 if full
  std::uint32_t fresh_ = 0;      // lowest never-assigned user chunk (likewise)
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
  // checks::on and checks::hardened: odd while a create or destroy is
  // changing this bin's chunks (a seqlock-style count that may wrap,
  // begin_counted_change), so that sweeps, and creates and destroys of
  // pools without bin_locks, can detect a race without a lock. On the hot
  // line, which every create and destroy touches anyway.
  std::atomic<std::uint16_t> mods_{0};
  // --- 64 B: the rest is cold, and fills what would otherwise be padding
  // of the 128-byte header, so no policy makes a bin larger.
  bin_base* avail_prev_ = nullptr;
  std::uint64_t owner_ = 0;  // id of the owning pool
  // stats::counters only, updated under the bin's lock or in its owner's
  // biased section (no shared atomics); summed by basic_pool::stats().
  struct counters {
    counters& operator+=(const counters& o) noexcept {
      creates += o.creates, destroys += o.destroys, remote_destroys += o.remote_destroys;
      failed_try_locks += o.failed_try_locks, bins_scanned += o.bins_scanned, peak_live += o.peak_live;
      return *this;
    }
    std::uint64_t creates = 0;
    std::uint64_t destroys = 0;
    std::uint64_t remote_destroys = 0;   // by a thread other than claim_
    std::uint32_t failed_try_locks = 0;  // by the creates that ended here
    std::uint32_t bins_scanned = 0;      // likewise
    std::uint32_t peak_live = 0;
  } counters_;
  // sync::bin_locks: the thread (detail::thread_number) that allocates in
  // this bin (0: unclaimed). Written under the lock; read without it by the
  // claimant and by other threads' scans, which skip claimed bins. Also
  // what stats::counters compares destroys against.
  std::atomic<std::uint32_t> claim_{0};
  // sync::bin_locks: the thread that claimed this bin last (0: none yet),
  // kept when the claim is released. A thread that refills prefers the
  // bins it claimed last (concurrent_bins::fullest_with_room), so that
  // each thread's elements stay in bins of its own. Written under the
  // lock, read unlocked by scans: a hint only.
  std::atomic<std::uint32_t> last_claim_{0};

  bool is_root() const noexcept { return capacity_ == 0; }
  std::uint32_t full_mark() const noexcept { return capacity_ + 2; }  // F1
  std::uint32_t last() const noexcept { return capacity_ + 3; }       // A1
  bool full() const noexcept { return free_head_ == full_mark(); }

  // Returns: the first bin from this one on (next_nonempty) or back
  // (prev_nonempty) that holds a live element, or the first root or `stop`
  // met on the way (the iterators' step to the next or previous bin).
  bin_base* next_nonempty(const bin_base* stop = nullptr) noexcept {
    bin_base* b = this;
    while (b != stop && !b->is_root() && b->live_ == 0) b = b->next_;
    return b;
  }
  bin_base* prev_nonempty() noexcept {
    bin_base* b = this;
    while (!b->is_root() && b->live_ == 0) b = b->prev_;
    return b;
  }
};
static_assert(sizeof(bin_base) <= bin_header_bytes);

// Relaxed atomic access to a plain field or word that one thread at a time
// writes (under the bin's lock or in its biased section) while other
// threads may read it without the lock: live_, fresh_, the layouts' status
// words, stats::counters (concurrent size(), contains() and stats(), which
// must not take the bins' locks and so revoke their owners' bias). On x86
// and AArch64 these are the plain loads and stores; they tell the compiler
// and ThreadSanitizer that the race is intended.
// Where the standard library lacks std::atomic_ref (libc++ before 19), the
// GCC/Clang builtins that it is made of.
// Tracked pools (checks::on, checks::hardened): b.mods_ is odd while b's
// chunks change. The changing thread reads the count m once, stores m + 1
// when the change begins and m + 2 when it ends (relaxed: it is the only
// writer, as it holds b's lock or is the pool's only modifying thread, or
// else a race is what the count is there to expose).
// Returns: m, the count before the change.
inline std::uint16_t begin_counted_change(bin_base& b) noexcept {
  const std::uint16_t m = b.mods_.load(std::memory_order_relaxed);
  b.mods_.store(static_cast<std::uint16_t>(m + 1), std::memory_order_relaxed);
  return m;
}
inline void end_counted_change(bin_base& b, std::uint16_t m) noexcept {
  b.mods_.store(static_cast<std::uint16_t>(m + 2), std::memory_order_relaxed);
}
// Returns: whether a change of b's chunks is under way in some thread.
inline bool changing(const bin_base& b) noexcept { return (b.mods_.load(std::memory_order_relaxed) & 1) != 0; }

template <class T>
inline T load_relaxed(const T& x) noexcept {
#if defined(__cpp_lib_atomic_ref)
  return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_relaxed);
#else
  return __atomic_load_n(&x, __ATOMIC_RELAXED);
#endif
}
template <class T>
inline void store_relaxed(T& x, T v) noexcept {
#if defined(__cpp_lib_atomic_ref)
  std::atomic_ref<T>(x).store(v, std::memory_order_relaxed);
#else
  __atomic_store_n(&x, v, __ATOMIC_RELAXED);
#endif
}
// Writes v to x: with BinLocked (sync::bin_locks) as a relaxed atomic
// store, for the words that other threads load without the bin's lock
// (live_, fresh_, status words); otherwise a plain store, which costs less
// (no read-modify-write to memory is split, no memset is unrolled).
template <bool BinLocked, class T>
inline void publish(T& x, T v) noexcept {
  if constexpr (BinLocked)
    store_relaxed(x, v);
  else
    x = v;
}

inline std::uint32_t load_u32(const std::byte* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_u32(std::byte* p, std::uint32_t v) noexcept { std::memcpy(p, &v, sizeof v); }

constexpr std::size_t round_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }

}  // namespace travpool::detail
