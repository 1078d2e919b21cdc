// decimate's parallel phase (travpool/mesh/decimate.hpp) with 2 threads on
// one shared mesh, OpenMP and TBB: the result is valid, at the target, its
// boundary unchanged, its faces outward on a sphere, and most collapses ran
// in parallel. Small meshes: TSan runs it (label threads).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>
#include "generate.hpp"

using namespace travpool::mesh;

namespace {

std::vector<std::array<double, 6>> boundary_of(const triangle_mesh& m) {
  std::vector<std::array<double, 6>> b;
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s)
      if (const Halfedge h = e.halfedge(s); m.is_boundary(h)) {
        const vec3 &p = m.position(m.from(h)), &q = m.position(m.to(h));
        b.push_back({p.x, p.y, p.z, q.x, q.y, q.z});
      }
  std::sort(b.begin(), b.end());
  return b;
}

void check_parallel(execution how) {
  INFO(to_string(how));
  {
    triangle_mesh m = sphere(4);  // 5120 faces
    decimate_options o;
    o.target_faces = 600;
    o.threads = 2;
    const decimate_result r = decimate(m, o, how);
    m.validate();
    CHECK(m.face_count() == 600);
    CHECK(r.collapses == r.parallel + r.retried + r.serial);
    CHECK(r.parallel > r.collapses / 2);
    for (const Face f : m.faces()) {
      const auto c = m.corners(f);
      const vec3 n = cross(m.position(c[1]) - m.position(c[0]), m.position(c[2]) - m.position(c[0]));
      CHECK(dot(n, m.position(c[0]) + m.position(c[1]) + m.position(c[2])) > 0);
    }
    // Within 6 % of the unit sphere: a sanity bound, not a quality target. A
    // chunk meets its quota even where its edges cost more than its
    // neighbours' (docs/mesh.md, Decimation), so the parallel result strays
    // further than the serial one (< 0.02): up to 0.037 in 45 runs under
    // TSan. The open quality gap is in docs/mesh.md.
    for (const Vertex v : m.vertices()) CHECK(std::fabs(norm(m.position(v)) - 1) < 0.06);
  }
  {
    soup s = grid_soup(30);
    for (vec3& p : s.points) p.z = 0.05 * std::sin(p.x / 4) * std::cos(p.y / 5);
    triangle_mesh m = s.build();
    const auto boundary = boundary_of(m);
    decimate_options o;
    o.target_faces = 400;
    o.threads = 2;
    const decimate_result r = decimate(m, o, how);
    m.validate();
    CHECK(m.face_count() == 400);
    CHECK(boundary_of(m) == boundary);
    CHECK(r.parallel > 0);
  }
}

}  // namespace

TEST_CASE("decimate with 2 threads on one mesh (OpenMP)") {
  if (!available(execution::openmp)) return;
  for (int round = 0; round < 3; ++round) check_parallel(execution::openmp);
}

TEST_CASE("decimate with 2 threads on one mesh (TBB)") {
  if (!available(execution::tbb)) return;
  for (int round = 0; round < 3; ++round) check_parallel(execution::tbb);
}
