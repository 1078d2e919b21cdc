// libFuzzer target over the OFF/OBJ/PLY reader; see mesh_reader_fuzz.hpp.
#include "mesh_reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return travpool::fuzz::mesh_reader_one_input(data, size);
}
