// travpool/detail/platform.hpp: everything travpool asks of the operating
// system and the CPU. No other header calls mmap, munmap, madvise,
// membarrier or a pause instruction.
//
//   map_aligned(bytes, align)   zeroed, `align`-aligned anonymous memory
//   advise_huge_pages(p, bytes, huge)   MADV_HUGEPAGE or MADV_NOHUGEPAGE
//                               (the choice: huge_pages.hpp)
//   populate_range(p, bytes)    fault the pages in now (MADV_POPULATE_WRITE)
//   unmap(p, bytes)             give it back
//   advise_free(p, bytes)       MADV_FREE: the kernel may reclaim the pages
//   advise_dontneed(p, bytes)   MADV_DONTNEED: drop the pages now (they read
//                               as zero afterwards)
//   page_size()                 the system's page size, read once (the
//                               granule of the advice and protection calls:
//                               4 KiB on x86-64, 16 KiB on Apple silicon,
//                               4, 16 or 64 KiB on AArch64 Linux)
//   reserve_range(bytes)        address space only (PROT_NONE, no commit
//                               charge)
//   commit_range(p, bytes)      make part of a reservation usable
//   decommit_range(p, bytes)    drop its pages and make it inaccessible
//   release_range(p, bytes)     give a reservation back
//   membarrier_register()       membarrier(2) private expedited: register,
//   membarrier_all()            then a full fence on every CPU running a
//                               thread of this process
//   cpu_relax()                 the spin-wait hint
//   prefetch_line(p)            a software prefetch of p's cache line
//   at_fork(prepare, parent, child)   pthread_atfork: handlers that keep
//                               process-wide mutexes usable in a child
//   fork_safe_instance<&T::m>(make)   a never-destroyed process-wide
//                               object whose mutex m survives fork()
//
// Supported: POSIX systems with mmap (Linux, the BSDs, macOS). membarrier is
// Linux-only; elsewhere membarrier_register() returns false and bin locks
// are never biased. MADV_FREE is used where defined; elsewhere advise_free
// fails and released spans are unmapped instead of cached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if !defined(__unix__) && !defined(__APPLE__)
#error "travpool needs a POSIX system with mmap (Linux, BSD or macOS)"
#endif

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace travpool::detail {

// The smallest page size travpool supports, and what page_size() falls
// back to if the system will not say.
inline constexpr std::size_t min_page_size = 4096;
// Returns: the system's page size (sysconf(_SC_PAGESIZE)), a power of two
// >= min_page_size.
inline std::size_t page_size() noexcept {
  static const std::size_t bytes = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    const auto u = static_cast<std::size_t>(p);
    return p > 0 && u >= min_page_size && (u & (u - 1)) == 0 ? u : min_page_size;
  }();
  return bytes;
}
// Initialised before main(): a fork() must not catch another thread inside
// the first call (its guard would stay held in the child).
inline const std::size_t page_size_at_start = page_size();
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Effects: maps `bytes` of zeroed memory aligned to `align`, with no advice
// on its page size (the caller gives it: advise_huge_pages).
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
  return reinterpret_cast<void*>(aligned);
}
inline void* map_aligned(std::size_t span) { return map_aligned(span, span); }

// Effects: asks the kernel to back the pages of [p, p + bytes) not yet
// touched with transparent huge pages (huge: MADV_HUGEPAGE; one fault and
// one TLB entry per 2 MiB instead of 512), or never to (MADV_NOHUGEPAGE).
// Advice only: ignored where the kernel has no THP.
// Requires: p page-aligned, inside one mapping of this process.
inline void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes,
                              [[maybe_unused]] bool huge) noexcept {
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  ::madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
}

// Effects: returns [p, p + bytes), from map_aligned, to the system.
inline void unmap(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

// Returns: whether the kernel accepted MADV_FREE for the range.
inline bool advise_free([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#ifdef MADV_FREE
  return ::madvise(p, bytes, MADV_FREE) == 0;
#else
  return false;
#endif
}

// Returns: whether the kernel dropped the range's pages (MADV_DONTNEED).
inline bool advise_dontneed(void* p, std::size_t bytes) noexcept { return ::madvise(p, bytes, MADV_DONTNEED) == 0; }

// Effects: reserves `bytes` of address space (rounded up to whole pages),
// inaccessible and not charged against the commit limit (PROT_NONE,
// MAP_NORESERVE), with no advice on its page size.
// Throws: std::bad_alloc when the kernel refuses (RLIMIT_AS, no room).
inline void* reserve_range(std::size_t bytes) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
  flags |= MAP_NORESERVE;
#endif
  void* p = ::mmap(nullptr, bytes, PROT_NONE, flags, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}
// Requires: [p, p + bytes) page-aligned, inside a reserve_range.
// Effects: makes the range readable and writable (zero pages, taken on
// first touch). Returns: false when the kernel refuses (commit limit under
// vm.overcommit_memory=2, out of mappings); then the range is unchanged.
inline bool commit_range(void* p, std::size_t bytes) noexcept {
  return ::mprotect(p, bytes, PROT_READ | PROT_WRITE) == 0;
}
// Requires: as commit_range. Effects: drops the range's pages (they read as
// zero if committed again) and makes it inaccessible, which also returns
// its commit charge.
inline void decommit_range(void* p, std::size_t bytes) noexcept {
  ::madvise(p, bytes, MADV_DONTNEED);
  ::mprotect(p, bytes, PROT_NONE);
}
// Effects: faults every page of [p, p + bytes) in as written to (zero),
// with one system call (MADV_POPULATE_WRITE, Linux 5.14). Advice only:
// where it is refused (older kernels, no memory now) the pages are faulted
// on first touch as usual. Requires: p page-aligned, readable and writable.
inline void populate_range([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
  ::madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
}

// Effects: gives a reserve_range back.
inline void release_range(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

// Returns: whether the process is registered for membarrier_all().
inline bool membarrier_register() noexcept {
#if defined(__linux__) && defined(SYS_membarrier)
  return ::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

// Requires: membarrier_register() returned true. Effects: a full memory
// barrier on every CPU that runs a thread of this process. Aborts if the
// barrier fails after registration succeeded (a seccomp filter installed
// later, say): its callers cannot proceed safely without it.
inline void membarrier_all() noexcept {
#if defined(__linux__) && defined(SYS_membarrier)
  if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) std::abort();
#endif
}

// Effects: runs prepare() before every fork() of this process, parent() in
// the parent after it and child() in the child (pthread_atfork). A mutex
// that another thread holds at the fork would stay locked forever in the
// child, whose only thread is the one that forked; taking it in prepare()
// and releasing or reinitialising it afterwards keeps the child usable.
// Returns: whether the handlers were registered.
inline bool at_fork(void (*prepare)(), void (*parent)(), void (*child)()) noexcept {
  return ::pthread_atfork(prepare, parent, child) == 0;
}

// Returns: the process's one object made by make(storage), a placement new
// into static storage, on the first call (T: what make returns a pointer
// to). Never destroyed: threads may exit, and objects with static storage
// duration use it, after static destruction has begun. Fork-safe: its
// mutex, object.*Mutex, is taken before every fork() and released after it
// in the parent and reinitialised in the child (at_fork), so a child forked
// while another thread held it can still use the object. The handlers
// reach the object through the storage, not through the function-local
// static: a fork() may run them while the initialisation holds that
// static's guard. One object per Mutex and Make: call it from one place.
template <auto Mutex, class Make>
auto& fork_safe_instance(Make make) noexcept {
  using object = std::remove_pointer_t<decltype(make(static_cast<void*>(nullptr)))>;
  using mutex = std::remove_cvref_t<decltype(std::declval<object&>().*Mutex)>;
  alignas(object) static unsigned char storage[sizeof(object)];
  static object* const instance = [make] {
    object* o = make(static_cast<void*>(storage));
    at_fork([] { (std::launder(reinterpret_cast<object*>(storage))->*Mutex).lock(); },
            [] { (std::launder(reinterpret_cast<object*>(storage))->*Mutex).unlock(); },
            [] { ::new (&(std::launder(reinterpret_cast<object*>(storage))->*Mutex)) mutex(); });
    return o;
  }();
  return *instance;
}

// Effects: asks the CPU to fetch the cache line holding `p` (read, keep in
// every cache level). Never faults, whatever p is. The empty volatile asm
// keeps a loop of prefetches: GCC otherwise deletes loops whose only
// statements are prefetches, as it deletes any loop without side effects.
inline void prefetch_line(const void* p) noexcept {
#if defined(__GNUC__)
  __builtin_prefetch(p);
  asm volatile("");
#else
  (void)p;
#endif
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace travpool::detail
