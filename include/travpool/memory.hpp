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
#pragma once

#include <cstddef>

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

}  // namespace travpool
