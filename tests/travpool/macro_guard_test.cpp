// Every public header compiles, and works, after function-like min and max
// macros are defined, as <windows.h> defines them without NOMINMAX: the
// headers write (std::min)(a, b), (std::max)(a, b) and
// (std::numeric_limits<T>::max)(), which such macros do not expand.
// The standard and system headers travpool includes, and Catch2, come
// first (they are not guarded); then the macros; then travpool's headers, all but mesh/cgal.hpp (it needs
// CGAL).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#if __has_include(<memory_resource>)
#include <memory_resource>
#endif
#include <mutex>
#include <new>
#include <numbers>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <ranges>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

// The system headers travpool's include (detail/platform.hpp, parallel.hpp).
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <catch2/catch.hpp>

// As <windows.h> has them.
#define min(a, b) (((a) < (b)) ? (a) : (b))
#define max(a, b) (((a) > (b)) ? (a) : (b))

#include <travpool/allocator.hpp>
#include <travpool/column.hpp>
#include <travpool/column_pool.hpp>
#include <travpool/config.hpp>
#include <travpool/handle.hpp>
#include <travpool/hive.hpp>
#include <travpool/memory.hpp>
#include <travpool/mesh.hpp>
#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/buffers.hpp>
#include <travpool/mesh/bvh.hpp>
#include <travpool/mesh/circulators.hpp>
#include <travpool/mesh/decimate.hpp>
#include <travpool/mesh/element_range.hpp>
#include <travpool/mesh/handles.hpp>
#include <travpool/mesh/io.hpp>
#include <travpool/mesh/io_common.hpp>
#include <travpool/mesh/io_ply.hpp>
#include <travpool/mesh/io_ply_header.hpp>
#include <travpool/mesh/mesh.hpp>
#include <travpool/mesh/remesh.hpp>
#include <travpool/mesh/soup.hpp>
#include <travpool/options.hpp>
#include <travpool/parallel.hpp>
#include <travpool/pool.hpp>
#include <travpool/stats.hpp>
#include <travpool/subrange.hpp>
#include <travpool/usage_error.hpp>

// The macros are still in force here.
static_assert(min(1, 2) == 1 && max(1, 2) == 2);

TEST_CASE("every public header works under function-like min and max macros", "[macro_guard]") {
  // pool<T> and concurrent_pool.
  travpool::pool<int> p;
  std::vector<int*> made;
  for (int i = 0; i < 1000; ++i) made.push_back(p.create(i));
  for (std::size_t i = 0; i < made.size(); i += 3) p.destroy(made[i]);
  CHECK(p.size() == 666);
  CHECK(std::distance(p.begin(), p.end()) == 666);
  p.validate();
  travpool::concurrent_pool<double> cp;
  for (int i = 0; i < 100; ++i) cp.create(i * 0.5);
  CHECK(cp.size() == 100);
  double sum = 0;
  for (double x : cp) sum += x;
  CHECK(sum == 2475.0);

  // hive: insert, erase, sort, distance, advance, limits, reshape.
  travpool::hive<int> h(travpool::hive_limits(3, 50));
  for (int i = 0; i < 500; ++i) h.insert((i * 37) % 500);
  CHECK(travpool::erase_if(h, [](int x) { return x % 5 == 0; }) == 100);
  h.sort();
  CHECK(std::is_sorted(h.begin(), h.end()));
  CHECK(std::distance(h.begin(), h.end()) == 400);
  auto it = h.begin();
  std::advance(it, 10);
  CHECK(*it == 13);  // after 1 2 3 4 6 7 8 9 11 12
  CHECK(std::distance(h.begin(), it) == 10);
  CHECK(*std::prev(h.end()) == 499);
  CHECK(std::next(h.begin(), 400) == h.end());
  CHECK(h.max_size() > 0);
  h.reshape(travpool::hive_limits(8, 8));
  CHECK(h.block_capacity_limits().max == 8);
  h.validate();
  travpool::concurrent_hive<int> ch{3, 1, 2};
  ch.sort();
  CHECK(*ch.begin() == 1);

  // column_pool.
  travpool::column_pool cols(std::uint64_t{1} << 16, 1u << 12);
  auto x = cols.add_column<float>("x", 1.5f);
  const std::uint32_t a = cols.create(), b = cols.create();
  x[b] = 4.0f;
  cols.destroy(a);
  CHECK(cols.size() == 1);
  CHECK(x[b] == 4.0f);

  // The mesh: a square of two triangles, then one Loop subdivision.
  using namespace travpool::mesh;
  soup s;
  s.points = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  s.triangles = {{0, 1, 2}, {0, 2, 3}};
  triangle_mesh m = s.build();
  CHECK(m.vertex_count() == 4);
  CHECK(m.face_count() == 2);
  m.validate();
}
