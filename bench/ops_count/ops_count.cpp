// bench/ops_count/ops_count.cpp: a fixed amount of pool work for instruction
// counts under callgrind (repeatable where wall-clock time on a shared
// machine is not). Each phase is its own noinline function, so callgrind
// reports it by name: create 2 M, sweep (for_each, range-for), destroy half
// at random, sweep again, create 0.5 M, destroy all. -DINTERLEAVED selects
// layout::interleaved. Built and compared by bench/ops_count/compare.sh,
// not by CMake.
#include <cstdint>
#include <cstdio>
#include <random>
#include <travpool/pool.hpp>
#include <vector>
struct Obj {
  std::uint64_t x, y, z;
};
template <class P>
[[gnu::noinline]] void phase_create(P& p, std::vector<Obj*>& v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) v.push_back(p.create(Obj{i, i, i}));
}
template <class P>
[[gnu::noinline]] std::uint64_t phase_for_each(P& p) {
  std::uint64_t s = 0;
  p.for_each([&](const Obj& o) { s += o.x + o.y + o.z; });
  return s;
}
template <class P>
[[gnu::noinline]] std::uint64_t phase_range_for(P& p) {
  std::uint64_t s = 0;
  for (const Obj& o : p) s += o.x + o.y + o.z;
  return s;
}
template <class P>
[[gnu::noinline]] void phase_destroy_half(P& p, std::vector<Obj*>& v) {
  std::mt19937_64 g(1);
  std::vector<Obj*> keep;
  for (Obj* o : v)
    if (g() & 1)
      p.destroy(o);
    else
      keep.push_back(o);
  v.swap(keep);
}
template <class P>
[[gnu::noinline]] void phase_destroy_all(P& p, std::vector<Obj*>& v) {
  for (Obj* o : v) p.destroy(o);
  v.clear();
}
template <class P>
void run(const char* name) {
  P p;
  std::vector<Obj*> v;
  v.reserve(2'000'000);
  phase_create(p, v, 2'000'000);
  std::uint64_t s = phase_for_each(p) + phase_range_for(p);
  phase_destroy_half(p, v);
  s += phase_for_each(p) + phase_range_for(p);
  phase_create(p, v, 500'000);
  phase_destroy_all(p, v);
  std::printf("%s %llu\n", name, (unsigned long long)s);
}
int main() {
#ifdef INTERLEAVED
  run<travpool::basic_pool<Obj, travpool::layout::interleaved>>("interleaved");
#else
  run<travpool::pool<Obj>>("compact");
#endif
}
