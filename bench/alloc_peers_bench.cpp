// bench/alloc_peers_bench.cpp: concurrent churn of small objects against the
// allocators people use for it (issue 26): mimalloc, jemalloc, tbbmalloc and
// glibc malloc, each with a std::vector<T*> of the live objects for sweeps;
// plf::colony and boost::pool behind a std::mutex; travpool's pool<T> and
// concurrent_pool.
//
// A plain driver (not Google Benchmark): one process runs one contender at
// one element size and one thread count, and prints one JSON line. The
// script scripts/bench_alloc_peers.sh runs every configuration in its own
// child process, interleaved over rounds, and takes medians.
//
// How the allocators are loaded: the malloc contenders (mimalloc, jemalloc,
// tbbmalloc, glibc) all run the same code, `new T{...}` and `delete p`.
// For mimalloc, jemalloc and tbbmalloc the program re-executes itself with
// LD_PRELOAD set to the library (libmimalloc.so.2, libjemalloc.so.2,
// libtbbmalloc_proxy.so.2, each of which exports malloc, free and operator
// new/delete), as a user who links or preloads the allocator gets it; the
// whole child process then uses it (the pointer vectors and OpenMP's own
// allocations too). The child checks with dlsym/dladdr that `malloc`
// resolves to the expected library and aborts otherwise. No contender is
// loaded into another's process. travpool, colony and boost run on glibc
// malloc for everything that is not the contender.
//
// Phases, every contender the same, T threads (OpenMP, one parallel region
// per phase, thread t owns slice t of the work):
//   create    N objects; thread t creates N/T of them, storing each pointer
//             in its slice of a preallocated vector (the vector is touched
//             before the timing).
//   destroy   the N pointers shuffled (untimed, a fixed seed), then thread t
//             destroys slice t: random order, and with 2 threads half the
//             frees are of objects the other thread created.
//   recreate  N objects again, as in create, into the memory the allocator
//             kept from the first N (then all destroyed again, untimed):
//             create without the kernel's page faults, which on this VM
//             cost an erratic 50 to 300 ms per fresh process (docs/threads.md).
//   churn     each thread fills its live vector to N/(2T) (untimed: created
//             into the emptied container, or with --start=scattered N/T
//             created and a random half destroyed), then
//             makes N/T random operations: create (push_back) with
//             probability 1 - live/(2 * N/(2T)), else destroy a uniformly
//             random live object (swap with the last, pop): about N/2 live,
//             with creates and destroys mixed at random. The random
//             sequences are fixed per thread, so every contender makes the
//             same operations.
//   sweep1    after the churn, one thread reads every word of every live
//             object: travpool pool.for_each, colony range-for, the others
//             their pointer vectors (thread 0's, then thread 1's). Median
//             of 15 sweeps.
//   sweep2    the same with 2 OpenMP threads: travpool over
//             pool.partition(2), colony split at size()/2 with std::next,
//             the others one pointer vector per thread. Median of 15.
//   rss       peak resident set size of the process (getrusage), which
//             includes the pointer vectors (8 B per object, the same for
//             every contender).
// pool<T> is not thread-safe: with --threads=2 it makes the two threads'
// work on one thread, one operation of each in turn (the same operations),
// so its sweeps after "the same churn" can be compared with
// concurrent_pool's; its create/destroy/churn times at 2 threads are serial
// and are not reported as such.
//
// Usage: alloc_peers_bench --contender=NAME --size=24|64 --threads=1|2 [--n=N]
//                          [--start=compact|scattered]   (the churn's live half)
//   NAME: concurrent_pool pool mimalloc jemalloc tbbmalloc glibc colony boost_pool
#include <dlfcn.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <boost/pool/pool.hpp>
#include <travpool/pool.hpp>

#ifdef TRAVPOOL_BENCH_HAVE_COLONY
#include <plf_colony.h>
#endif

namespace {

template <int W>
struct elem {
  std::uint64_t w[W];
  explicit elem(std::uint64_t v) noexcept {
    for (int i = 0; i < W; ++i) w[i] = v + static_cast<std::uint64_t>(i);
  }
};
static_assert(sizeof(elem<3>) == 24 && sizeof(elem<8>) == 64);

template <int W>
inline std::uint64_t read_all(const elem<W>& e) noexcept {
  std::uint64_t s = 0;
  for (int i = 0; i < W; ++i) s += e.w[i];
  return s;
}

struct splitmix {
  std::uint64_t s;
  std::uint64_t operator()() noexcept {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// ---------------------------------------------------------------------------
// Contenders: create(v) -> T*, destroy(T*), and sweep1/sweep2 over the live
// objects (`live` holds each thread's live pointers).

template <class T>
struct malloc_c {  // mimalloc, jemalloc, tbbmalloc, glibc: which one is loaded
  static constexpr bool thread_safe = true;
  T* create(std::uint64_t v) { return new T(v); }
  void destroy(T* p) { delete p; }
  std::uint64_t sweep1(const std::vector<std::vector<T*>>& live) {
    std::uint64_t s = 0;
    for (const auto& l : live)
      for (const T* p : l) s += read_all(*p);
    return s;
  }
  std::uint64_t sweep2(const std::vector<std::vector<T*>>& live) {
    std::uint64_t s = 0;
    const int k = static_cast<int>(live.size());
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : s)
    for (int t = 0; t < k; ++t)
      for (const T* p : live[static_cast<std::size_t>(t)]) s += read_all(*p);
    return s;
  }
};

template <class T, class Pool, bool ThreadSafe>
struct travpool_c {
  static constexpr bool thread_safe = ThreadSafe;
  Pool pool;
  T* create(std::uint64_t v) { return pool.create(v); }
  void destroy(T* p) { pool.destroy(p); }
  std::size_t bins() const { return pool.bin_count(); }
  std::uint64_t sweep1(const std::vector<std::vector<T*>>&) {
    std::uint64_t s = 0;
    pool.for_each([&](const T& e) { s += read_all(e); });
    return s;
  }
  std::uint64_t sweep2(const std::vector<std::vector<T*>>&) {
    auto parts = pool.partition(2);
    std::uint64_t s = 0;
    const int k = static_cast<int>(parts.size());
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : s)
    for (int i = 0; i < k; ++i) {
      std::uint64_t local = 0;
      parts[static_cast<std::size_t>(i)].for_each([&](const T& e) { local += read_all(e); });
      s += local;
    }
    return s;
  }
};

#ifdef TRAVPOOL_BENCH_HAVE_COLONY
template <class T>
struct colony_c {
  static constexpr bool thread_safe = true;
  std::mutex m;
  plf::colony<T> c;
  T* create(std::uint64_t v) {
    std::lock_guard g(m);
    return &*c.emplace(v);
  }
  void destroy(T* p) {
    std::lock_guard g(m);
    c.erase(c.get_iterator(p));
  }
  std::uint64_t sweep1(const std::vector<std::vector<T*>>&) {
    std::uint64_t s = 0;
    for (const T& e : c) s += read_all(e);
    return s;
  }
  std::uint64_t sweep2(const std::vector<std::vector<T*>>&) {
    std::uint64_t s = 0;
    const auto mid = std::next(c.begin(), static_cast<std::ptrdiff_t>(c.size() / 2));
#pragma omp parallel num_threads(2) reduction(+ : s)
    {
      auto b = omp_get_thread_num() == 0 ? c.begin() : mid;
      auto e = omp_get_thread_num() == 0 ? mid : c.end();
      for (; b != e; ++b) s += read_all(*b);
    }
    return s;
  }
};
#endif

// boost::pool<> (the segregated storage boost::object_pool is built on) with
// its unordered free(): O(1). boost::object_pool's free() keeps the free
// list sorted (O(free chunks) per call), so random destroys of millions of
// objects are quadratic and do not finish; that is why it is not the
// contender here.
template <class T>
struct boost_pool_c {
  static constexpr bool thread_safe = true;
  std::mutex m;
  boost::pool<> p{sizeof(T)};
  T* create(std::uint64_t v) {
    void* q;
    {
      std::lock_guard g(m);
      q = p.malloc();
    }
    return ::new (q) T(v);
  }
  void destroy(T* q) {
    std::lock_guard g(m);
    p.free(q);
  }
  std::uint64_t sweep1(const std::vector<std::vector<T*>>& live) { return malloc_c<T>{}.sweep1(live); }
  std::uint64_t sweep2(const std::vector<std::vector<T*>>& live) { return malloc_c<T>{}.sweep2(live); }
};

// ---------------------------------------------------------------------------

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// Runs f(t) for t in [0, threads): on `threads` OpenMP threads, or for a
// contender that is not thread-safe on this thread, one step of each t in
// turn (f(t) returns false when thread t has no work left).
template <bool Parallel, class F>
void run_threads(int threads, F&& step_all) {
  if constexpr (Parallel) {
#pragma omp parallel num_threads(threads)
    step_all(omp_get_thread_num());
  } else {
    (void)threads;
    step_all(-1);
  }
}

// --start=scattered: the churn's live half starts scattered (run's fill).
bool scattered_start = false;

struct result {
  double create_ms = 0, destroy_ms = 0, recreate_ms = 0, churn_ms = 0, sweep1_ms = 0, sweep2_ms = 0;
  std::uint64_t check = 0;
  std::size_t bins = 0;  // travpool: bins after the churn
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T, class C>
result run(C& c, std::size_t n, int threads) {
  constexpr bool par = C::thread_safe;
  result r;
  const auto T_ = static_cast<std::size_t>(threads);
  const std::size_t per = n / T_;
  n = per * T_;
  std::vector<T*> ptrs(n);
  std::memset(static_cast<void*>(ptrs.data()), 0, n * sizeof(T*));

  // Effects: creates N into ptrs, thread t its slice (serially: one of
  // each slice in turn). Returns: the ms it took.
  const auto create_all = [&] {
    const auto t0 = clock_type::now();
    if constexpr (par) {
      run_threads<true>(threads, [&](int t) {
        const std::size_t b = static_cast<std::size_t>(t) * per;
        for (std::size_t i = b; i < b + per; ++i) ptrs[i] = c.create(i);
      });
    } else {
      for (std::size_t i = 0; i < per; ++i)
        for (std::size_t t = 0; t < T_; ++t) ptrs[t * per + i] = c.create(t * per + i);
    }
    return ms_since(t0);
  };

  // create
  r.create_ms = create_all();

  // destroy, random order
  splitmix shuffle{42};
  for (std::size_t i = n - 1; i > 0; --i) std::swap(ptrs[i], ptrs[shuffle() % (i + 1)]);
  auto t0 = clock_type::now();
  if constexpr (par) {
    run_threads<true>(threads, [&](int t) {
      const std::size_t b = static_cast<std::size_t>(t) * per;
      for (std::size_t i = b; i < b + per; ++i) c.destroy(ptrs[i]);
    });
  } else {
    for (std::size_t i = 0; i < per; ++i)
      for (std::size_t t = 0; t < T_; ++t) c.destroy(ptrs[t * per + i]);
  }
  r.destroy_ms = ms_since(t0);

  // create again, into memory the allocator already holds
  r.recreate_ms = create_all();
  for (std::size_t i = n - 1; i > 0; --i) std::swap(ptrs[i], ptrs[shuffle() % (i + 1)]);
  for (T* p : ptrs) c.destroy(p);  // untimed, one thread
  std::vector<T*>().swap(ptrs);

  // churn
  const std::size_t target = per / 2;
  std::vector<std::vector<T*>> live(T_);
  std::vector<splitmix> rng(T_);
  for (std::size_t t = 0; t < T_; ++t) {
    live[t].reserve(per + per / 4);
    rng[t] = splitmix{1000 + t};
  }
  // The live half at the start: compact (the default), created into the
  // emptied container; scattered (--start=scattered), 2 * target created
  // and a random half of them destroyed (a fixed seed), so that it lies
  // over twice its size. Untimed.
  auto fill = [&](std::size_t t) {
    if (!scattered_start) {
      for (std::size_t i = 0; i < target; ++i) live[t].push_back(c.create(t * per + i));
      return;
    }
    std::vector<T*> all;
    all.reserve(2 * target);
    for (std::size_t i = 0; i < 2 * target; ++i) all.push_back(c.create(t * per + i));
    splitmix g{2000 + t};
    for (std::size_t i = all.size() - 1; i > 0; --i) std::swap(all[i], all[g() % (i + 1)]);
    for (std::size_t i = target; i < all.size(); ++i) c.destroy(all[i]);
    live[t].assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(target));
  };
  const auto step = [&](std::vector<T*>& l, splitmix& g) {
    const std::uint64_t x = g();
    const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
    const double p_create = 1.0 - static_cast<double>(l.size()) / static_cast<double>(2 * target);
    if (u < p_create || l.empty()) {
      l.push_back(c.create(x));
    } else {
      const std::size_t j = g() % l.size();
      c.destroy(l[j]);
      l[j] = l.back();
      l.pop_back();
    }
  };
  if constexpr (par) {
    run_threads<true>(threads, [&](int t) { fill(static_cast<std::size_t>(t)); });
    t0 = clock_type::now();
    // Each thread churns a vector and a generator on its own stack: live[0]
    // and live[1]'s headers (and rng[0], rng[1]) share a cache line, which
    // every push_back, pop_back and draw would pass between the cores (for
    // every contender; it made the 2-thread churn slower than 1 thread's).
    run_threads<true>(threads, [&](int t) {
      const auto i = static_cast<std::size_t>(t);
      std::vector<T*> l = std::move(live[i]);
      splitmix g = rng[i];
      for (std::size_t k = 0; k < per; ++k) step(l, g);
      live[i] = std::move(l);
    });
  } else {
    for (std::size_t t = 0; t < T_; ++t) fill(t);
    t0 = clock_type::now();
    for (std::size_t k = 0; k < per; ++k)
      for (std::size_t t = 0; t < T_; ++t) step(live[t], rng[t]);
  }
  r.churn_ms = ms_since(t0);
  if constexpr (requires { c.bins(); }) r.bins = c.bins();

  // sweeps
  std::vector<double> s1, s2;
  std::uint64_t c1 = 0, c2 = 0;
  for (int k = 0; k < 15; ++k) {
    t0 = clock_type::now();
    c1 = c.sweep1(live);
    s1.push_back(ms_since(t0));
    t0 = clock_type::now();
    c2 = c.sweep2(live);
    s2.push_back(ms_since(t0));
  }
  if (c1 != c2) {
    std::fprintf(stderr, "sweep checksums differ: %llu %llu\n", static_cast<unsigned long long>(c1),
                 static_cast<unsigned long long>(c2));
    std::abort();
  }
  r.sweep1_ms = median(s1);
  r.sweep2_ms = median(s2);
  r.check = c1;
  // Teardown, untimed: every live object destroyed.
  for (auto& l : live)
    for (T* p : l) c.destroy(p);
  return r;
}

const char* preload_for(const std::string& name) {
  if (name == "mimalloc") return "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2";
  if (name == "jemalloc") return "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  if (name == "tbbmalloc") return "/usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2";
  return nullptr;
}

// The file name of the library `malloc` resolves to in this process.
std::string malloc_library() {
  void* f = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info info{};
  if (f == nullptr || dladdr(f, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

template <int W>
result dispatch(const std::string& name, std::size_t n, int threads, bool& ok) {
  using T = elem<W>;
  ok = true;
  if (name == "concurrent_pool") {
    auto c = std::make_unique<travpool_c<T, travpool::concurrent_pool<T>, true>>();
    return run<T>(*c, n, threads);
  }
  if (name == "pool") {
    auto c = std::make_unique<travpool_c<T, travpool::pool<T>, false>>();
    return run<T>(*c, n, threads);
  }
  if (name == "mimalloc" || name == "jemalloc" || name == "tbbmalloc" || name == "glibc") {
    malloc_c<T> c;
    return run<T>(c, n, threads);
  }
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
  if (name == "colony") {
    auto c = std::make_unique<colony_c<T>>();
    return run<T>(*c, n, threads);
  }
#endif
  if (name == "boost_pool") {
    auto c = std::make_unique<boost_pool_c<T>>();
    return run<T>(*c, n, threads);
  }
  ok = false;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::string name;
  std::size_t size = 24;
  std::size_t n = 0;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--contender=", 0) == 0)
      name = a.substr(12);
    else if (a.rfind("--size=", 0) == 0)
      size = std::stoull(a.substr(7));
    else if (a.rfind("--threads=", 0) == 0)
      threads = std::stoi(a.substr(10));
    else if (a.rfind("--n=", 0) == 0)
      n = std::stoull(a.substr(4));
    else if (a == "--start=scattered" || a == "--start=compact")
      scattered_start = a == "--start=scattered";
    else {
      std::fprintf(stderr, "usage: %s --contender=NAME --size=24|64 --threads=T [--n=N] [--start=compact|scattered]\n",
                   argv[0]);
      return 2;
    }
  }
  if (n == 0) n = size == 64 ? 2'000'000 : 5'000'000;
  if (threads < 1 || (size != 24 && size != 64)) {
    std::fprintf(stderr, "bad --size or --threads\n");
    return 2;
  }
  // The malloc contenders: re-execute with the library preloaded.
  if (const char* lib = preload_for(name)) {
    const char* pre = std::getenv("LD_PRELOAD");
    if (pre == nullptr || std::strcmp(pre, lib) != 0) {
      setenv("LD_PRELOAD", lib, 1);
      execv("/proc/self/exe", argv);
      std::perror("execv");
      return 1;
    }
  } else if (std::getenv("LD_PRELOAD") != nullptr && *std::getenv("LD_PRELOAD") != '\0') {
    std::fprintf(stderr, "%s must run without LD_PRELOAD\n", name.c_str());
    return 1;
  }
  const std::string lib = malloc_library();
  const char* want = preload_for(name);
  if (want != nullptr && lib != want) {
    std::fprintf(stderr, "malloc resolves to %s, not %s\n", lib.c_str(), want);
    return 1;
  }
  bool ok = false;
  const result r = size == 24 ? dispatch<3>(name, n, threads, ok) : dispatch<8>(name, n, threads, ok);
  if (!ok) {
    std::fprintf(stderr, "unknown contender %s\n", name.c_str());
    return 2;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "{\"contender\": \"%s\", \"size\": %zu, \"threads\": %d, \"n\": %zu, \"create_ms\": %.3f, "
      "\"destroy_ms\": %.3f, \"recreate_ms\": %.3f, \"churn_ms\": %.3f, \"sweep1_ms\": %.3f, \"sweep2_ms\": %.3f, "
      "\"rss_mb\": %.1f, \"bins\": %zu, \"check\": %llu, \"malloc\": \"%s\", \"start\": \"%s\"}\n",
      name.c_str(), size, threads, n, r.create_ms, r.destroy_ms, r.recreate_ms, r.churn_ms, r.sweep1_ms, r.sweep2_ms,
      static_cast<double>(ru.ru_maxrss) / 1024.0, r.bins, static_cast<unsigned long long>(r.check), lib.c_str(),
      scattered_start ? "scattered" : "compact");
  return 0;
}
