// travpool/detail/bin_directory.hpp: the process-wide map from any address to
// the bin that owns it, in O(1) and safe for pointers into no bin at all.
//
// Every bin is a span of whole granules, granule-aligned (pools' spans are
// naturally aligned; a hive's, from its allocator, at least to the
// granule), so each granule of the address space belongs to at most one
// bin. A two-level radix
// table (as in mimalloc's segment map) maps granule numbers to bin headers:
//
//   root_[a >> (granule_shift + leaf_bits)] -> leaf
//   leaf[(a >> granule_shift) & leaf_mask]  -> bin header or nullptr
//
// A slot holds the owning pool's id beside the header pointer, and a lookup
// names the pool it asks for: a pool never reads another pool's header.
// A lookup is three dependent loads. Leaves are created on first use with a
// CAS and live for the rest of the process (1 MiB of address space each,
// only touched pages backed); the root is 512 KiB of zero-initialised static
// storage. Entries are atomics, so lookups may race with registrations of
// other bins from other threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "platform.hpp"

namespace travpool::detail {

class bin_directory {
 public:
  static constexpr unsigned granule_shift = 16;  // 64 KiB
  static constexpr std::size_t granule = std::size_t{1} << granule_shift;
  static constexpr unsigned address_bits = 48;
  static constexpr unsigned leaf_bits = 16;
  static constexpr unsigned root_bits = address_bits - granule_shift - leaf_bits;

  // Returns: the header registered for the granule holding `p` if the
  // granule belongs to pool `owner`, else nullptr. Complexity: O(1), three
  // loads. Never dereferences `p`, and never returns (so the caller never
  // reads) the header of another pool's bin, which that pool's thread may
  // be unmapping right now.
  static void* find(const void* p, std::uint64_t owner) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if ((a >> address_bits) != 0) return nullptr;
    const leaf* l = root_[a >> (granule_shift + leaf_bits)].load(std::memory_order_acquire);
    if (l == nullptr) return nullptr;
    const slot& s = l->slots[(a >> granule_shift) & leaf_mask];
    if (s.owner.load(std::memory_order_acquire) != owner) return nullptr;
    return s.header.load(std::memory_order_relaxed);  // written before owner
  }

  // Effects: maps every granule of [base, base + span) to `header` of pool
  // `owner`. Requires: the header is fully written (it is published here).
  // Throws: std::bad_alloc if a leaf cannot be allocated or the span lies
  // above the directory's 48-bit range; then nothing is mapped.
  static void insert(void* base, std::size_t span, void* header, std::uint64_t owner) {
    if (((reinterpret_cast<std::uintptr_t>(base) + span - 1) >> address_bits) != 0) throw std::bad_alloc();
    for_each_granule(base, span, [](slot&) {});  // allocate leaves first
    for_each_granule(base, span, [header, owner](slot& s) {
      s.header.store(header, std::memory_order_relaxed);
      s.owner.store(owner, std::memory_order_release);
    });
  }

  // Returns: the bytes of directory slots that map one registered span of
  // `span` bytes (leaves are shared by every pool of the process).
  static constexpr std::size_t slot_bytes(std::size_t span) noexcept {
    return (span + granule - 1) / granule * sizeof(slot);
  }

  // Effects: unmaps every granule of [base, base + span).
  static void erase(void* base, std::size_t span) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(base);
    for (std::uintptr_t g = a; g < a + span; g += granule) {
      leaf* l = root_[g >> (granule_shift + leaf_bits)].load(std::memory_order_acquire);
      if (l == nullptr) continue;
      slot& s = l->slots[(g >> granule_shift) & leaf_mask];
      s.owner.store(0, std::memory_order_release);
      s.header.store(nullptr, std::memory_order_relaxed);
    }
  }

 private:
  static constexpr std::size_t leaf_mask = (std::size_t{1} << leaf_bits) - 1;
  struct slot {
    std::atomic<std::uint64_t> owner;  // pool id; 0: no bin
    std::atomic<void*> header;
  };
  struct leaf {
    slot slots[std::size_t{1} << leaf_bits];  // 1 MiB of address space
  };

  template <class F>
  static void for_each_granule(void* base, std::size_t span, F f) {
    const auto a = reinterpret_cast<std::uintptr_t>(base);
    for (std::uintptr_t g = a; g < a + span; g += granule) f(leaf_for(g)->slots[(g >> granule_shift) & leaf_mask]);
  }

  static leaf* leaf_for(std::uintptr_t a) {
    std::atomic<leaf*>& root_slot = root_[a >> (granule_shift + leaf_bits)];
    leaf* l = root_slot.load(std::memory_order_acquire);
    if (l != nullptr) return l;
    // mmap'd memory is zero, which is a valid empty slot.
    auto* fresh = static_cast<leaf*>(map_aligned(sizeof(leaf)));
    if (root_slot.compare_exchange_strong(l, fresh, std::memory_order_acq_rel)) return fresh;
    unmap(fresh, sizeof(leaf));
    return l;
  }

  static inline std::atomic<leaf*> root_[std::size_t{1} << root_bits]{};
};

}  // namespace travpool::detail
