// Fuzz body for the mesh reader (examples/mesh): the first byte picks OFF or
// OBJ, the rest is the file. Every input must either load a mesh that passes
// validate(), or fail with io_error / topology_error: no crash, hang or
// huge allocation (libFuzzer's -rss_limit_mb / -malloc_limit_mb enforce the
// latter). Used by mesh_reader_fuzz.cpp and tests/travpool/fuzz_replay_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../examples/mesh/io.hpp"

namespace travpool::fuzz {

inline int mesh_reader_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool off = (data[0] & 1) != 0;
  namespace tm = travpool::mesh;
  try {
    tm::detail::line_reader reader(off ? "fuzz.off" : "fuzz.obj",
                                   std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    std::vector<std::size_t> lines;
    const tm::soup s = off ? tm::detail::read_off(reader, lines) : tm::detail::read_obj(reader, lines);
    tm::triangle_mesh m = s.build();
    m.validate();
  } catch (const tm::io_error&) {
  } catch (const tm::topology_error&) {
  }
  return 0;
}

}  // namespace travpool::fuzz
