// travpool/parallel.hpp: parallel traversal of a pool, with OpenMP where the
// translation unit is compiled with it, else with std::thread.
//
// The idiomatic loop, for code that wants its own OpenMP clauses:
//
//   auto parts = pool.partition(omp_get_max_threads());
//   #pragma omp parallel for schedule(static, 1)
//   for (std::size_t i = 0; i < parts.size(); ++i)
//     for (auto& e : parts[i]) work(e);
//
// parallel_for_each does this, with each part's for_each (the pool's bulk
// sweep) as the inner loop: one part per thread, parts balanced by live
// counts (partition(k)). With OpenMP enabled (-fopenmp, CMake
// travpool::openmp) the parts run in an OpenMP parallel loop; without it,
// on threads of its own (the calling thread runs the first part), so it is
// parallel either way and travpool itself requires no OpenMP.
//
// The two are different functions, in inline namespaces named after the
// backend (openmp, threads), so that translation units compiled with and
// without OpenMP can be linked together (no ODR violation).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(_OPENMP)
#define TRAVPOOL_PARALLEL_BACKEND openmp
#else
#define TRAVPOOL_PARALLEL_BACKEND threads
#endif

namespace travpool {
inline namespace TRAVPOOL_PARALLEL_BACKEND {

// Returns: the threads parallel_for_each uses by default: OpenMP's
// omp_get_max_threads() where OpenMP is enabled, else
// std::thread::hardware_concurrency() (1 if unknown).
inline std::size_t default_parallelism() noexcept {
#if defined(_OPENMP)
  return static_cast<std::size_t>(omp_get_max_threads());
#else
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
#endif
}

// Effects: calls f(e) once for every live element e of `pool` (a pool or a
// column pool), in parallel over pool.partition(threads) when threads > 1
// and the pool has more than one bin, else serially (pool.for_each(f)).
// f must not create or destroy elements of `pool`, and must be safe to call
// concurrently on distinct elements.
// Throws: what f throws (without OpenMP: the first exception of any part,
// rethrown on the calling thread after every part has ended; with OpenMP,
// an exception escaping a part ends the program, as OpenMP requires).
// A thread that cannot be started is not an error: its part runs on the
// calling thread. Complexity: O(size() / threads + bins) per thread.
template <class Pool, class F>
void parallel_for_each(Pool& pool, F&& f, std::size_t threads = default_parallelism()) {
  if (threads <= 1 || pool.bin_count() <= 1) {
    pool.for_each(f);
    return;
  }
  auto parts = pool.partition(threads);
#if defined(_OPENMP)
  const auto n = static_cast<std::ptrdiff_t>(parts.size());
  const int team = static_cast<int>((std::min)(threads, parts.size()));
#pragma omp parallel for schedule(static, 1) num_threads(team)
  for (std::ptrdiff_t i = 0; i < n; ++i) parts[static_cast<std::size_t>(i)].for_each(f);
#else
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](std::size_t i) noexcept {
    try {
      parts[i].for_each(f);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  {
    // Joins every started thread when the block ends (std::thread's job;
    // libc++ 14 has no jthread).
    struct joiner {
      std::vector<std::thread> threads;
      ~joiner() {
        for (std::thread& t : threads) t.join();
      }
    } workers;
    std::size_t started = 1;  // part 0 is the calling thread's
    try {
      workers.threads.reserve(parts.size() - 1);
      for (; started < parts.size(); ++started) workers.threads.emplace_back(run, started);
    } catch (const std::system_error&) {  // no more threads: the rest runs here
    } catch (const std::bad_alloc&) {
    }
    run(0);
    for (std::size_t i = started; i < parts.size(); ++i) run(i);
  }
  if (error) std::rethrow_exception(error);
#endif
}

}  // namespace TRAVPOOL_PARALLEL_BACKEND
}  // namespace travpool
