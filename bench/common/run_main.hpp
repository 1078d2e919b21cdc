// bench/common/run_main.hpp: main() for the benchmarks that take --n=N.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace travpool_bench {

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
