// travpool/detail/allocator_spans.hpp: bin spans taken from a user's
// allocator instead of the operating system: the span source of
// bin_storage for containers whose memory must come from their Allocator
// (allocator-aware containers, such as a hive).
//
// DESIGN NOTE
// ===========
// The bin directory maps each 64 KiB granule of the address space to at
// most one bin, and that is what makes a pointer's bin an O(1) lookup. So
// a bin must own whole granules: its span is granule-aligned and a whole
// number of granules (bin_storage's spans are powers of two >= granule).
// An allocator is asked for span / granule objects of `granule_block`, a
// type aligned to the granule, so that allocators which honour
// over-alignment (std::allocator through aligned operator new,
// std::pmr::polymorphic_allocator through the resource's alignment
// argument) return exactly the span and nothing is wasted. An allocator
// may silently ignore an extended alignment ([allocator.requirements]);
// when the memory it returns is misaligned, the source gives it back, asks
// for one granule more, uses the granule-aligned span inside it, and
// remembers where that allocation started:
//
//   aligned(p)            span = the allocation itself       (the usual case)
//   misaligned(p)         span = [align_up(p), + span) inside p's span + granule
//                         moved_[span] = p   (moved_: a std::map with
//                         std::allocator, bookkeeping of this rare case)
//
// Invariants: every span handed out and not given back is granule-aligned,
// `span` bytes, and came from alloc_ (rebound; directly, or as moved_'s entry
// says); moved_ holds exactly the handed-out spans whose allocation
// starts elsewhere.
// Memory from an allocator is not cached: it goes back to the allocator
// when the bin is given back. A fresh span of more than one granule has
// its first 2 MiB faulted in at once, by one system call
// (huge_page_choice::first_touch::populate), unless it is advised huge
// (below): the container writes them next, and
// one call costs less than a fault per page (2 M insertions of 24 B into a
// hive, 4 KiB pages: 21-24 ms against 27-37 ms faulted as written).
// std::allocator's memory is populated under every page policy; a user's
// allocator's memory is not under `never`, which leaves the user's arena
// (a file-backed or shared one, say) to be written as elements arrive.
// A span of one granule (a hive's first registered block, or a block of
// small limits beyond its small blocks) is faulted as written instead, and
// so are small bins (take_small: allocations below 32 KiB, aligned to
// max_align_t only, outside the directory; bin_storage.hpp): a default
// hive's first blocks are small ones of 1 to 32 KiB (20,000 hives of 10
// ints: 1.0 KiB resident each; bench/standalone/small_hive_rss.cpp).
// What is populated ahead of need: a hive's blocks grow with it, so at
// most its newest block, once blocks span more than one granule; a concurrent_hive's
// blocks have the limits' max capacity (up to 2 MiB), one per inserting
// thread; reserve(n) populates what it reserves (past one granule).
// Huge pages, for std::allocator only (its memory is operator new's, not
// a resource the user manages): a span of whole huge pages is asked for
// as huge_block objects, so it is huge-page aligned. If none of its first
// 2 MiB is resident (fresh memory: untouched_range), it follows the page
// policy as span_source's fresh spans do (huge_pages.hpp): advised
// MADV_HUGEPAGE and its first touch timed when the policy says huge pages
// pay, advised MADV_NOHUGEPAGE (and populated) otherwise; memory operator
// new used before is only populated, and gives
// no sample. The advice stays with that memory after the span goes back
// to operator new. At most 8 Ki spans are advised per process.
//
//   huge_span(span)  <=>  Allocator is std::allocator, the kernel takes the
//                         advice, and span % huge_page_bytes == 0
//   huge_span(span)  =>   the span came from std::allocator<huge_block>
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "bin_directory.hpp"
#include "huge_pages.hpp"

namespace travpool::detail {

struct alignas(bin_directory::granule) granule_block {
  std::byte bytes[bin_directory::granule];
};
#if TRAVPOOL_LINUX_KERNEL
struct alignas(huge_page_bytes) huge_block {
  std::byte bytes[huge_page_bytes];
};

// Returns: whether one more allocator span may be advised, process-wide
// (every allocator_spans type counts here). Each advice can split
// operator new's mapping in three, so at most max_advised spans are:
// 16 GiB of 2 MiB blocks, at most 16 Ki more mappings, a quarter of
// vm.max_map_count's default (65530). The load keeps the count from
// wrapping once the budget is spent.
inline bool allocator_span_advice_budget() noexcept {
  constexpr std::uint32_t max_advised = 8192;
  static std::atomic<std::uint32_t> advised{0};
  return advised.load(std::memory_order_relaxed) < max_advised &&
         advised.fetch_add(1, std::memory_order_relaxed) < max_advised;
}
#endif

// SmallBins: the source also hands out small bins' allocations
// (take_small; bin_storage makes small bins over it: a hive's blocks).
template <class Allocator, bool SmallBins = false>
class allocator_spans {
  using alloc_traits = typename std::allocator_traits<Allocator>::template rebind_traits<granule_block>;
  using block_alloc = typename alloc_traits::allocator_type;
  using pointer = typename alloc_traits::pointer;
  // The unit of a small bin's allocation: aligned as operator new aligns
  // without an alignment argument (no extended alignment asked for).
  struct alignas(std::max_align_t) small_unit {
    std::byte bytes[alignof(std::max_align_t)];
  };
  using small_traits = typename std::allocator_traits<Allocator>::template rebind_traits<small_unit>;
  using small_alloc = typename small_traits::allocator_type;

 public:
  // The span and what its taker should do with it after releasing its
  // lock: nothing (the same shape as span_source::taken).
  struct taken {
    void* span;
    huge_page_choice::first_touch touch;
  };

  explicit allocator_spans(const Allocator& a = Allocator()) noexcept : alloc_(a) {}
  allocator_spans(const allocator_spans&) = delete;
  allocator_spans& operator=(const allocator_spans&) = delete;

  // Returns: the allocator (the container's, which constructs and
  // destroys its elements with it).
  const Allocator& allocator() const noexcept { return alloc_; }
  Allocator& allocator() noexcept { return alloc_; }
  // Effects: replaces the allocator. Requires: no span of the old one is
  // outstanding, or the two compare equal.
  void set_allocator(const Allocator& a) noexcept { alloc_ = a; }

  // Effects: this source gives back o's spans from now on (a storage took
  // o's bins: bin_storage::steal, splice), or o's span s only (move_bin).
  // Requires: o's allocator equals this one's. Never allocates: the map
  // nodes move (both maps use std::allocator).
  void adopt(allocator_spans& o) noexcept { moved_.merge(o.moved_); }
  void adopt(allocator_spans& o, void* s, std::size_t) noexcept {
    if (o.moved_.empty()) return;
    if (auto node = o.moved_.extract(s)) moved_.insert(std::move(node));
  }

  // Returns: a granule-aligned span of `span` bytes (a multiple of the
  // granule) from the allocator; its bytes are unspecified.
  // Throws: what the allocator throws (std::bad_alloc, usually); then
  // nothing is held.
  taken take_deferred(std::size_t span) {
    if (huge_span(span)) return take_huge(span);
    const std::size_t n = span / bin_directory::granule;
    block_alloc a(alloc_);
    pointer p = alloc_traits::allocate(a, n);
    void* const raw = std::to_address(p);
    const auto touch = span > bin_directory::granule ? huge_page_choice::touch_for_allocator_memory(users_memory)
                                                     : huge_page_choice::first_touch{};
    if (aligned(raw)) return {raw, touch};
    alloc_traits::deallocate(a, p, n);
    return {take_moved(span), touch};
  }

  // Requires: s from take(span) of an allocator equal to this one's, not
  // given back yet. Effects: returns its memory to the allocator.
  void give_back(void* s, std::size_t span) noexcept {
    if (huge_span(span)) return give_back_huge(s, span);
    const std::size_t n = span / bin_directory::granule;
    block_alloc a(alloc_);
    if (!moved_.empty()) {
      if (const auto it = moved_.find(s); it != moved_.end()) {
        alloc_traits::deallocate(a, it->second, n + 1);
        moved_.erase(it);
        return;
      }
    }
    alloc_traits::deallocate(a, pointer_to(s), n);
  }

  // Effects: give_back (an allocator keeps no span for reuse here).
  void discard(void* s, std::size_t span) noexcept { give_back(s, span); }

  // Small bins (bin_storage): allocations of fewer bytes than a granule,
  // aligned to small_align, outside the bin directory.
  static constexpr bool small_bins = SmallBins;
  static constexpr std::size_t small_align = alignof(small_unit);
  // Requires: bytes is a multiple of small_align. Returns: `bytes` bytes
  // from the allocator, aligned to small_align, or nullptr if what the
  // allocator returned is not so aligned (it is given back; the caller
  // takes a granule-aligned span instead). Its first touch is the caller's
  // (nothing is populated). Throws: what the allocator throws.
  void* take_small(std::size_t bytes) {
    small_alloc a(alloc_);
    const std::size_t n = bytes / sizeof(small_unit);
    typename small_traits::pointer p = small_traits::allocate(a, n);
    void* const raw = std::to_address(p);
    if (reinterpret_cast<std::uintptr_t>(raw) % small_align == 0) return raw;
    small_traits::deallocate(a, p, n);
    return nullptr;
  }
  // Requires: s from take_small(bytes) of an allocator equal to this
  // one's, not given back yet. Effects: returns it to the allocator.
  void give_back_small(void* s, std::size_t bytes) noexcept {
    small_alloc a(alloc_);
    small_traits::deallocate(
        a, std::pointer_traits<typename small_traits::pointer>::pointer_to(*static_cast<small_unit*>(s)),
        bytes / sizeof(small_unit));
  }

  // Effects: returns the pages of [p, p + n), part of a span still held,
  // to the OS if the memory is operator new's (std::allocator) and the
  // kernel is Linux (MADV_DONTNEED leaves the mapping as it is; elsewhere
  // advise_dontneed remaps or decommits, which is not for memory a heap
  // manages). Memory of any other allocator is the user's and is left as
  // it is.
  static void drop_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) noexcept {
#if TRAVPOOL_LINUX_KERNEL
    if constexpr (!users_memory) advise_dontneed(p, n);
#endif
  }

  // Nothing is held ahead of need.
  void release() noexcept {}

 private:
  // Whether the memory is a user's allocator's, not operator new's.
  static constexpr bool users_memory = !std::is_same_v<Allocator, std::allocator<typename Allocator::value_type>>;
  // Whether a span of `span` bytes is taken as huge_blocks (design note).
  static bool huge_span([[maybe_unused]] std::size_t span) noexcept {
#if TRAVPOOL_LINUX_KERNEL
    if constexpr (!users_memory) return span % huge_page_bytes == 0 && huge_page_advice_works();
#endif
    return false;
  }
#if TRAVPOOL_LINUX_KERNEL
  // Out of line: once per 2 MiB at most.
  TRAVPOOL_NOINLINE static taken take_huge(std::size_t span) {
    void* const s = std::allocator<huge_block>().allocate(span / huge_page_bytes);
    // Memory operator new used before has (some of) its pages, of whatever
    // size: advice would change little, and its first touch is no fault to
    // time. It is only populated.
    if (!untouched_range(s, huge_page_bytes) || !allocator_span_advice_budget())
      return {s, huge_page_choice::touch_for_allocator_memory(false)};
    const huge_page_choice::span_advice advice = huge_page_choice::for_fresh_span();
    advise_huge_pages(s, span, advice.huge);
    return {s, huge_page_choice::touch_for_allocator_memory(false, advice)};
  }
  static void give_back_huge(void* s, std::size_t span) noexcept {
    std::allocator<huge_block>().deallocate(static_cast<huge_block*>(s), span / huge_page_bytes);
  }
#else
  static taken take_huge(std::size_t) { return {}; }
  static void give_back_huge(void*, std::size_t) noexcept {}
#endif
  static bool aligned(const void* p) noexcept {
    return reinterpret_cast<std::uintptr_t>(p) % bin_directory::granule == 0;
  }
  static pointer pointer_to(void* s) noexcept {
    return std::pointer_traits<pointer>::pointer_to(*static_cast<granule_block*>(s));
  }

  // Out of line: allocators that ignore over-alignment only.
  TRAVPOOL_NOINLINE void* take_moved(std::size_t span) {
    const std::size_t n = span / bin_directory::granule + 1;
    block_alloc a(alloc_);
    pointer p = alloc_traits::allocate(a, n);
    const auto at = reinterpret_cast<std::uintptr_t>(std::to_address(p));
    void* const s =
        reinterpret_cast<void*>((at + bin_directory::granule - 1) / bin_directory::granule * bin_directory::granule);
    try {
      moved_.emplace(s, p);
    } catch (...) {
      alloc_traits::deallocate(a, p, n);
      throw;
    }
    return s;
  }

  [[no_unique_address]] Allocator alloc_;
  // span -> the allocation it lies in. Bookkeeping of the rare allocators
  // that ignore extended alignment, kept with std::allocator so that
  // adopt() can move entries between sources whose allocators propagated
  // without allocating (and so without failing).
  std::map<void*, pointer, std::less<>> moved_;
};

}  // namespace travpool::detail
