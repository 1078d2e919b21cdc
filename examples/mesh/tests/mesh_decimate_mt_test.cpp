// decimate's parallel phase (travpool/mesh/decimate.hpp) with 2 threads on
// one shared mesh, OpenMP and TBB: the result is valid, at the target, its
// boundary unchanged, its faces outward on a sphere, most collapses ran in
// parallel, and its quality is close to the serial result's (symmetric
// Hausdorff distance to the input, smallest angles; both results' smallest
// angle at least min(min_angle, the input's): the quality guard). Its parallel set-up
// gives the serial one's results: the input check refuses invalid meshes
// with validate()'s message, the quadrics have the serial sums' bits, the
// sort is std::sort's. Small meshes: TSan runs it (label threads).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>
#include "generate.hpp"
#include "mesh_quality.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;

namespace {

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
// threads (how), with decimate_options::min_angle = min_angle, and checks
// the parallel result's Hausdorff distance to the input (at most
// max_hausdorff x the serial one's) and smallest angle: both results'
// at least min(min_angle, the input's) (the quality guard's bound), the
// parallel one's at least min_ratio x the serial one's.
void check_quality(const triangle_mesh& input, std::size_t target, execution how, double min_angle, double min_ratio,
                   double max_hausdorff) {
  soup in;
  to_triangles(input, in.points, in.triangles);
  const triangle_bvh tree(in.points, in.triangles);
  auto run = [&](execution x) {
    triangle_mesh m = in.build();
    decimate_options o;
    o.target_faces = target;
    o.threads = 2;
    o.min_angle = min_angle;
    decimate(m, o, x);
    m.validate();
    CHECK(m.face_count() == target);
    soup s;
    to_triangles(m, s.points, s.triangles);
    return quality::measure(s, 1, in, tree, 20000);
  };
  const quality::mesh_quality serial = run(execution::serial), parallel = run(how);
  const double bound = (std::min)(min_angle, quality::measure(in, 1, in, tree, 0).min_angle);
  INFO("min_angle " << min_angle << ": Hausdorff serial " << serial.hausdorff << ", parallel " << parallel.hausdorff
                    << "; min angle serial " << serial.min_angle << ", parallel " << parallel.min_angle << ", bound "
                    << bound);
  CHECK(serial.min_angle >= bound - 1e-9);
  CHECK(parallel.min_angle >= bound - 1e-9);
  CHECK(parallel.min_angle >= min_ratio * serial.min_angle);
  CHECK(parallel.hausdorff <= max_hausdorff * serial.hausdorff);
  CHECK(parallel.mean_min_angle >= 0.95 * serial.mean_min_angle);
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
    const auto boundary = testing::boundary_segments(m);
    decimate_options o;
    o.target_faces = 400;
    o.threads = 2;
    const decimate_result r = decimate(m, o, how);
    m.validate();
    CHECK(m.face_count() == 400);
    CHECK(testing::boundary_segments(m) == boundary);
    CHECK(r.parallel > 0);
  }
  // The serial result is the same every run, and the guard bounds the
  // parallel one's smallest angle below by min(min_angle, the input's), so
  // min_ratio follows: the sphere (input 54 degrees, its costs all but tie,
  // so the order is arbitrary) is 24.5 degrees serially, 10 / 24.5 = 0.41
  // (the 10 degrees do not bind there; measured 0.57 to 0.94, without the
  // guard down to 0.4); the bumpy one 12.0 serially, 10 / 12.0 = 0.83
  // (measured 0.83 to 1.09), with min_angle 20: 20.01, 20 / 20.01 = 0.999
  // (measured 1.00). Hausdorff ratio measured up to 1.19 (1.44 with
  // min_angle 20), the mean smallest angle 0.96 to 1.03 (30 runs each).
  check_quality(sphere(4), 600, how, decimate_options{}.min_angle, 0.4, 1.3);
  check_quality(bumpy_sphere(), 600, how, decimate_options{}.min_angle, 0.8, 1.3);
  check_quality(bumpy_sphere(), 600, how, 20, 0.95, 1.6);
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

namespace dd = travpool::mesh::detail::decimation;

TEST_CASE("decimate's parallel set-up gives the serial one's input check, quadrics and sort") {
  for (const execution how : {execution::openmp, execution::tbb}) {
    if (!available(how)) continue;
    // Invalid inputs (low-level primitives): refused with the same message
    // as serially (validate()'s first violation), m unchanged.
    auto message = [](triangle_mesh& m, execution h) {
      decimate_options o;
      o.target_faces = 100;
      o.threads = 2;
      try {
        decimate(m, o, h);
      } catch (const travpool::usage_error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    {
      triangle_mesh m = sphere(3);
      const Face stray = m.new_face();
      const std::string serial = message(m, execution::serial);
      CHECK(serial.find("face's halfedge is not in it") != std::string::npos);
      CHECK(message(m, how) == serial);
      m.remove(stray);
      m.validate();
      CHECK(m.face_count() == 1280);
    }
    {
      triangle_mesh m = sphere(3);
      const Edge stray = m.new_edge();
      const std::string serial = message(m, execution::serial);
      CHECK(serial.find("not a valid manifold triangle mesh") != std::string::npos);
      CHECK(message(m, how) == serial);
      m.remove(stray);
      m.validate();
      CHECK(m.edge_count() == 1920);
    }
    // A valid mesh with a boundary passes the parallel check.
    {
      triangle_mesh m = grid_soup(20).build();
      CHECK_NOTHROW(dd::validate_input(m, how, 2));
    }
    // Quadrics: bit for bit the serial ones (unit and area weights).
    for (const bool area : {false, true}) {
      triangle_mesh m = bumpy_sphere();
      decimate_options o;
      o.target_faces = 100;
      o.area_weighted = area;
      dd::decimator a(m, o), b(m, o);
      a.init();
      b.init(how, 2);
      REQUIRE(a.q_.size() == b.q_.size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < a.q_.size(); ++i) differ += std::memcmp(&a.q_[i], &b.q_[i], sizeof(dd::quadric)) != 0;
      CHECK(differ == 0);
      CHECK(a.q_[0].w > 0);
    }
    // The sort: std::sort's order, for 2 and 3 blocks.
    for (const std::size_t threads : {2, 3}) {
      std::mt19937_64 rng(7);
      std::vector<std::pair<std::uint64_t, std::uint32_t>> v(20000);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = {rng() % 5000, static_cast<std::uint32_t>(i)};
      auto w = v;
      std::sort(v.begin(), v.end());
      dd::sort_parallel(w, how, threads);
      CHECK(v == w);
    }
  }
}
