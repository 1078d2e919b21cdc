// Two translation units, one built with NDEBUG (odr_unchecked.cpp) and one
// without (this one), linked into one program, both using pool<int>. With
// checks defaulting from NDEBUG, the two must be distinct types: if they
// were one type with two definitions, the linker would keep one (the
// unchecked TU is linked first, and both are built with -fno-inline so the
// out-of-line definitions are the ones called), and this TU would either
// not detect misuse or die in std::terminate through a noexcept caller.
#undef NDEBUG
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>
#include <typeinfo>

#include <travpool/pool.hpp>

long unchecked_sum(int n);
std::string unchecked_pool_type();

using checked_pool = travpool::pool<int>;
static_assert(std::is_same_v<checked_pool::checks_type, travpool::checks::on>);
static_assert(!noexcept(*std::declval<checked_pool::iterator&>()));

TEST_CASE("a TU with checks catches usage_error beside a TU built with NDEBUG", "[odr]") {
  // The unchecked TU works as a plain pool.
  REQUIRE(unchecked_sum(100) == 4950);
  REQUIRE(unchecked_pool_type() != typeid(checked_pool).name());

  checked_pool p;
  int* a = p.create(1);
  p.create(2);
  auto it = p.begin();
  REQUIRE(*it == 1);
  p.destroy(a);
  REQUIRE_THROWS_AS(*it, travpool::usage_error);
  REQUIRE_THROWS_AS(++it, travpool::usage_error);
  REQUIRE_THROWS_AS(p.erase(it), travpool::usage_error);
  REQUIRE(p.size() == 1);  // the failed erase changed nothing
  p.validate();
}

TEST_CASE("a pool that names its checks option is the same type in every TU", "[odr]") {
  using explicit_off = travpool::basic_pool<int, travpool::checks::off>;
  STATIC_REQUIRE(std::is_same_v<explicit_off::checks_type, travpool::checks::off>);
  STATIC_REQUIRE(noexcept(++std::declval<explicit_off::iterator&>()));
  explicit_off p;
  int* a = p.create(7);
  REQUIRE(*p.begin() == 7);
  p.destroy(a);
  REQUIRE_THROWS_AS(p.destroy(a), travpool::usage_error);  // misuse of destroy is caught with either option
}
