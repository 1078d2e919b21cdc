// pool_test built with checks::on as the default (TRAVPOOL_CHECKS=1, what a
// build without NDEBUG gives): every pool there that names no checks
// option, pool<T> included, is checked. CI builds every stage with NDEBUG,
// so without this only the pools that name checks::on would be. Built and
// run as the ctest tests "checks_default: ..." (tests/CMakeLists.txt).
// The macro is defined here, not on the command line, so that the target
// shares pool_test's compile definitions.
#define TRAVPOOL_CHECKS 1

#include <type_traits>

#include "pool_test.cpp"  // NOLINT(bugprone-suspicious-include)

static_assert(std::is_same_v<travpool::pool<int>::checks_type, travpool::checks::on>);
