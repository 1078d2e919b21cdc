// Builds against the installed travpool package and checks a round trip
// through the pool, the thread-safe pool and the allocator.
#include <cstdio>
#include <list>

#include <travpool/allocator.hpp>
#include <travpool/pool.hpp>

int main() {
  travpool::pool<double> pool;
  double* a = pool.create(1.5);
  pool.create(2.5);
  pool.destroy(a);
  double sum = 0;
  for (double d : pool) sum += d;

  travpool::concurrent_pool<int> shared;
  int* b = shared.create(7);
  const bool contained = shared.contains(b);
  shared.destroy(b);

  std::list<int, travpool::allocator<int>> nodes{1, 2, 3};
  int node_sum = 0;
  for (int v : nodes) node_sum += v;

  std::printf("consumer: %zu element(s), sum %.1f; concurrent contains %d; list sum %d\n", pool.size(), sum, contained,
              node_sum);
  return pool.size() == 1 && sum == 2.5 && contained && shared.size() == 0 && node_sum == 6 ? 0 : 1;
}
