// travpool/detail/layout_interleaved.hpp: layout::interleaved, the paper's
// chunk (Listing 2) with 32-bit links:
//
//   struct chunk {                       // stride = round_up(max(size, 8) + 4,
//     union {                            //                   max(align, 4))
//       T payload;                       // when assigned
//       struct { u32 next, prev; } link; // when free: chunk indices
//     };
//     u32 status;                        // bit 31: free; bits 0..30: the next
//   };                                   // free chunk (free list)
//
// Links are chunk indices relative to the bin rather than Chunk* as in the
// paper: the minimum chunk is 12 B instead of 20 B, and nothing else changes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>

#include "bin.hpp"

namespace travpool::detail {

// Layout accessors for chunks holding `Size` bytes aligned to `Align`.
// Every layout provides this interface (see layout_traits.hpp for the
// optional hooks); bin_algorithms and the iterators use nothing else.
template <std::size_t Size, std::size_t Align>
struct interleaved_layout {
  static constexpr std::size_t payload_bytes = std::max<std::size_t>(Size, 8);
  static constexpr std::size_t chunk_align = std::max<std::size_t>(Align, 4);
  static constexpr std::size_t status_offset = round_up(payload_bytes, 4);
  static constexpr std::size_t stride = round_up(status_offset + 4, chunk_align);

  // Bytes of per-bin metadata between the header and the chunks.
  static constexpr std::size_t extra_bytes(std::uint32_t) noexcept { return 0; }

  static std::byte* at(const bin_base& b, std::uint32_t i) noexcept { return b.chunks_ + std::size_t{i} * stride; }
  static void* payload(const bin_base& b, std::uint32_t i) noexcept { return at(b, i); }

  static std::uint32_t status(const bin_base& b, std::uint32_t i) noexcept {
    return load_u32(at(b, i) + status_offset);
  }
  static bool is_free(const bin_base& b, std::uint32_t i) noexcept { return (status(b, i) & free_bit) != 0; }
  static std::uint32_t free_next(const bin_base& b, std::uint32_t i) noexcept { return status(b, i) & ~free_bit; }
  // BinLocked (sync::bin_locks): the status word is written with a relaxed
  // store (one writer at a time: the bin's lock holder), so that
  // is_free_relaxed may read it unlocked.
  static std::uint32_t& status_word(const bin_base& b, std::uint32_t i) noexcept {
    return *std::launder(reinterpret_cast<std::uint32_t*>(at(b, i) + status_offset));
  }
  static bool is_free_relaxed(const bin_base& b, std::uint32_t i) noexcept {
    return (load_relaxed(status_word(b, i)) & free_bit) != 0;
  }
  template <bool BinLocked = false>
  static void mark_free(const bin_base& b, std::uint32_t i, std::uint32_t next_free) noexcept {
    publish<BinLocked>(status_word(b, i), next_free | free_bit);
  }
  template <bool BinLocked = false>
  static void mark_assigned(const bin_base& b, std::uint32_t i) noexcept {
    publish<BinLocked>(status_word(b, i), std::uint32_t{0});
  }

  static std::uint32_t link_next(const bin_base& b, std::uint32_t i) noexcept { return load_u32(at(b, i)); }
  static std::uint32_t link_prev(const bin_base& b, std::uint32_t i) noexcept { return load_u32(at(b, i) + 4); }
  static void set_link_next(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept { store_u32(at(b, i), v); }
  static void set_link_prev(const bin_base& b, std::uint32_t i, std::uint32_t v) noexcept {
    store_u32(at(b, i) + 4, v);
  }
};

}  // namespace travpool::detail
