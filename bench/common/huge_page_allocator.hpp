// bench/common/huge_page_allocator.hpp: a standard allocator that asks for
// transparent huge pages, shared by the paper benchmarks (bench_common.hpp)
// and the mesh comparison (bench/mesh).
//
// Every allocation is rounded up to whole 2 MiB pages, aligned to 2 MiB and
// madvise(MADV_HUGEPAGE)d, as travpool does for its bins. With THP in
// "madvise" mode glibc's malloc never asks, so a plain std::vector runs on
// 4 KiB pages; containers on this allocator separate the page size from the
// layout.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace travpool::bench {

// Effects: allocate(n) returns n * sizeof(T) bytes (rounded up to 2 MiB),
// 2 MiB aligned, advised as huge pages. Throws std::bad_alloc. All
// instances compare equal (stateless).
template <class T>
struct huge_page_allocator {
  using value_type = T;
  static constexpr std::size_t huge = std::size_t{2} << 20;
  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = (n * sizeof(T) + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  friend bool operator==(const huge_page_allocator&, const huge_page_allocator&) noexcept { return true; }
};

}  // namespace travpool::bench
