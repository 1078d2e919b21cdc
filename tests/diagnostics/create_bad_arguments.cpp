// Must not compile: create() with arguments T cannot be built from. The
// first error must name the rule (tests/CMakeLists.txt greps for it).
#include <travpool/pool.hpp>

struct point {
  double x, y;
};

int main() {
  travpool::pool<point> p;
  p.create(1.0, "two");
}
