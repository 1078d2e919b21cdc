// travpool/detail/validate.hpp: basic_pool::validate(), the executable form
// of the invariants (V1)-(V5) in detail/bin.hpp.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace travpool {

template <class T, class... Options>
void basic_pool<T, Options...>::validate() const {
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

  std::size_t live_total = 0, bins = 0, avail = 0;
  std::vector<char> assigned, seen;
  std::vector<std::uint32_t> succ, pred;
  const bin* prev = &root_;
  for (const bin* b = root_.next_; !b->is_root(); prev = b, b = b->next_, ++bins) {
    const std::size_t n = bins;
    if (bins > bin_count()) fail(n, -1, "bin list is longer than bin_count()");
    if (b->retired_) fail(n, -1, "retired bin is still in the bin list");
    if (b->prev_ != prev) fail(n, -1, "bin list prev link is broken");
    if (detail::bin_directory::find(b, id_) != b) fail(n, -1, "bin is not registered in the directory");
    if (b->owner_ != id_) fail(n, -1, "bin is owned by another pool");
    if (b->capacity_ != bin_capacity_) fail(n, -1, "bin capacity differs from the pool's");
    const std::uint32_t cap = b->capacity_, f1 = b->full_mark(), a1 = b->last();
    if (b->chunks_ != reinterpret_cast<const std::byte*>(b) + detail::chunks_offset<ops>(cap))
      fail(n, -1, "chunk array is misplaced");
    if (b->fresh_ < detail::first_user_chunk || b->fresh_ > f1) fail(n, -1, "fresh index out of range");
    if (b->free_head_ < detail::first_user_chunk || b->free_head_ > f1) fail(n, -1, "free head out of range");
    if (ops::is_free(*b, 0) || ops::is_free(*b, a1)) fail(n, -1, "assigned pseudo chunk A0 or A1 is marked free");
    if (!ops::is_free(*b, 1) || !ops::is_free(*b, f1)) fail(n, -1, "free pseudo chunk F0 or F1 is marked assigned");

    // Chunks above fresh_ (up to F1) are free and unwritten.
    assigned.assign(std::size_t{a1} + 1, 0);
    assigned[0] = assigned[a1] = 1;
    std::uint32_t live = 0;
    for (std::uint32_t i = detail::first_user_chunk; i < b->fresh_; ++i)
      if (!ops::is_free(*b, i)) assigned[i] = 1, ++live;
    if (b->fresh_ < f1 && !ops::is_free(*b, b->fresh_)) fail(n, b->fresh_, "fresh chunk is not free");
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
      if (assigned[i - 1]) expect_link(n, i, "next (V1)", ops::link_next(*b, i), succ[i]);
      if (assigned[i + 1]) expect_link(n, i, "prev (V2)", ops::link_prev(*b, i), pred[i]);
    }

    // (V4): the free list, then (V3) for its head.
    seen.assign(std::size_t{a1} + 1, 0);
    std::uint32_t k = b->free_head_, explicit_free = 0;
    while (k != b->fresh_ && k != f1) {
      if (k < detail::first_user_chunk || k > b->fresh_) fail(n, k, "free list leaves the used part of the bin");
      if (assigned[k]) fail(n, k, "assigned chunk on the free list");
      if (seen[k]) fail(n, k, "free list has a cycle");
      seen[k] = 1;
      ++explicit_free;
      k = ops::free_next(*b, k);
    }
    if (k != b->fresh_) fail(n, k, "free list does not end at the fresh chunk");
    const std::uint32_t free_below = b->fresh_ - detail::first_user_chunk - live;
    if (explicit_free != free_below)
      fail(n, -1,
           "free list holds " + std::to_string(explicit_free) + " of " + std::to_string(free_below) +
               " released chunks");
    if (b->free_head_ != f1) {
      expect_link(n, b->free_head_, "next (V3, head)", ops::link_next(*b, b->free_head_), succ[b->free_head_]);
      expect_link(n, b->free_head_, "prev (V3, head)", ops::link_prev(*b, b->free_head_), pred[b->free_head_]);
    }
    if constexpr (!bin_locked) {
      if (b->in_avail_ != !b->full()) fail(n, -1, "membership of the available list is wrong");
      avail += b->in_avail_ ? 1 : 0;
    }
  }
  if (root_.prev_ != prev) fail(bins, -1, "bin list tail is broken");
  if (bins != bin_count())
    fail(bins, -1, "bin_count() is " + std::to_string(bin_count()) + " but the list holds " + std::to_string(bins));
  if (live_total != size())
    fail(bins, -1, "size() is " + std::to_string(size()) + " but bins hold " + std::to_string(live_total));
  std::size_t walked = 0;
  for (const bin* b = avail_head_; b != nullptr; b = b->avail_next_) {
    if (!b->in_avail_ || ++walked > bins) throw std::logic_error("travpool::validate: available list is corrupt");
    if (b->avail_next_ == nullptr && b != avail_tail_)
      throw std::logic_error("travpool::validate: available list tail is wrong");
  }
  if (walked != avail) throw std::logic_error("travpool::validate: available list misses bins");
}

}  // namespace travpool
