// Fuzz body for the mesh reader (travpool/mesh/io.hpp): the first byte picks the
// format ('p': PLY; otherwise its low bit: 1 OFF, 0 OBJ), the rest is the
// file. Every input must either load a mesh that passes validate(), or fail
// with io_error / topology_error: no crash, hang or huge allocation
// (libFuzzer's -rss_limit_mb / -malloc_limit_mb enforce the latter). A PLY
// mesh that loads is also written (binary and ASCII) and read back, and
// must give the same triangles. Used by mesh_reader_fuzz.cpp and
// tests/travpool/fuzz_replay_test.cpp.
#pragma once

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <travpool/mesh/io.hpp>

namespace travpool::fuzz {

namespace detail {

// Writes `m` as PLY in `format` to a private temporary file, reads it back
// and aborts unless the triangles and positions are the same.
inline void check_ply_round_trip(travpool::mesh::triangle_mesh& m, travpool::mesh::ply_format format) {
  namespace tm = travpool::mesh;
  const std::string path = "/tmp/travpool_mesh_reader_fuzz_" + std::to_string(::getpid()) + ".ply";
  tm::write_ply(m, path, format);
  std::vector<tm::vec3> pa, pb;
  std::vector<std::array<std::uint32_t, 3>> ta, tb;
  tm::to_triangles(m, pa, ta);
  auto r = tm::read_mesh(path);
  std::remove(path.c_str());
  tm::to_triangles(r, pb, tb);
  // A rebuilt face may start at another corner.
  for (auto* t : {&ta, &tb})
    for (auto& x : *t) std::rotate(x.begin(), std::min_element(x.begin(), x.end()), x.end());
  if (pa != pb || ta != tb) std::abort();
}

}  // namespace detail

inline int mesh_reader_one_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool ply = data[0] == 'p';
  const bool off = !ply && (data[0] & 1) != 0;
  namespace tm = travpool::mesh;
  try {
    tm::detail::line_reader reader(ply   ? "fuzz.ply"
                                   : off ? "fuzz.off"
                                         : "fuzz.obj",
                                   std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    std::vector<std::size_t> at;
    bool bytes = false;
    const tm::soup s = ply   ? tm::detail::read_ply(reader, at, bytes)
                       : off ? tm::detail::read_off(reader, at)
                             : tm::detail::read_obj(reader, at);
    if (at.size() != s.triangles.size()) std::abort();
    tm::triangle_mesh m = s.build();
    m.validate();
    if (ply) {
      detail::check_ply_round_trip(m, tm::ply_format::binary_little_endian);
      detail::check_ply_round_trip(m, tm::ply_format::ascii);
    }
  } catch (const tm::io_error&) {
  } catch (const tm::topology_error&) {
  }
  return 0;
}

}  // namespace travpool::fuzz
