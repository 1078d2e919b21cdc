// bench/common/run_main.hpp: main() for the benchmarks that take --n=N.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace travpool_bench {

// Returns: the thread counts of the thread benchmarks' rows: 1, 2, 4 and 8,
// or the comma-separated list in TRAVPOOL_BENCH_THREADS (for example
// "1,2,4,8,16" on a 16-core machine). Read when the rows are registered.
inline std::vector<int> thread_counts() {
  std::vector<int> t;
  if (const char* e = std::getenv("TRAVPOOL_BENCH_THREADS")) {
    for (char* end = nullptr;; e = end + 1) {
      const long v = std::strtol(e, &end, 10);
      if (end == e) break;
      if (v > 0) t.push_back(static_cast<int>(v));
      if (*end != ',') break;
    }
  }
  if (t.empty()) t = {1, 2, 4, 8};
  return t;
}

// Effects: strips --n=N from argv into n, then runs Google Benchmark.
inline int run_main(int argc, char** argv, std::size_t& n) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--n=", 4) == 0)
      n = std::strtoull(argv[i] + 4, nullptr, 10);
    else
      rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  benchmark::Initialize(&rc, rest.data());
  benchmark::AddCustomContext("n", std::to_string(n));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace travpool_bench
