// bench/standalone/small_hive_rss.cpp: the resident memory of many small
// hives: N (default 20,000) travpool::hive<int>s of 10 elements each, the
// growth of the process's RSS (/proc/self/statm, Linux) divided by N.
// Empty hives take no memory (the first insertion makes the first block).
// Each hive's one block is a small block of 60 ints, 1 KiB from operator
// new (docs/hive.md, "Blocks and memory").
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/small_hive_rss.cpp -o /tmp/shr
//   /tmp/shr [N=20000]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <travpool/hive.hpp>

namespace {
// Returns: the resident set in KiB (4 KiB pages assumed), 0 if unknown.
long rss_kib() {
  std::ifstream f("/proc/self/statm");
  long size = 0, resident = 0;
  f >> size >> resident;
  return resident * 4;
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::vector<travpool::hive<int>> hives(static_cast<std::size_t>(n));
  const long empty = rss_kib();
  for (auto& h : hives)
    for (int i = 0; i < 10; ++i) h.insert(i);
  const long full = rss_kib();
  std::printf("%d hives of 10 ints: %.1f KiB resident each (sizeof(hive<int>) = %zu B, %zu block each)\n", n,
              static_cast<double>(full - empty) / n, sizeof(travpool::hive<int>), hives.front().block_count());
  return 0;
}
