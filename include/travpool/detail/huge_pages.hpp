// travpool/detail/huge_pages.hpp: whether fresh bin spans and column blocks
// ask for transparent huge pages.
//
// DESIGN NOTE
// ===========
// A huge page costs one fault and one TLB entry per 2 MiB instead of 512,
// so sweeps over huge pages run faster (15-35 % on the 20 M element sweeps
// of docs/benchmarks.md). Its first touch costs the kernel's clear of 2 MiB,
// which is usually cheaper than 512 small faults, but not everywhere: on a
// KVM guest whose host takes back the guest's free memory (virtio-balloon
// free page reporting), faulting a huge page of such memory took 3-4 ms
// against 1 ms for the same 2 MiB in 4 KiB pages, and creating 20 M
// elements took 3.5x as long as on 4 KiB pages. The cost depends on the
// host and on the memory's history (memory the guest freed moments ago is
// cheap again), so it is measured, not guessed:
//
//   policy  huge_pages::always | never | automatic (default; the macro
//           TRAVPOOL_HUGE_PAGES_DEFAULT, then env TRAVPOOL_HUGE_PAGES, then
//           set_huge_page_policy())
//   small   the cost of faulting 2 MiB in 4 KiB pages: measured once, the
//           first time it is needed (128 pages of a scratch mapping in 4
//           groups, the cheapest group scaled; about 0.3 ms), 0 until then
//   huge    the cost of faulting one huge page: the first touch of a fresh
//           huge-advised bin span of 2 MiB multiples, timed in
//           span_source::take (the last `window` samples)
//   verdict fresh memory takes huge pages  <=>  pay(huge, small):
//           fewer than `window` samples, small unknown, or the cheapest of
//           the last `window` samples <= slow_factor * small
//
// Noise (a preemption, an interrupt) only makes a sample slower, so the
// cheapest of several decides, and small pages are chosen only after
// `window` consecutive slow huge faults: a host where huge pages are cheap
// keeps them. While the verdict is "small", one fresh span after
// resample_every (64) more is still advised huge and timed, then after 128,
// 256, ... up to max_resample_every (1024): the verdict comes back once huge
// faults are cheap again (one cheap fault suffices), and a host where they
// stay slow pays for one slow fault per 2 GiB at most. Under `always` and `never` nothing is
// timed. Column pools (column_storage.hpp) follow the same verdict when
// they commit a block; they take no samples.
//
// Advice: huge -> MADV_HUGEPAGE, small -> MADV_NOHUGEPAGE (so `never` and
// a "small" verdict hold even where THP is "always"). Where the advice
// cannot give a span huge pages (huge_page_advice_works(): no THP, a
// system other than Linux, or a kernel whose huge page is not 2 MiB, as
// with 64 KiB base pages) every policy advises small and times nothing, and
// `automatic` populates as under a "small" verdict. Only the advice for
// memory not yet touched changes; pages already faulted keep their size.
// Under `automatic`, a fresh bin span on small pages has its first 2 MiB
// populated when a pool takes it (first_touch::populate): it then holds
// the memory that a huge page would hold after the bin's first touch, and
// is faulted by one system call (20 M creations of 24 B: 0.30 s instead
// of 0.37 s on 4 KiB pages). Under `never` a pool's pages are faulted as
// written: a pool of a few elements holds a few pages. (Blocks that a
// hive takes from std::allocator are populated under every policy unless
// advised huge, or of one granule: a hive's blocks grow with it,
// allocator_spans.hpp.)
// Thread-safety: all state is atomic; concurrent samples may interleave in
// the window, which only changes which samples are the last ones.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string_view>

#include "../config.hpp"
#include "platform.hpp"

namespace travpool::detail {

static_assert(TRAVPOOL_HUGE_PAGES_DEFAULT >= 0 && TRAVPOOL_HUGE_PAGES_DEFAULT <= 2,
              "travpool: TRAVPOOL_HUGE_PAGES_DEFAULT must be 0 (never), 1 (always) or 2 (automatic)");

struct huge_page_choice {
  static constexpr std::size_t window = 3;
  static constexpr std::uint64_t slow_factor = 2;
  static constexpr std::uint64_t resample_every = 64;
  static constexpr std::uint64_t max_resample_every = 1024;

  // Returns: whether fresh memory should take huge pages, given the last
  // samples of faulting one huge page (ns, n of them) and the cost of
  // faulting 2 MiB in small pages (ns; 0: not measured).
  static constexpr bool pay(const std::uint64_t* huge_ns, std::size_t n, std::uint64_t small_ns) noexcept {
    if (n < window || small_ns == 0) return true;
    const std::uint64_t cheapest = *std::min_element(huge_ns, huge_ns + n);
    return cheapest <= slow_factor * small_ns;
  }

  // Returns: the policy from `value` (an environment variable's value), or
  // `fallback` when it is null or not one of always, never, auto.
  static constexpr huge_pages parse(const char* value, huge_pages fallback) noexcept {
    if (value == nullptr) return fallback;
    const std::string_view v(value);
    if (v == "always") return huge_pages::always;
    if (v == "never") return huge_pages::never;
    if (v == "auto" || v == "automatic") return huge_pages::automatic;
    return fallback;
  }

  static std::atomic<int>& policy() noexcept {
    static std::atomic<int> p{static_cast<int>(
        parse(std::getenv("TRAVPOOL_HUGE_PAGES"), static_cast<huge_pages>(TRAVPOOL_HUGE_PAGES_DEFAULT)))};
    return p;
  }

  // Returns: whether memory mapped now should be advised huge.
  static bool want_huge() noexcept {
    if (!huge_page_advice_works()) return false;
    switch (static_cast<huge_pages>(policy().load(std::memory_order_relaxed))) {
      case huge_pages::never:
        return false;
      case huge_pages::always:
        return true;
      default:
        return state().huge.load(std::memory_order_relaxed);
    }
  }

  // How to treat a fresh span: its advice, and whether to time its first
  // touch (record_fault).
  struct span_advice {
    bool huge;
    bool sample;
  };
  static span_advice for_fresh_span() noexcept {
    if (!huge_page_advice_works()) return {false, false};
    const auto p = static_cast<huge_pages>(policy().load(std::memory_order_relaxed));
    if (p != huge_pages::automatic) return {p == huge_pages::always, false};
    state_t& s = state();
    if (s.huge.load(std::memory_order_relaxed)) return {true, true};
    const std::uint64_t n = s.small_spans.fetch_add(1, std::memory_order_relaxed) + 1;
    std::uint64_t due = s.next_resample.load(std::memory_order_relaxed);
    if (n < due) return {false, false};
    const std::uint64_t step = s.interval.load(std::memory_order_relaxed);
    if (!s.next_resample.compare_exchange_strong(due, n + step, std::memory_order_relaxed)) return {false, false};
    s.interval.store((std::min)(2 * step, max_resample_every), std::memory_order_relaxed);
    return {true, true};
  }

  // What to do with a fresh span once it is handed out (outside any lock):
  // time the first touch of a huge-advised span (sample), or fault all of
  // a small-advised one at once (populate: MADV_POPULATE_WRITE, one system
  // call instead of 512 faults, and the same memory as a huge page would
  // take at its first touch), or nothing (a span from the cache).
  struct first_touch {
    enum action_t : unsigned char { none, sample, populate } action = none;
    // Effects: the action on the fresh span [p, p + bytes).
    void run(void* p, std::size_t bytes) noexcept {
      if (action != none) act(p, bytes);
    }
    // Out of line, as the rest of this slow path: inlined into make_bin,
    // it changed how GCC compiled the create fast path around it.
    TRAVPOOL_COLD void act(void* p, std::size_t bytes) noexcept {
      if (action == sample) sample_first_touch(p);
      if (action == populate) populate_range(p, (std::min)(bytes, huge_page_bytes));
      action = none;
    }
  };
  // Returns: what to do with a fresh span given advice a (populate only
  // what the automatic policy advised small).
  static first_touch touch_for(span_advice a) noexcept {
    if (a.sample) return {first_touch::sample};
    const bool automatic = policy().load(std::memory_order_relaxed) == static_cast<int>(huge_pages::automatic);
    return {a.huge || !automatic ? first_touch::none : first_touch::populate};
  }

  // Returns: what to do with a block a container takes from its allocator
  // (allocator_spans): populate it (memory the container writes next; one
  // system call instead of a fault per page), unless advice a made it huge
  // (timed, or faulted whole at its first touch), or it is a user's
  // allocator's memory (users_memory: not std::allocator's) and the policy
  // is never, which leaves a user's arena to be written as elements
  // arrive. std::allocator's memory is populated under every policy.
  // (allocator_spans asks only for blocks of more than one granule.)
  static first_touch touch_for_allocator_memory(bool users_memory, span_advice a = {}) noexcept {
    if (a.sample) return {first_touch::sample};
    if (a.huge) return {first_touch::none};
    const bool never = policy().load(std::memory_order_relaxed) == static_cast<int>(huge_pages::never);
    return {users_memory && never ? first_touch::none : first_touch::populate};
  }

  // Effects: touches the first byte of fresh (zero, untouched) memory at p,
  // advised huge, and records how long the fault took.
  static void sample_first_touch(void* p) noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    *static_cast<volatile unsigned char*>(p) = 0;
    const auto t1 = std::chrono::steady_clock::now();
    record_fault(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
  }

  // Effects: adds a sample (ns to fault one huge page) and updates the
  // verdict (measuring the small-page cost first if it is unknown).
  static void record_fault(std::uint64_t ns) noexcept {
    state_t& s = state();
    const std::uint64_t k = s.count.fetch_add(1, std::memory_order_relaxed);
    s.samples[k % window].store(ns, std::memory_order_relaxed);
    std::uint64_t small = s.small_ns.load(std::memory_order_relaxed);
    if (small == 0) {
      small = measure_small_fault();
      s.small_ns.store(small, std::memory_order_relaxed);
    }
    std::uint64_t last[window];
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(k + 1, window));
    for (std::size_t i = 0; i < n; ++i) last[i] = s.samples[i].load(std::memory_order_relaxed);
    const bool huge = pay(last, n, small);
    if (huge) s.interval.store(resample_every, std::memory_order_relaxed);
    if (s.huge.exchange(huge, std::memory_order_relaxed) && !huge) {  // turned small: the next resample
      const std::uint64_t step = s.interval.load(std::memory_order_relaxed);
      s.next_resample.store(s.small_spans.load(std::memory_order_relaxed) + step, std::memory_order_relaxed);
      s.interval.store((std::min)(2 * step, max_resample_every), std::memory_order_relaxed);
    }
  }

  // Returns: ns to fault 2 MiB of fresh anonymous memory in small pages,
  // estimated from 4 groups of 32 pages (the cheapest group, times 2 MiB
  // over the group's bytes); 0 if no scratch memory could be mapped.
  static std::uint64_t measure_small_fault() noexcept {
    constexpr std::size_t group = 32, groups = 4;
    const std::size_t page = page_size(), bytes = group * groups * page;
    void* m;
    try {
      m = map_aligned(bytes, page);
    } catch (const std::bad_alloc&) {
      return 0;
    }
    advise_huge_pages(m, bytes, false);
    auto* c = static_cast<volatile unsigned char*>(m);
    std::uint64_t best = ~std::uint64_t{0};
    for (std::size_t g = 0; g < groups; ++g) {
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t i = 0; i < group; ++i) c[(g * group + i) * page] = 1;
      const auto t1 = std::chrono::steady_clock::now();
      best = std::min<std::uint64_t>(best, std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    }
    unmap(m, bytes);
    return std::max<std::uint64_t>(1, best * std::max<std::size_t>(1, huge_page_bytes / page / group));
  }

  // The measurements of the automatic policy (process-wide).
  struct state_t {
    std::atomic<bool> huge{true};
    std::atomic<std::uint64_t> small_ns{0};
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> small_spans{0};    // fresh spans seen while small
    std::atomic<std::uint64_t> next_resample{0};  // small_spans at the next resample
    std::atomic<std::uint64_t> interval{resample_every};
    std::atomic<std::uint64_t> samples[window] = {};
  };
  static state_t& state() noexcept {
    static state_t s;
    return s;
  }
};

}  // namespace travpool::detail
