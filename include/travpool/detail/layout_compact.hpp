// travpool/detail/layout_compact.hpp: layout::compact, the paper's
// algorithm with the status word moved out of the chunk.
//
//   struct bin {
//     bin_base header;                     // 128 B
//     u64      assigned[(capacity+4+63)/64]; // bit i: chunk i is assigned
//     chunk    c[capacity + 4];            // at chunks_, aligned to >= 64
//   };
//   union chunk {                          // stride = max(sizeof(T), 3 L),
//     T payload;                           //   rounded up to alignof(T), L
//     struct { Link free_next, next, prev; } link;  // when free
//   };
//
// Link (L = sizeof(Link)) is u32 for pools; the column pool's payload-less
// slot bins use u16 (6-byte chunks), which needs every chunk index to fit:
//   capacity + 4 <= 2^(8 L)                (max_capacity)
//
// A 24-byte T takes exactly 24 B plus one bit, and chunks are an array of
// T, so a block of 64 chunks is a T* and a mask (segments()). Sweeps read the
// bitmap 64 chunks at a time: a word of all ones is a run of 64 elements
// walked straight through; other words are walked bit by bit, and free runs
// are jumped with the boundary links (or skipped a word at a time).
//
// Sweep prefetch: keeping the memory stream
// -----------------------------------------
// A sweep that skips free runs reads memory in pieces. When the pieces are
// short (free runs of 8 to 256 chunks), the hardware prefetchers lose the
// stream at every hole and each piece starts with misses: on a 2-core EPYC
// KVM guest, 50 % erased in runs of 8 swept at 5x a dense std::vector per
// live element, slower than a vector that reads every slot. Prefetching
// only the live lines did not help (5.1x to 4.1x); prefetching whole
// blocks of 64 chunks, holes included, did (to 1.8x): what the sweep loses
// is the sequential stream, not the latency of the lines it reads. So the
// sweep, on entering block k, applies this rule to block j = k + ahead
// (ahead * 64 * stride >= 6 KiB), reading only the bitmap:
//   full block:    prefetch it unless the `trusted_full` blocks before it
//                  have no free run of `stream_break` chunks either (the
//                  hardware stream is established: a shorter hole does not
//                  break it, so a few scattered holes, as a churn leaves,
//                  prefetch nothing);
//   partial block: prefetch it if it follows an empty block, or if its
//                  holes are clustered: z free chunks in r free runs with
//                  z >= `stream_break` (two cache lines' worth) and
//                  z >= `clustered_run` * r. Random holes (z / r near 2 at
//                  50 % erased, near 1 at 10 %) leave almost every line
//                  partly live, keep the hardware stream, and are left to
//                  it: prefetching them anyway cost 12 % (random 50 %:
//                  1.8x to 2.1x dense), and prefetching only the blocks
//                  that happen to hold one long run cost 25 %;
//   empty block:   at the start of a free run of at most `short_gap` empty
//                  blocks, prefetch them all (the stream is kept through the
//                  hole, as a vector sweep would read it); a longer hole is
//                  jumped, and costs one restart. Jumping the short holes
//                  and prefetching the live blocks past them instead was
//                  slower (runs of 64: 2.6x to 3.9x dense): a restart costs
//                  about 0.6 us here, the time to read 16 live blocks.
// Bound: reading through the holes of a 50 %-erased pool reads as many
// bytes as a dense sweep of twice the live elements, so where a dense sweep
// is bound by bandwidth, shapes whose holes are read (runs of 16 to 512
// chunks) stay above 2x dense per live element (EPYC guest: 2.25-2.83x);
// longer holes are jumped and approach 1x. On a 2-core Xeon KVM guest,
// whose dense sweep takes four times as long per element, those shapes
// took 1.22-1.49x (docs/sweeps.md, medians of 3 rounds).
// The rule runs on every block in for_each, and on every block a cursor or
// segment iterator enters (after a jump, on the blocks it skipped within
// reach). It reads bitmap words only, so it never changes what is visited.
// Stride: the rule runs only for chunks of less than 32 B (sweep_prefetch).
// Reading the holes doubles the bytes a half-erased sweep reads. With more
// than two elements per cache line the sweep is bound by latency and the
// lost stream, and the rule pays (above). With larger chunks the sweep
// does less work per byte and is bound by bandwidth, and the rule loses:
// on a 2-core Xeon KVM guest, 2 M elements (128 B: 1 M), 50 % erased in
// runs of 8 to 256 chunks, range-for took, with the rule and without it,
// 0.72-1.08x and 0.76-0.84x plf::colony's time at 32 B, 0.81-1.22x and
// 0.79-0.93x at 48 B, 1.06-1.28x and 0.79-0.96x at 64 B, 1.21-1.50x and
// 0.84-1.00x at 128 B (bench/standalone/sweep_stride.cpp, default page
// policy, two runs of each build, alternating; with the policy fixed, one
// run each: the rule lost at 64 B and 128 B under both always and never,
// at 48 B under never, and without it every size at 32 B and more was
// 0.72-0.87x under always, 0.91-1.03x under never); the hardware
// prefetchers follow those sweeps unaided.
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
#include "platform.hpp"

namespace travpool::detail {

// Layout accessors for chunks holding `Size` bytes aligned to `Align`, whose
// free chunks hold three `Link`s.
template <std::size_t Size, std::size_t Align, class Link = std::uint32_t>
struct compact_layout {
  static_assert(std::is_same_v<Link, std::uint32_t> || std::is_same_v<Link, std::uint16_t>);
  static constexpr std::size_t link_bytes = sizeof(Link);
  static constexpr std::size_t chunk_align = std::max<std::size_t>(Align, link_bytes);
  static constexpr std::size_t stride = round_up(std::max<std::size_t>(Size, 3 * link_bytes), chunk_align);
  // The largest capacity whose chunk indices (up to capacity + 3) fit a Link.
  static constexpr std::uint32_t max_capacity = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(std::uint64_t{1} << (8 * link_bytes), std::uint64_t{1} << 31) - 4);
  // Runs of live chunks are arrays of the payload type when chunks are
  // exactly Size bytes apart.
  static constexpr bool contiguous = stride == Size;

  static constexpr std::size_t words(std::uint32_t cap) noexcept { return (std::size_t{cap} + 4 + 63) / 64; }
  static constexpr std::size_t extra_bytes(std::uint32_t cap) noexcept { return words(cap) * 8; }

  static std::uint64_t* bits(const bin_base& b) noexcept {
    return reinterpret_cast<std::uint64_t*>(reinterpret_cast<std::byte*>(const_cast<bin_base*>(&b)) + bin_header_bytes);
  }
  static std::byte* at(const bin_base& b, std::uint32_t i) noexcept { return b.chunks_ + std::size_t{i} * stride; }
  static void* payload(const bin_base& b, std::uint32_t i) noexcept { return at(b, i); }

  // Effects: marks every chunk free (bins are reinitialised by clear()).
  // BinLocked: word by word with relaxed stores, as is_free_relaxed may
  // read them meanwhile.
  template <bool BinLocked = false>
  static void init_bin(const bin_base& b) noexcept {
    std::uint64_t* w = bits(b);
    if constexpr (BinLocked) {
      for (std::size_t k = 0, n = words(b.capacity_); k < n; ++k) store_relaxed(w[k], std::uint64_t{0});
    } else {
      std::memset(w, 0, extra_bytes(b.capacity_));
    }
  }

  static bool is_free(const bin_base& b, std::uint32_t i) noexcept { return ((bits(b)[i >> 6] >> (i & 63)) & 1) == 0; }
  static std::uint32_t free_next(const bin_base& b, std::uint32_t i) noexcept { return load_link(at(b, i)); }
  // BinLocked (sync::bin_locks): status words are written with relaxed
  // stores (one writer at a time: the bin's lock holder), so that
  // is_free_relaxed may read them unlocked.
  static bool is_free_relaxed(const bin_base& b, std::uint32_t i) noexcept {
    return ((load_relaxed(bits(b)[i >> 6]) >> (i & 63)) & 1) == 0;
  }
  template <bool BinLocked = false>
  static void mark_free(const bin_base& b, std::uint32_t i, std::uint32_t next_free) noexcept {
    std::uint64_t& w = bits(b)[i >> 6];
    publish<BinLocked>(w, w & ~(std::uint64_t{1} << (i & 63)));
    store_link(at(b, i), next_free);
  }
  // mark_free and both links of a user chunk >= fresh, from one address:
  // its bit is clear already, since init_bin clears every bit, a release
  // clears its chunk's, and restart() runs only when every chunk is free.
  static void mark_fresh(const bin_base& b, std::uint32_t i, std::uint32_t next_free, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    std::byte* const p = at(b, i);
    store_link(p, next_free);
    store_link(p + next_offset, next);
    store_link(p + prev_offset, prev);
  }
  // mark_free and both links, the links from one address (stores through
  // a Link may alias the header's chunks_, which would be read again for
  // each).
  template <bool BinLocked = false>
  static void write_free(const bin_base& b, std::uint32_t i, std::uint32_t next_free, std::uint32_t next,
                         std::uint32_t prev) noexcept {
    std::uint64_t& w = bits(b)[i >> 6];
    publish<BinLocked>(w, w & ~(std::uint64_t{1} << (i & 63)));
    mark_fresh(b, i, next_free, next, prev);
  }
  // Forced inline: on create's fast path, which GCC otherwise left calling
  // it once concurrent_bins::take gained a second inlined create.
  template <bool BinLocked = false>
  TRAVPOOL_ALWAYS_INLINE static void mark_assigned(const bin_base& b, std::uint32_t i) noexcept {
    std::uint64_t& w = bits(b)[i >> 6];
    publish<BinLocked>(w, w | std::uint64_t{1} << (i & 63));
  }

  // Byte offsets of the free chunk's boundary links.
  static constexpr std::size_t next_offset = link_bytes, prev_offset = 2 * link_bytes;
  static std::uint32_t link_next(const bin_base& b, std::uint32_t i) noexcept {
    return load_link(at(b, i) + next_offset);
  }
  static std::uint32_t link_prev(const bin_base& b, std::uint32_t i) noexcept {
    return load_link(at(b, i) + prev_offset);
  }
  static void set_link_next(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept {
    store_link(at(b, i) + next_offset, v);
  }
  static void set_link_prev(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept {
    store_link(at(b, i) + prev_offset, v);
  }
  // The tail run [fresh, F1] keeps only the fresh chunk's next link (A1)
  // and F1's prev (while the tail run is linked, (V7)), which
  // bin_algorithms::create_fresh does not write (lazy_tail), so its prev
  // links are read through this (bin.hpp, (V6)):
  //   run_prev(i) = fresh - 1 if it is an assigned user chunk,
  //                 else link(F1).prev          for i >= fresh
  // and link(i).prev otherwise.
  static constexpr bool lazy_tail = true;
  static std::uint32_t run_prev(const bin_base& b, std::uint32_t i) noexcept {
    const std::uint32_t f = b.fresh_;
    if (i < f) return link_prev(b, i);
    return f > first_user_chunk && !is_free(b, f - 1) ? f - 1 : link_prev(b, b.full_mark());
  }
  // (V7), bin.hpp: a free run keeps its boundary links only when its
  // bounding assigned chunks p and n lie in different bitmap words. A run
  // within one word, bounded on both sides inside it, is found by the bit
  // scans of next_assigned, prev_assigned and neighbours, which read a link
  // only when the run reaches past the word they scan; so a release stores
  // to its neighbours' chunks only for runs that cross a word boundary
  // (the near ones, most of a random destroy's, store nothing).
  static constexpr bool run_linked(std::uint32_t p, std::uint32_t n) noexcept { return (p ^ n) > 63; }
  static std::uint32_t load_link(const std::byte* p) noexcept {
    Link v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store_link(std::byte* p, std::uint32_t v) noexcept {
    const auto l = static_cast<Link>(v);
    std::memcpy(p, &l, sizeof l);
  }

  // Returns: the next assigned chunk after assigned chunk i: a bit scan of
  // the rest of i's bitmap word, else the boundary link of the free chunk
  // i + 1, valid by (V1). O(1) either way.
  // The neighbour's bit is tested first: in dense runs that branch is
  // predicted and the next index does not wait for the bitmap load.
  static std::uint32_t next_assigned(const bin_base& b, std::uint32_t i) noexcept {
    const std::uint32_t j = i + 1;
    const std::uint64_t w = bits(b)[j >> 6];
    if ((w >> (j & 63)) & 1) return j;
    const std::uint64_t m = w & (~std::uint64_t{0} << (j & 63));
    if (m != 0) return (j & ~63u) + static_cast<std::uint32_t>(std::countr_zero(m));
    return link_next(b, j);
  }
  // Returns: {pred(c), succ(c)} of assigned user chunk c, for a release:
  // bit scans of c's bitmap word and of the word before or after it, else
  // the boundary link of the free chunk c - 1 or c + 1, valid by (V2) and
  // (V1). A release thus reads a neighbour's chunk only when the free run
  // next to c reaches past the next word, so in random order it stores to
  // chunk lines without loading them, as a free-list push does. (The loads
  // of link(c - 1) and link(c + 1), in lines that random order leaves cold,
  // were most of a random destroy's time: docs/threads.md.) c's word is the
  // one the caller's status test and mark_free read too.
  TRAVPOOL_ALWAYS_INLINE static neighbour_pair neighbours(const bin_base& b, std::uint32_t c) noexcept {
    const std::uint64_t* w = bits(b);
    const std::uint32_t k = c >> 6;
    const std::uint64_t below = w[k] & ((std::uint64_t{1} << (c & 63)) - 1);
    const std::uint64_t above = w[k] & (~std::uint64_t{1} << (c & 63));
    std::uint32_t prev, next;
    // Word 0 holds A0, so `below` can be 0 only for k > 0; the last word
    // holds A1, so `above` can be 0 only below it.
    if (below != 0) {
      prev = (k << 6) + (63 ^ static_cast<std::uint32_t>(std::countl_zero(below)));  // one bsr
    } else {
      const std::uint64_t m = w[k - 1];
      prev = m != 0 ? (k << 6) - 1 - static_cast<std::uint32_t>(std::countl_zero(m)) : link_prev(b, c - 1);
    }
    if (above != 0) {
      next = (k << 6) + static_cast<std::uint32_t>(std::countr_zero(above));
    } else {
      const std::uint64_t m = w[k + 1];
      next = m != 0 ? ((k + 1) << 6) + static_cast<std::uint32_t>(std::countr_zero(m)) : link_next(b, c + 1);
    }
    return {prev, next};
  }
  // Returns: the previous assigned chunk before assigned chunk i, likewise.
  //
  // GCC 12 inlines this into `--pool.end()`, whose bin is the root embedded
  // in the pool object (no bitmap), and warns (-Warray-bounds) about the
  // branch for real bins, which never runs there. The pragma covers this
  // function only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  static std::uint32_t prev_assigned(const bin_base& b, std::uint32_t i) noexcept {
    const std::uint32_t j = i - 1;
    const std::uint64_t w = bits(b)[j >> 6];
    if ((w >> (j & 63)) & 1) return j;
    const std::uint64_t m = w & (~std::uint64_t{0} >> (63 - (j & 63)));
    if (m != 0) return (j & ~63u) + (63 ^ static_cast<std::uint32_t>(std::countl_zero(m)));  // one bsr
    return run_prev(b, j);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  // ---- Sweep prefetch (the rule in the note at the top) --------------------
  // A block is the 64 chunks of one bitmap word: 64 * stride bytes, whole
  // cache lines (stride * 64 is a multiple of 64, and chunks_ is aligned to
  // 64), so block j's lines are at(b, 64 j) + 64 l for l < stride.
  static constexpr std::size_t block_bytes = 64 * stride;
  static constexpr std::size_t prefetch_ahead = std::max<std::size_t>(1, (6144 + block_bytes - 1) / block_bytes);
  static constexpr int stream_break = static_cast<int>((2 * 64 + stride - 1) / stride + 1);
  static constexpr std::size_t trusted_full = 4;
  static constexpr std::size_t short_gap = 8;
  static constexpr int clustered_run = 4;  // the run4 filter in clustered() relies on it
  // Whether sweeps apply the rule at all: for chunks of less than half a
  // cache line only (the note's "Stride").
  static constexpr bool sweep_prefetch = stride < 32;

  // Lines prefetched per block: all of them (stride < 32: under 2 KiB).
  static constexpr std::size_t prefetch_lines = stride;
  // Effects: prefetches block j's first prefetch_lines lines. The last
  // block may reach past the bin: addresses are computed as integers, and
  // a prefetch never faults.
  static void prefetch_block(const bin_base& b, std::size_t j) noexcept {
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(b.chunks_) + j * block_bytes;
    for (std::size_t l = 0; l < prefetch_lines; ++l) prefetch_line(reinterpret_cast<const void*>(p + 64 * l));
  }
  // Returns: the number of set bits of x (a popcnt instruction only where
  // the target has one: std::popcount is otherwise a library call).
  static constexpr int count_bits(std::uint64_t x) noexcept {
#if defined(__POPCNT__) || defined(_MSC_VER)
    return std::popcount(x);
#else
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return static_cast<int>((x * 0x0101010101010101u) >> 56);
#endif
  }
  // Returns: whether the free chunks of a partial bitmap word m are
  // clustered: z free chunks in r free runs, z >= stream_break and
  // z >= clustered_run * r.
  // A clustered word has a free run of 4 (the average run is 4 or more):
  // that test, five instructions, settles words with sparse random holes,
  // whose sweeps are compute-bound, before the two counts.
  static constexpr bool clustered(std::uint64_t m) noexcept {
    const std::uint64_t x = ~m;
    std::uint64_t run4 = x & (x >> 1);
    run4 &= run4 >> 2;
    if (run4 == 0) return false;
    const int z = count_bits(x);
    return z >= stream_break && z >= clustered_run * count_bits(x & ~(x << 1));
  }
  // Returns: whether blocks j - trusted_full .. j - 1 are full (j >= trusted_full).
  static bool full_before(const std::uint64_t* w, std::size_t j) noexcept {
    std::uint64_t all = ~std::uint64_t{0};
    for (std::size_t i = 1; i <= trusted_full; ++i) all &= w[j - i];
    return all == ~std::uint64_t{0};
  }
  // Returns: whether blocks j - trusted_full .. j - 1 (j >= trusted_full)
  // have no free run of stream_break chunks or more within a block: the
  // hardware's stream through them is unbroken. (full_before, its inline
  // shortcut, settles the all-full case.)
  static bool stream_before(const std::uint64_t* w, std::size_t j) noexcept {
    for (std::size_t i = 1; i <= trusted_full; ++i) {
      const std::uint64_t x = ~w[j - i];
      std::uint64_t run = x;
      for (int k = 1; k < stream_break; ++k) run &= x >> k;
      if (run != 0) return false;
    }
    return true;
  }
  // Requires: j >= 1. Effects: the rule for block j of b (nothing if j is
  // past b's bitmap). The cases that prefetch nothing while the sweep walks
  // block after block (an established full stream, random holes) are
  // decided inline; everything else out of line.
  TRAVPOOL_ALWAYS_INLINE static void prefetch_for(const bin_base& b, std::size_t j) noexcept {
    if constexpr (sweep_prefetch) {
      const std::uint64_t* w = bits(b);
      if (j >= words(b.capacity_)) return;
      const std::uint64_t m = w[j];
      if (m == ~std::uint64_t{0}) {
        if (j >= trusted_full && full_before(w, j)) return;
      } else if (m != 0 && w[j - 1] != 0 && !clustered(m)) {
        return;
      }
      prefetch_rule(b, j);
    }
  }
  TRAVPOOL_NOINLINE static void prefetch_rule(const bin_base& b, std::size_t j) noexcept {
    const std::uint64_t* w = bits(b);
    const std::size_t n = words(b.capacity_);
    if (j >= n) return;
    const std::uint64_t m = w[j];
    if (m == ~std::uint64_t{0}) {
      if (j < trusted_full || !stream_before(w, j)) prefetch_block(b, j);
      return;
    }
    if (m != 0) {
      if ((j > 0 && w[j - 1] == 0) || clustered(m)) prefetch_block(b, j);
      return;
    }
    if (j == 0 || w[j - 1] == 0) return;  // inside a free run: decided at its start
    std::size_t e = j + 1;
    while (e < n && e - j <= short_gap && w[e] == 0) ++e;
    if (e - j > short_gap || e == n) return;
    for (std::size_t q = j; q < e; ++q) prefetch_block(b, q);
  }
  // Effects: the rule for blocks [first, last] (a bin entered at block
  // `first`, or the blocks a jump brought within reach), clipped to the bin.
  static void prefetch_range(const bin_base& b, std::size_t first, std::size_t last) noexcept {
    if constexpr (sweep_prefetch) prefetch_range_rule(b, first, last);
  }
  TRAVPOOL_NOINLINE static void prefetch_range_rule(const bin_base& b, std::size_t first, std::size_t last) noexcept {
    last = (std::min)(last, words(b.capacity_) - 1);
    for (std::size_t j = first; j <= last; ++j) prefetch_rule(b, j);
  }
  // Effects: the prefetches due when a sweep enters b at chunk i.
  static void prefetch_enter(const bin_base& b, std::uint32_t i) noexcept {
    prefetch_range(b, i >> 6, (i >> 6) + prefetch_ahead);
  }
  // Effects: the prefetches due when a sweep jumps from block `from` to
  // block `to` (> from): those of the blocks entered, as far as not done.
  static void prefetch_jump(const bin_base& b, std::size_t from, std::size_t to) noexcept {
    prefetch_range(b, (std::max)(from + prefetch_ahead + 1, to), to + prefetch_ahead);
  }

  // The iteration cursor (layout_traits.hpp): the payload of the current
  // chunk c, the address of the first chunk of c's bitmap word, that word,
  // and `bits`, the word's live bits from c up (c the lowest), as they were
  // when the cursor last looked. A step is for_each's inner loop plus one
  // AND: clear the lowest bit, AND in the word again (so elements destroyed
  // meanwhile drop out; created ones may or may not be visited), scan to
  // the new lowest bit. When the word runs out, the next word of the bin is
  // entered inline if it has a live chunk and is not the bin's last (which
  // holds A1); anything else is next_assigned's O(1) jump, out of line.
  // Every step takes and returns the cursor by value, so a loop keeps it in
  // registers.
  struct cursor {
    std::byte* ptr = nullptr;
    std::byte* base = nullptr;
    const std::uint64_t* word = nullptr;
    std::uint64_t bits = 0;
  };

  // Returns: word k of b's bitmap without the pseudo chunks A0 and A1.
  // Relaxed: read with a relaxed load, as other threads may be changing it
  // (sync::bin_locks, without b's lock).
  template <bool Relaxed = false>
  static std::uint64_t live_word(const bin_base& b, std::size_t k) noexcept {
    std::uint64_t w;
    if constexpr (Relaxed)
      w = load_relaxed(bits(b)[k]);
    else
      w = bits(b)[k];
    if (k == 0) w &= ~std::uint64_t{1};
    if (k == (b.last() >> 6)) w &= ~(std::uint64_t{1} << (b.last() & 63));
    return w;
  }
  // Returns: the payload of the lowest chunk in `w` (not 0) of the word at `base`.
  static std::byte* lowest(std::byte* base, std::uint64_t w) noexcept {
#if defined(__GNUC__) && defined(__x86_64__)
    // tzcnt (bsf on CPUs without BMI1; w != 0), straight into a 64-bit
    // register: no zeroing and no sign extension of an int.
    std::uint64_t k;
    asm("rep bsfq %1, %0" : "=r"(k) : "r"(w) : "cc");
#else
    const std::size_t k = static_cast<unsigned>(std::countr_zero(w));
#endif
    std::byte* p = base + k * stride;
    if (p == nullptr) TRAVPOOL_UNREACHABLE();  // lets `it != end()` fold away
    return p;
  }
  // Requires: chunk i of b is assigned. Returns: the cursor at chunk i.
  // Relaxed: its bitmap word read relaxed (live_word), a snapshot of the
  // elements live when it was read.
  template <bool Relaxed = false>
  TRAVPOOL_ALWAYS_INLINE static cursor cursor_at(const bin_base& b, std::uint32_t i) noexcept {
    const std::size_t k = i >> 6;
    const unsigned j = i & 63;
    std::byte* base = at(b, static_cast<std::uint32_t>(k * 64));
    return {base + std::size_t{j} * stride, base, bits(b) + k, live_word<Relaxed>(b, k) & (~std::uint64_t{0} << j)};
  }
  // Returns: whether a and b are at the same element. Only the null cursor
  // (end) has no live bit, and testing that first lets a loop's
  // `it != end()` fold away after a step that found one.
  static bool cursor_equal(const cursor& a, const cursor& b) noexcept {
    return (a.bits == 0) == (b.bits == 0) && a.ptr == b.ptr;
  }
  // cursor_next reads the current word through c.bits & *c.word: from an
  // element destroyed meanwhile it still finds the next live one.
  static constexpr bool steps_from_destroyed = true;
  static bool cursor_at_end(const cursor& c) noexcept { return c.bits == 0; }
  // Returns: whether c is at a live element: its bit, the lowest of
  // c.bits, still set in its bitmap word (c.bits is 0 at end).
  // (c.bits != 0 is the test of cursor_equal: it folds into a loop's
  // `it != end()`.)
  // Relaxed: the word read with a relaxed load (other threads may be
  // changing it: sync::bin_locks).
  template <bool Relaxed = false>
  static bool cursor_live(const cursor& c) noexcept {
    if (c.bits == 0) return false;
    const std::uint64_t w = Relaxed ? load_relaxed(*c.word) : *c.word;
    return (w & c.bits & (0 - c.bits)) != 0;
  }
  static std::uint32_t cursor_index(const bin_base& b, const cursor& c) noexcept {
    return static_cast<std::uint32_t>(static_cast<std::size_t>(c.ptr - b.chunks_) / stride);
  }
  // Effects: moves c to the next assigned chunk of b, or to the null cursor
  // (ptr == nullptr) if c was at b's last element.
  // Returns: true if c moved within b (lets callers skip the null test).
  TRAVPOOL_ALWAYS_INLINE static bool cursor_next(const bin_base& b, cursor& c) noexcept {
    std::uint64_t live = c.bits & *c.word;
#if defined(__GNUC__)
    // Keeps (bits & word) & (bits - 1) as written: two independent operations
    // then one, a shorter loop-carried chain than GCC's reassociation.
    asm("" : "+r"(live));
#endif
    const std::uint64_t rest = live & (c.bits - 1);
    if (rest != 0) [[likely]] {
      c.bits = rest;
      c.ptr = lowest(c.base, rest);
      return true;
    }
    const std::uint64_t* next = c.word + 1;
    if (next < bits(b) + (b.last() >> 6)) {
      if (const std::uint64_t w = *next; w != 0) [[likely]] {
        prefetch_for(b, static_cast<std::size_t>(next - bits(b)) + prefetch_ahead);
        c.base += 64 * stride;
        c.word = next;
        c.bits = w;
        c.ptr = lowest(c.base, w);
        return true;
      }
    }
    c = cursor_next_slow(b, c);
    return c.ptr != nullptr;
  }
  // The rest of cursor_next: next_assigned's jump over a free run.
  TRAVPOOL_NOINLINE static cursor cursor_next_slow(const bin_base& b, cursor c) noexcept {
    const std::uint32_t i = next_assigned(b, cursor_index(b, c));
    if (i == b.last()) return cursor{};
    const auto from = static_cast<std::size_t>(c.word - bits(b));
    if ((i >> 6) > from) prefetch_jump(b, from, i >> 6);
    return cursor_at(b, i);
  }
  // Effects: moves c to the previous assigned chunk of b, or to the null
  // cursor if c was at b's first element. The mirror image of cursor_next:
  // the highest live chunk below c in c's word, else in the word below
  // (inline unless that is word 0, which holds A0), else prev_assigned's
  // jump. The element left behind joins the snapshot, so a following ++
  // finds it again.
  // (GCC may inline this where it sees the pool's root, which has no
  // bitmap, and warn about reads that never run there, as for
  // prev_assigned.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  TRAVPOOL_ALWAYS_INLINE static void cursor_prev(const bin_base& b, cursor& c) noexcept {
    const std::uint64_t current = c.bits & (0 - c.bits);
    const std::uint64_t* first = bits(b);
    if (const std::uint64_t below = *c.word & (current - 1) & (c.word == first ? ~std::uint64_t{1} : ~std::uint64_t{0});
        below != 0) [[likely]] {
      const unsigned j = 63 - static_cast<unsigned>(std::countl_zero(below));
      c.bits = (c.bits & *c.word) | (std::uint64_t{1} << j);
      c.ptr = c.base + std::size_t{j} * stride;
      return;
    }
    if (c.word - first > 1) {
      if (const std::uint64_t w = c.word[-1]; w != 0) [[likely]] {
        const unsigned j = 63 - static_cast<unsigned>(std::countl_zero(w));
        c.base -= 64 * stride;
        c.word -= 1;
        c.bits = std::uint64_t{1} << j;
        c.ptr = c.base + std::size_t{j} * stride;
        return;
      }
    }
    c = cursor_prev_slow(b, c);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  TRAVPOOL_NOINLINE static cursor cursor_prev_slow(const bin_base& b, cursor c) noexcept {
    const std::uint32_t p = prev_assigned(b, cursor_index(b, c));
    return p == 0 ? cursor{} : cursor_at(b, p);
  }

  // Effects: f(T&) for every live chunk of b in address order, 64 chunks per
  // bitmap word; words of all ones run straight through.
  template <class T, class F>
  static void for_each_live(const bin_base& b, F& f) {
    const std::uint64_t* w = bits(b);
    const std::size_t n = words(b.capacity_);
    // The pseudo chunks A0 (bit 0) and A1 are assigned: mask them out.
    const std::uint32_t a1 = b.last();
    std::byte* base = b.chunks_;
    prefetch_range(b, 0, prefetch_ahead - 1);
    for (std::size_t k = 0; k < n; ++k) {
      prefetch_for(b, k + prefetch_ahead);
      std::uint64_t live = w[k];
      if (k == 0) live &= ~std::uint64_t{1};
      if (k == (a1 >> 6)) live &= ~(std::uint64_t{1} << (a1 & 63));
      if (live == 0) continue;
      std::byte* p = base + k * 64 * stride;
      if (live == ~std::uint64_t{0}) {
        for (std::size_t j = 0; j < 64; ++j) f(*std::launder(reinterpret_cast<T*>(p + j * stride)));
        continue;
      }
      do {
        const int j = std::countr_zero(live);
        live &= live - 1;
        f(*std::launder(reinterpret_cast<T*>(p + static_cast<std::size_t>(j) * stride)));
      } while (live != 0);
    }
  }
};

}  // namespace travpool::detail
