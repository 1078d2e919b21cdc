// hive_test built with checks::on as the default (TRAVPOOL_CHECKS=1): the
// misuse cases run, and every other case runs with checked iterators.
// Built and run as the ctest tests "checks_default: hive: ..."
// (tests/CMakeLists.txt).
#define TRAVPOOL_CHECKS 1

#include <type_traits>

#include "hive_test.cpp"  // NOLINT(bugprone-suspicious-include)

static_assert(std::is_same_v<travpool::hive<int>::checks_type, travpool::checks::on>);
