// Tests of the travpool halfedge mesh: every operation on a tetrahedron, a
// cube, an open grid and a generated sphere, with validate() after each.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "algorithms.hpp"
#include "generate.hpp"
#include "mesh.hpp"

using namespace travpool::mesh;

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

// The triangles as sorted triples of vertex pointers, rotated to start at
// the smallest pointer (orientation kept).
std::vector<std::array<const vertex*, 3>> triangle_set(const triangle_mesh& m) {
  std::vector<std::array<const vertex*, 3>> t;
  for (const face& f : m.faces()) {
    auto c = triangle_mesh::corners(f);
    std::array<const vertex*, 3> a{c[0], c[1], c[2]};
    std::rotate(a.begin(), std::min_element(a.begin(), a.end()), a.end());
    t.push_back(a);
  }
  std::sort(t.begin(), t.end());
  return t;
}

std::vector<vec3> positions(const triangle_mesh& m) {
  std::vector<vec3> p;
  for (const vertex& v : m.vertices()) p.push_back(v.position());
  return p;
}

std::vector<vec3> vertex_normals(const triangle_mesh& m) {
  std::vector<vec3> p;
  for (const vertex& v : m.vertices()) p.push_back(v.normal());
  return p;
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
    for (vertex& v : m.vertices())
      for (vertex* w : triangle_mesh::vertices_around(v)) REQUIRE(triangle_mesh::find_halfedge(*w, v) != nullptr);
    // Every face around v has v as a corner.
    for (vertex& v : m.vertices())
      for (face* f : triangle_mesh::faces_around(v)) {
        const auto k = triangle_mesh::corners(*f);
        REQUIRE(std::count(k.begin(), k.end(), &v) == 1);
      }
    m.validate();
  }
  auto cube = cube_soup().build();
  // The cube's corners have valence 3 or 6 (two triangles per side).
  std::map<std::size_t, int> valences;
  for (vertex& v : cube.vertices()) ++valences[triangle_mesh::valence(v)];
  CHECK(valences[3] + valences[4] + valences[5] + valences[6] == 8);
  auto grid = grid_soup(3).build();
  std::size_t boundary = 0;
  for (vertex& v : grid.vertices()) boundary += triangle_mesh::is_boundary(v);
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
    for (face& f : m.faces()) {
      CHECK(norm(f.normal()) == Approx(1.0));
      const auto c = triangle_mesh::corners(f);
      const vec3 centroid = (c[0]->position() + c[1]->position() + c[2]->position()) * (1.0 / 3);
      if (name == "grid")
        CHECK(f.normal().z == Approx(1.0));
      else
        CHECK(dot(f.normal(), centroid - center) > 0);
    }
    for (vertex& v : m.vertices()) CHECK(norm(v.normal()) == Approx(1.0));
    const auto serial = vertex_normals(m);
    for (vertex& v : m.vertices()) v.normal() = {};
    compute_normals(m, execution::openmp);
    CHECK(max_rel_diff(serial, vertex_normals(m)) <= 1e-12);
    for (vertex& v : m.vertices()) v.normal() = {};
    compute_normals(m, execution::tbb);
    CHECK(max_rel_diff(serial, vertex_normals(m)) <= 1e-12);
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
      for (vertex& v : m.vertices()) v.position() = before[i++];
      smooth(m, 10, how);
      m.validate();
      results.push_back(positions(m));
    }
    CHECK(max_rel_diff(results[0], results[1]) <= 1e-12);
    CHECK(max_rel_diff(results[0], results[2]) <= 1e-12);
    if (name == "grid") {
      // Boundary vertices stay; the flat grid stays flat.
      std::size_t i = 0;
      for (vertex& v : m.vertices()) {
        if (triangle_mesh::is_boundary(v)) CHECK(results[0][i] == before[i]);
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
  for (vertex& v : cube.vertices()) {
    vec3 s;
    int n = 0;
    for (vertex* w : triangle_mesh::vertices_around(v)) s += w->position(), ++n;
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
    for (face& fc : m.faces()) REQUIRE(norm(face_normal(fc)) == Approx(1.0));
    if (name == "grid")
      for (vertex& w : m.vertices()) CHECK(w.position().z == 0.0);
  }
  // A regular tetrahedron keeps its centre; the valence-3 rule by hand.
  auto t = tetrahedron_soup().build();
  loop_subdivide(t);
  CHECK(norm(barycenter(t)) < 1e-12);
  // Old vertex (1,1,1): n = 3, beta = 3/16, new = (1 - 9/16) p + 3/16 * sum(others) = 7/16 p - 3/16 p.
  bool found = false;
  for (vertex& w : t.vertices())
    if (norm(w.position() - vec3{0.25, 0.25, 0.25}) < 1e-12) found = true;
  CHECK(found);
  // Open grid: a boundary edge point is the midpoint.
  auto g = grid_soup(1).build();
  loop_subdivide(g);
  found = false;
  for (vertex& w : g.vertices())
    if (w.position() == vec3{0.5, 0, 0}) found = true;
  CHECK(found);
}

TEST_CASE("split_collapse restores the connectivity without moving anything", "[mesh]") {
  for (auto& [name, m, chi] : small_meshes()) {
    INFO(name);
    const auto tris = triangle_set(m);
    std::vector<std::pair<const vertex*, vec3>> where;
    for (vertex& v : m.vertices()) where.emplace_back(&v, v.position());
    const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
    const auto r = split_collapse(m);
    m.validate();
    CHECK(r.split == f);
    CHECK(r.collapsed == f);
    CHECK(r.refused == 0);
    CHECK(m.vertex_count() == v);
    CHECK(m.edge_count() == e);
    CHECK(m.face_count() == f);
    // Same vertices at the same addresses and positions, same triangles.
    for (const auto& [p, pos] : where) {
      REQUIRE(m.vertices().contains(p));
      CHECK(p->position() == pos);
    }
    CHECK(triangle_set(m) == tris);
  }
}

TEST_CASE("face split alone", "[mesh]") {
  auto m = cube_soup().build();
  face* f = &*m.faces().begin();
  vertex* v = m.split(*f, {0.5, 0.5, -0.1});
  m.validate();
  CHECK(m.face_count() == 14);
  CHECK(m.edge_count() == 21);
  CHECK(m.vertex_count() == 9);
  CHECK(triangle_mesh::valence(*v) == 3);
}

TEST_CASE("edge collapse checks the link condition", "[mesh]") {
  SECTION("one collapse on each small mesh") {
    for (auto& [name, m, chi] : small_meshes()) {
      INFO(name);
      halfedge* ok = nullptr;
      for (edge& e : m.edges())
        for (unsigned s = 0; s < 2 && ok == nullptr; ++s)
          if (triangle_mesh::is_collapse_ok(*e.half(s))) ok = e.half(s);
      if (name == "tetrahedron") {
        CHECK(ok == nullptr);
        continue;
      }
      REQUIRE(ok != nullptr);
      const bool boundary = ok->edge()->is_boundary();
      const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
      m.collapse(*ok);
      m.validate();
      CHECK(m.vertex_count() == v - 1);
      CHECK(m.edge_count() == e - (boundary ? 2 : 3));
      CHECK(m.face_count() == f - (boundary ? 1 : 2));
      CHECK(euler(m) == chi);
    }
  }
  SECTION("a tetrahedron refuses every collapse") {
    auto t = tetrahedron_soup().build();
    for (edge& e : t.edges())
      for (unsigned s = 0; s < 2; ++s) CHECK_FALSE(triangle_mesh::is_collapse_ok(*e.half(s)));
  }
  SECTION("an interior edge on the sphere") {
    auto m = sphere(1);
    halfedge* h = m.edges().begin()->half(0);
    vertex* keep = h->to();
    vertex* gone = h->from();
    REQUIRE(triangle_mesh::is_collapse_ok(*h));
    const auto v = m.vertex_count(), e = m.edge_count(), f = m.face_count();
    const auto val = triangle_mesh::valence(*keep) + triangle_mesh::valence(*gone) - 4;
    m.collapse(*h);
    m.validate();
    CHECK(m.vertex_count() == v - 1);
    CHECK(m.edge_count() == e - 3);
    CHECK(m.face_count() == f - 2);
    CHECK(m.vertices().contains(keep));
    CHECK_FALSE(m.vertices().contains(gone));
    CHECK(triangle_mesh::valence(*keep) == val);
  }
  SECTION("a boundary edge on the grid, and an interior edge between boundary vertices") {
    auto g = grid_soup(3).build();
    halfedge* boundary = nullptr;
    halfedge* chord = nullptr;
    for (edge& e : g.edges()) {
      halfedge* h = e.half(0);
      const bool both = triangle_mesh::is_boundary(*h->to()) && triangle_mesh::is_boundary(*h->from());
      halfedge* inner = h->is_boundary() ? h->opposite() : h;
      if (e.is_boundary() && boundary == nullptr && triangle_mesh::is_collapse_ok(*inner)) boundary = inner;
      if (!e.is_boundary() && both) chord = h;
    }
    REQUIRE(chord != nullptr);
    CHECK_FALSE(triangle_mesh::is_collapse_ok(*chord));
    REQUIRE(boundary != nullptr);
    REQUIRE(triangle_mesh::is_collapse_ok(*boundary));
    const auto v = g.vertex_count(), e = g.edge_count(), f = g.face_count();
    g.collapse(*boundary);
    g.validate();
    CHECK(g.vertex_count() == v - 1);
    CHECK(g.edge_count() == e - 2);
    CHECK(g.face_count() == f - 1);
  }
  SECTION("mass collapse keeps every other pointer valid") {
    auto m = sphere(3);
    std::size_t done = 0;
    for (int round = 0; round < 3; ++round) {
      std::vector<halfedge*> candidates;
      for (edge& e : m.edges()) candidates.push_back(e.half(0));
      // Collapse every 7th edge still alive and allowed.
      for (std::size_t i = 0; i < candidates.size(); i += 7) {
        edge* e = candidates[i]->edge();
        if (!m.edges().contains(e) || !triangle_mesh::is_collapse_ok(*e->half(0))) continue;
        m.collapse(*e->half(0));
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

TEST_CASE("element sizes", "[mesh]") {
  // 8-byte pointers: a vertex is position, normal, out (56 B), an edge two
  // halfedges of to, next|side, face (48 B), a face half and normal (32 B).
  STATIC_REQUIRE(sizeof(vertex) == 56);
  STATIC_REQUIRE(sizeof(edge) == 48);
  STATIC_REQUIRE(sizeof(face) == 32);
  // The compact pool layout adds nothing per chunk.
  STATIC_REQUIRE(triangle_mesh::vertex_pool::chunk_stride == 56);
  STATIC_REQUIRE(triangle_mesh::edge_pool::chunk_stride == 48);
  STATIC_REQUIRE(triangle_mesh::face_pool::chunk_stride == 32);
}
