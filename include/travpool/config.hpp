// travpool/config.hpp: every compile-time macro and environment variable
// travpool reads, with its default and meaning. Nothing else in the library
// calls getenv or tests a TRAVPOOL_ macro that is not listed here.
//
// Macros (define before including any travpool header)
// ----------------------------------------------------
//   TRAVPOOL_CHECKS            default: 1 unless NDEBUG is defined, else 0.
//       The default of the checks policy (options.hpp), for pools that name
//       no checks option: 1 selects checks::on (debug checks), 2
//       checks::hardened (the cheap O(1) checks, for release builds), 0
//       checks::off. Why 0 under NDEBUG: docs/api.md, "Checks".
//       ODR-safe: the public templates live in an inline namespace named
//       after this setting (TRAVPOOL_ABI_NAMESPACE), so translation units
//       built with and without NDEBUG get distinct types, never two
//       definitions of one function (the technique of libc++'s ABI
//       namespace). A pool type that names its checks option is the same
//       in every translation unit except for that namespace.
//   TRAVPOOL_SPAN_CACHE_BYTES  default: 1 GiB. The initial limit of the
//       process-wide span cache (memory.hpp); set_span_cache_limit() changes
//       it at run time. Must be the same in every translation unit.
//   TRAVPOOL_HUGE_PAGES_DEFAULT  default: 2. The page policy of fresh bin
//       spans and column blocks (memory.hpp, huge_pages): 0 never (4 KiB
//       pages), 1 always (transparent huge pages), 2 automatic (huge pages
//       unless their first touch is measured slower than twice that of
//       4 KiB pages: detail/huge_pages.hpp). TRAVPOOL_HUGE_PAGES and
//       set_huge_page_policy() override it. Must be the same in every
//       translation unit.
//   TRAVPOOL_MESH_TBB          default: 0. 1 compiles the mesh's
//       execution::tbb (mesh/algorithms.hpp; TBB must be linked: the CMake
//       target travpool::mesh_tbb sets both). ODR-safe: the algorithms
//       live in an inline namespace named after this setting and OpenMP's
//       (TRAVPOOL_MESH_BACKEND), as parallel_for_each does after OpenMP's
//       (TRAVPOOL_PARALLEL_BACKEND, parallel.hpp).
//   TRAVPOOL_PLATFORM_GENERIC_POSIX  default: 0. A test knob: 1 compiles
//       the POSIX branch of detail/platform.hpp on Linux as for a POSIX
//       system without Linux's extensions (macOS, the BSDs): no
//       membarrier(2) (bin locks never biased), no THP advice, no
//       MADV_POPULATE_WRITE, no MAP_NORESERVE, and pages dropped by a
//       fresh mapping rather than MADV_DONTNEED. scripts/test.sh's libc++
//       stage builds with it. Must be the same in every translation unit.
//   TRAVPOOL_NO_STD_ITERATOR_OVERLOADS  default: undefined. Defined, the
//       overloads of std::distance, std::advance, std::next and std::prev
//       for travpool's iterators (detail/pool_iterator.hpp; adding
//       overloads to namespace std is formally undefined behaviour) are not
//       declared: qualified calls then take the standard's templates, which
//       step one element at a time; unqualified calls (distance(a, b),
//       found by argument-dependent lookup) keep skipping whole bins.
//       Should be the same in every translation unit (docs/hive.md,
//       "distance, advance, next, prev").
//
// Environment variables (read once, on first use)
// -----------------------------------------------
//   TRAVPOOL_LEAK_REPORT=1     pools with checks::on report their live
//       elements to stderr when destroyed (set_leak_reporting() overrides).
//   TRAVPOOL_BIASED_LOCKS=0    sync::bin_locks pools never bias a bin's lock
//       to its thread (every create and destroy takes the lock); biasing is
//       also off where membarrier(2) is unavailable.
//   TRAVPOOL_HUGE_PAGES=always|never|auto   the page policy (above), instead
//       of TRAVPOOL_HUGE_PAGES_DEFAULT; any other value is ignored
//       (set_huge_page_policy() overrides).
//
// Internal macros: TRAVPOOL_ALWAYS_INLINE and TRAVPOOL_ALWAYS_INLINE_LAMBDA
// (forced inlining of the create and destroy fast paths), TRAVPOOL_ABI_NAMESPACE, TRAVPOOL_MESH_BACKEND
// and TRAVPOOL_PARALLEL_BACKEND (above), TRAVPOOL_LINUX_KERNEL (whether
// detail/platform.hpp uses Linux's extensions).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>

#ifndef TRAVPOOL_CHECKS
#ifdef NDEBUG
#define TRAVPOOL_CHECKS 0
#else
#define TRAVPOOL_CHECKS 1
#endif
#endif

#if TRAVPOOL_CHECKS == 1
#define TRAVPOOL_ABI_NAMESPACE checked_v1
#elif TRAVPOOL_CHECKS == 2
#define TRAVPOOL_ABI_NAMESPACE hardened_v1
#elif TRAVPOOL_CHECKS == 0
#define TRAVPOOL_ABI_NAMESPACE unchecked_v1
#else
#error "travpool: TRAVPOOL_CHECKS must be 0 (off), 1 (on) or 2 (hardened)"
#endif

#ifndef TRAVPOOL_HUGE_PAGES_DEFAULT
#define TRAVPOOL_HUGE_PAGES_DEFAULT 2
#endif

#ifndef TRAVPOOL_SPAN_CACHE_BYTES
#define TRAVPOOL_SPAN_CACHE_BYTES (std::size_t{1} << 30)
#endif

#ifndef TRAVPOOL_PLATFORM_GENERIC_POSIX
#define TRAVPOOL_PLATFORM_GENERIC_POSIX 0
#endif

// The create and destroy fast paths are inlined into their callers even in
// programs that instantiate several pool types (GCC otherwise keeps the
// shared algorithm out of line and pays a call and spills per operation).
// TRAVPOOL_ALWAYS_INLINE_LAMBDA does the same for a lambda the fast path
// passes down (written after its parameter list).
// TRAVPOOL_NOINLINE keeps a slow path out of its caller's code,
// TRAVPOOL_COLD also lays it out away from the hot code, and
// TRAVPOOL_UNREACHABLE() tells the optimiser that a point is never reached
// (C++23's std::unreachable). GCC and Clang spell them as attributes and a
// builtin, MSVC as __declspec and __assume; other compilers get nothing.
// An unoptimised build (GCC or Clang without __OPTIMIZE__: -O0, a debug
// build) inlines nothing by force, as MSVC ignores __forceinline at /Od:
// such a build is not one whose speed the forcing is for, and there it
// cost compile time (GCC, pool_test under ASan+UBSan at -O0: 79 s of CPU
// with it, 53 s without) and made the code harder to step through.
#if defined(__GNUC__)
#if defined(__OPTIMIZE__)
#define TRAVPOOL_ALWAYS_INLINE [[gnu::always_inline]] inline
#define TRAVPOOL_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))
#else
#define TRAVPOOL_ALWAYS_INLINE inline
#define TRAVPOOL_ALWAYS_INLINE_LAMBDA
#endif
#define TRAVPOOL_NOINLINE [[gnu::noinline]]
#define TRAVPOOL_COLD [[gnu::cold, gnu::noinline]]
#define TRAVPOOL_UNREACHABLE() __builtin_unreachable()
#elif defined(_MSC_VER)
#define TRAVPOOL_ALWAYS_INLINE __forceinline
#define TRAVPOOL_ALWAYS_INLINE_LAMBDA
#define TRAVPOOL_NOINLINE __declspec(noinline)
#define TRAVPOOL_COLD __declspec(noinline)
#define TRAVPOOL_UNREACHABLE() __assume(0)
#else
#define TRAVPOOL_ALWAYS_INLINE inline
#define TRAVPOOL_ALWAYS_INLINE_LAMBDA
#define TRAVPOOL_NOINLINE
#define TRAVPOOL_COLD
#define TRAVPOOL_UNREACHABLE() ((void)0)
#endif

namespace travpool::detail {

// Returns: whether environment variable `name` is set and starts with `c`.
inline bool env_starts_with(const char* name, char c) noexcept {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] == c;
}

// Whether checks::on pools report their live elements when destroyed.
inline std::atomic<bool>& leak_reporting() noexcept {
  static std::atomic<bool> on{env_starts_with("TRAVPOOL_LEAK_REPORT", '1')};
  return on;
}

}  // namespace travpool::detail

namespace travpool {

// The page policy of bin spans and column blocks (memory.hpp).
enum class huge_pages : int {
  never = 0,      // 4 KiB pages (MADV_NOHUGEPAGE)
  always = 1,     // huge pages (MADV_HUGEPAGE)
  automatic = 2,  // huge pages unless their first touch is measured slow
};

// Effects: turns the leak report of checks::on pools destroyed with live
// elements on or off (default: TRAVPOOL_LEAK_REPORT=1 in the environment).
inline void set_leak_reporting(bool on) noexcept { detail::leak_reporting().store(on); }

}  // namespace travpool
