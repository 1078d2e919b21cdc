// decimate's parallel phase (travpool/mesh/decimate.hpp) with 2 threads on
// one shared mesh, OpenMP and TBB: the result is valid, at the target, its
// boundary unchanged, its faces outward on a sphere, most collapses ran in
// parallel, and its quality is close to the serial result's (symmetric
// Hausdorff distance to the input, smallest angles). Small meshes: TSan
// runs it (label threads).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>
#include "generate.hpp"
#include "mesh_quality.hpp"

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

// A sphere with bumps: costs that vary over the surface, so a chunk that
// ran ahead of the others (collapsing costlier edges than they do) shows.
triangle_mesh bumpy_sphere() {
  triangle_mesh m = sphere(4);  // 5120 faces
  m.vertices().for_each([&](Vertex v) {
    vec3& p = m.position(v);
    p *= 1 + 0.15 * std::sin(4 * p.x) * std::cos(3 * p.y) * (p.z > 0 ? 1 : 0.2);
  });
  return m;
}

// Decimates a copy of `input` to `target` faces serially and with 2
// threads (how), and checks the parallel result's Hausdorff distance to
// the input and smallest angle against the serial result's.
void check_quality(const triangle_mesh& input, std::size_t target, execution how) {
  soup in;
  to_triangles(input, in.points, in.triangles);
  const triangle_bvh tree(in.points, in.triangles);
  auto run = [&](execution x) {
    triangle_mesh m = in.build();
    decimate_options o;
    o.target_faces = target;
    o.threads = 2;
    decimate(m, o, x);
    m.validate();
    CHECK(m.face_count() == target);
    soup s;
    to_triangles(m, s.points, s.triangles);
    return quality::measure(s, 1, in, tree, 20000);
  };
  const quality::mesh_quality serial = run(execution::serial), parallel = run(how);
  INFO("Hausdorff serial " << serial.hausdorff << ", parallel " << parallel.hausdorff << "; min angle serial "
                           << serial.min_angle << ", parallel " << parallel.min_angle);
  // Measured over 30 runs with OpenMP: the Hausdorff ratio 1.03 to 1.20 on
  // the sphere (its costs all but tie, so the order is arbitrary), 0.59 to
  // 0.96 on the bumpy one (with per-chunk quotas: 1.66 to 3.6 and 1.03 to
  // 1.37); the mean smallest angle 0.98 to 1.03; the smallest angle down to
  // 0.4 on the sphere (one triangle of 600).
  CHECK(parallel.hausdorff <= 1.3 * serial.hausdorff);
  CHECK(parallel.mean_min_angle >= 0.95 * serial.mean_min_angle);
  CHECK(parallel.min_angle >= 0.3 * serial.min_angle);
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
    // Rounds stop when 1/32 of the collapses are left: the serial tail.
    CHECK(r.parallel > r.collapses * 9 / 10);
    for (const Face f : m.faces()) {
      const auto c = m.corners(f);
      const vec3 n = cross(m.position(c[1]) - m.position(c[0]), m.position(c[2]) - m.position(c[0]));
      CHECK(dot(n, m.position(c[0]) + m.position(c[1]) + m.position(c[2])) > 0);
    }
    for (const Vertex v : m.vertices()) CHECK(std::fabs(norm(m.position(v)) - 1) < 0.02);
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
  check_quality(sphere(4), 600, how);
  check_quality(bumpy_sphere(), 600, how);
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
