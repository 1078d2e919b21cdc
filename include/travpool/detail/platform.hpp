// travpool/detail/platform.hpp: everything travpool asks of the operating
// system and the CPU. No other header calls mmap, munmap, madvise,
// membarrier, VirtualAlloc, VirtualFree or a pause instruction.
//
//   primitive                   POSIX                      Windows
//   map_aligned(bytes, align)   zeroed, `align`-aligned    VirtualAlloc reserve +
//                               anonymous memory (mmap,    commit (over-reserve,
//                               trim head and tail)        free, re-reserve aligned)
//   advise_huge_pages(p, bytes, huge)   MADV_HUGEPAGE or   nothing
//                               MADV_NOHUGEPAGE (the
//                               choice: huge_pages.hpp)
//   huge_page_advice_works()    Linux, 4 KiB pages, and    false
//                               the kernel's THP size is
//                               huge_page_bytes (not with
//                               16 or 64 KiB pages)
//   populate_range(p, bytes)    fault the pages in now     nothing (faulted on
//                               (MADV_POPULATE_WRITE)      first touch)
//   untouched_range(p, bytes)   no page resident (mincore; false
//                               Linux only, else false)
//   unmap(p, bytes)             give it back (munmap;      VirtualFree MEM_RELEASE:
//                               any page-aligned part)     the whole mapping only
//   can_unmap_part              true                       false: a mapping is
//                                                          released whole or not
//   advise_free(p, bytes)       MADV_FREE: the kernel may  MEM_RESET: likewise
//                               reclaim the pages
//   advise_dontneed(p, bytes)   MADV_DONTNEED: drop the    MEM_DECOMMIT, then
//                               pages now (they read as    MEM_COMMIT again
//                               zero afterwards; not Linux:
//                               a fresh mapping over them)
//   page_size()                 the system's page size,    GetSystemInfo's
//                               read once (the granule of  dwPageSize (4 KiB)
//                               the advice and protection
//                               calls: 4 KiB on x86-64, 16 KiB on Apple
//                               silicon, 4, 16 or 64 KiB on AArch64 Linux)
//   reserve_range(bytes)        address space only         MEM_RESERVE,
//                               (PROT_NONE, MAP_NORESERVE) PAGE_NOACCESS
//   commit_range(p, bytes)      make part of a             MEM_COMMIT
//                               reservation usable         (mprotect)
//   decommit_range(p, bytes)    drop its pages and make it MEM_DECOMMIT
//                               inaccessible
//   release_range(p, bytes)     give a reservation back    MEM_RELEASE
//   membarrier_register()       membarrier(2) private      true
//   membarrier_all()            expedited: register, then  FlushProcessWriteBuffers
//                               a full fence on every CPU running a thread
//                               of this process
//   cpu_relax()                 the spin-wait hint (pause on x86, yield on AArch64)
//   prefetch_line(p)            a software prefetch of p's cache line
//   at_fork(prepare, parent, child)   pthread_atfork:    nothing (true): no
//                               handlers that keep         fork() on Windows
//                               process-wide mutexes usable in a child
//   at_thread_exit<f>(arg)      f(arg) when the calling    an FlsAlloc callback
//                               thread exits (a
//                               thread_local's destructor)
//   tls_is_emulated             whether thread_local storage may be gone
//                               when thread-exit code runs (GCC's emutls)
//   fork_safe_instance<&T::m>(make)   a never-destroyed process-wide
//                               object whose mutex m survives fork()
//   rw_mutex                    std::shared_mutex          a slim reader/writer
//                                                          lock (SRWLOCK): not
//                               mingw-w64's std::shared_mutex, whose lazy
//                               initialisation races (see rw_mutex below)
//
// Supported: POSIX systems with mmap (Linux, the BSDs, macOS), and 64-bit
// Windows with mingw-w64 (GCC or Clang; tested cross-compiled, under
// wine: scripts/cross_windows.sh). membarrier is Linux-only; on the other
// POSIX systems membarrier_register() returns false and bin locks are never
// biased. MADV_FREE is used where defined; elsewhere advise_free fails and
// released spans are unmapped instead of cached. Linux's extensions
// (membarrier, THP advice, MADV_POPULATE_WRITE, MAP_NORESERVE, and
// MADV_DONTNEED's zeroing) are used where TRAVPOOL_LINUX_KERNEL is 1: on
// Linux, unless the test knob TRAVPOOL_PLATFORM_GENERIC_POSIX=1
// (config.hpp) compiles the POSIX branch as for macOS and the BSDs
// (scripts/test.sh's libc++ stage).
//
// Windows: <windows.h> is not included (it would reach every user's
// translation unit, with its macros). The few kernel32 functions are
// declared below under travpool's own names in namespace detail::win32,
// bound to the DLL's symbols by an assembler label, with their own
// layout-compatible structs: no declaration collides with the SDK's,
// whichever header a user includes first (tests/travpool/detail/: in
// platform_test.cpp travpool's headers come first and <windows.h> after,
// and the constants and struct layouts are checked against the SDK's; in
// span_cache_test.cpp <windows.h> comes first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <shared_mutex>
#include <type_traits>
#include <utility>

#include "../config.hpp"

#if defined(__linux__) && !TRAVPOOL_PLATFORM_GENERIC_POSIX
#define TRAVPOOL_LINUX_KERNEL 1
#else
#define TRAVPOOL_LINUX_KERNEL 0
#endif

#if defined(_WIN32)
#if !defined(_WIN64) || !defined(__GNUC__)
#error "travpool on Windows needs a 64-bit target and mingw-w64 (GCC or Clang)"
#endif
#elif defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#else
#error "travpool needs a POSIX system with mmap (Linux, BSD or macOS) or 64-bit Windows"
#endif

#if TRAVPOOL_LINUX_KERNEL
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
#if defined(_WIN32)
// ---------------------------------------------------------------------------
// Windows: the kernel32 functions travpool calls, declared here instead of
// through <windows.h>. Own names (an assembler label binds each to the
// DLL's export, through the import library's thunk), own structs with the
// SDK's 64-bit layout, the SDK's constant values; C++ linkage, so no name
// can collide with the SDK's declarations or a user's.
// ---------------------------------------------------------------------------
namespace win32 {
// SYSTEM_INFO.
struct system_info {
  std::uint32_t oem_id;
  std::uint32_t page_size;
  void* minimum_application_address;
  void* maximum_application_address;
  std::uintptr_t active_processor_mask;
  std::uint32_t number_of_processors;
  std::uint32_t processor_type;
  std::uint32_t allocation_granularity;
  std::uint16_t processor_level;
  std::uint16_t processor_revision;
};
// DWORD is unsigned long (32 bits) and SIZE_T std::size_t on 64-bit Windows.
inline constexpr unsigned long mem_commit = 0x1000;
inline constexpr unsigned long mem_reserve = 0x2000;
inline constexpr unsigned long mem_decommit = 0x4000;
inline constexpr unsigned long mem_release = 0x8000;
inline constexpr unsigned long mem_reset = 0x80000;
inline constexpr unsigned long page_noaccess = 0x01;
inline constexpr unsigned long page_readwrite = 0x04;
void* virtual_alloc(void* address, std::size_t bytes, unsigned long type, unsigned long protect) noexcept
    __asm__("VirtualAlloc");
int virtual_free(void* address, std::size_t bytes, unsigned long type) noexcept __asm__("VirtualFree");
void get_system_info(system_info* info) noexcept __asm__("GetSystemInfo");
void flush_process_write_buffers() noexcept __asm__("FlushProcessWriteBuffers");
// FlsAlloc's callback (PFLS_CALLBACK_FUNCTION; one calling convention on
// 64-bit Windows).
using fls_callback = void (*)(void*);
inline constexpr unsigned long fls_out_of_indexes = 0xFFFFFFFF;
unsigned long fls_alloc(fls_callback callback) noexcept __asm__("FlsAlloc");
int fls_set_value(unsigned long index, void* value) noexcept __asm__("FlsSetValue");
// SRWLOCK: one pointer, all zero when free (SRWLOCK_INIT). The Try forms
// return BOOLEAN (an unsigned char), nonzero if acquired.
struct srw_lock {
  void* ptr;
};
void acquire_srw_exclusive(srw_lock* lock) noexcept __asm__("AcquireSRWLockExclusive");
void release_srw_exclusive(srw_lock* lock) noexcept __asm__("ReleaseSRWLockExclusive");
unsigned char try_acquire_srw_exclusive(srw_lock* lock) noexcept __asm__("TryAcquireSRWLockExclusive");
void acquire_srw_shared(srw_lock* lock) noexcept __asm__("AcquireSRWLockShared");
void release_srw_shared(srw_lock* lock) noexcept __asm__("ReleaseSRWLockShared");
unsigned char try_acquire_srw_shared(srw_lock* lock) noexcept __asm__("TryAcquireSRWLockShared");

// Returns: the system's SYSTEM_INFO, read once.
inline const system_info& info() noexcept {
  static const system_info i = [] {
    system_info r{};
    get_system_info(&r);
    return r;
  }();
  return i;
}
}  // namespace win32
#endif

// Returns: the system's page size (sysconf(_SC_PAGESIZE); on Windows
// GetSystemInfo's dwPageSize), a power of two >= min_page_size.
inline std::size_t page_size() noexcept {
  static const std::size_t bytes = [] {
#if defined(_WIN32)
    const std::size_t u = win32::info().page_size;
    return u >= min_page_size && (u & (u - 1)) == 0 ? u : min_page_size;
#else
    const long p = ::sysconf(_SC_PAGESIZE);
    const auto u = static_cast<std::size_t>(p);
    return p > 0 && u >= min_page_size && (u & (u - 1)) == 0 ? u : min_page_size;
#endif
  }();
  return bytes;
}
// Initialised before main(): a fork() must not catch another thread inside
// the first call (its guard would stay held in the child).
inline const std::size_t page_size_at_start = page_size();
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

// Whether thread_local variables are emulated (GCC for Windows: emutls,
// which keeps them in blocks of the heap and frees a thread's blocks among
// its pthread key destructors, before its C++ thread_local destructors
// run). Then code that runs at thread exit finds a thread_local's storage
// freed, or reset to its initial value if it reads it again.
#if defined(_WIN32) && defined(__GNUC__) && !defined(__clang__)
inline constexpr bool tls_is_emulated = true;
#else
inline constexpr bool tls_is_emulated = false;
#endif

#if defined(_WIN32)
// ---------------------------------------------------------------------------
// Windows (contracts: the POSIX versions below). A reservation is released
// whole or not at all (VirtualFree MEM_RELEASE takes its base), so no
// caller may unmap part of a mapping: can_unmap_part.
// ---------------------------------------------------------------------------
inline constexpr bool can_unmap_part = false;

// Returns: the granularity of reservation addresses (64 KiB), read once.
inline std::size_t allocation_granularity() noexcept {
  static const std::size_t bytes = [] {
    const std::size_t g = win32::info().allocation_granularity;
    return g >= page_size() && (g & (g - 1)) == 0 ? g : std::size_t{64} << 10;
  }();
  return bytes;
}

// Reservations start at a multiple of allocation_granularity(). For a
// larger alignment: reserve bytes + align, release it, and reserve again
// at the aligned address inside it (another thread may take the range in
// between: retried). Unlike mmap, a reservation cannot be trimmed.
inline void* map_aligned(std::size_t bytes, std::size_t align) {
  constexpr unsigned long reserve_commit = win32::mem_reserve | win32::mem_commit;
  if (align <= allocation_granularity()) {
    void* p = win32::virtual_alloc(nullptr, bytes, reserve_commit, win32::page_readwrite);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  for (int attempt = 0; attempt < 64; ++attempt) {
    void* raw = win32::virtual_alloc(nullptr, bytes + align, win32::mem_reserve, win32::page_noaccess);
    if (raw == nullptr) throw std::bad_alloc();
    const auto base = reinterpret_cast<std::uintptr_t>(raw);
    void* aligned = reinterpret_cast<void*>((base + align - 1) & ~(std::uintptr_t{align} - 1));
    win32::virtual_free(raw, 0, win32::mem_release);
    if (void* p = win32::virtual_alloc(aligned, bytes, reserve_commit, win32::page_readwrite)) return p;
  }
  throw std::bad_alloc();
}
inline void* map_aligned(std::size_t span) { return map_aligned(span, span); }

// No transparent huge pages (large pages need a privilege and are never
// paged out): advice is a no-op.
inline void advise_huge_pages(void*, std::size_t, bool) noexcept {}
inline bool huge_page_advice_works() noexcept { return false; }

// Requires: p as map_aligned returned it (the whole mapping goes).
inline void unmap(void* p, std::size_t) noexcept { win32::virtual_free(p, 0, win32::mem_release); }

// MEM_RESET: the contents are no longer needed and the system may drop the
// pages without writing them out; they stay committed and usable.
inline bool advise_free(void* p, std::size_t bytes) noexcept {
  return win32::virtual_alloc(p, bytes, win32::mem_reset, win32::page_noaccess) != nullptr;
}

// Decommitted pages are freed, and committed again they read as zero.
// Returns: false if the commit was refused (commit limit): the range is
// then decommitted (inaccessible). span_source::give_back then releases
// the span; concurrent_list's retire_bin ignores the result, so there a
// retired bin's chunk pages would stay inaccessible (open: not handled).
inline bool advise_dontneed(void* p, std::size_t bytes) noexcept {
  if (win32::virtual_free(p, bytes, win32::mem_decommit) == 0) return false;
  return win32::virtual_alloc(p, bytes, win32::mem_commit, win32::page_readwrite) != nullptr;
}

inline void* reserve_range(std::size_t bytes) {
  void* p = win32::virtual_alloc(nullptr, bytes, win32::mem_reserve, win32::page_noaccess);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
// Committed pages count against the commit limit at once (not on first
// touch, as under Linux's overcommit); they are zero, taken on first touch.
inline bool commit_range(void* p, std::size_t bytes) noexcept {
  return win32::virtual_alloc(p, bytes, win32::mem_commit, win32::page_readwrite) != nullptr;
}
inline void decommit_range(void* p, std::size_t bytes) noexcept { win32::virtual_free(p, bytes, win32::mem_decommit); }
inline void populate_range(void*, std::size_t) noexcept {}
inline bool untouched_range(void*, std::size_t) noexcept { return false; }
inline void release_range(void* p, std::size_t) noexcept { win32::virtual_free(p, 0, win32::mem_release); }

// FlushProcessWriteBuffers (Vista and later) runs a full barrier on every
// CPU that runs a thread of this process: what membarrier_all promises.
// (Wine 8 implements it as a no-op: under wine biased locks run without
// the revoker's barrier.)
inline bool membarrier_register() noexcept { return true; }
inline void membarrier_all() noexcept { win32::flush_process_write_buffers(); }

// A readers-writers lock with std::shared_mutex's interface (Lockable and
// SharedLockable, neither recursive nor movable): a slim reader/writer
// lock, all zero when free, so usable at once by any thread. Not
// std::shared_mutex: mingw-w64's (winpthreads' pthread_rwlock_t, whose
// static initialiser is a marker that its first use replaces by a real
// lock) does not exclude when several threads' first uses race: under
// wine, fresh locks first taken by 4 threads at once let two of them in
// together in about 1 round in 4, and never once one lock() had gone
// before; a concurrent_pool's list lock failed that way in 1 to 9 runs in
// 2,000 of a test (platform_test: "rw_mutex excludes from its first use").
class rw_mutex {
 public:
  rw_mutex() noexcept = default;
  rw_mutex(const rw_mutex&) = delete;
  rw_mutex& operator=(const rw_mutex&) = delete;
  void lock() noexcept { win32::acquire_srw_exclusive(&lock_); }
  bool try_lock() noexcept { return win32::try_acquire_srw_exclusive(&lock_) != 0; }
  void unlock() noexcept { win32::release_srw_exclusive(&lock_); }
  void lock_shared() noexcept { win32::acquire_srw_shared(&lock_); }
  bool try_lock_shared() noexcept { return win32::try_acquire_srw_shared(&lock_) != 0; }
  void unlock_shared() noexcept { win32::release_srw_shared(&lock_); }

 private:
  win32::srw_lock lock_{nullptr};
};

// No fork() on Windows: nothing to register.
inline bool at_fork(void (*)(), void (*)(), void (*)()) noexcept { return true; }

// A fiber-local slot whose callback runs when the thread exits (FlsAlloc).
template <void (*Exit)(void*)>
bool at_thread_exit(void* arg) noexcept {
  static const unsigned long index = win32::fls_alloc([](void* p) {
    if (p != nullptr) Exit(p);
  });
  return index != win32::fls_out_of_indexes && win32::fls_set_value(index, arg) != 0;
}

#else
// ---------------------------------------------------------------------------
// POSIX
// ---------------------------------------------------------------------------
// munmap takes any page-aligned part of a mapping.
inline constexpr bool can_unmap_part = true;

// A readers-writers lock (Windows: its own, above).
using rw_mutex = std::shared_mutex;

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
#if TRAVPOOL_LINUX_KERNEL && defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  ::madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
}

// Returns: whether advise_huge_pages can give huge pages to spans of
// huge_page_bytes: THP advice is compiled in, the base page is 4 KiB, and
// the kernel's huge page (/sys/kernel/mm/transparent_hugepage/
// hpage_pmd_size) is huge_page_bytes; with 16 or 64 KiB base pages it is
// 32 or 512 MiB, larger than the spans travpool asks for. A kernel without
// that file (before Linux 4.10) is taken at its 4 KiB page's 2 MiB if it
// has THP at all (transparent_hugepage/enabled). Read once.
inline bool huge_page_advice_works() noexcept {
  static const bool works = [] {
#if TRAVPOOL_LINUX_KERNEL && defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    if (page_size() != 4096) return false;
    const int fd = ::open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ::access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
    char text[32] = {};
    const ::ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    std::size_t bytes = 0;
    for (::ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i)
      bytes = bytes * 10 + static_cast<std::size_t>(text[i] - '0');
    return bytes == huge_page_bytes;
#else
    return false;
#endif
  }();
  return works;
}
// Read before main(), as page_size().
inline const bool huge_page_advice_at_start = huge_page_advice_works();

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

// Returns: whether the kernel dropped the range's pages (Linux:
// MADV_DONTNEED; elsewhere, where MADV_DONTNEED need neither free nor zero
// anonymous pages, a fresh anonymous mapping over the range).
inline bool advise_dontneed(void* p, std::size_t bytes) noexcept {
#if TRAVPOOL_LINUX_KERNEL
  return ::madvise(p, bytes, MADV_DONTNEED) == 0;
#else
  return ::mmap(p, bytes, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED;
#endif
}

// Effects: reserves `bytes` of address space (rounded up to whole pages),
// inaccessible and not charged against the commit limit (PROT_NONE,
// MAP_NORESERVE), with no advice on its page size.
// Throws: std::bad_alloc when the kernel refuses (RLIMIT_AS, no room).
inline void* reserve_range(std::size_t bytes) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#if TRAVPOOL_LINUX_KERNEL && defined(MAP_NORESERVE)
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
#if TRAVPOOL_LINUX_KERNEL
  ::madvise(p, bytes, MADV_DONTNEED);
  ::mprotect(p, bytes, PROT_NONE);
#else
  ::mmap(p, bytes, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);  // as advise_dontneed
#endif
}
// Effects: faults every page of [p, p + bytes) in as written to (zero),
// with one system call (MADV_POPULATE_WRITE, Linux 5.14). Advice only:
// where it is refused (older kernels, no memory now) the pages are faulted
// on first touch as usual. Requires: p page-aligned, readable and writable.
inline void populate_range([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if TRAVPOOL_LINUX_KERNEL && defined(MADV_POPULATE_WRITE)
  ::madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
}

// Returns: whether no page of [p, p + bytes) is resident (mincore), so
// that a first touch there takes a real fault; false where that cannot be
// told (not Linux, or mincore refuses). Requires: p page-aligned.
inline bool untouched_range([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if TRAVPOOL_LINUX_KERNEL
  unsigned char vec[512];  // one byte per page: 2 MiB of 4 KiB pages
  const std::size_t pages = (bytes + page_size() - 1) / page_size();
  if (pages == 0 || pages > sizeof vec || ::mincore(p, bytes, vec) != 0) return false;
  for (std::size_t i = 0; i < pages; ++i)
    if (vec[i] & 1) return false;
  return true;
#else
  return false;
#endif
}

// Effects: gives a reserve_range back.
inline void release_range(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

// Returns: whether the process is registered for membarrier_all().
inline bool membarrier_register() noexcept {
#if TRAVPOOL_LINUX_KERNEL && defined(SYS_membarrier)
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
#if TRAVPOOL_LINUX_KERNEL && defined(SYS_membarrier)
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

// Effects: Exit(arg) runs when the calling thread exits, in place of the
// arg this thread registered before; arg null: nothing runs. The hook is a
// thread_local object's destructor (registered, as every thread_local
// destructor, through __cxa_thread_atexit, which also keeps a shared
// library that registered one loaded until the thread exits), made on the
// thread's first call: it runs before the destructors of the thread_locals
// made before that call, after those of the ones made later.
// Returns: false once the hook has run (a thread_local destructor that
// runs after it asks again): nothing will run.
template <void (*Exit)(void*)>
bool at_thread_exit(void* arg) noexcept {
  static thread_local bool ran = false;  // trivially destructible: readable until the thread ends
  struct hook {
    void* arg = nullptr;
    hook() = default;
    hook(const hook&) = delete;
    hook& operator=(const hook&) = delete;
    ~hook() {
      ran = true;
      if (arg != nullptr) Exit(std::exchange(arg, nullptr));
    }
  };
  if (ran) return false;
  static thread_local hook h;
  h.arg = arg;
  return true;
}

#endif

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
