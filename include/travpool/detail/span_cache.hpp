// travpool/detail/span_cache.hpp: where bin spans come from. A pool's
// span_source maps naturally aligned spans in batches; the process-wide
// span_cache keeps the spans pools give back for the next pool.
//
// DESIGN NOTE
// ===========
// A bin's span is taken from, in this order: the span cache (a span of the
// same size that a pool gave back), the pool's span_source (the rest of
// its last batch), a new batch from the OS. It goes back to the cache if it
// fits, else on top of its source if it was the last one handed out, else
// to the OS. The cache's mutex is the innermost lock (docs/design.md,
// "Locks and their order").
// Invariants (under the cache's mutex; span_source: per pool):
//   bytes() = sum of the cached spans' sizes <= limit(),  count <= max_spans
//   every cached span is mapped, span-aligned, MADV_FREE'd, in no pool
//                (without can_unmap_part: a mapping of its own)
//   span_source: [next_, end_) is mapped, never handed out, untouched;
//                end_ - next_ <= batch_ * span_,  batch_ <= max_batch
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>

#include "../config.hpp"
#include "huge_pages.hpp"
#include "platform.hpp"

namespace travpool::detail {

struct test_access;

// The process-wide cache of spans that pools gave back: the bins of
// destroyed pools and the bins that shrink_to_fit released. The next bin of
// the same span size, in any pool and any thread, reuses one instead of
// mapping fresh memory, so it takes no page faults and the kernel zeroes
// nothing (fresh anonymous memory costs a fault and a 2 MiB clear per huge
// page, and far more where the host has reclaimed the guest's free pages).
//
// A cached span's pages are MADV_FREE'd: the kernel may take them back
// under memory pressure (they then read as zero) and otherwise leaves them
// as they were, so a reused span's bytes are unspecified and pools
// initialise every word they read. The cache holds at most limit() bytes
// and max_spans spans; what does not fit is unmapped at once.
// Thread-safe: one mutex, taken only when a bin is mapped or released.
class span_cache {
 public:
  static constexpr std::size_t max_spans = 1024;

  // Returns: the process's cache (never destroyed, so pools with static
  // storage duration may use it during exit).
  // Fork-safe: a child forked while another thread held the cache's mutex
  // can still use pools (platform.hpp: fork_safe_instance).
  static span_cache& instance() noexcept {
    return fork_safe_instance<&span_cache::mutex_>([](void* at) { return ::new (at) span_cache(); });
  }

  // Returns: a cached span of `span` bytes (the one cached last), or
  // nullptr if there is none. Complexity: O(cached spans).
  void* take(std::size_t span) noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    for (std::size_t i = count_; i-- > 0;) {
      if (entries_[i].bytes != span) continue;
      void* p = entries_[i].address;
      std::copy(entries_ + i + 1, entries_ + count_, entries_ + i);
      --count_;
      bytes_ -= span;
      return p;
    }
    return nullptr;
  }

  // Effects: keeps the span p of `span` bytes (mapped, aligned to `span`),
  // after MADV_FREE, if it fits under the limit.
  // Returns: whether it was kept; if not, the caller still owns p.
  bool put(void* p, std::size_t span) noexcept {
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (!fits(span)) return false;
    }
    if (!advise_free(p, span)) return false;
    std::lock_guard<std::mutex> g(mutex_);  // the limit may have moved meanwhile
    if (!fits(span)) return false;
    entries_[count_++] = {p, span};
    bytes_ += span;
    return true;
  }

  // Effects: unmaps cached spans, oldest first, until at most `keep` bytes
  // are cached. Returns: the bytes unmapped.
  std::size_t trim(std::size_t keep = 0) noexcept {
    entry out[max_spans];
    std::size_t n = 0, freed = 0;
    {
      std::lock_guard<std::mutex> g(mutex_);
      while (n < count_ && bytes_ - freed > keep) freed += (out[n] = entries_[n]).bytes, ++n;
      std::copy(entries_ + n, entries_ + count_, entries_);
      count_ -= n;
      bytes_ -= freed;
    }
    for (std::size_t i = 0; i < n; ++i) unmap(out[i].address, out[i].bytes);
    return freed;
  }

  // Effects: sets the limit and trims the cache to it.
  // Returns: the previous limit.
  std::size_t set_limit(std::size_t bytes) noexcept {
    std::size_t old;
    {
      std::lock_guard<std::mutex> g(mutex_);
      old = limit_;
      limit_ = bytes;
    }
    trim(bytes);
    return old;
  }

  std::size_t limit() const noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    return limit_;
  }
  std::size_t bytes() const noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    return bytes_;
  }

 private:
  friend struct test_access;
  span_cache() = default;

  // Requires: mutex_. Returns: whether one more span of `span` bytes fits.
  bool fits(std::size_t span) const noexcept { return count_ < max_spans && span <= limit_ && bytes_ + span <= limit_; }

  struct entry {
    void* address;
    std::size_t bytes;
  };
  mutable std::mutex mutex_;
  std::size_t limit_ = TRAVPOOL_SPAN_CACHE_BYTES;
  std::size_t bytes_ = 0;
  std::size_t count_ = 0;
  entry entries_[max_spans] = {};
};

// Initialised before main() (dynamic initialisation of a namespace-scope
// variable), so that no fork() can catch another thread inside
// span_cache::instance()'s first call, whose guard would stay held in the
// child forever.
inline span_cache& span_cache_at_start = span_cache::instance();

// A pool's supply of bin spans. It maps them a batch at a time, the batch
// doubling with every mapping up to max_batch spans (so what is mapped but
// unused stays below the bins in use, as in a vector's growth), and hands
// them out in address order, after the spans in the process's span_cache.
// Adding a bin is then rarely a system call:
// every mmap, munmap and madvise takes the process's address-space lock
// for writing, which stalls the page faults of every other thread that
// fills a bin. Unused spans are address space only: no page is touched.
// A span taken from here is returned with give_back or unmap.
// Where a mapping can only be released whole (Windows: VirtualFree's
// MEM_RELEASE takes a reservation's base; can_unmap_part in platform.hpp),
// every batch is one span, its own mapping, so that each span can go back
// to the OS, the span cache or this source on its own. The alternative,
// batches whose spans are decommitted instead of released, would keep
// every batch's address space until its last span went, and need a count
// per batch. The cost: a system call or three (platform.hpp: map_aligned)
// per bin instead of per batch.
// Spans of 2 MiB multiples are advised huge or small as huge_page_choice
// decides when they are handed out (a batch is advised as a whole, and
// again from the span handed out on when the choice changes); under the
// automatic policy the first touch of a fresh huge span is timed, and a
// fresh small one is populated, by the caller (first_touch) or here.
class span_source {
 public:
  static constexpr std::size_t max_batch = can_unmap_part ? 64 : 1;
  static constexpr std::size_t max_batch_bytes = std::size_t{256} << 20;

  span_source() = default;
  span_source(const span_source&) = delete;
  span_source& operator=(const span_source&) = delete;
  ~span_source() { release(); }

  // Returns: a span of `span` bytes aligned to `span`. Its bytes are zero
  // if it is freshly mapped and unspecified if it comes from span_cache.
  // Throws: std::bad_alloc when the kernel refuses.
  void* take(std::size_t span) {
    const taken t = take_deferred(span);
    huge_page_choice::first_touch touch = t.touch;
    touch.run(t.span, span);
    return t.span;
  }

  // A span and what its taker should do with it after releasing its lock.
  struct taken {
    void* span;
    huge_page_choice::first_touch touch;
  };
  // Returns: as take, but leaves the first touch of a fresh span (timing
  // or populating it: first_touch::run) to the caller.
  // Throws: std::bad_alloc when the kernel refuses.
  taken take_deferred(std::size_t span) {
    if (void* cached = span_cache::instance().take(span)) return {cached, {}};
    if (span != span_) {  // a pool moved into another keeps its old reservation
      release();
      batch_ = 0;
      span_ = span;
    }
    if (next_ == end_) {
      // Double the last batch, up to max_batch spans and max_batch_bytes, but
      // always at least one span.
      std::size_t batch = (std::min)(batch_ == 0 ? 1 : batch_ * 2, max_batch);
      batch = std::max<std::size_t>(1, (std::min)(batch, max_batch_bytes / span));
      try {
        next_ = static_cast<std::byte*>(map_aligned(span * batch, span));
      } catch (const std::bad_alloc&) {
        if (batch == 1) throw;
        batch = 1;  // the address space or the kernel refuses a batch: one span may still fit
        next_ = static_cast<std::byte*>(map_aligned(span, span));
      }
      end_ = next_ + span * batch;
      batch_ = batch;
      if (span % huge_page_bytes == 0) advise_huge_pages(next_, span * batch, huge_ = huge_page_choice::want_huge());
    }
    void* p = next_;
    next_ += span;
    if (span % huge_page_bytes == 0) return {p, advise_fresh(p, span)};
    return {p, {}};
  }

  // Effects: returns a span from take(): to the span_cache if it fits
  // there; else to the operating system. The span taken last then goes
  // back on top of this source (its pages dropped with MADV_DONTNEED, so it
  // is zeroed again, and re-advised as the rest of [next_, end_), which a
  // resample may have changed), and the next take hands it out again; any
  // other span is unmapped.
  void give_back(void* p, std::size_t span) noexcept {
    if (span_cache::instance().put(p, span)) return;
    auto* b = static_cast<std::byte*>(p);
    // Where a mapping is released whole (can_unmap_part false: every batch
    // is one span), only a span that is its source's whole batch goes back
    // on top: a second, adjacent one would be another reservation, which
    // release() could not free with the first.
    if (span == span_ && b + span == next_ && (can_unmap_part || next_ == end_) && advise_dontneed(p, span)) {
      if (span % huge_page_bytes == 0) advise_huge_pages(p, span, huge_);
      next_ = b;
    } else {
      unmap(p, span);
    }
  }

  // Effects: none: a span from any source may go back to any other (a
  // storage took o's bins: bin_storage::steal, splice).
  void adopt(span_source&) noexcept {}
  void adopt(span_source&, void*, std::size_t) noexcept {}

  // Effects: unmaps p, a span from take() that must not be reused.
  void discard(void* p, std::size_t span) noexcept { unmap(p, span); }

  // Effects: returns the pages of [p, p + n), part of a span still held,
  // to the OS (a retired bin's chunks: concurrent_list.hpp); they read as
  // zero when touched again.
  static void drop_pages(void* p, std::size_t n) noexcept { advise_dontneed(p, n); }

  // Effects: advises the fresh span p (just handed out) as the page policy
  // says. Returns: what to do with it next. Out of line: see
  // first_touch::act.
  TRAVPOOL_NOINLINE huge_page_choice::first_touch advise_fresh(void* p, std::size_t span) noexcept {
    const huge_page_choice::span_advice a = huge_page_choice::for_fresh_span();
    if (a.sample && a.huge != huge_) {
      advise_huge_pages(p, span, a.huge);  // a resample: this span only
    } else if (a.huge != huge_) {
      advise_huge_pages(p, static_cast<std::size_t>(end_ - static_cast<std::byte*>(p)), huge_ = a.huge);
    }
    return huge_page_choice::touch_for(a);
  }

  // Effects: unmaps the spans not handed out; the next take maps afresh.
  void release() noexcept {
    if (next_ != end_) unmap(next_, static_cast<std::size_t>(end_ - next_));
    next_ = end_ = nullptr;
  }

 private:
  std::byte* next_ = nullptr;
  std::byte* end_ = nullptr;
  std::size_t batch_ = 0;
  std::size_t span_ = 0;
  bool huge_ = false;  // the advice given to [next_, end_)
};

// The span source of pool<T>'s growing bins (sync::none,
// sync::global_mutex; bin_storage.hpp, "Growth"): span_source's spans, and
// small bins from operator new (allocations below 32 KiB, aligned as
// operator new aligns without an alignment argument, outside the bin
// directory) while the pool's bins are still growing. A pool of 10 ints
// then takes one allocation of 1 KiB instead of a 2 MiB span.
class small_span_source : public span_source {
 public:
  static constexpr bool small_bins = true;
  // Small bins only for bins below the pool's bin capacity (the growing
  // first bins); a pool given a bin capacity keeps registered spans.
  static constexpr bool small_bins_while_growing = true;
  static constexpr std::size_t small_align = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  // Returns: `bytes` bytes from operator new (never nullptr; their first
  // touch is the caller's). Throws: std::bad_alloc.
  static void* take_small(std::size_t bytes) { return ::operator new(bytes); }
  // Requires: s from take_small(bytes). Effects: gives it back.
  static void give_back_small(void* s, std::size_t) noexcept { ::operator delete(s); }
};

}  // namespace travpool::detail
