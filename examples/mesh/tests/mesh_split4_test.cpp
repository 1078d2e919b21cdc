// Tests of triangle_mesh::split_into_four (mesh.hpp) and of
// loop_subdivide on it: the result equals the construction from
// insert_vertex and insert_edge (the reference below) triangle for
// triangle and position for position, on closed meshes, on open ones, on
// meshes with holes and isolated vertices, for two levels; old handles
// stay valid; from equal pools (with gaps or not) both number the new
// elements alike; lists that miss or repeat an element are refused; a
// throw leaves the mesh unchanged and its pools as they were.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/mesh.hpp>
#include <travpool/mesh/soup.hpp>
#include "generate.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;
using namespace travpool::mesh::testing;

namespace {

// The same Loop level through the local edits: the points of
// loop_subdivide, then insert_vertex on every old edge and three
// insert_edge per old face (PMP's construction).
void loop_by_edits(triangle_mesh& m) {
  std::vector<std::pair<Vertex, vec3>> moved;
  for (const Vertex v : m.vertices()) moved.emplace_back(v, loop_vertex_point(m, v));
  std::vector<std::pair<Edge, vec3>> points;
  for (const Edge e : m.edges()) points.emplace_back(e, loop_edge_point(m, e));
  const std::vector<Face> faces(m.faces().begin(), m.faces().end());
  for (const auto& [e, p] : points) m.insert_vertex(e.halfedge(0), p);
  for (const Face f : faces) {
    Halfedge h = m.halfedge(f);
    for (int i = 0; i < 3; ++i) h = m.insert_edge(h, m.next(m.next(h)));
  }
  for (const auto& [v, p] : moved) m.position(v) = p;
}

// A position rounded to 1e-9: the two constructions sum a vertex's
// neighbours in different orders (their handles differ), so positions agree
// to rounding only; the test meshes' points are far further apart.
using point_key = std::array<long long, 3>;
point_key key(const vec3& p) { return {std::llround(p.x * 1e9), std::llround(p.y * 1e9), std::llround(p.z * 1e9)}; }

// The triangles as sorted triples of corner keys, rotated to start at the
// smallest (orientation kept): comparable across handle numberings.
std::vector<std::array<point_key, 3>> geometry(const triangle_mesh& m) {
  std::vector<std::array<point_key, 3>> t;
  for (const Face f : m.faces()) {
    std::array<point_key, 3> a;
    const auto c = m.corners(f);
    for (int i = 0; i < 3; ++i) a[i] = key(m.position(c[i]));
    std::rotate(a.begin(), std::min_element(a.begin(), a.end()), a.end());
    t.push_back(a);
  }
  std::sort(t.begin(), t.end());
  return t;
}

std::vector<point_key> sorted_positions(const triangle_mesh& m) {
  std::vector<point_key> p;
  for (const Vertex v : m.vertices()) p.push_back(key(m.position(v)));
  std::sort(p.begin(), p.end());
  return p;
}

// Meshes with closed parts, boundaries, holes and isolated vertices.
std::vector<std::pair<std::string, triangle_mesh>> inputs() {
  std::vector<std::pair<std::string, triangle_mesh>> v;
  v.emplace_back("tetrahedron", tetrahedron_soup().build());
  v.emplace_back("cube", cube_soup().build());
  v.emplace_back("grid", grid_soup(5).build());
  v.emplace_back("sphere", sphere(2));
  triangle_mesh holes = sphere(2);
  std::mt19937 rng(7);
  std::vector<Face> faces(holes.faces().begin(), holes.faces().end());
  std::shuffle(faces.begin(), faces.end(), rng);
  std::vector<Vertex> used;  // holes share no vertex, so every vertex stays on one fan
  for (const Face f : faces) {
    const auto c = holes.corners(f);
    if (std::any_of(c.begin(), c.end(), [&](Vertex w) { return std::count(used.begin(), used.end(), w) != 0; }))
      continue;
    used.insert(used.end(), c.begin(), c.end());
    holes.delete_face(f);
    if (used.size() >= 30) break;
  }
  holes.add_vertex({5, 5, 5});  // isolated
  v.emplace_back("sphere with holes", std::move(holes));
  return v;
}

// a and b have the same live handles, and each names the same element:
// the same to, next and face of every halfedge, halfedge of every face,
// position (to rounding) of every vertex.
void check_same_numbering(const triangle_mesh& a, const triangle_mesh& b) {
  REQUIRE_NOTHROW(a.validate());
  REQUIRE_NOTHROW(b.validate());
  CHECK(std::vector<Vertex>(a.vertices().begin(), a.vertices().end()) ==
        std::vector<Vertex>(b.vertices().begin(), b.vertices().end()));
  CHECK(std::vector<Edge>(a.edges().begin(), a.edges().end()) == std::vector<Edge>(b.edges().begin(), b.edges().end()));
  CHECK(std::vector<Face>(a.faces().begin(), a.faces().end()) == std::vector<Face>(b.faces().begin(), b.faces().end()));
  for (const Edge e : a.edges()) {
    REQUIRE(b.is_live(e));
    for (const Halfedge h : {e.halfedge(0), e.halfedge(1)}) {
      CHECK(a.to(h) == b.to(h));
      CHECK(a.next(h) == b.next(h));
      CHECK(a.face(h) == b.face(h));
    }
  }
  for (const Face f : a.faces()) CHECK(a.halfedge(f) == b.halfedge(f));
  for (const Vertex v : a.vertices()) CHECK(key(a.position(v)) == key(b.position(v)));
}

}  // namespace

TEST_CASE("loop_subdivide equals the construction from insert_vertex and insert_edge", "[mesh]") {
  for (auto& [name, m] : inputs()) {
    INFO(name);
    triangle_mesh ref, a, b;  // the same triangles, numbered afresh (three times)
    {
      std::vector<vec3> pts;
      std::vector<std::array<std::uint32_t, 3>> tris;
      to_triangles(m, pts, tris);
      ref = triangle_mesh::from_triangles(pts, tris);
      a = triangle_mesh::from_triangles(pts, tris);
      b = triangle_mesh::from_triangles(pts, tris);
    }
    CHECK(ref.vertex_count() == m.vertex_count());
    for (int level = 0; level < 2; ++level) {
      INFO("level " << level);
      const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
      loop_subdivide(m);
      loop_by_edits(ref);
      REQUIRE_NOTHROW(m.validate());
      REQUIRE_NOTHROW(ref.validate());
      CHECK(m.vertex_count() == v + e);
      CHECK(m.edge_count() == 2 * e + 3 * f);
      CHECK(m.face_count() == 4 * f);
      CHECK(geometry(m) == geometry(ref));
      CHECK(sorted_positions(m) == sorted_positions(ref));
      // From equal pools, both constructions number every new element alike.
      loop_subdivide(a);
      loop_by_edits(b);
      CHECK(triangle_set(a) == triangle_set(b));
      check_same_numbering(a, b);  // the edge list too
      // A vertex on the boundary has its boundary halfedge as out().
      for (const Vertex w : m.vertices())
        for (const Halfedge h : m.out_halfedges(w))
          if (m.is_boundary(h)) CHECK(m.is_boundary(m.out(w)));
    }
  }
}

TEST_CASE("split_into_four keeps old handles and gives the inner triangle the old face", "[mesh]") {
  auto m = cube_soup().build();
  const std::vector<Vertex> vs(m.vertices().begin(), m.vertices().end());
  const std::vector<Edge> es(m.edges().begin(), m.edges().end());
  const std::vector<Face> fs(m.faces().begin(), m.faces().end());
  std::vector<vec3> where, points;
  for (const Vertex v : vs) where.push_back(m.position(v));
  std::vector<std::array<Vertex, 2>> ends;
  for (const Edge e : es) {
    ends.push_back({m.to(e.halfedge(1)), m.to(e.halfedge(0))});
    points.push_back(0.5 * (m.position(ends.back()[0]) + m.position(ends.back()[1])));
  }
  m.split_into_four(es, points, fs);
  REQUIRE_NOTHROW(m.validate());
  for (std::size_t i = 0; i < vs.size(); ++i) {
    REQUIRE(m.is_live(vs[i]));
    CHECK(m.position(vs[i]) == where[i]);
  }
  for (std::size_t i = 0; i < es.size(); ++i) {
    // h0 now runs from the old first end to the edge's new vertex.
    const Halfedge h0 = es[i].halfedge(0);
    CHECK(m.from(h0) == ends[i][0]);
    CHECK(m.position(m.to(h0)) == points[i]);
  }
  for (const Face f : fs) {  // the inner triangle: its corners are all new
    REQUIRE(m.is_live(f));
    for (const Vertex c : m.corners(f)) CHECK(std::find(vs.begin(), vs.end(), c) == vs.end());
  }
  CHECK_THROWS_AS(m.split_into_four(es, std::span<const vec3>(points).first(1), fs), std::invalid_argument);
}

namespace {
// A grid with an interior vertex and a corner face deleted: edge, face and
// vertex handles with gaps, and a hole.
triangle_mesh grid_with_gaps() {
  auto m = grid_soup(6).build();
  m.delete_vertex(Vertex(15));
  m.delete_face(*m.faces().begin());
  m.validate();
  return m;
}
}  // namespace

TEST_CASE("split_into_four numbers like the edits on pools with gaps", "[mesh]") {
  auto a = grid_with_gaps(), b = grid_with_gaps();
  std::uint32_t edge_bound = 0;
  for (const Edge e : a.edges()) edge_bound = std::max(edge_bound, e.idx() + 1);
  REQUIRE(edge_bound > a.edge_count());  // the edge handles have gaps
  for (int level = 0; level < 2; ++level) {
    INFO("level " << level);
    loop_subdivide(a);
    loop_by_edits(b);
    check_same_numbering(a, b);
  }
}

TEST_CASE("split_into_four refuses lists that do not name every element once", "[mesh]") {
  auto m = grid_with_gaps();
  const std::vector<Edge> es(m.edges().begin(), m.edges().end());
  const std::vector<Face> fs(m.faces().begin(), m.faces().end());
  const std::vector<vec3> points(es.size(), vec3{1, 2, 3});
  const auto tris = triangle_set(m);
  const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
  auto expect_refused = [&](const std::vector<Edge>& edges, const std::vector<Face>& faces) {
    const std::vector<vec3> p(edges.size(), vec3{1, 2, 3});
    CHECK_THROWS_AS(m.split_into_four(edges, p, faces), std::invalid_argument);
    REQUIRE_NOTHROW(m.validate());
    CHECK(m.vertex_count() == v);
    CHECK(m.edge_count() == e);
    CHECK(m.face_count() == f);
    CHECK(triangle_set(m) == tris);
  };
  std::vector<Edge> missing(es.begin(), es.end() - 1), twice = es, dead = es;
  twice[1] = twice[0];
  dead[0] = Edge(es.back().idx() + 1000);
  std::vector<Face> missing_f(fs.begin(), fs.end() - 1), twice_f = fs, dead_f = fs;
  twice_f[1] = twice_f[0];
  dead_f[0] = Face(fs.back().idx() + 1000);
  expect_refused(missing, fs);
  expect_refused(twice, fs);
  expect_refused(dead, fs);
  expect_refused(es, missing_f);
  expect_refused(es, twice_f);
  expect_refused(es, dead_f);
  m.split_into_four(es, points, fs);  // the right lists still work
  CHECK_NOTHROW(m.validate());
  CHECK(m.face_count() == 4 * f);
}

namespace {
// A property value whose copy throws once `budget` copies are spent.
struct fragile {
  static inline int budget = -1;  // < 0: never throws
  int value = 0;
  fragile() = default;
  fragile(fragile&&) noexcept = default;
  fragile(const fragile& o) : value(o.value) {
    if (budget == 0) throw std::runtime_error("fragile: copy refused");
    if (budget > 0) --budget;
  }
  fragile& operator=(const fragile&) = default;
};
}  // namespace

TEST_CASE("split_into_four that throws leaves the mesh unchanged", "[mesh]") {
  // The budget is spent by the new elements in creation order: E vertices
  // (vertex property); E split edges, then 3F inner edges (edge property);
  // 3F corners (face property). The last budget of each kind throws at the
  // last element created.
  auto probe = grid_with_gaps();
  const int e0 = static_cast<int>(probe.edge_count()), f0 = static_cast<int>(probe.face_count());
  const std::vector<std::pair<const char*, std::vector<int>>> cases = {
      {"vertex", {0, 1, 5, e0 / 2, e0 - 1}},
      {"edge", {0, 1, e0 / 2, e0 - 1, e0, e0 + 7, e0 + 3 * f0 - 1}},
      {"face", {0, 1, 5, f0, 3 * f0 - 1}}};
  for (const auto& [kind, budgets] : cases)
    for (const int budget : budgets) {
      INFO(kind << " property, budget " << budget);
      // m fails, then splits; twin splits at once: both end alike, handle
      // for handle (the failed call gave its elements back newest first).
      auto m = grid_with_gaps(), twin = grid_with_gaps();
      for (triangle_mesh* x : {&m, &twin}) {
        if (std::string(kind) == "vertex") x->add_property<Vertex, fragile>("fragile");
        if (std::string(kind) == "edge") x->add_property<Edge, fragile>("fragile");
        if (std::string(kind) == "face") x->add_property<Face, fragile>("fragile");
      }
      const auto tris = triangle_set(m);
      const auto pos = positions(m);
      const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
      const std::vector<Edge> es(m.edges().begin(), m.edges().end());
      const std::vector<Face> fs(m.faces().begin(), m.faces().end());
      std::vector<vec3> points;
      for (std::size_t i = 0; i < es.size(); ++i) points.push_back(vec3{double(i), 2, 3});
      fragile::budget = budget;
      CHECK_THROWS_AS(m.split_into_four(es, points, fs), std::runtime_error);
      fragile::budget = -1;
      REQUIRE_NOTHROW(m.validate());
      CHECK(m.vertex_count() == v);
      CHECK(m.edge_count() == e);
      CHECK(m.face_count() == f);
      CHECK(triangle_set(m) == tris);
      CHECK(positions(m) == pos);
      m.split_into_four(es, points, fs);  // and it still works
      twin.split_into_four(es, points, fs);
      CHECK(m.face_count() == 4 * f);
      check_same_numbering(m, twin);
    }
}

TEST_CASE("loop_subdivide that throws leaves connectivity and positions unchanged", "[mesh]") {
  auto m = grid_with_gaps();
  m.add_property<Face, fragile>("fragile");
  const auto tris = triangle_set(m);
  const auto pos = positions(m);
  fragile::budget = 3;
  CHECK_THROWS_AS(loop_subdivide(m), std::runtime_error);
  fragile::budget = -1;
  REQUIRE_NOTHROW(m.validate());
  CHECK(triangle_set(m) == tris);
  CHECK(positions(m) == pos);
}
