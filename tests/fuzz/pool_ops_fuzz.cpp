// libFuzzer target over pool operations; see pool_ops_fuzz.hpp.
#include "pool_ops_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return travpool::fuzz::pool_ops_one_input(data, size);
}
