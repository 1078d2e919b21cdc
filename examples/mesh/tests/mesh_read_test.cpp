// Reading and writing a mesh file needs neither TBB nor OpenMP: this test
// includes io.hpp alone and is built without them.
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "io.hpp"

#if defined(TBB_VERSION_MAJOR) || defined(_OPENMP)
#error "io.hpp must not need TBB or OpenMP"
#endif

using namespace travpool::mesh;

TEST_CASE("io.hpp reads and writes without TBB", "[mesh][io]") {
  const auto dir = std::filesystem::temp_directory_path();
  const auto in = (dir / ("travpool_mesh_read_" + std::to_string(::getpid()) + ".off")).string();
  const auto out = (dir / ("travpool_mesh_read_" + std::to_string(::getpid()) + ".obj")).string();
  std::ofstream(in) << "OFF\n4 4 0\n1 1 1\n-1 -1 1\n-1 1 -1\n1 -1 -1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
  triangle_mesh m = read_mesh(in);
  m.validate();
  CHECK(m.vertex_count() == 4);
  CHECK(m.face_count() == 4);
  write_mesh(m, out);
  const triangle_mesh r = read_mesh(out);
  r.validate();
  CHECK(r.edge_count() == 6);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}
