// pool_test built with checks::hardened as the default (TRAVPOOL_CHECKS=2,
// what a release build that opts in gets): every pool there that names no
// checks option, pool<T> included, is hardened, so the hardened checks
// raise no false alarm on any of pool_test's uses. Built and run as the
// ctest tests "checks_hardened: ..." (tests/CMakeLists.txt), as
// pool_test_checks_default is for checks::on.
#define TRAVPOOL_CHECKS 2

#include <type_traits>

#include "pool_test.cpp"  // NOLINT(bugprone-suspicious-include)

static_assert(std::is_same_v<travpool::pool<int>::checks_type, travpool::checks::hardened>);
