// Reading and writing a mesh file needs neither TBB nor OpenMP: this test
// includes io.hpp, then the whole mesh (<travpool/mesh.hpp>), and is built
// without them: the parallel modes are then refused, not run serially.
#include <unistd.h>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/io.hpp>

#if defined(TBB_VERSION_MAJOR) || defined(_OPENMP)
#error "io.hpp must not need TBB or OpenMP"
#endif

#include <travpool/mesh.hpp>

#if defined(TBB_VERSION_MAJOR) || defined(_OPENMP) || TRAVPOOL_MESH_TBB
#error "travpool/mesh.hpp must not need TBB or OpenMP"
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

TEST_CASE("without TBB and OpenMP the parallel modes are refused, serial runs", "[mesh]") {
  STATIC_REQUIRE(available(execution::serial));
  STATIC_REQUIRE_FALSE(available(execution::openmp));
  STATIC_REQUIRE_FALSE(available(execution::tbb));
  triangle_mesh m = triangle_mesh::from_triangles(
      std::vector<vec3>{{1, 1, 1}, {-1, -1, 1}, {-1, 1, -1}, {1, -1, -1}},
      std::vector<std::array<std::uint32_t, 3>>{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
  compute_normals(m, execution::serial);
  const Vertex v = *m.vertices().begin();
  const vec3 n = m.normal(v);
  CHECK(std::abs(norm(n) - 1.0) < 1e-12);
  for (execution how : {execution::openmp, execution::tbb}) {
    m.normal(v) = vec3{};
    CHECK_THROWS_WITH(compute_normals(m, how), Catch::Contains(to_string(how)) && Catch::Contains("not in this build"));
    CHECK(m.normal(v) == vec3{});  // nothing computed
  }
}
