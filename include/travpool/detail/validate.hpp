// travpool/detail/validate.hpp: debugging aids of the element layer:
// validate_bins (basic_pool::validate(), the executable form of the
// invariants (V1)-(V5) in detail/bin.hpp and of the acquisition layer's
// lists) and the leak report.
#pragma once

#include <atomic>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"
#include "bin.hpp"
#include "bin_directory.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

// Throws: std::logic_error naming the bin and chunk of the first violation.
template <class Ops, class Core>
void validate_bins(const Core& core, std::size_t size) {
  using traits = layout_traits<Ops>;
  auto fail = [](std::size_t bin_no, long long chunk, const std::string& what) {
    std::string msg = "travpool::validate: bin #" + std::to_string(bin_no);
    if (chunk >= 0) msg += " chunk " + std::to_string(chunk);
    throw std::logic_error(msg + ": " + what);
  };
  auto expect_link = [&](std::size_t bin_no, std::uint32_t i, const char* which, std::uint32_t got,
                         std::uint32_t want) {
    if (got != want)
      fail(bin_no, i,
           std::string("free chunk has ") + which + " = " + std::to_string(got) + ", expected " + std::to_string(want));
  };

  std::size_t live_total = 0, bins = 0, chunks = 0, span_bytes = 0, small_bins = 0;
  std::vector<char> assigned, seen;
  std::vector<std::uint32_t> succ, pred;
  const bin_base* prev = core.root();
  for (const bin_base* b = core.first(); !b->is_root(); prev = b, b = b->next_, ++bins) {
    const std::size_t n = bins;
    if (bins > core.bin_count()) fail(n, -1, "bin list is longer than bin_count()");
    if (b->prev_ != prev) fail(n, -1, "bin list prev link is broken");
    // A small bin (bin_storage: a hive's, outside the directory) is found
    // by core.find from its first and last byte of chunks.
    const bool small = Core::is_small(*b);
    if (small) {
      const std::size_t chunk_bytes = (std::size_t{b->capacity_} + 4) * Ops::stride;
      if (core.find(b->chunks_) != b || core.find(b->chunks_ + chunk_bytes - 1) != b)
        fail(n, -1, "small bin is not found from its chunks");
      ++small_bins;
    } else if (bin_directory::find(b, core.id()) != b) {
      fail(n, -1, "bin is not registered in the directory");
    }
    if (b->owner_ != core.id()) fail(n, -1, "bin is owned by another pool");
    if constexpr (traits::keeps_rank)
      if (!prev->is_root() && traits::rank(*prev) >= traits::rank(*b))
        fail(n, -1, "bin rank is not above the previous bin's");
    if (b->capacity_ == 0 || b->capacity_ > max_bin_capacity) fail(n, -1, "bin capacity out of range");
    const std::size_t span = core.span_of(*b);
    if (!small && bin_directory::find(reinterpret_cast<const std::byte*>(b) + span - 1, core.id()) != b)
      fail(n, -1, "the end of the bin's span is not registered to it");
    if (small && (span > bin_directory::granule || traits::bin_bytes(b->capacity_) > span))
      fail(n, -1, "small bin's allocation has the wrong size");
    chunks += b->capacity_;
    span_bytes += span;
    const std::uint32_t cap = b->capacity_, f1 = b->full_mark(), a1 = b->last();
    if (!small && b->chunks_ != reinterpret_cast<const std::byte*>(b) + traits::chunks_offset(cap))
      fail(n, -1, "chunk array is misplaced");
    if (b->fresh_ < first_user_chunk || b->fresh_ > f1) fail(n, -1, "fresh index out of range");
    if (b->free_head_ < first_user_chunk || b->free_head_ > f1) fail(n, -1, "free head out of range");
    if (Ops::is_free(*b, 0) || Ops::is_free(*b, a1)) fail(n, -1, "assigned pseudo chunk A0 or A1 is marked free");
    if (!Ops::is_free(*b, 1) || !Ops::is_free(*b, f1)) fail(n, -1, "free pseudo chunk F0 or F1 is marked assigned");

    // Chunks above fresh_ (up to F1) are free and unwritten.
    assigned.assign(std::size_t{a1} + 1, 0);
    assigned[0] = assigned[a1] = 1;
    std::uint32_t live = 0;
    for (std::uint32_t i = first_user_chunk; i < b->fresh_; ++i)
      if (!Ops::is_free(*b, i)) assigned[i] = 1, ++live;
    if (b->fresh_ < f1 && !Ops::is_free(*b, b->fresh_)) fail(n, b->fresh_, "fresh chunk is not free");
    if (live != b->live_)
      fail(n, -1, "live count " + std::to_string(b->live_) + " but " + std::to_string(live) + " chunks assigned");
    live_total += live;

    succ.assign(std::size_t{a1} + 1, a1);
    pred.assign(std::size_t{a1} + 1, 0);
    for (std::uint32_t i = a1; i-- > 0;) succ[i] = assigned[i + 1] ? i + 1 : succ[i + 1];
    for (std::uint32_t i = 1; i <= a1; ++i) pred[i] = assigned[i - 1] ? i - 1 : pred[i - 1];

    // (V1), (V2): boundary links of every free run.
    for (std::uint32_t i = 1; i < a1; ++i) {
      if (assigned[i]) continue;
      // (V7): runs whose bounds share a bitmap word keep no links.
      if (assigned[i - 1] && traits::run_linked(i - 1, succ[i]))
        expect_link(n, i, "next (V1)", Ops::link_next(*b, i), succ[i]);
      if (assigned[i + 1] && traits::run_linked(pred[i], i + 1))
        expect_link(n, i, "prev (V2)", traits::run_prev(*b, i), pred[i]);
    }

    // (V4): the free list, then (V3) for its head.
    seen.assign(std::size_t{a1} + 1, 0);
    std::uint32_t k = b->free_head_, explicit_free = 0;
    while (k != b->fresh_ && k != f1) {
      if (k < first_user_chunk || k > b->fresh_) fail(n, k, "free list leaves the used part of the bin");
      if (assigned[k]) fail(n, k, "assigned chunk on the free list");
      if (seen[k]) fail(n, k, "free list has a cycle");
      seen[k] = 1;
      ++explicit_free;
      k = Ops::free_next(*b, k);
    }
    if (k != b->fresh_) fail(n, k, "free list does not end at the fresh chunk");
    const std::uint32_t free_below = b->fresh_ - first_user_chunk - live;
    if (explicit_free != free_below)
      fail(n, -1,
           "free list holds " + std::to_string(explicit_free) + " of " + std::to_string(free_below) +
               " released chunks");
    if (b->free_head_ != f1) {
      expect_link(n, b->free_head_, "next (V3, head)", Ops::link_next(*b, b->free_head_), succ[b->free_head_]);
      expect_link(n, b->free_head_, "prev (V3, head)", traits::run_prev(*b, b->free_head_), pred[b->free_head_]);
    }
  }
  if (core.root()->prev_ != prev) fail(bins, -1, "bin list tail is broken");
  if (bins != core.bin_count())
    fail(bins, -1,
         "bin_count() is " + std::to_string(core.bin_count()) + " but the list holds " + std::to_string(bins));
  if (small_bins != core.small_bin_count())
    throw std::logic_error("travpool::validate: the small bins' list has " + std::to_string(core.small_bin_count()) +
                           " bins, the bin list " + std::to_string(small_bins));
  if (chunks != core.chunk_count())
    fail(bins, -1,
         "chunk_count() is " + std::to_string(core.chunk_count()) + " but the bins hold " + std::to_string(chunks));
  if (span_bytes != core.span_bytes())
    fail(bins, -1,
         "span_bytes() is " + std::to_string(core.span_bytes()) + " but the bins span " + std::to_string(span_bytes));
  if (live_total != size)
    fail(bins, -1, "size() is " + std::to_string(size) + " but bins hold " + std::to_string(live_total));
  if (const char* why = core.check_lists()) throw std::logic_error(std::string("travpool::validate: ") + why);
}

// Effects: appends to `text` how many elements are live, in how many bins,
// and the addresses of the first few (llheap-style leak report).
// Returns: the number of live elements. Requires a quiescent pool.
template <class Ops, class Core>
std::size_t describe_leaks(const Core& core, std::size_t element_bytes, std::string& text) {
  std::size_t live = 0, bins = 0, shown = 0;
  for (const bin_base* b = core.first(); !b->is_root(); b = b->next_) live += b->live_, bins += b->live_ != 0;
  if (live == 0) return 0;
  text += "travpool: pool " + std::to_string(core.id()) + " has " + std::to_string(live) + " live element(s) of " +
          std::to_string(element_bytes) + " B in " + std::to_string(bins) + " bin(s)";
  using traits = layout_traits<Ops>;
  for (const bin_base* b = core.first(); !b->is_root() && shown < 8; b = b->next_) {
    for (std::uint32_t i = traits::first_assigned(*b); i != b->last() && shown < 8; i = traits::next_assigned(*b, i)) {
      // 0x and lowercase hex, as glibc's %p and std::ostream print a
      // pointer (the Windows C runtime's %p has neither).
      char address[32];
      std::snprintf(address, sizeof address, "0x%" PRIxPTR, reinterpret_cast<std::uintptr_t>(Ops::payload(*b, i)));
      text += (shown++ == 0 ? ": " : ", ");
      text += address;
    }
  }
  text += live > shown ? ", ...\n" : "\n";
  return live;
}

// Effects: if leak reporting is on, writes the leak report to stderr.
template <class Ops, class Core>
void report_leaks_at_exit(const Core& core, std::size_t element_bytes) noexcept {
  if (!leak_reporting().load(std::memory_order_relaxed)) return;
  try {
    std::string text;
    if (describe_leaks<Ops>(core, element_bytes, text) != 0) std::fputs(text.c_str(), stderr);
  } catch (...) {  // no memory for the report: skip it
  }
}

}  // namespace travpool::detail
