// Tests of the travpool halfedge mesh: every Sieger-Botsch operation on a
// tetrahedron, a cube, an open grid and a generated sphere, with validate()
// after each (the editing API: mesh_api_test.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
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

struct named_mesh {
  std::string name;
  triangle_mesh mesh;
  int euler;  // V - E + F
};

std::vector<named_mesh> small_meshes() {
  std::vector<named_mesh> v;
  v.push_back({"tetrahedron", tetrahedron_soup().build(), 2});
  v.push_back({"cube", cube_soup().build(), 2});
  v.push_back({"grid", grid_soup(5).build(), 1});
  v.push_back({"sphere", sphere(2), 2});
  return v;
}

long euler(const triangle_mesh& m) {
  return static_cast<long>(m.vertex_count()) - static_cast<long>(m.edge_count()) + static_cast<long>(m.face_count());
}

double max_rel_diff(const std::vector<vec3>& a, const std::vector<vec3>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, norm(a[i] - b[i]) / std::max(1e-300, norm(a[i])));
  return d;
}

}  // namespace

TEST_CASE("small meshes build with the right counts and validate", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    REQUIRE_NOTHROW(m.validate());
    CHECK(euler(m) == chi);
  }
  auto t = tetrahedron_soup().build();
  CHECK(t.vertex_count() == 4);
  CHECK(t.edge_count() == 6);
  CHECK(t.face_count() == 4);
  auto g = grid_soup(5).build();
  CHECK(g.vertex_count() == 36);
  CHECK(g.face_count() == 50);
  CHECK(g.edge_count() == 5 * 6 * 2 + 50 / 2 * 1);  // 60 axis edges + 25 diagonals
}

TEST_CASE("circulators visit every neighbour", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    const auto c = circulate_all(m);
    CHECK(c.vertex_vertices == 2 * m.edge_count());
    CHECK(c.face_vertices == 3 * m.face_count());
    CHECK(c.vertex_faces == 3 * m.face_count());
    // Every neighbour found by the circulator is connected back.
    for (const Vertex v : m.vertices())
      for (const Vertex w : m.vertices_around(v)) REQUIRE(m.find_halfedge(w, v).is_valid());
    // Every face around v has v as a corner.
    for (const Vertex v : m.vertices())
      for (const Face f : m.faces_around(v)) {
        const auto k = m.corners(f);
        REQUIRE(std::count(k.begin(), k.end(), v) == 1);
        // The face's own circulators agree with corners().
        std::vector<Vertex> around(m.vertices_of(f).begin(), m.vertices_of(f).end());
        REQUIRE(around == std::vector<Vertex>(k.begin(), k.end()));
        std::size_t hs = 0;
        for (const Halfedge h : m.halfedges_of(f)) REQUIRE((m.face(h) == f && ++hs <= 3));
      }
    m.validate();
  }
  auto cube = cube_soup().build();
  // The cube's corners have valence 3 or 6 (two triangles per side).
  std::map<std::size_t, int> valences;
  for (const Vertex v : cube.vertices()) ++valences[cube.valence(v)];
  CHECK(valences[3] + valences[4] + valences[5] + valences[6] == 8);
  auto grid = grid_soup(3).build();
  std::size_t boundary = 0;
  for (const Vertex v : grid.vertices()) boundary += grid.is_boundary(v);
  CHECK(boundary == 12);
}

TEST_CASE("barycenter is the mean position", "[mesh]") {
  auto cube = cube_soup().build();
  const vec3 b = barycenter(cube);
  CHECK(b.x == Approx(0.5));
  CHECK(b.y == Approx(0.5));
  CHECK(b.z == Approx(0.5));
  auto s = sphere(2);
  CHECK(norm(barycenter(s)) < 1e-12);
  s.validate();
}

TEST_CASE("normals point outwards, are unit, and parallel equals serial", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    compute_normals(m);
    m.validate();
    const vec3 center = barycenter(m);
    for (const Face f : m.faces()) {
      CHECK(norm(m.normal(f)) == Approx(1.0));
      const auto c = m.corners(f);
      const vec3 centroid = (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3);
      if (name == "grid")
        CHECK(m.normal(f).z == Approx(1.0));
      else
        CHECK(dot(m.normal(f), centroid - center) > 0);
    }
    for (const Vertex v : m.vertices()) CHECK(norm(m.normal(v)) == Approx(1.0));
    const auto serial = vertex_normals(m);
    for (const Vertex v : m.vertices()) m.normal(v) = {};
    compute_normals(m, execution::openmp);
    CHECK(serial == vertex_normals(m));  // bit for bit
    for (const Vertex v : m.vertices()) m.normal(v) = {};
    compute_normals(m, execution::tbb);
    CHECK(serial == vertex_normals(m));
    m.validate();
  }
}

TEST_CASE("uniform Laplacian smoothing, serial and parallel", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    const auto before = positions(m);
    std::vector<std::vector<vec3>> results;
    for (auto how : {execution::serial, execution::openmp, execution::tbb}) {
      std::size_t i = 0;
      for (const Vertex v : m.vertices()) m.position(v) = before[i++];
      smooth(m, 10, how);
      m.validate();
      results.push_back(positions(m));
    }
    CHECK(results[0] == results[1]);  // bit for bit
    CHECK(results[0] == results[2]);
    if (name == "grid") {
      // Boundary vertices stay; the flat grid stays flat.
      std::size_t i = 0;
      for (const Vertex v : m.vertices()) {
        if (m.is_boundary(v)) CHECK(results[0][i] == before[i]);
        CHECK(results[0][i].z == 0.0);
        ++i;
      }
    } else {
      CHECK(max_rel_diff(before, results[0]) > 1e-3);  // something moved
    }
  }
  // One Jacobi step on the cube by hand: a corner moves to its neighbours' mean.
  auto cube = cube_soup().build();
  std::vector<vec3> expect;
  for (const Vertex v : cube.vertices()) {
    vec3 s;
    int n = 0;
    for (const Vertex w : cube.vertices_around(v)) s += cube.position(w), ++n;
    expect.push_back(s * (1.0 / n));
  }
  smooth(cube, 1);
  CHECK(max_rel_diff(expect, positions(cube)) <= 1e-15);
}

TEST_CASE("Loop subdivision", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
    loop_subdivide(m);
    m.validate();
    CHECK(m.vertex_count() == v + e);
    CHECK(m.face_count() == 4 * f);
    CHECK(m.edge_count() == 2 * e + 3 * f);
    CHECK(euler(m) == chi);
    for (const Face fc : m.faces()) REQUIRE(norm(face_normal(m, fc)) == Approx(1.0));
    if (name == "grid")
      for (const Vertex w : m.vertices()) CHECK(m.position(w).z == 0.0);
  }
  // A regular tetrahedron keeps its centre; the valence-3 rule by hand.
  auto t = tetrahedron_soup().build();
  loop_subdivide(t);
  CHECK(norm(barycenter(t)) < 1e-12);
  // Old vertex (1,1,1): n = 3, beta = 3/16, new = (1 - 9/16) p + 3/16 * sum(others) = 7/16 p - 3/16 p.
  bool found = false;
  for (const Vertex w : t.vertices())
    if (norm(t.position(w) - vec3{0.25, 0.25, 0.25}) < 1e-12) found = true;
  CHECK(found);
  // Open grid: a boundary edge point is the midpoint.
  auto g = grid_soup(1).build();
  loop_subdivide(g);
  found = false;
  for (const Vertex w : g.vertices())
    if (g.position(w) == vec3{0.5, 0, 0}) found = true;
  CHECK(found);
}

namespace {

// Whether `got` is `want` up to order and 1e-12 per coordinate, each point
// matched once.
bool same_points(std::vector<vec3> got, const std::vector<vec3>& want) {
  if (got.size() != want.size()) return false;
  for (const vec3& w : want) {
    const auto it = std::find_if(got.begin(), got.end(), [&w](const vec3& g) { return norm(g - w) < 1e-12; });
    if (it == got.end()) return false;
    got.erase(it);
  }
  return true;
}

}  // namespace

// Loop's rules computed by hand, not by loop_vertex_point/loop_edge_point:
// an interior vertex of valence n moves to (1 - n beta) v + beta * (sum of
// its neighbours), beta = (5/8 - (3/8 + 1/4 cos(2 pi / n))^2) / n; an
// interior edge's point is 3/8 of its ends plus 1/8 of its two opposite
// corners.
TEST_CASE("Loop subdivision of a tetrahedron and an octahedron, by hand", "[mesh]") {
  // Tetrahedron (the four corners sum to 0): n = 3, beta = 3/16, so a
  // corner p goes to 7/16 p + 3/16 (-p) = p / 4; the opposite corners of
  // edge ab sum to -(a + b), so its point is 3/8 (a + b) - 1/8 (a + b).
  {
    const soup s = tetrahedron_soup();
    auto t = s.build();
    loop_subdivide(t);
    t.validate();
    std::vector<vec3> want;
    for (const vec3& p : s.points) want.push_back(0.25 * p);
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = a + 1; b < 4; ++b) want.push_back(0.25 * (s.points[a] + s.points[b]));
    CHECK(same_points(positions(t), want));
  }
  // Octahedron (corners +-e_i): n = 4, t = 3/8 + 1/4 cos(pi / 2) = 3/8,
  // beta = (5/8 - 9/64) / 4 = 31/256; a corner's four neighbours sum to 0,
  // so it goes to (1 - 124/256) e = 33/64 e. Edge (e_i, e_j): its opposite
  // corners are +-e_k, so its point is 3/8 (e_i + e_j).
  {
    soup s;
    for (int axis = 0; axis < 3; ++axis)
      for (const double sign : {1.0, -1.0}) {
        vec3 p;
        (axis == 0 ? p.x : axis == 1 ? p.y : p.z) = sign;
        s.points.push_back(p);  // index 2 axis + (sign < 0)
      }
    for (std::uint32_t sx = 0; sx < 2; ++sx)
      for (std::uint32_t sy = 0; sy < 2; ++sy)
        for (std::uint32_t sz = 0; sz < 2; ++sz) {
          const std::uint32_t x = sx, y = 2 + sy, z = 4 + sz;
          // Outward: (x, y, z) when an even number of signs is negative.
          if ((sx + sy + sz) % 2 == 0)
            s.triangles.push_back({x, y, z});
          else
            s.triangles.push_back({x, z, y});
        }
    auto o = s.build();
    o.validate();
    REQUIRE(o.edge_count() == 12);
    loop_subdivide(o);
    o.validate();
    std::vector<vec3> want;
    for (const vec3& p : s.points) want.push_back((33.0 / 64.0) * p);
    for (std::size_t a = 0; a < 6; ++a)
      for (std::size_t b = a + 1; b < 6; ++b)
        if (a / 2 != b / 2) want.push_back(0.375 * (s.points[a] + s.points[b]));  // not opposite: an edge
    REQUIRE(want.size() == 6 + 12);
    CHECK(same_points(positions(o), want));
  }
}

TEST_CASE("split_collapse restores the connectivity without moving anything", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    const auto tris = triangle_set(m);
    std::vector<std::pair<Vertex, vec3>> where;
    for (const Vertex v : m.vertices()) where.emplace_back(v, m.position(v));
    const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
    const auto r = split_collapse(m);
    m.validate();
    CHECK(r.split == f);
    CHECK(r.collapsed == f);
    CHECK(r.refused == 0);
    CHECK(m.vertex_count() == v);
    CHECK(m.edge_count() == e);
    CHECK(m.face_count() == f);
    // Same vertex handles at the same positions, same triangles.
    for (const auto& [p, pos] : where) {
      REQUIRE(m.is_live(p));
      CHECK(m.position(p) == pos);
    }
    CHECK(triangle_set(m) == tris);
  }
}

TEST_CASE("face split alone", "[mesh]") {
  auto m = cube_soup().build();
  const Face f = *m.faces().begin();
  const Vertex v = m.split(f, {0.5, 0.5, -0.1});
  m.validate();
  CHECK(m.face_count() == 14);
  CHECK(m.edge_count() == 21);
  CHECK(m.vertex_count() == 9);
  CHECK(m.valence(v) == 3);
}

TEST_CASE("edge collapse checks the link condition", "[mesh]") {
  SECTION("one collapse on each small mesh") {
    for (auto& [name, m, chi] : small_meshes()) {
      INFO(name);
      Halfedge ok;
      for (const Edge e : m.edges())
        for (unsigned s = 0; s < 2 && !ok.is_valid(); ++s)
          if (m.is_collapse_ok(e.halfedge(s))) ok = e.halfedge(s);
      if (name == "tetrahedron") {
        CHECK_FALSE(ok.is_valid());
        continue;
      }
      REQUIRE(ok.is_valid());
      const bool boundary = m.is_boundary(ok.edge());
      const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
      m.collapse(ok);
      m.validate();
      CHECK(m.vertex_count() == v - 1);
      CHECK(m.edge_count() == e - (boundary ? 2 : 3));
      CHECK(m.face_count() == f - (boundary ? 1 : 2));
      CHECK(euler(m) == chi);
    }
  }
  SECTION("a tetrahedron refuses every collapse") {
    auto t = tetrahedron_soup().build();
    for (const Edge e : t.edges())
      for (unsigned s = 0; s < 2; ++s) CHECK_FALSE(t.is_collapse_ok(e.halfedge(s)));
  }
  SECTION("an interior edge on the sphere") {
    auto m = sphere(1);
    const Halfedge h = (*m.edges().begin()).halfedge(0);
    const Vertex keep = m.to(h);
    const Vertex gone = m.from(h);
    REQUIRE(m.is_collapse_ok(h));
    const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
    const auto val = m.valence(keep) + m.valence(gone) - 4;
    m.collapse(h);
    m.validate();
    CHECK(m.vertex_count() == v - 1);
    CHECK(m.edge_count() == e - 3);
    CHECK(m.face_count() == f - 2);
    CHECK(m.is_live(keep));
    CHECK_FALSE(m.is_live(gone));
    CHECK(m.valence(keep) == val);
  }
  SECTION("a boundary edge on the grid, and an interior edge between boundary vertices") {
    auto g = grid_soup(3).build();
    Halfedge boundary;
    Halfedge chord;
    for (const Edge e : g.edges()) {
      const Halfedge h = e.halfedge(0);
      const bool both = g.is_boundary(g.to(h)) && g.is_boundary(g.from(h));
      const Halfedge inner = g.is_boundary(h) ? h.opposite() : h;
      if (g.is_boundary(e) && !boundary.is_valid() && g.is_collapse_ok(inner)) boundary = inner;
      if (!g.is_boundary(e) && both) chord = h;
    }
    REQUIRE(chord.is_valid());
    CHECK_FALSE(g.is_collapse_ok(chord));
    REQUIRE(boundary.is_valid());
    REQUIRE(g.is_collapse_ok(boundary));
    const auto v = g.vertex_count(), e = g.edge_count(), f = g.face_count();
    g.collapse(boundary);
    g.validate();
    CHECK(g.vertex_count() == v - 1);
    CHECK(g.edge_count() == e - 2);
    CHECK(g.face_count() == f - 1);
  }
  SECTION("mass collapse keeps every other handle valid") {
    auto m = sphere(3);
    std::size_t done = 0;
    for (int round = 0; round < 3; ++round) {
      std::vector<Edge> candidates(m.edges().begin(), m.edges().end());
      // Collapse every 7th edge still alive and allowed.
      for (std::size_t i = 0; i < candidates.size(); i += 7) {
        const Edge e = candidates[i];
        if (!m.is_live(e) || !m.is_collapse_ok(e.halfedge(0))) continue;
        m.collapse(e.halfedge(0));
        ++done;
      }
      m.validate();
      CHECK(euler(m) == 2);
    }
    CHECK(done > 100);
    compute_normals(m, execution::openmp);
    smooth(m, 2, execution::tbb);
    m.validate();
  }
}

TEST_CASE("from_triangles rejects non-manifold input", "[mesh]") {
  const std::vector<vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {2, 2, 0}, {2, 0, 0}};
  using tri = std::array<std::uint32_t, 3>;
  auto build = [&](std::vector<tri> t) { return triangle_mesh::from_triangles(p, t); };
  CHECK_THROWS_WITH(build({{0, 1, 2}, {1, 0, 3}, {0, 1, 4}}), Catch::Contains("non-manifold edge"));
  CHECK_THROWS_WITH(build({{0, 1, 2}, {0, 1, 3}}), Catch::Contains("non-manifold edge"));      // orientation
  CHECK_THROWS_WITH(build({{0, 1, 2}, {0, 5, 6}}), Catch::Contains("non-manifold vertex 0"));  // bowtie
  CHECK_THROWS_WITH(build({{0, 1, 1}}), Catch::Contains("degenerate"));
  CHECK_THROWS_WITH(build({{0, 1, 9}}), Catch::Contains("out of range"));
  try {
    build({{0, 1, 2}, {0, 2, 3}, {1, 0, 4}, {0, 1, 5}});
    FAIL("no throw");
  } catch (const topology_error& e) {
    CHECK(e.face_index() == 3);
  }
  // Isolated vertices are kept.
  auto m = build({{0, 1, 2}});
  m.validate();
  CHECK(m.vertex_count() == 7);
  CHECK(m.face_count() == 1);
}

TEST_CASE("handles and columns are 32 bits", "[mesh]") {
  STATIC_REQUIRE(sizeof(Vertex) == 4);
  STATIC_REQUIRE(sizeof(Halfedge) == 4);
  STATIC_REQUIRE(sizeof(Edge) == 4);
  STATIC_REQUIRE(sizeof(Face) == 4);
  STATIC_REQUIRE(sizeof(halfedge_link) == 8);
  STATIC_REQUIRE(Halfedge(7).opposite() == Halfedge(6));
  STATIC_REQUIRE(Halfedge(7).edge() == Edge(3));
  STATIC_REQUIRE(Edge(3).halfedge(1) == Halfedge(7));
  STATIC_REQUIRE(!Vertex().is_valid());
}
