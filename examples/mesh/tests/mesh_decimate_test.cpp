// Tests of decimate (travpool/mesh/decimate.hpp): the geometry of the
// result, not only its counts. After decimation the mesh is valid, has the
// target face count (or one more), its boundary edges and boundary vertex
// positions are the input's, no face is flipped against the input surface
// (normals compared with the nearest input face's), and both one-sided
// distances (input vertices to output triangles and back, brute force)
// are small. On small meshes every collapse is followed by m.validate()
// and the link test is checked against triangle_mesh::is_collapse_ok plus
// a plainly written fold-over and quality test (validate_each_collapse).
// The quality guard keeps the smallest angle at least min(min_angle, the
// input's) where unguarded collapses make slivers. Bad options and invalid
// meshes are refused with the mesh unchanged.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>
#include "generate.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;
using namespace travpool::mesh::testing;

namespace {

// The distance from p to the triangle (a, b, c) (Ericson, Real-Time
// Collision Detection, 5.1.5).
double point_triangle_distance(const vec3& p, const vec3& a, const vec3& b, const vec3& c) {
  const vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return norm(p - a);
  const vec3 bp = p - b;
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return norm(p - b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return norm(p - (a + (d1 / (d1 - d3)) * ab));
  const vec3 cp = p - c;
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return norm(p - c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return norm(p - (a + (d2 / (d2 - d6)) * ac));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return norm(p - (b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b)));
  const double denom = 1 / (va + vb + vc);
  return norm(p - (a + ab * (vb * denom) + ac * (vc * denom)));
}

struct tri {
  vec3 a, b, c;
  vec3 normal() const { return cross(b - a, c - a); }
  vec3 centroid() const { return (a + b + c) * (1.0 / 3); }
};

std::vector<tri> triangles_of(const triangle_mesh& m) {
  std::vector<tri> t;
  for (const Face f : m.faces()) {
    const auto c = m.corners(f);
    t.push_back({m.position(c[0]), m.position(c[1]), m.position(c[2])});
  }
  return t;
}

// The largest distance from a point of `points` to the triangles `to`.
double one_sided(const std::vector<vec3>& points, const std::vector<tri>& to) {
  double worst = 0;
  for (const vec3& p : points) {
    double best = std::numeric_limits<double>::infinity();
    for (const tri& t : to) best = std::min(best, point_triangle_distance(p, t.a, t.b, t.c));
    worst = std::max(worst, best);
  }
  return worst;
}

std::vector<vec3> samples(const std::vector<tri>& ts) {  // corners and centroids
  std::vector<vec3> s;
  for (const tri& t : ts) s.insert(s.end(), {t.a, t.centroid()});
  return s;
}

// Symmetric distance between two meshes, sampled at vertices and centroids.
double distance(const std::vector<tri>& x, const std::vector<tri>& y) {
  return std::max(one_sided(samples(x), y), one_sided(samples(y), x));
}

// Every output face's normal agrees with the input face nearest to its
// centroid (no fold-over); returns the smallest cosine.
double min_normal_agreement(const std::vector<tri>& input, const std::vector<tri>& output) {
  double worst = 1;
  for (const tri& o : output) {
    const vec3 c = o.centroid();
    double best = std::numeric_limits<double>::infinity();
    const tri* near = nullptr;
    for (const tri& t : input)
      if (const double d = point_triangle_distance(c, t.a, t.b, t.c); d < best) best = d, near = &t;
    worst = std::min(worst, dot(normalized(o.normal()), normalized(near->normal())));
  }
  return worst;
}

// The boundary edges as (from position, to position), sorted.
std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>> boundary_of(const triangle_mesh& m) {
  std::vector<std::pair<std::array<double, 3>, std::array<double, 3>>> b;
  auto key = [](const vec3& p) { return std::array<double, 3>{p.x, p.y, p.z}; };
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s)
      if (const Halfedge h = e.halfedge(s); m.is_boundary(h))
        b.emplace_back(key(m.position(m.from(h))), key(m.position(m.to(h))));
  std::sort(b.begin(), b.end());
  return b;
}

std::size_t component_count(const triangle_mesh& m) {
  std::map<std::uint32_t, std::uint32_t> parent;
  std::function<std::uint32_t(std::uint32_t)> find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const Vertex v : m.vertices()) parent[v.idx()] = v.idx();
  for (const Edge e : m.edges()) parent[find(m.to(e.halfedge(0)).idx())] = find(m.to(e.halfedge(1)).idx());
  std::set<std::uint32_t> roots;
  for (const Vertex v : m.vertices()) roots.insert(find(v.idx()));
  return roots.size();
}

// A bumpy open grid: n x n squares over [0, 1]^2, z = 0.1 sin sin.
triangle_mesh bumpy_unit_grid(std::uint32_t n) {
  soup s = grid_soup(n);
  for (vec3& p : s.points) {
    p.x /= n, p.y /= n;
    p.z = 0.1 * std::sin(3 * p.x) * std::sin(2 * p.y);
  }
  return s.build();
}

struct checked {
  std::vector<tri> input, output;
  decimate_result r;
};

// The smallest corner angle of m's triangles, in degrees (180 if none).
double decimated_min_angle(const triangle_mesh& m) {
  double best = 180;
  for (const tri& t : triangles_of(m)) {
    const vec3 p[3] = {t.a, t.b, t.c};
    for (int i = 0; i < 3; ++i) {
      const vec3 u = p[(i + 1) % 3] - p[i], w = p[(i + 2) % 3] - p[i];
      const double c = dot(u, w) / (norm(u) * norm(w));
      best = (std::min)(best, std::acos(std::clamp(c, -1.0, 1.0)) * 180 / 3.14159265358979323846);
    }
  }
  return best;
}

checked run(triangle_mesh& m, decimate_options o) {
  checked c;
  c.input = triangles_of(m);
  c.r = decimate(m, o);
  m.validate();
  c.output = triangles_of(m);
  CHECK(c.r.faces_before == c.input.size());
  CHECK(c.r.faces_after == m.face_count());
  CHECK(c.r.collapses * 2 == c.r.faces_before - c.r.faces_after);
  CHECK(c.r.serial == c.r.collapses);
  return c;
}

}  // namespace

TEST_CASE("decimate: a sphere to 500 faces stays on the sphere, outward, valid after every collapse") {
  triangle_mesh m = sphere(4);  // 5120 faces
  decimate_options o;
  o.target_faces = 500;
  o.validate_each_collapse = true;
  const checked c = run(m, o);
  CHECK(m.face_count() == 500);
  for (const Vertex v : m.vertices()) CHECK(std::fabs(norm(m.position(v)) - 1) < 0.01);
  for (const tri& t : c.output) CHECK(dot(t.normal(), t.centroid()) > 0);  // outward: no fold
  const double d = distance(c.input, c.output);
  INFO("distance " << d);
  CHECK(d < 0.03);
  CHECK(c.r.max_error > 0);
  CHECK(c.r.max_error < 0.03);
}

TEST_CASE("decimate: an open bumpy grid keeps its boundary polyline exactly") {
  triangle_mesh m = bumpy_unit_grid(24);  // 1152 faces, 96 boundary edges
  const auto boundary = boundary_of(m);
  decimate_options o;
  o.target_faces = 300;
  o.validate_each_collapse = true;
  const checked c = run(m, o);
  CHECK(m.face_count() == 300);
  CHECK(boundary_of(m) == boundary);
  CHECK(min_normal_agreement(c.input, c.output) > 0);
  const double d = distance(c.input, c.output);
  INFO("distance " << d);
  CHECK(d < 0.01);
}

TEST_CASE("decimate: a flat grid goes down to the boundary's fan exactly on the plane") {
  triangle_mesh m = grid_soup(16).build();  // planar: every error is 0
  const auto boundary = boundary_of(m);
  decimate_options o;
  o.target_faces = 4;
  o.max_error = 0;  // only exact (planar) collapses: all of them here
  o.min_angle = 0;  // no quality guard: slivers allowed down to the fan
  o.min_angle_ratio = 0;
  const checked c = run(m, o);
  CHECK(boundary_of(m) == boundary);
  for (const Vertex v : m.vertices()) CHECK(m.position(v).z == 0);
  for (const tri& t : c.output) CHECK(t.normal().z > 0);
  CHECK(c.r.max_error == 0);
  // 64 boundary vertices stay; every interior one can go: 62 faces remain
  // (a triangulated 64-gon) unless a fold-over refuses the last ones.
  CHECK(m.face_count() <= 70);
}

TEST_CASE("decimate: the quality guard keeps the smallest angle at least min(min_angle, the input's)") {
  // A flat grid (smallest angle 45 degrees): every collapse costs 0, so
  // nothing but the guard keeps the collapses from making slivers.
  auto decimated = [](double min_angle, std::size_t target) {
    triangle_mesh m = grid_soup(16).build();  // 512 faces
    decimate_options o;
    o.target_faces = target;
    o.min_angle = min_angle;
    if (min_angle == 0) o.min_angle_ratio = 0;  // no guard at all
    o.validate_each_collapse = true;            // collapse_ok's guard against a plain one
    run(m, o);
    return std::pair{decimated_min_angle(m), m.face_count()};
  };
  const auto [unguarded, unguarded_faces] = decimated(0, 100);
  INFO("unguarded: smallest angle " << unguarded);
  CHECK(unguarded_faces == 100);
  CHECK(unguarded < 5);  // the mesh is a real test: without the guard, slivers
  for (const double theta : {10.0, 20.0}) {
    const auto [angle, faces] = decimated(theta, 100);
    INFO("min_angle " << theta << ": smallest angle " << angle << ", " << faces << " faces");
    CHECK(angle >= theta - 1e-9);
    CHECK(faces <= 200);  // the guard refuses some collapses, not most
  }
  // A jittered grid whose input has angles below the guard's: the bound
  // is then the input's smallest angle.
  soup s = grid_soup(16);
  for (vec3& p : s.points)
    if (p.x > 0 && p.x < 16 && p.y > 0 && p.y < 16)
      p.x += 0.45 * std::sin(1.7 * p.y + 0.3 * p.x), p.y += 0.45 * std::cos(1.3 * p.x);
  triangle_mesh m = s.build();
  const double input = decimated_min_angle(m);
  decimate_options o;
  o.target_faces = 100;
  o.min_angle = 30;
  o.validate_each_collapse = true;
  const checked c = run(m, o);
  INFO("input " << input << ", result " << decimated_min_angle(m) << ", " << m.face_count() << " faces");
  CHECK(input < 30);
  CHECK(decimated_min_angle(m) >= input - 1e-9);
  CHECK(m.face_count() < 400);
  for (const tri& t : c.output) CHECK(t.normal().z > 0);
}

TEST_CASE("decimate: max_error stops the collapses on a curved surface") {
  triangle_mesh m = sphere(4);
  decimate_options o;
  o.target_faces = 4;
  o.max_error = 1e-3;
  const checked c = run(m, o);
  CHECK(c.r.max_error <= 1e-3);
  CHECK(m.face_count() > 100);  // a sphere cannot get that coarse within 1e-3
  CHECK(distance(c.input, c.output) < 0.01);
}

TEST_CASE("decimate: an odd target on a closed mesh stops one face above it") {
  triangle_mesh m = sphere(3);  // 1280 faces
  decimate_options o;
  o.target_faces = 301;
  run(m, o);
  CHECK(m.face_count() == 302);
}

TEST_CASE("decimate: several components, each decimated, none lost") {
  soup s = icosahedron_soup();
  triangle_mesh one = sphere(3);
  // Three spheres apart, and an isolated vertex.
  std::vector<vec3> pts;
  std::vector<std::array<std::uint32_t, 3>> tris;
  for (int k = 0; k < 3; ++k) {
    const auto base = static_cast<std::uint32_t>(pts.size());
    std::map<std::uint32_t, std::uint32_t> index;
    for (const Vertex v : one.vertices()) {
      index[v.idx()] = static_cast<std::uint32_t>(pts.size());
      pts.push_back(one.position(v) + vec3{3.0 * k, 0, 0});
    }
    (void)base;
    for (const Face f : one.faces()) {
      const auto c = one.corners(f);
      tris.push_back({index[c[0].idx()], index[c[1].idx()], index[c[2].idx()]});
    }
  }
  pts.push_back({10, 10, 10});
  triangle_mesh m = triangle_mesh::from_triangles(pts, tris);
  REQUIRE(component_count(m) == 4);
  decimate_options o;
  o.target_faces = 3 * 200;
  const checked c = run(m, o);
  CHECK(m.face_count() == 600);
  CHECK(component_count(m) == 4);
  for (const tri& t : c.output) {
    const vec3 centre{3.0 * std::round(t.centroid().x / 3), 0, 0};
    CHECK(dot(t.normal(), t.centroid() - centre) > 0);
  }
  CHECK(distance(c.input, c.output) < 0.05);
}

TEST_CASE("decimate: nothing to do") {
  triangle_mesh empty;
  decimate_options o;
  o.target_faces = 4;
  const decimate_result r = decimate(empty, o);
  CHECK(r.faces_before == 0);
  CHECK(r.faces_after == 0);
  CHECK(r.collapses == 0);
  triangle_mesh m = sphere(2);  // 320 faces
  const auto before = triangle_set(m);
  const auto pos = positions(m);
  o.target_faces = 320;
  CHECK(decimate(m, o).collapses == 0);
  CHECK(triangle_set(m) == before);
  CHECK(positions(m) == pos);
}

TEST_CASE("decimate: bad options and invalid meshes are refused, the mesh unchanged") {
  triangle_mesh m = sphere(2);
  const auto before = triangle_set(m);
  const auto pos = positions(m);
  decimate_options o;
  o.target_faces = 3;
  CHECK_THROWS_AS(decimate(m, o), travpool::usage_error);
  o.target_faces = 100;
  o.max_error = -1;
  CHECK_THROWS_AS(decimate(m, o), travpool::usage_error);
  o.max_error = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(decimate(m, o), travpool::usage_error);
  o.max_error = std::numeric_limits<double>::infinity();
  for (const double bad : {-1.0, 61.0, std::numeric_limits<double>::quiet_NaN()}) {
    o.min_angle = bad;
    CHECK_THROWS_WITH(decimate(m, o), Catch::Contains("min_angle"));
  }
  o.min_angle = 10;
  for (const double bad : {-0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    o.min_angle_ratio = bad;
    CHECK_THROWS_WITH(decimate(m, o), Catch::Contains("min_angle_ratio"));
  }
  o.min_angle_ratio = decimate_options{}.min_angle_ratio;
  CHECK(triangle_set(m) == before);
  CHECK(positions(m) == pos);
  if (!available(execution::openmp)) {
    o.max_error = 1;
    CHECK_THROWS_AS(decimate(m, o, execution::openmp), travpool::usage_error);
  }
  // A face without a halfedge (low-level primitives): not a valid mesh.
  o.max_error = std::numeric_limits<double>::infinity();
  const Face stray = m.new_face();
  CHECK_THROWS_WITH(decimate(m, o), Catch::Contains("not a valid manifold triangle mesh"));
  m.remove(stray);
  m.validate();
  CHECK(triangle_set(m) == before);
  CHECK(positions(m) == pos);
}

#ifdef TRAVPOOL_MESH_DATA
TEST_CASE("decimate: real meshes (elephant, mech-holes-shark with holes, blobby_3cc)") {
  const std::string dir = TRAVPOOL_MESH_DATA;
  for (const char* name : {"elephant.off", "mech-holes-shark.off", "blobby_3cc.off"}) {
    INFO(name);
    triangle_mesh m = read_mesh(dir + "/" + name);
    const auto boundary = boundary_of(m);
    const std::size_t parts = component_count(m);
    decimate_options o;
    o.target_faces = m.face_count() / 5;
    o.validate_each_collapse = m.face_count() < 8000;
    const checked c = run(m, o);
    CHECK(m.face_count() <= o.target_faces + 1);
    CHECK(boundary_of(m) == boundary);
    CHECK(component_count(m) == parts);
    CHECK(min_normal_agreement(c.input, c.output) > -0.5);
    // Within 1% of the bounding box diagonal.
    vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    for (const tri& t : c.input)
      for (const vec3& p : {t.a, t.b, t.c}) {
        lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
        hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
      }
    const double d = distance(c.input, c.output), diag = norm(hi - lo);
    INFO("distance " << d << " diagonal " << diag);
    CHECK(d < 0.01 * diag);
  }
}
#endif
