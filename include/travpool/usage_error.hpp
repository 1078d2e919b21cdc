// travpool/usage_error.hpp: the exception for misuse of a pool.
#pragma once

#include <stdexcept>
#include <string>

namespace travpool {

// Thrown when a pool is misused (double destroy, foreign or interior
// pointer, an iterator to a destroyed element under checks::on, a
// re-entrant call that would deadlock). The pool is left unchanged.
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

// Throws: usage_error "travpool::op: why". Kept out of line, so the fast
// paths that may throw stay small.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_misuse(const char* op, const char* why) {
  throw usage_error(std::string("travpool::") + op + ": " + why);
}

}  // namespace detail
}  // namespace travpool
