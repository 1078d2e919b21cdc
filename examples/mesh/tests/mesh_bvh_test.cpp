// Tests of the triangle BVH (<travpool/mesh/bvh.hpp>): closest points
// against a brute-force search over every triangle, on random points near
// and far from meshes, with and without a hint.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/bvh.hpp>
#include <travpool/usage_error.hpp>
#include "generate.hpp"

using namespace travpool::mesh;

namespace {

closest_point_result brute_force(const triangle_bvh& t, const vec3& p) {
  closest_point_result best;
  best.squared_distance = std::numeric_limits<double>::infinity();
  for (std::uint32_t i = 0; i < t.size(); ++i) {
    const auto c = t.triangle(i);
    const auto w = closest_point_on_triangle(p, c[0], c[1], c[2]);
    const vec3 q = c[0] * w[0] + c[1] * w[1] + c[2] * w[2];
    const double d2 = dot(q - p, q - p);
    if (d2 < best.squared_distance) best = {q, d2, i, w};
  }
  return best;
}

void check_against_brute_force(const triangle_bvh& t, const std::vector<vec3>& queries) {
  std::mt19937 rng(5);
  for (const vec3& p : queries) {
    const closest_point_result r = t.closest_point(p);
    const closest_point_result b = brute_force(t, p);
    REQUIRE(r.squared_distance == Approx(b.squared_distance).margin(1e-12));
    // The point is on its triangle, at the barycentric weights, at the distance.
    const auto c = t.triangle(r.triangle);
    const vec3 q = c[0] * r.barycentric[0] + c[1] * r.barycentric[1] + c[2] * r.barycentric[2];
    CHECK(norm(q - r.point) < 1e-12);
    for (const double w : r.barycentric) CHECK(w >= -1e-12);
    CHECK(r.barycentric[0] + r.barycentric[1] + r.barycentric[2] == Approx(1.0));
    CHECK(dot(r.point - p, r.point - p) == Approx(r.squared_distance).margin(1e-12));
    // Any hint gives the same distance.
    const auto hint = static_cast<std::uint32_t>(rng() % t.size());
    CHECK(t.closest_point(p, hint).squared_distance == Approx(b.squared_distance).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("closest_point_on_triangle: corners, edges, inside, degenerate", "[mesh][bvh]") {
  const vec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  CHECK(closest_point_on_triangle({-1, -1, 3}, a, b, c) == std::array<double, 3>{1, 0, 0});
  CHECK(closest_point_on_triangle({2, -1, 0}, a, b, c) == std::array<double, 3>{0, 1, 0});
  CHECK(closest_point_on_triangle({-1, 2, 0}, a, b, c) == std::array<double, 3>{0, 0, 1});
  const auto e = closest_point_on_triangle({0.5, -1, 1}, a, b, c);  // edge a-b
  CHECK(e[0] == Approx(0.5));
  CHECK(e[1] == Approx(0.5));
  CHECK(e[2] == Approx(0).margin(1e-15));
  const auto in = closest_point_on_triangle({0.25, 0.25, 5}, a, b, c);
  CHECK(in[1] == Approx(0.25));
  CHECK(in[2] == Approx(0.25));
  // Collinear corners: the nearest point of the segment.
  const auto d = closest_point_on_triangle({0.5, 1, 0}, a, b, vec3{2, 0, 0});
  const vec3 q = a * d[0] + b * d[1] + vec3{2, 0, 0} * d[2];
  CHECK(norm(q - vec3{0.5, 0, 0}) < 1e-12);
}

TEST_CASE("triangle_bvh finds what brute force finds", "[mesh][bvh]") {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  SECTION("a sphere of 1,280 triangles, points near and far") {
    const triangle_mesh m = sphere(3);
    const triangle_bvh t(m);
    REQUIRE(t.size() == m.face_count());
    std::vector<vec3> q;
    for (int i = 0; i < 500; ++i) q.push_back({u(rng), u(rng), u(rng)});
    for (int i = 0; i < 500; ++i) q.push_back(normalized(vec3{u(rng), u(rng), u(rng)}) * (1 + u(rng) * 0.01));
    for (int i = 0; i < 20; ++i) q.push_back(vec3{u(rng), u(rng), u(rng)} * 100);
    check_against_brute_force(t, q);
    // A tree of a mesh names its faces.
    const auto r = t.closest_point({0, 0, 2});
    const auto c = m.corners(t.face(r.triangle));
    CHECK(std::max({m.position(c[0]).z, m.position(c[1]).z, m.position(c[2]).z}) == Approx(1.0));
  }
  SECTION("an open grid and a soup with duplicate and degenerate triangles") {
    const soup g = grid_soup(12);
    check_against_brute_force(triangle_bvh(g.points, g.triangles),
                              {{3.3, 4.1, 0.5}, {-2, -2, -2}, {6, 13, 1}, {0, 0, 0}, {12, 12, 0}, {5.5, 5.5, 0}});
    std::vector<vec3> pts;
    std::vector<std::array<std::uint32_t, 3>> tris;
    for (int i = 0; i < 300; ++i) {
      const auto k = static_cast<std::uint32_t>(pts.size());
      pts.push_back({u(rng), u(rng), u(rng)});
      pts.push_back({u(rng), u(rng), u(rng)});
      pts.push_back(i % 7 == 0 ? pts[k] : vec3{u(rng), u(rng), u(rng)});  // some with a repeated corner
      tris.push_back({k, k + 1, k + 2});
      if (i % 5 == 0) tris.push_back({k, k + 1, k + 2});  // duplicates
    }
    std::vector<vec3> q;
    for (int i = 0; i < 400; ++i) q.push_back({u(rng), u(rng), u(rng)});
    check_against_brute_force(triangle_bvh(pts, tris), q);
  }
  SECTION("one triangle; bad input") {
    const std::vector<vec3> pts{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const std::vector<std::array<std::uint32_t, 3>> one{{0, 1, 2}};
    const triangle_bvh t(pts, one);
    CHECK(t.closest_point({0.2, 0.2, 1}).squared_distance == Approx(1.0));
    const std::vector<std::array<std::uint32_t, 3>> bad{{0, 1, 3}};
    CHECK_THROWS_AS(triangle_bvh(pts, bad), travpool::usage_error);
    CHECK(triangle_bvh().empty());
  }
}
