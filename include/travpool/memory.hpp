// travpool/memory.hpp: the process-wide cache of bin memory.
//
// Every pool maps its bins from the operating system in spans (2 MiB huge
// pages for the usual bin sizes). A span that a pool gives back, because the
// pool is destroyed or its shrink_to_fit releases it, goes to one cache shared
// by the whole process; the next bin of the same span size, in any pool,
// reuses it. That saves the page faults and the kernel's zeroing of fresh
// memory, which can cost more than filling the bin (docs/threads.md).
//
// Cached spans are MADV_FREE'd: the kernel takes their pages back when it
// runs short of memory, and otherwise they stay resident (they still count
// in the process's RSS) until reused, trimmed or unmapped.
//
// Fresh spans of 2 MiB multiples, and column pools' blocks, take
// transparent huge pages or 4 KiB pages as the page policy says
// (huge_pages::automatic by default: huge pages unless their first touch is
// measured slower than twice that of 4 KiB pages; detail/huge_pages.hpp).
#pragma once

#include <cstddef>

#include "detail/huge_pages.hpp"
#include "detail/span_cache.hpp"

namespace travpool {

// Returns: the bytes of address space the span cache holds.
inline std::size_t span_cache_bytes() noexcept { return detail::span_cache::instance().bytes(); }

// Returns: the most the span cache holds, in bytes (default
// TRAVPOOL_SPAN_CACHE_BYTES, 1 GiB; at most detail::span_cache::max_spans
// spans in any case).
inline std::size_t span_cache_limit() noexcept { return detail::span_cache::instance().limit(); }

// Effects: sets the span cache's limit and unmaps cached spans, oldest
// first, until it holds at most `bytes`. 0 turns the cache off: released
// bins are unmapped at once. Returns: the previous limit. Thread-safe.
inline std::size_t set_span_cache_limit(std::size_t bytes) noexcept {
  return detail::span_cache::instance().set_limit(bytes);
}

// Effects: unmaps every cached span, returning its memory to the operating
// system now. Returns: the bytes unmapped. Thread-safe; pools in use are
// not affected.
inline std::size_t trim_span_cache() noexcept { return detail::span_cache::instance().trim(); }

// Returns: the page policy of fresh bin spans and column blocks: the macro
// TRAVPOOL_HUGE_PAGES_DEFAULT (default huge_pages::automatic), unless the
// environment variable TRAVPOOL_HUGE_PAGES (always, never or auto; read on
// first use) or set_huge_page_policy() chose another.
inline huge_pages huge_page_policy() noexcept {
  return static_cast<huge_pages>(detail::huge_page_choice::policy().load(std::memory_order_relaxed));
}

// Effects: sets the page policy for memory mapped or committed from now on
// (pages already touched keep their size); a value that names no policy
// is taken as huge_pages::automatic. Returns: the previous policy.
// Thread-safe.
inline huge_pages set_huge_page_policy(huge_pages p) noexcept {
  if (p != huge_pages::never && p != huge_pages::always) p = huge_pages::automatic;
  return static_cast<huge_pages>(
      detail::huge_page_choice::policy().exchange(static_cast<int>(p), std::memory_order_relaxed));
}

// Returns: whether memory mapped now takes huge pages under the current
// policy: under huge_pages::automatic, whether the first touches of huge
// pages measured so far were cheap enough (true until measured); false
// under every policy where the system cannot give travpool's spans huge
// pages (no transparent huge pages, a system other than Linux, or a huge
// page other than 2 MiB, as with 64 KiB base pages).
inline bool huge_pages_in_use() noexcept { return detail::huge_page_choice::want_huge(); }

}  // namespace travpool
