// Must not compile: segments() of a pool whose chunks are not arrays of T
// (sizeof(float) < 12). The error must name the rule.
#include <travpool/pool.hpp>

int main() {
  travpool::pool<float> p;
  for (auto s : p.segments()) (void)s;
}
