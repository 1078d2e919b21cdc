// bench/standalone/small_pool_rss.cpp: the memory of many small pools: N
// (default 20,000) travpool::pool<int>s (or, with "column", column_pools),
// empty and then with 10 elements each: the growth of the process's RSS and
// address space (/proc/self/statm, Linux) divided by N. An empty pool<int>
// takes nothing; its first bin is a small bin of 1 KiB from operator new
// (docs/design.md, "Bin growth"). A column_pool's bin index is allocated
// when the pool is constructed, its first bin (a span of bin_slots slots)
// at the first create.
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/small_pool_rss.cpp -o /tmp/spr
//   /tmp/spr [N=20000] [pool|column|column-small]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include <travpool/column_pool.hpp>
#include <travpool/pool.hpp>

namespace {
// The process's address space and resident set in KiB (4 KiB pages
// assumed), 0 if unknown.
struct usage {
  long size, resident;
};
usage read_usage() {
  std::ifstream f("/proc/self/statm");
  long size = 0, resident = 0;
  f >> size >> resident;
  return {size * 4, resident * 4};
}
template <class Pool, class F>
void measure(const char* what, int n, F fill) {
  std::vector<Pool> pools;
  pools.reserve(static_cast<std::size_t>(n));
  const usage before = read_usage();
  for (int i = 0; i < n; ++i) pools.emplace_back();
  const usage empty = read_usage();
  for (auto& p : pools) fill(p);
  const usage full = read_usage();
  const auto per = [n](long kib) { return static_cast<double>(kib) / n; };
  std::printf(
      "%d %s (sizeof %zu B): empty, %.1f KiB resident and %.1f KiB address space each; "
      "with 10 elements (%zu bin), %.1f KiB resident and %.1f KiB address space more each\n",
      n, what, sizeof(Pool), per(empty.resident - before.resident), per(empty.size - before.size),
      pools.front().bin_count(), per(full.resident - empty.resident), per(full.size - empty.size));
}
struct small_column_pool : travpool::column_pool {
  small_column_pool() : travpool::column_pool(std::uint64_t{1} << 20, 4096) {}
};
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const char* const kind = argc > 2 ? argv[2] : "pool";
  if (std::strcmp(kind, "column-small") == 0)  // 2^20 handles at most, bins of 4096 slots
    measure<small_column_pool>("column_pools(1 << 20, 4096)", n, [](small_column_pool& p) {
      for (int i = 0; i < 10; ++i) p.create();
    });
  else if (std::strcmp(kind, "column") == 0)
    measure<travpool::column_pool>("column_pools", n, [](travpool::column_pool& p) {
      for (int i = 0; i < 10; ++i) p.create();
    });
  else
    measure<travpool::pool<int>>("pool<int>s", n, [](travpool::pool<int>& p) {
      for (int i = 0; i < 10; ++i) p.create(i);
    });
  return 0;
}
