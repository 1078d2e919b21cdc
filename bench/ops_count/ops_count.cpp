// bench/ops_count/ops_count.cpp: a fixed amount of pool work for instruction
// counts under callgrind (repeatable where wall-clock time on a shared
// machine is not). Each phase is its own noinline function, so callgrind
// reports it by name: create 2 M, sweep (for_each, range-for), destroy half
// at random, sweep again, create 0.5 M, destroy all. -DINTERLEAVED selects
// layout::interleaved. Without it, a column_pool with two columns does the
// same creates and destroys (phase_column_*; phases.py counts these with
// their callees, as the column pool's create and destroy are not inlined).
// -DTYPED_HANDLES makes that pool typed (basic_column_pool<handle<Tag>>),
// to show that strong handles cost no instruction. The same build runs the
// pool's phases on a concurrent_pool (sync::bin_locks, one thread: the
// remembered bin's biased section; phases.py counts these with their
// callees too, as the lock's slow paths are calls).
// Built and compared by bench/ops_count/compare.sh, not by CMake.
#include <cstdint>
#include <cstdio>
#include <random>
#include <travpool/column_pool.hpp>
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
template <class C>
[[gnu::noinline]] void phase_column_create(C& c, std::vector<typename C::handle>& v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) v.push_back(c.create());
}
template <class C>
[[gnu::noinline]] void phase_column_destroy_half(C& c, std::vector<typename C::handle>& v) {
  std::mt19937_64 g(1);
  std::vector<typename C::handle> keep;
  for (auto h : v)
    if (g() & 1)
      c.destroy(h);
    else
      keep.push_back(h);
  v.swap(keep);
}
template <class C>
[[gnu::noinline]] void phase_column_destroy_all(C& c, std::vector<typename C::handle>& v) {
  for (auto h : v) c.destroy(h);
  v.clear();
}
template <class C>
void run_columns(const char* name) {
  C c;
  c.template add_column<Obj>("obj");
  c.template add_column<float>("weight", 1.0f);
  std::vector<typename C::handle> v;
  v.reserve(2'000'000);
  phase_column_create(c, v, 2'000'000);
  phase_column_destroy_half(c, v);
  phase_column_create(c, v, 500'000);
  const std::size_t live = c.size();
  phase_column_destroy_all(c, v);
  std::printf("%s %zu\n", name, live);
}
int main() {
#ifdef INTERLEAVED
  run<travpool::basic_pool<Obj, travpool::layout::interleaved>>("interleaved");
#else
  run<travpool::pool<Obj>>("compact");
  run<travpool::concurrent_pool<Obj>>("concurrent_pool");
#ifdef TYPED_HANDLES
  run_columns<travpool::basic_column_pool<travpool::handle<struct column_tag>>>("typed column_pool");
#else
  run_columns<travpool::column_pool>("column_pool");
#endif
#endif
}
