// Builds against the installed travpool package and checks a round trip.
#include <cstdio>

#include <travpool/pool.hpp>

int main() {
  travpool::pool<double> pool;
  double* a = pool.create(1.5);
  pool.create(2.5);
  pool.destroy(a);
  double sum = 0;
  for (double d : pool) sum += d;
  std::printf("consumer: %zu element(s), sum %.1f\n", pool.size(), sum);
  return pool.size() == 1 && sum == 2.5 ? 0 : 1;
}
