// bench/common/bench_common.hpp: shared pieces of the paper benchmarks
// (Figure 11, Tables 2 and 3, erasure, gap patterns).
//
// * element: the paper's 24-byte {uint64 x, y, z}.
// * Contender adapters: one struct per container, all with the same static
//   interface (make, add, erase, for_each_handle_drop, after_release), so
//   that every benchmark runs every contender through the same code.
// * Command line: every program accepts --n=N (elements, default below) and
//   --reps=R (repetitions) before Google Benchmark's own flags.
// * Deterministic randomness (splitmix64, fixed seeds): every contender sees
//   the same permutation and the same gap pattern.
#pragma once

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <list>
#include <memory>
#include <numeric>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/pool/object_pool.hpp>
#include <boost/pool/pool_alloc.hpp>

#include "huge_page_allocator.hpp"
#include "travpool/pool.hpp"

#ifdef TRAVPOOL_BENCH_HAVE_COLONY
#include <plf_colony.h>
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
#include <CGAL/Compact_container.h>
#endif

namespace travpool_bench {

// The paper's element (section 6): three 64-bit unsigned integers.
struct element {
  std::uint64_t x, y, z;
};
static_assert(sizeof(element) == 24);

inline element make_element(std::uint64_t i) noexcept { return element{i, 2 * i, 3 * i}; }

#ifdef TRAVPOOL_BENCH_HAVE_CGAL
// CGAL::Compact_container keeps its free/used state in a pointer inside the
// element, reached through the for_compact_container() pair. The 24-byte
// payload is wrapped with that pointer, so CGAL's element is 32 bytes.
struct cgal_element {
  std::uint64_t x, y, z;
  void* cc_ptr = nullptr;  // must be null (low bits 00 = used) after construction

  explicit cgal_element(std::uint64_t i) noexcept : x(i), y(2 * i), z(3 * i) {}
  void* for_compact_container() const noexcept { return cc_ptr; }
  void for_compact_container(void* p) noexcept { cc_ptr = p; }
};
static_assert(sizeof(cgal_element) == 32);
#endif

// ---------------------------------------------------------------------------
// Command line and run configuration

struct config {
  std::size_t n = 0;  // elements per container
  int reps = 5;       // repetitions of every benchmark
};

inline config& cfg() {
  static config c;
  return c;
}

// Parses and removes --n=N and --reps=R from argv, then hands the rest to
// Google Benchmark. Also fixes glibc's mmap threshold at its default
// (128 KiB): otherwise freeing a large block raises the threshold, and later
// repetitions would take big blocks from the heap instead of fresh mappings,
// so repetition 1 and repetition 2 would measure different allocators.
inline void init(int& argc, char** argv, std::size_t default_n) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  cfg().n = default_n;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--n=", 4) == 0)
      cfg().n = std::strtoull(argv[i] + 4, nullptr, 10);
    else if (std::strncmp(argv[i], "--reps=", 7) == 0)
      cfg().reps = std::atoi(argv[i] + 7);
    else
      argv[out++] = argv[i];
  }
  argc = out;
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("elements", std::to_string(cfg().n));
  benchmark::AddCustomContext("repetitions", std::to_string(cfg().reps));
}

// ---------------------------------------------------------------------------
// Randomness and timing

inline std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__extension__ typedef unsigned __int128 u128;

struct rng {
  std::uint64_t state;
  std::uint64_t operator()() noexcept { return splitmix64(state++); }
  std::uint64_t below(std::uint64_t n) noexcept {  // Lemire's multiply-shift
    return static_cast<std::uint64_t>((static_cast<u128>((*this)()) * n) >> 64);
  }
};

// A fixed-seed random permutation of 0 .. n-1 (Fisher-Yates).
inline std::vector<std::uint32_t> random_permutation(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(i);
  rng r{seed};
  for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[r.below(i)]);
  return p;
}

// Which elements a gap pattern erases. The k-th element in creation order
// belongs to run k / run_length; each run is erased with probability
// `fraction`, decided by a hash of the run number, so every container loses
// the same elements. run_length 1 is the paper's random erasure.
struct gap_pattern {
  double fraction = 0;
  std::size_t run_length = 1;

  bool erases(std::size_t k) const noexcept {
    if (fraction <= 0) return false;
    const std::uint64_t h = splitmix64(0x5eed'0000ull ^ (k / run_length));
    return static_cast<double>(h >> 11) * 0x1.0p-53 < fraction;
  }
  std::string name() const {
    if (fraction <= 0) return "dense";
    std::string s = std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "%";
    return run_length == 1 ? s + "random" : s + "runs" + std::to_string(run_length);
  }
};

using clock = std::chrono::steady_clock;
inline double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

// ---------------------------------------------------------------------------
// Contender adapters
//
//   name                      display name (no '/', used in benchmark names)
//   container, handle         the container and what `add` returns
//   make(n)                   an empty container (vectors of pointers are
//                             reserved for n: that part is not the contender)
//   add(c, i)                 creates element i, returns its handle
//   erase(c, h)               destroys the element of handle h
//   drop(c, h)                frees an element the container does not own
//                             (only `new`); no-op otherwise
//   after_release()           run after the container is destroyed

struct no_after_release {
  static void after_release() noexcept {}
};

template <class Layout>
constexpr const char* layout_name() {
  if constexpr (std::is_same_v<Layout, travpool::layout::interleaved>)
    return "interleaved";
  else if constexpr (std::is_same_v<Layout, travpool::layout::compact>)
    return "compact";
  else
    return "other";
}

// after_release empties travpool's span cache, so that every repetition
// starts from fresh memory, as std::vector's (glibc maps and unmaps blocks
// that large) and colony's do.
template <class Layout>
struct pool_adapter {
  static void after_release() noexcept { travpool::trim_span_cache(); }
  using container = travpool::basic_pool<element, Layout>;
  using handle = element*;
  static std::string name() { return std::string("travpool<") + layout_name<Layout>() + ">"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static std::unique_ptr<container> make_with_bin(std::uint32_t chunks) {
    return std::make_unique<container>(travpool::bin_capacity{chunks});
  }
  static handle add(container& c, std::uint64_t i) { return c.create(i, 2 * i, 3 * i); }
  static void erase(container& c, handle h) { c.destroy(h); }
  static void drop(container&, handle) noexcept {}
};

struct vector_adapter : no_after_release {
  using container = std::vector<element>;
  using handle = std::size_t;
  static std::string name() { return "std::vector"; }
  static std::unique_ptr<container> make(std::size_t n) {
    auto c = std::make_unique<container>();
    c->reserve(n);
    return c;
  }
  static handle add(container& c, std::uint64_t i) {
    c.push_back(make_element(i));
    return c.size() - 1;
  }
};

// huge_page_allocator (huge_page_allocator.hpp): std::vector on 2 MiB pages.
using travpool::bench::huge_page_allocator;

struct vector_huge_adapter : no_after_release {
  using container = std::vector<element, huge_page_allocator<element>>;
  using handle = std::size_t;
  static std::string name() { return "std::vector(huge_pages)"; }
  static std::unique_ptr<container> make(std::size_t n) {
    auto c = std::make_unique<container>();
    c->reserve(n);
    return c;
  }
  static handle add(container& c, std::uint64_t i) {
    c.push_back(make_element(i));
    return c.size() - 1;
  }
};

struct list_adapter : no_after_release {
  using container = std::list<element>;
  using handle = container::iterator;
  static std::string name() { return "std::list"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) { return c.insert(c.end(), make_element(i)); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void drop(container&, handle) noexcept {}
};

// `new` for every element; the pointers are kept in a vector reserved outside
// the timed region (a program must keep them somewhere to delete them).
struct new_adapter : no_after_release {
  struct container {
    std::vector<element*> ptrs;
    std::size_t live = 0;
    ~container() {
      if (live == ptrs.size())
        for (element* p : ptrs) delete p;
    }
  };
  using handle = element*;
  static std::string name() { return "new"; }
  static std::unique_ptr<container> make(std::size_t n) {
    auto c = std::make_unique<container>();
    c->ptrs.reserve(n);
    return c;
  }
  static handle add(container& c, std::uint64_t i) {
    auto* p = new element(make_element(i));
    c.ptrs.push_back(p);
    ++c.live;
    return p;
  }
  static void erase(container& c, handle h) {
    delete h;
    --c.live;
  }
  static void drop(container& c, handle h) { erase(c, h); }
};

// boost::object_pool: malloc + placement new is exactly its construct().
struct boost_pool_adapter : no_after_release {
  using container = boost::object_pool<element>;
  using handle = element*;
  static std::string name() { return "boost::object_pool"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) {
    element* p = c.malloc();
    return ::new (p) element(make_element(i));
  }
};

// boost::object_pool plus the std::vector<T*> that makes it traversable (not
// reserved: it grows as a program that does not know N would grow it).
struct boost_pool_vector_adapter : no_after_release {
  struct container {
    boost::object_pool<element> pool;
    std::vector<element*> ptrs;
  };
  using handle = element*;
  static std::string name() { return "boost::object_pool+vector<T*>"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) {
    element* p = ::new (c.pool.malloc()) element(make_element(i));
    c.ptrs.push_back(p);
    return p;
  }
};

// std::list on boost::fast_pool_allocator (a process-wide singleton pool that
// never returns memory by itself: after_release purges it so that every
// repetition starts from the same state).
struct fast_pool_list_adapter {
  using container = std::list<element, boost::fast_pool_allocator<element>>;
  using handle = container::iterator;
  static std::string name() { return "std::list<fast_pool_allocator>"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) { return c.insert(c.end(), make_element(i)); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void drop(container&, handle) noexcept {}
  static void after_release() {
#ifdef __GLIBCXX__
    boost::singleton_pool<boost::fast_pool_allocator_tag, sizeof(std::_List_node<element>)>::purge_memory();
#endif
  }
};

#ifdef TRAVPOOL_BENCH_HAVE_COLONY
struct colony_adapter : no_after_release {
  using container = plf::colony<element>;
  using handle = container::iterator;
  static std::string name() { return "plf::colony"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) { return c.insert(make_element(i)); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void drop(container&, handle) noexcept {}
};
#endif

#ifdef TRAVPOOL_BENCH_HAVE_CGAL
struct cgal_adapter : no_after_release {
  using container = CGAL::Compact_container<cgal_element>;
  using handle = container::iterator;
  static std::string name() { return "CGAL::Compact_container"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) { return c.emplace(i); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void drop(container&, handle) noexcept {}
};
#endif

// std::vector + deleted flag: what a program writes to keep indices stable
// without a pool. Every element keeps its slot, with a `bool deleted` beside
// it in one struct (32-byte slots for the 24-byte element); erasing sets the
// flag, sweeping visits every slot and tests it (style_flag_range_for). The
// vector is reserved for n. Handles are slot indices (creation order).
struct flagged_vector_adapter : no_after_release {
  struct slot {
    element value;
    bool deleted = false;
  };
  struct container {
    std::vector<slot> slots;
    std::size_t live = 0;
    std::size_t size() const noexcept { return live; }
  };
  using handle = std::size_t;
  static std::string name() { return "std::vector+flag"; }
  static std::unique_ptr<container> make(std::size_t n) {
    auto c = std::make_unique<container>();
    c->slots.reserve(n);
    return c;
  }
  static handle add(container& c, std::uint64_t i) {
    c.slots.push_back(slot{make_element(i)});
    ++c.live;
    return c.slots.size() - 1;
  }
  static void erase(container& c, handle h) {
    c.slots[h].deleted = true;
    --c.live;
  }
  static void drop(container&, handle) noexcept {}
};
static_assert(sizeof(flagged_vector_adapter::slot) == 32);

// travpool::concurrent_pool<element> (compact layout, a lock per bin), built
// and swept by one thread.
struct concurrent_pool_adapter {
  static void after_release() noexcept { travpool::trim_span_cache(); }
  using container = travpool::concurrent_pool<element>;
  using handle = element*;
  static std::string name() { return "travpool::concurrent_pool"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static handle add(container& c, std::uint64_t i) { return c.create(i, 2 * i, 3 * i); }
  static void erase(container& c, handle h) { c.destroy(h); }
  static void drop(container&, handle) noexcept {}
};

// Calls f(Adapter{}) once for every contender of travpool: one per layout.
template <class F>
void for_each_pool_layout(F&& f) {
  f(pool_adapter<travpool::layout::interleaved>{});
  f(pool_adapter<travpool::layout::compact>{});
}

// ---------------------------------------------------------------------------
// Sweeps: the ways a program visits every live element.

// segments(): the live elements in blocks of one bitmap word (a range of T&,
// and a std::span<T> when contiguous()), provided by layouts whose chunks
// are arrays of T.
template <class P>
concept has_segments = requires(P& p) {
  { p.segments() } -> std::ranges::range;
};

struct style_range_for {
  static constexpr const char* name = "range_for";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    for (auto& e : c) f(e);
  }
};
struct style_const_range_for {
  static constexpr const char* name = "const_range_for";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    for (const auto& e : std::as_const(c)) f(e);
  }
  static constexpr bool read_only = true;
};
struct style_ranges_for_each {
  static constexpr const char* name = "ranges_for_each";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    std::ranges::for_each(c, f);
  }
};
// std::transform_reduce over begin()/end() (the std::reduce family, the
// sum's terms as its projection): what generic numeric code writes. Runs
// the sum kernel only (it reduces, so it cannot run Listing 15).
struct style_transform_reduce {
  static constexpr const char* name = "transform_reduce";
  static constexpr bool reduces = true;
  template <class C, class Term>
  static std::uint64_t reduce(const C& c, Term term) {
    return std::transform_reduce(c.begin(), c.end(), std::uint64_t{0}, std::plus<>{}, term);
  }
  static constexpr bool read_only = true;
};
struct style_for_each {
  static constexpr const char* name = "for_each";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    c.for_each(f);
  }
};
struct style_segments {
  static constexpr const char* name = "segments";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    if constexpr (has_segments<C>) {
      for (auto&& s : c.segments())
        for (auto& e : s) f(e);
    }
  }
};
// segments(), with a plain array loop over the segments that are one run.
struct style_segments_span {
  static constexpr const char* name = "segments_span";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    if constexpr (has_segments<C>) {
      for (auto&& s : c.segments()) {
        if (s.contiguous())
          for (auto& e : s.span()) f(e);
        else
          for (auto& e : s) f(e);
      }
    }
  }
};

// The range-for of std::vector + deleted flag (flagged_vector_adapter): every
// slot, skipping the deleted ones, as a program writes it.
struct style_flag_range_for {
  static constexpr const char* name = "range_for";
  template <class C, class F>
  static void sweep(C& c, F&& f) {
    for (auto& s : c.slots)
      if (!s.deleted) f(s.value);
  }
};

// The memory-bound kernel: the sum of all fields, used after the sweep.
struct kernel_sum {
  static constexpr const char* name = "sum";
  template <class Style, class C>
  [[gnu::noinline]] static void run(C& c, std::uint64_t /*sweep*/) {
    std::uint64_t s = 0;
    if constexpr (requires { Style::reduces; })
      s = Style::reduce(c, [](const auto& e) -> std::uint64_t { return e.x + e.y + e.z; });
    else
      Style::sweep(c, [&s](const auto& e) { s += e.x + e.y + e.z; });
    benchmark::DoNotOptimize(s);
  }
};

// The paper's Listing 15: 20 random values 0..9 drawn once per sweep, then
// for every element x += r, y += 2r, z += 4r for each of the 20 values. The
// empty asm keeps each value opaque, so GCC cannot fold the 20 additions
// into one per field (that would turn the kernel into a plain
// read-modify-write sweep, and the result would depend on how well the
// optimiser sees through each container's loop).
struct kernel_listing15 {
  static constexpr const char* name = "listing15";
  template <class Style, class C>
  [[gnu::noinline]] static void run(C& c, std::uint64_t sweep) {
    std::array<std::uint64_t, 20> r;
    rng g{0x15'0000ull + sweep};
    for (auto& v : r) v = g.below(10);
    Style::sweep(c, [&r](auto& e) {
      for (std::uint64_t v : r) {
        asm volatile("" : "+r"(v));
        e.x += v;
        e.y += 2 * v;
        e.z += 4 * v;
      }
    });
    benchmark::ClobberMemory();
  }
};

// Wall and thread-CPU time of one timed region. On a shared machine the
// thread's CPU time (user + system, page faults included) is the steadier
// estimate; both are recorded.
struct region_timer {
  clock::time_point wall0 = clock::now();
  double cpu0 = thread_cpu();
  static double thread_cpu() noexcept {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  double wall() const { return seconds_since(wall0); }
  double cpu() const { return thread_cpu() - cpu0; }
};

// ---------------------------------------------------------------------------
// One prepared container at a time, shared by consecutive benchmarks with the
// same key (sweep styles and kernels reuse the setup; the previous container
// is freed before the next is built, so only one is resident).

struct prepared_slot {
  std::string key;
  std::shared_ptr<void> obj;
  std::size_t live = 0;
};

inline prepared_slot& slot() {
  static prepared_slot s;
  return s;
}

inline void release_prepared() {
  slot().obj.reset();
  slot().key.clear();
}

// Returns the container built by build() -> unique_ptr<C> (with its live
// count from live_of), rebuilding only when the key changes.
template <class C, class Build, class Live>
C& prepared(const std::string& key, Build&& build, Live&& live_of) {
  auto& s = slot();
  if (s.key != key || !s.obj) {
    release_prepared();
    std::unique_ptr<C> c = build();
    s.live = live_of(*c);
    s.obj = std::shared_ptr<C>(std::move(c));
    s.key = key;
  }
  return *static_cast<C*>(s.obj.get());
}

// Builds an Adapter container of n elements in creation order, then applies
// gap pattern g by walking it in iteration order (which is creation order
// for every container here right after creation), or, for adapters whose
// handles are indices, by erasing index k for every erased k.
template <class Adapter>
std::unique_ptr<typename Adapter::container> build_with_gaps(std::size_t n, const gap_pattern& g) {
  auto c = Adapter::make(n);
  for (std::size_t i = 0; i < n; ++i) Adapter::add(*c, i);
  if constexpr (std::is_same_v<typename Adapter::handle, std::size_t> &&
                requires(typename Adapter::container & cc) { Adapter::erase(cc, std::size_t{0}); }) {
    // Index handles (std::vector + flag): handle k is the k-th created.
    for (std::size_t k = 0; k < n; ++k)
      if (g.erases(k)) Adapter::erase(*c, k);
  } else if (g.fraction > 0) {
    std::size_t k = 0;
    for (auto it = c->begin(); it != c->end(); ++k) {
      if (!g.erases(k)) {
        ++it;
      } else if constexpr (requires { it = c->erase(it); }) {
        it = c->erase(it);  // travpool, colony
      } else {
        auto next = std::next(it);  // CGAL: erase invalidates only `it`
        c->erase(it);
        it = next;
      }
    }
  }
  return c;
}

}  // namespace travpool_bench
