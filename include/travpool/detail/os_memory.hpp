// travpool/detail/os_memory.hpp: bins come from the operating system, one
// naturally aligned span at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>

#include <sys/mman.h>

namespace travpool::detail {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Effects: maps `bytes` of zeroed memory aligned to `align`, asking for huge
// pages when `align` is a multiple of huge_page_bytes.
// Requires: align is a power of two and a multiple of the page size; bytes
// is a multiple of align.
// Throws: std::bad_alloc when the kernel refuses.
// Only the pages that are touched take physical memory.
inline void* map_aligned(std::size_t bytes, std::size_t align) {
  // Over-map by one alignment unit, then unmap the misaligned head and the tail.
  const std::size_t request = bytes + align;
  void* raw = ::mmap(nullptr, request, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + align - 1) & ~(std::uintptr_t{align} - 1);
  const std::size_t head = aligned - base;
  const std::size_t tail = request - head - bytes;
  if (head != 0) ::munmap(raw, head);
  if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
#ifdef MADV_HUGEPAGE
  // Spans of whole huge pages are backed by them where the kernel allows:
  // one fault and one TLB entry per 2 MiB instead of 512.
  if (align % huge_page_bytes == 0) ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}
inline void* map_aligned(std::size_t span) { return map_aligned(span, span); }

// A pool's supply of bin spans. It maps them a batch at a time, the batch
// doubling with every mapping up to max_batch spans (so what is mapped but
// unused stays below the bins in use, as in a vector's growth), and hands
// them out in address order. Adding a bin is then rarely a system call:
// every mmap, munmap and madvise takes the process's address-space lock
// for writing, which stalls the page faults of every other thread that
// fills a bin. Unused spans are address space only: no page is touched.
// A span taken from here is returned with give_back or unmap_aligned.
class span_source {
 public:
  static constexpr std::size_t max_batch = 64;
  static constexpr std::size_t max_batch_bytes = std::size_t{256} << 20;

  span_source() = default;
  span_source(const span_source&) = delete;
  span_source& operator=(const span_source&) = delete;
  ~span_source() { release(); }

  // Returns: a zeroed span of `span` bytes aligned to `span`.
  // Throws: std::bad_alloc when the kernel refuses.
  void* take(std::size_t span) {
    if (span != span_) {  // a pool moved into another keeps its old reservation
      release();
      batch_ = 0;
      span_ = span;
    }
    if (next_ == end_) {
      // Double the last batch, up to max_batch spans and max_batch_bytes, but
      // always at least one span.
      std::size_t batch = std::min(batch_ == 0 ? 1 : batch_ * 2, max_batch);
      batch = std::max<std::size_t>(1, std::min(batch, max_batch_bytes / span));
      try {
        next_ = static_cast<std::byte*>(map_aligned(span * batch, span));
      } catch (const std::bad_alloc&) {
        if (batch == 1) throw;
        batch = 1;  // the address space or the kernel refuses a batch: one span may still fit
        next_ = static_cast<std::byte*>(map_aligned(span, span));
      }
      end_ = next_ + span * batch;
      batch_ = batch;
    }
    void* p = next_;
    next_ += span;
    return p;
  }

  // Effects: returns a span from take() to the operating system. The span
  // taken last goes back on top of this source (its pages dropped with
  // MADV_DONTNEED, so it is zeroed again), and the next take hands it out
  // again; any other span is unmapped.
  void give_back(void* p, std::size_t span) noexcept {
    auto* b = static_cast<std::byte*>(p);
    if (span == span_ && b + span == next_ && ::madvise(p, span, MADV_DONTNEED) == 0)
      next_ = b;
    else
      ::munmap(p, span);
  }

  // Effects: unmaps the spans not handed out; the next take maps afresh.
  void release() noexcept {
    if (next_ != end_) ::munmap(next_, static_cast<std::size_t>(end_ - next_));
    next_ = end_ = nullptr;
  }

 private:
  std::byte* next_ = nullptr;
  std::byte* end_ = nullptr;
  std::size_t batch_ = 0;
  std::size_t span_ = 0;
};

// Effects: returns a span obtained from map_aligned to the operating system.
inline void unmap_aligned(void* p, std::size_t span) noexcept { ::munmap(p, span); }

}  // namespace travpool::detail
