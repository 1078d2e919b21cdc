// Tests of triangle_mesh::split_into_four (mesh_split4.hpp) and of
// loop_subdivide on it: the result equals the construction from
// insert_vertex and insert_edge (the reference below) triangle for
// triangle and position for position, on closed meshes, on open ones, on
// meshes with holes and isolated vertices, for two levels; old handles
// stay valid; from equal pools both number the new elements alike; a
// throw leaves the mesh unchanged.
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

#include "algorithms.hpp"
#include "generate.hpp"
#include "mesh.hpp"
#include "soup.hpp"
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
      CHECK(std::vector<Edge>(a.edges().begin(), a.edges().end()) ==
            std::vector<Edge>(b.edges().begin(), b.edges().end()));
      for (const Edge e : a.edges()) {
        REQUIRE(b.is_live(e));
        CHECK(a.to(e.halfedge(0)) == b.to(e.halfedge(0)));
        CHECK(a.to(e.halfedge(1)) == b.to(e.halfedge(1)));
      }
      for (const Face f : a.faces()) CHECK(a.halfedge(f) == b.halfedge(f));
      for (const Vertex v : a.vertices()) CHECK(key(a.position(v)) == key(b.position(v)));
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
  for (const char* kind : {"vertex", "edge", "face"})
    for (const int budget : {0, 1, 5, 17}) {
      INFO(kind << " property, budget " << budget);
      auto m = grid_soup(3).build();
      if (std::string(kind) == "vertex") m.add_vertex_property<fragile>("fragile");
      if (std::string(kind) == "edge") m.add_edge_property<fragile>("fragile");
      if (std::string(kind) == "face") m.add_face_property<fragile>("fragile");
      const auto tris = triangle_set(m);
      const auto pos = positions(m);
      const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
      const std::vector<Edge> es(m.edges().begin(), m.edges().end());
      const std::vector<Face> fs(m.faces().begin(), m.faces().end());
      const std::vector<vec3> points(es.size(), vec3{1, 2, 3});
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
      CHECK_NOTHROW(m.validate());
      CHECK(m.face_count() == 4 * f);
    }
}
