// bench/standalone/hive_ops_count.cpp: phases of a large travpool::hive,
// each a noinline function, for callgrind instruction counts (the hive's
// counterpart of bench/ops_count, which counts pool<T>'s): 2 M insertions
// of 24-B elements into a default hive, a range-for sweep, get_iterator of
// every element, erasing half at random (get_iterator, then erase), a
// sweep, 500 K insertions into the freed chunks; and 20,000 small hives of
// 10 elements, made and destroyed.
//   for t in OLD NEW; do g++ -std=c++20 -O3 -DNDEBUG -g -I$t/include \
//     bench/standalone/hive_ops_count.cpp -o /tmp/hoc_$t; done
//   valgrind --tool=callgrind --callgrind-out-file=cg.out /tmp/hoc_NEW
//   callgrind_annotate --inclusive=yes cg.out | grep phase_
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <travpool/hive.hpp>

struct Obj {
  std::uint64_t a, b, c;
};
using H = travpool::hive<Obj>;

[[gnu::noinline]] void phase_insert(H& h, std::vector<const Obj*>& v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) v.push_back(&*h.insert(Obj{i, i, i}));
}
[[gnu::noinline]] std::uint64_t phase_sweep(const H& h) {
  std::uint64_t s = 0;
  for (const Obj& o : h) s += o.a;
  return s;
}
[[gnu::noinline]] std::size_t phase_get_iterator(const H& h, const std::vector<const Obj*>& v) {
  std::size_t n = 0;
  for (const Obj* p : v) n += h.get_iterator(p) != h.end();
  return n;
}
[[gnu::noinline]] void phase_erase_half(H& h, std::vector<const Obj*>& v) {
  std::mt19937_64 rng(7);
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
  const std::size_t half = v.size() / 2;
  for (std::size_t i = 0; i < half; ++i) h.erase(h.get_iterator(v[i]));
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half));
}
[[gnu::noinline]] std::size_t phase_small_hives(std::size_t n) {
  std::vector<travpool::hive<int>> hives(n);
  std::size_t s = 0;
  for (auto& h : hives)
    for (int i = 0; i < 10; ++i) h.insert(i);
  for (auto& h : hives) s += h.size();
  return s;
}

int main() {
  H h;
  std::vector<const Obj*> v;
  v.reserve(2'500'000);
  phase_insert(h, v, 2'000'000);
  std::uint64_t s = phase_sweep(h);
  s += phase_get_iterator(h, v);
  phase_erase_half(h, v);
  s += phase_sweep(h);
  phase_insert(h, v, 500'000);
  s += phase_small_hives(20'000);
  std::printf("%llu\n", static_cast<unsigned long long>(s));
}
