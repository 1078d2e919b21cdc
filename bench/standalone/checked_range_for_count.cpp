// bench/standalone/checked_range_for_count.cpp: instructions per element of
// a range-for (the sum of a 24-B element's fields) over pool<T> and
// concurrent_pool under checks::off, hardened and on: 1 M created, every
// tenth destroyed, three sweeps of the 900,000 left, counted by callgrind
// (deterministic) in the sweep function only. docs/api.md ("Checks")
// quotes it.
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/checked_range_for_count.cpp -o /tmp/crf
//   for a in poff ph pon coff ch con; do
//     valgrind --tool=callgrind --toggle-collect='*sweep*' --callgrind-out-file=/tmp/crf.$a /tmp/crf $a >/dev/null 2>&1
//     echo "$a $(awk '/^summary:/ {printf "%.1f", $2 / 2700000}' /tmp/crf.$a)"; done
#include <cstdint>
#include <cstdio>
#include <string>

#include <travpool/pool.hpp>

namespace {

struct element {
  std::uint64_t x, y, z;
};

template <class Pool>
[[gnu::noinline]] std::uint64_t sweep(Pool& pool) {
  std::uint64_t b = 0;
  for (const element& e : pool) b += e.x + e.y + e.z;
  return b;
}

template <class... Options>
int run() {
  travpool::basic_pool<element, Options...> pool;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    element* e = pool.create(element{i, i, i});
    if (i % 10 == 3) pool.destroy(e);
  }
  std::uint64_t s = 0;
  for (int r = 0; r < 3; ++r) s += sweep(pool);
  std::printf("%llu\n", static_cast<unsigned long long>(s));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace travpool;
  const std::string a = argc > 1 ? argv[1] : "";
  if (a == "poff") return run<checks::off>();
  if (a == "ph") return run<checks::hardened>();
  if (a == "pon") return run<checks::on>();
  if (a == "coff") return run<sync::bin_locks, checks::off>();
  if (a == "ch") return run<sync::bin_locks, checks::hardened>();
  if (a == "con") return run<sync::bin_locks, checks::on>();
  std::fprintf(stderr, "usage: %s poff|ph|pon|coff|ch|con\n", argv[0]);
  return 2;
}
