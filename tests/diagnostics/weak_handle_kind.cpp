// Must not compile: a kind derived from basic_handle that is not a strong
// handle (no constructor from its index) as a column pool's handle type.
// The error must name the rule, not fall back to handle<Kind> silently.
#include <travpool/column_pool.hpp>

struct vertex : travpool::basic_handle<vertex> {};

int main() {
  travpool::basic_column_pool<vertex> p;
  (void)p.create();
}
