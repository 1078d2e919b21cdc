// travpool/detail/os_memory.hpp: bins come from the operating system, one
// naturally aligned span at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include <sys/mman.h>

namespace travpool::detail {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Effects: maps `span` bytes of zeroed memory aligned to `span`.
// Requires: span is a power of two and a multiple of the page size.
// Throws: std::bad_alloc when the kernel refuses.
// Only the pages that are touched take physical memory.
inline void* map_aligned(std::size_t span) {
  // Over-map by one span, then unmap the misaligned head and the tail.
  const std::size_t request = span * 2;
  void* raw = ::mmap(nullptr, request, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + span - 1) & ~(std::uintptr_t{span} - 1);
  const std::size_t head = aligned - base;
  const std::size_t tail = request - head - span;
  if (head != 0) ::munmap(raw, head);
  if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + span), tail);
#ifdef MADV_HUGEPAGE
  // Spans of whole huge pages are backed by them where the kernel allows:
  // one fault and one TLB entry per 2 MiB instead of 512.
  if (span % huge_page_bytes == 0) ::madvise(reinterpret_cast<void*>(aligned), span, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

// Effects: returns a span obtained from map_aligned to the operating system.
inline void unmap_aligned(void* p, std::size_t span) noexcept { ::munmap(p, span); }

}  // namespace travpool::detail
