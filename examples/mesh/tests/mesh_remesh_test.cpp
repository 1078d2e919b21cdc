// Tests of isotropic remeshing (<travpool/mesh/remesh.hpp>): validity, edge
// lengths, angles, distance to the input, boundaries, components, and
// misuse, on small generated meshes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <set>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include <travpool/usage_error.hpp>
#include "generate.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;

namespace {

// A bumpy open grid: n x n squares of side 1, z = 0.3 sin(x / 2) cos(y / 3).
soup bumpy_grid_soup(std::uint32_t n) {
  soup s = grid_soup(n);
  for (vec3& p : s.points) p.z = 0.3 * std::sin(p.x / 2) * std::cos(p.y / 3);
  return s;
}

double min_angle_degrees(const triangle_mesh& m) {
  double best = 180;
  for (const Face f : m.faces()) {
    const auto c = m.corners(f);
    for (int i = 0; i < 3; ++i) {
      const vec3 a = m.position(c[(i + 1) % 3]) - m.position(c[i]);
      const vec3 b = m.position(c[(i + 2) % 3]) - m.position(c[i]);
      const double cosine = dot(a, b) / (norm(a) * norm(b));
      best = std::min(best, std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / std::numbers::pi);
    }
  }
  return best;
}

// The fraction of edges with a length in [0.8 L, 4/3 L] (a little slack
// for relaxation, which moves vertices after the splits and collapses).
double fraction_in_range(const triangle_mesh& m, double l, double slack = 0.0) {
  std::size_t in = 0;
  for (const Edge e : m.edges()) {
    const double d = norm(m.position(m.from(e.halfedge(0))) - m.position(m.to(e.halfedge(0))));
    in += d >= 0.8 * l * (1 - slack) && d <= 4.0 / 3.0 * l * (1 + slack);
  }
  return m.edge_count() == 0 ? 1.0 : double(in) / double(m.edge_count());
}

double max_distance(const triangle_mesh& from, const triangle_bvh& to) {
  double d = 0;
  for (const Vertex v : from.vertices()) d = std::max(d, to.closest_point(from.position(v)).squared_distance);
  return std::sqrt(d);
}

std::size_t components(const triangle_mesh& m) {
  std::set<Vertex> seen;
  std::size_t n = 0;
  for (const Vertex v : m.vertices()) {
    if (seen.count(v)) continue;
    ++n;
    std::vector<Vertex> stack{v};
    seen.insert(v);
    while (!stack.empty()) {
      const Vertex x = stack.back();
      stack.pop_back();
      if (m.is_isolated(x)) continue;
      for (const Vertex w : m.vertices_around(x))
        if (seen.insert(w).second) stack.push_back(w);
    }
  }
  return n;
}

std::vector<vec3> boundary_points(const triangle_mesh& m) {
  std::vector<vec3> p;
  for (const Vertex v : m.vertices())
    if (m.is_boundary(v)) p.push_back(m.position(v));
  std::sort(p.begin(), p.end(),
            [](const vec3& a, const vec3& b) { return std::tie(a.x, a.y, a.z) < std::tie(b.x, b.y, b.z); });
  return p;
}

}  // namespace

TEST_CASE("remesh a thin-triangle torus: lengths, angles, valences, distance", "[mesh][remesh]") {
  const soup s = torus_soup(120, 6);
  triangle_mesh m = s.build();
  const triangle_bvh input(m);
  const double before_angle = min_angle_degrees(m);
  const double l = 0.12;
  const remesh_result r = remesh(m, {.target_edge_length = l, .iterations = 5});
  REQUIRE_NOTHROW(m.validate());
  CHECK(r.iterations == 5);
  CHECK(r.splits > 0);
  CHECK(r.collapses > 0);
  CHECK(r.flips > 0);
  CHECK(r.serial_ops == r.splits + r.collapses + r.flips);
  CHECK(m.vertex_count() + m.face_count() == m.edge_count());  // a torus: Euler characteristic 0
  for (const Edge e : m.edges()) CHECK_FALSE(m.is_boundary(e));
  CHECK(fraction_in_range(m, l) > 0.9);
  const double after_angle = min_angle_degrees(m);
  INFO("min angle before " << before_angle << ", after " << after_angle);
  CHECK(before_angle < 10);
  CHECK(after_angle > 20);
  // Valence 6 for most vertices.
  std::size_t six = 0;
  for (const Vertex v : m.vertices()) six += m.valence(v) == 6;
  CHECK(double(six) / double(m.vertex_count()) > 0.6);
  // Every vertex is on the input surface; the input is near the output.
  CHECK(max_distance(m, input) < 1e-9);
  // The input's vertices lie on creases (its cross-section is a hexagon),
  // which edges of length L cut by up to about L / 4.
  CHECK(max_distance(s.build(), triangle_bvh(m)) < 0.35 * l);
  // No column of the remesher is left behind.
  CHECK_FALSE(m.has_property<Vertex>("travpool.remesh.hint"));
  CHECK_FALSE(m.has_property<Vertex>("travpool.remesh.valence"));
}

TEST_CASE("remesh keeps boundaries", "[mesh][remesh]") {
  const soup s = bumpy_grid_soup(8);
  SECTION("boundary vertices neither move nor go; boundary edges stay") {
    triangle_mesh m = s.build();
    const auto boundary_before = boundary_points(m);
    const triangle_bvh input(m);
    const double l = 0.5;
    remesh(m, {.target_edge_length = l, .iterations = 4});
    REQUIRE_NOTHROW(m.validate());
    CHECK(boundary_points(m) == boundary_before);
    std::size_t boundary_edges = 0;
    for (const Edge e : m.edges()) boundary_edges += m.is_boundary(e);
    CHECK(boundary_edges == 32);
    CHECK(max_distance(m, input) < 1e-9);
    CHECK(min_angle_degrees(m) > 15);
  }
  SECTION("split_boundary: the new boundary vertices lie on the old boundary") {
    triangle_mesh m = s.build();
    const auto boundary_before = boundary_points(m);
    const double l = 0.4;
    remesh(m, {.target_edge_length = l, .iterations = 3, .split_boundary = true});
    REQUIRE_NOTHROW(m.validate());
    const auto boundary_after = boundary_points(m);
    CHECK(
        std::includes(boundary_after.begin(), boundary_after.end(), boundary_before.begin(), boundary_before.end(),
                      [](const vec3& a, const vec3& b) { return std::tie(a.x, a.y, a.z) < std::tie(b.x, b.y, b.z); }));
    CHECK(boundary_after.size() > boundary_before.size());
    for (const vec3& p : boundary_after) CHECK((p.x == 0 || p.x == 8 || p.y == 0 || p.y == 8));
    for (const Edge e : m.edges())
      if (m.is_boundary(e))
        CHECK(norm(m.position(m.from(e.halfedge(0))) - m.position(m.to(e.halfedge(0)))) <= 4.0 / 3.0 * l);
  }
}

TEST_CASE("remesh coarsens, keeps components apart and closed", "[mesh][remesh]") {
  // Two spheres of 1,280 triangles (edges about 0.1 long), one moved away.
  triangle_mesh m = sphere(3);
  {
    const triangle_mesh other = sphere(3);
    std::vector<vec3> pts;
    std::vector<std::array<std::uint32_t, 3>> tris;
    std::vector<Vertex> vs;
    for (const Vertex v : m.vertices()) vs.push_back(v), pts.push_back(m.position(v));
    const auto offset = static_cast<std::uint32_t>(pts.size());
    std::vector<Vertex> ws;
    for (const Vertex v : other.vertices()) ws.push_back(v), pts.push_back(other.position(v) + vec3{3, 0, 0});
    auto index = [](const std::vector<Vertex>& list, Vertex v) {
      return static_cast<std::uint32_t>(std::find(list.begin(), list.end(), v) - list.begin());
    };
    for (const Face f : m.faces()) {
      const auto c = m.corners(f);
      tris.push_back({index(vs, c[0]), index(vs, c[1]), index(vs, c[2])});
    }
    for (const Face f : other.faces()) {
      const auto c = other.corners(f);
      tris.push_back({offset + index(ws, c[0]), offset + index(ws, c[1]), offset + index(ws, c[2])});
    }
    m = triangle_mesh::from_triangles(pts, tris);
  }
  REQUIRE(components(m) == 2);
  const std::size_t faces_before = m.face_count();
  const triangle_bvh input(m);
  const double l = 0.25;  // coarser than the input: collapses
  const remesh_result r = remesh(m, {.target_edge_length = l, .iterations = 5});
  REQUIRE_NOTHROW(m.validate());
  CHECK(r.collapses > 0);
  CHECK(m.face_count() < faces_before / 2);
  CHECK(components(m) == 2);
  CHECK(m.vertex_count() + m.face_count() == m.edge_count() + 4);  // two spheres
  CHECK(fraction_in_range(m, l) > 0.85);
  CHECK(max_distance(m, input) < 1e-9);
  CHECK(min_angle_degrees(m) > 20);
}

TEST_CASE("remesh: empty mesh, zero iterations, bad options", "[mesh][remesh]") {
  triangle_mesh empty;
  CHECK(remesh(empty, {.target_edge_length = 1}).splits == 0);
  empty.validate();
  triangle_mesh m = torus_soup(20, 8).build();
  const auto pos = testing::positions(m);
  const std::size_t v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
  auto unchanged = [&] {
    CHECK(testing::positions(m) == pos);
    CHECK(m.vertex_count() == v);
    CHECK(m.edge_count() == e);
    CHECK(m.face_count() == f);
    CHECK_FALSE(m.has_property<Vertex>("travpool.remesh.hint"));
  };
  CHECK(remesh(m, {.target_edge_length = 0.1, .iterations = 0}).iterations == 0);
  unchanged();
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = 0}), travpool::usage_error);
  unchanged();
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = -1}), travpool::usage_error);
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = std::nan("")}), travpool::usage_error);
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = 0.1, .iterations = -1}), travpool::usage_error);
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = 0.1, .relaxation_steps = -1}), travpool::usage_error);
  CHECK_THROWS_AS(remesh(m, {.target_edge_length = 0.1, .collapse_normal_cos = 1}), travpool::usage_error);
  unchanged();
  if (!available(execution::tbb)) {
    CHECK_THROWS_AS(remesh(m, {.target_edge_length = 0.1}, execution::tbb), travpool::usage_error);
    unchanged();
  }
}
