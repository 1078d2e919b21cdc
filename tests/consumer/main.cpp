// Builds against the installed travpool package and checks a round trip
// through the pool, the thread-safe pool, the allocator and the hive.
#include <cstdio>
#include <list>

#include <travpool/allocator.hpp>
#include <travpool/hive.hpp>
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

  travpool::hive<int> h{3, 1, 2};
  h.sort();
  const bool sorted = *h.begin() == 1 && *h.get_iterator(&*h.begin()) == 1;

  std::printf("consumer: %zu element(s), sum %.1f; concurrent contains %d; list sum %d; hive sorted %d\n", pool.size(),
              sum, contained, node_sum, sorted);
  return pool.size() == 1 && sum == 2.5 && contained && shared.size() == 0 && node_sum == 6 && sorted ? 0 : 1;
}
