// A small tour of travpool::pool: create, destroy, sweep, misuse.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <travpool/pool.hpp>

struct point {
  std::uint64_t x, y, z;
};

int main() {
  travpool::pool<point> pool(travpool::bin_capacity{1000});
  std::vector<point*> handles;
  for (std::uint64_t i = 0; i < 10'000; ++i) handles.push_back(pool.create(point{i, 2 * i, 3 * i}));
  std::printf("created %zu points in %zu bins of %u chunks (%zu B each, bin span %zu KiB)\n", pool.size(),
              pool.bin_count(), pool.bin_capacity(), pool.chunk_stride, pool.bin_span() >> 10);

  // Destroy every third point and the whole 4th bin: gaps and an empty bin.
  std::size_t destroyed = 0;
  for (std::size_t i = 0; i < handles.size(); ++i)
    if (i % 3 == 0 || (i >= 3000 && i < 4000)) pool.destroy(handles[i]), handles[i] = nullptr, ++destroyed;
  std::printf("destroyed %zu, %zu live\n", destroyed, pool.size());

  std::uint64_t sum = 0, visited = 0;
  for (const point& p : pool) sum += p.x, ++visited;
  std::uint64_t expect = 0;
  for (const point* p : handles)
    if (p != nullptr) expect += p->x;
  std::printf("forward sweep visited %llu points, sum of x = %llu (expected %llu)\n",
              static_cast<unsigned long long>(visited), static_cast<unsigned long long>(sum),
              static_cast<unsigned long long>(expect));

  visited = 0;
  for (auto it = pool.rbegin(); it != pool.rend(); ++it) ++visited;
  std::printf("backward sweep visited %llu points\n", static_cast<unsigned long long>(visited));

  // Freed chunks are reused last-in, first-out; pointers of others stay put.
  point* again = pool.create(point{7, 7, 7});
  std::printf("re-created a point in a freed chunk: contains = %d\n", pool.contains(again));

  try {
    pool.destroy(again);
    pool.destroy(again);
  } catch (const travpool::usage_error& e) {
    std::printf("double destroy rejected: %s\n", e.what());
  }
  int on_stack = 0;
  std::printf("contains(stack pointer) = %d\n", pool.contains(reinterpret_cast<point*>(&on_stack)));

  const std::size_t bins_before = pool.bin_count();
  pool.shrink_to_fit();
  std::printf("shrink_to_fit returned %zu empty bin(s); %zu bins hold %zu points\n", bins_before - pool.bin_count(),
              pool.bin_count(), pool.size());
  pool.validate();
  std::printf("validate(): all invariants hold\n");
  return visited == pool.size() && sum == expect ? 0 : 1;
}
