// bench/standalone/alloc_ops_profile.cpp: create N objects, then destroy
// them in random order, one thread, each phase in its own noinline
// function, for callgrind/cachegrind: instructions, data accesses and
// simulated cache misses per create and per destroy (docs/threads.md,
// "Against general-purpose allocators").
//
//   g++ -std=c++20 -O3 -DNDEBUG -g -Iinclude bench/standalone/alloc_ops_profile.cpp -o /tmp/aop
//   valgrind --tool=callgrind --cache-sim=yes --D1=32768,8,64 --LL=33554432,16,64
//     /tmp/aop pool|concurrent_pool|new [N] [size 24|64]     (one command line)
//   (for mimalloc: LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2 with "new")
// bench/standalone/alloc_ops_profile.sh runs them all and prints the table.
// A fourth argument "time" prints the destroy phase's wall time per
// destroy in ns (bench/standalone/destroy_bound.sh).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <travpool/pool.hpp>

template <int W>
struct elem {
  std::uint64_t w[W];
  explicit elem(std::uint64_t v) noexcept {
    for (int i = 0; i < W; ++i) w[i] = v + static_cast<std::uint64_t>(i);
  }
};

// The wrappers are inlined into the phase loops whatever their callees'
// size, so that a row counts the contender's operation, not a call the
// harness added for some contenders and not others.
template <class T>
struct new_c {
  [[gnu::always_inline]] T* create(std::uint64_t v) { return new T(v); }
  [[gnu::always_inline]] void destroy(T* p) { delete p; }
};
template <class T, class Pool>
struct pool_c {
  Pool pool;
  [[gnu::always_inline]] T* create(std::uint64_t v) { return pool.create(v); }
  [[gnu::always_inline]] void destroy(T* p) { pool.destroy(p); }
};

template <class C, class T>
[[gnu::noinline]] void create_all(C& c, std::vector<T*>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = c.create(i);
}
template <class C, class T>
[[gnu::noinline]] void destroy_all(C& c, std::vector<T*>& v) {
  for (T* p : v) c.destroy(p);
}

bool timed = false;

template <int W, class C>
void run(C& c, std::size_t n) {
  using T = elem<W>;
  std::vector<T*> v(n);
  std::memset(static_cast<void*>(v.data()), 0, n * sizeof(T*));
  create_all(c, v);
  std::uint64_t s = 42;
  for (std::size_t i = n - 1; i > 0; --i) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    std::swap(v[i], v[(z ^ (z >> 31)) % (i + 1)]);
  }
  const auto t0 = std::chrono::steady_clock::now();
  destroy_all(c, v);
  const auto t1 = std::chrono::steady_clock::now();
  if (timed) std::printf("%.2f\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / double(n));
}

template <int W>
int go(const std::string& name, std::size_t n) {
  using T = elem<W>;
  if (name == "pool") {
    auto c = std::make_unique<pool_c<T, travpool::pool<T>>>();
    run<W>(*c, n);
  } else if (name == "concurrent_pool") {
    auto c = std::make_unique<pool_c<T, travpool::concurrent_pool<T>>>();
    run<W>(*c, n);
    std::printf("biased locks: %d\n", static_cast<int>(travpool::detail::biasing_enabled()));
  } else if (name == "new") {
    new_c<T> c;
    run<W>(c, n);
  } else {
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string name = argv[1];
  const std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2'000'000;
  const int size = argc > 3 ? std::atoi(argv[3]) : 24;
  timed = argc > 4 && std::string(argv[4]) == "time";
  return size == 64 ? go<8>(name, n) : go<3>(name, n);
}
