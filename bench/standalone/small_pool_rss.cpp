// bench/standalone/small_pool_rss.cpp: the resident memory of many small
// pools: N (default 20,000) travpool::pool<int>s of 10 elements each (and,
// with "column", column_pools of 10 handles), the growth of the process's
// RSS (/proc/self/statm, Linux) divided by N. Empty pools take no memory
// (the first create makes the first bin); a default pool<int>'s first bin
// is a small bin of 1 KiB from operator new (docs/design.md, "Bin growth").
//   g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/standalone/small_pool_rss.cpp -o /tmp/spr
//   /tmp/spr [N=20000] [pool|column]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include <travpool/column_pool.hpp>
#include <travpool/pool.hpp>

namespace {
// Returns: the resident set and the address space in KiB (4 KiB pages
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
  std::vector<Pool> pools(static_cast<std::size_t>(n));
  const usage empty = read_usage();
  for (auto& p : pools) fill(p);
  const usage full = read_usage();
  std::printf("%d %s of 10: %.1f KiB resident, %.1f KiB address space each (sizeof %zu B, %zu bin each)\n", n, what,
              static_cast<double>(full.resident - empty.resident) / n, static_cast<double>(full.size - empty.size) / n,
              sizeof(Pool), pools.front().bin_count());
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const bool column = argc > 2 && std::strcmp(argv[2], "column") == 0;
  if (column)
    measure<travpool::column_pool>("column_pools", n, [](travpool::column_pool& p) {
      for (int i = 0; i < 10; ++i) p.create();
    });
  else
    measure<travpool::pool<int>>("pool<int>s", n, [](travpool::pool<int>& p) {
      for (int i = 0; i < 10; ++i) p.create(i);
    });
  return 0;
}
