// travpool/parallel.hpp: OpenMP traversal of a pool.
//
// The idiomatic loop, for code that wants its own OpenMP clauses:
//
//   auto parts = pool.partition(omp_get_max_threads());
//   #pragma omp parallel for schedule(static, 1)
//   for (std::size_t i = 0; i < parts.size(); ++i)
//     for (auto& e : parts[i]) work(e);
//
// parallel_for_each does this, with each part's for_each (the pool's bulk
// sweep) as the inner loop. It uses OpenMP when the including
// translation unit is compiled with OpenMP (-fopenmp) and runs serially
// otherwise; travpool itself does not require OpenMP.
#pragma once

#include <cstddef>
#include <utility>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace travpool {

// Effects: calls f(e) once for every live element e of `pool`, in parallel
// over pool.partition(threads) when OpenMP is enabled. f must not create or
// destroy elements of `pool`, and must be safe to call concurrently.
// Complexity: O(size() / threads + bins) per thread.
template <class Pool, class F>
void parallel_for_each(Pool& pool, F&& f) {
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
  if (threads > 1 && pool.bin_count() > 1) {
    auto parts = pool.partition(static_cast<std::size_t>(threads));
    const auto n = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) parts[static_cast<std::size_t>(i)].for_each(f);
    return;
  }
#endif
  pool.for_each(f);
}

}  // namespace travpool
