// Remeshing with execution::openmp / tbb (<travpool/mesh/remesh.hpp>): the
// relaxation and projection sweeps run on threads; the mesh must be the
// serial one bit for bit, and valid. Label "threads": run under TSan too.
#include <cmath>
#include <cstdint>
#include <numbers>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include "generate.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;

TEST_CASE("remesh: the parallel sweeps give the serial result", "[mesh][remesh][threads]") {
  for (const execution how : {execution::openmp, execution::tbb}) {
    if (!available(how)) continue;
    triangle_mesh a = torus_soup(60, 12).build(), b = torus_soup(60, 12).build();
    const remesh_result ra = remesh(a, {.target_edge_length = 0.15});
    const remesh_result rb = remesh(b, {.target_edge_length = 0.15}, how);
    b.validate();
    CHECK(ra.splits == rb.splits);
    CHECK(ra.collapses == rb.collapses);
    CHECK(ra.flips == rb.flips);
    CHECK(testing::positions(a) == testing::positions(b));
  }
}
