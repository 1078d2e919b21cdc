// Tests of the mesh's editing and property API: add_triangle, delete_*,
// edge split, typed properties, const-correctness, and handles that stay
// valid through mass deletion.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/mesh.hpp>
#include "generate.hpp"
#include "test_meshes.hpp"

using namespace travpool::mesh;
using namespace travpool::mesh::testing;

TEST_CASE("add_triangle builds what from_triangles builds", "[mesh]") {
  // The grid's triangles in an order that makes fans join in the middle
  // (the patch re-linking case), and the closed icosahedron.
  for (const soup& s : {grid_soup(4), icosahedron_soup(), cube_soup()}) {
    const triangle_mesh ref = s.build();
    triangle_mesh m;
    std::vector<Vertex> vs;
    for (const vec3& p : s.points) vs.push_back(m.add_vertex(p));
    std::vector<std::size_t> order(s.triangles.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937 rng(7);
    for (int round = 0; round < 2; ++round) {
      triangle_mesh mm;
      for (const vec3& p : s.points) mm.add_vertex(p);
      for (const std::size_t i : order) {
        const auto& t = s.triangles[i];
        mm.add_triangle(vs[t[0]], vs[t[1]], vs[t[2]]);
        REQUIRE_NOTHROW(mm.validate());
      }
      CHECK(triangle_set(mm) == triangle_set(ref));
      CHECK(mm.edge_count() == ref.edge_count());
      std::shuffle(order.begin(), order.end(), rng);
    }
  }
  triangle_mesh m;
  const Vertex a = m.add_vertex({0, 0, 0}), b = m.add_vertex({1, 0, 0}), c = m.add_vertex({0, 1, 0});
  m.add_triangle(a, b, c);
  CHECK_THROWS_AS(m.add_triangle(a, b, c), topology_error);  // a->b has a face
  CHECK_THROWS_AS(m.add_triangle(a, a, c), topology_error);
  CHECK(m.face_count() == 1);
  m.validate();
}

TEST_CASE("reserve keeps the mesh and its handles as they are", "[mesh]") {
  const soup s = icosahedron_soup();
  triangle_mesh m = s.build();
  const std::vector<Vertex> before(m.vertices().begin(), m.vertices().end());
  REQUIRE_THROWS_AS(m.reserve(std::size_t{1} << 40, 0, 0), std::length_error);
  REQUIRE_THROWS_AS(m.reserve(100, 100, std::size_t{1} << 40), std::length_error);
  // Six Loop levels: 40,962 vertices, 122,880 edges, 81,920 faces, past the
  // first bin (2^15 slots) of every pool, so the reserved bins fill.
  m.reserve(40962, 122880, 81920);
  m.validate();
  REQUIRE(std::vector<Vertex>(m.vertices().begin(), m.vertices().end()) == before);
  REQUIRE(m.vertex_count() == s.points.size());
  REQUIRE(m.face_count() == s.triangles.size());
  // Growing into the reserved room: the same mesh as without it.
  triangle_mesh plain = s.build();
  for (int i = 0; i < 6; ++i) {
    loop_subdivide(m);
    loop_subdivide(plain);
  }
  m.validate();
  REQUIRE(m.vertex_count() == plain.vertex_count());
  REQUIRE(m.edge_count() == plain.edge_count());
  REQUIRE(m.face_count() == plain.face_count());
  REQUIRE(m.vertex_count() == 40962);
  REQUIRE(m.edge_count() == 122880);
  REQUIRE(m.face_count() == 81920);
  std::vector<std::array<double, 3>> pm, pp;
  for (const Vertex v : m.vertices()) pm.push_back({m.position(v).x, m.position(v).y, m.position(v).z});
  for (const Vertex v : plain.vertices()) pp.push_back({plain.position(v).x, plain.position(v).y, plain.position(v).z});
  REQUIRE(pm == pp);
}

TEST_CASE("typed properties on every element kind", "[mesh]") {
  auto m = cube_soup().build();
  auto vid = m.add_property<Vertex, int>("id", -1);
  auto eid = m.add_property<Edge, std::uint32_t>("id", 7);
  auto hid = m.add_property<Halfedge, int>("side", 0);
  auto fid = m.add_property<Face, double>("area", 1.5);
  for (const Vertex v : m.vertices()) REQUIRE(vid[v] == -1);
  for (const Edge e : m.edges()) REQUIRE(eid[e] == 7);
  for (const Face f : m.faces()) REQUIRE(fid[f] == 1.5);
  int i = 0;
  for (const Vertex v : m.vertices()) vid[v] = i++;
  for (const Edge e : m.edges()) hid[e.halfedge(0)] = 10, hid[e.halfedge(1)] = 11;
  for (const Edge e : m.edges()) CHECK((hid[e.halfedge(0)] == 10 && hid[e.halfedge(1)] == 11));
  // get by name, typed; read-only on a const mesh.
  auto again = m.get_property<Vertex, int>("id");
  i = 0;
  for (const Vertex v : m.vertices()) CHECK(again[v] == i++);
  const triangle_mesh& cm = m;
  auto ro = cm.get_property<Vertex, int>("id");
  STATIC_REQUIRE(std::is_same_v<decltype(ro[Vertex()]), const int&>);
  CHECK(cm.get_property<Halfedge, int>("side")[Halfedge(1)] == 11);
  // New elements get the initial value; the name is taken; types must match.
  const Vertex nv = m.split(*m.faces().begin(), {0.5, 0.5, 0.5});
  CHECK(vid[nv] == -1);
  CHECK_THROWS_AS((m.add_property<Vertex, int>("id")), travpool::usage_error);
  CHECK_THROWS_AS((m.get_property<Vertex, double>("id")), travpool::usage_error);
  CHECK_THROWS_AS((m.get_property<Face, double>("nope")), travpool::usage_error);
  // The mesh's own columns are out of reach.
  CHECK_THROWS_AS((m.get_property<Halfedge, halfedge_link>("tp:links")), travpool::usage_error);
  CHECK_THROWS_AS((m.add_property<Vertex, int>("tp:x")), travpool::usage_error);
  CHECK_THROWS_AS(m.remove_property<Vertex>("tp:out"), travpool::usage_error);
  CHECK_THROWS_AS(m.remove_property(m.positions()), travpool::usage_error);
  // remove
  CHECK(m.has_property<Vertex>("id"));
  m.remove_property(vid);
  CHECK_FALSE(m.has_property<Vertex>("id"));
  m.remove_property<Face>("area");
  CHECK_FALSE(m.has_property<Face>("area"));
  m.remove_property(eid);
  // get-or-add: the existing property (not reset), else a new one.
  auto side = m.get_or_add_property<Halfedge, int>("side", 5);
  CHECK(side[Halfedge(1)] == 11);
  auto mark = m.get_or_add_property<Face, bool>("mark", true);
  CHECK(mark[*m.faces().begin()]);
  CHECK(m.has_property<Face>("mark"));
  CHECK_FALSE(m.has_property<Vertex>("mark"));  // faces and vertices have their own names
  CHECK_THROWS_AS((m.get_or_add_property<Halfedge, double>("side")), travpool::usage_error);
  m.remove_property(hid);
  m.validate();
}

namespace {
// Compile-time checks of const-correctness.
template <class M>
concept can_write_position = requires(M& m, Vertex v) {
  m.position(v) = vec3{};
};
template <class R>
concept can_create = requires(R& r) {
  r.create();
};
// Whether a property of kind K can be indexed by a handle of kind H.
template <class P, class H>
concept indexes = requires(const P& p, H h) {
  p[h];
};
}  // namespace

TEST_CASE("every view of an element kind yields that kind's handle type", "[mesh]") {
  auto m = sphere(1);
  auto parts = m.faces().partition(3);
  std::size_t faces = 0;
  for (auto& part : parts)
    for (const auto f : part) {
      STATIC_REQUIRE(std::is_same_v<std::remove_const_t<decltype(f)>, Face>);
      CHECK(m.is_live(f));
      ++faces;
    }
  CHECK(faces == m.face_count());
  std::size_t edges = 0;
  for (const auto e : m.edges().range()) {
    STATIC_REQUIRE(std::is_same_v<std::remove_const_t<decltype(e)>, Edge>);
    edges += m.is_live(e);
  }
  CHECK(edges == m.edge_count());
  STATIC_REQUIRE(std::is_same_v<std::iter_value_t<element_range<Vertex>::iterator>, Vertex>);
  STATIC_REQUIRE(indexes<vertex_property<int>, Vertex>);
  STATIC_REQUIRE_FALSE(indexes<vertex_property<int>, Face>);
  STATIC_REQUIRE_FALSE(indexes<vertex_property<int>, std::uint32_t>);
  STATIC_REQUIRE(indexes<halfedge_property<int>, Halfedge>);
  STATIC_REQUIRE_FALSE(indexes<halfedge_property<int>, Edge>);
}

TEST_CASE("connectivity is read-only from outside", "[mesh]") {
  STATIC_REQUIRE(can_write_position<triangle_mesh>);
  STATIC_REQUIRE_FALSE(can_write_position<const triangle_mesh>);
  STATIC_REQUIRE_FALSE(can_create<element_range<Vertex>>);
  STATIC_REQUIRE(std::is_same_v<decltype(std::declval<triangle_mesh&>().to(Halfedge())), Vertex>);
  STATIC_REQUIRE(std::is_same_v<decltype(std::declval<triangle_mesh&>().out(Vertex())), Halfedge>);
}

TEST_CASE("deleting faces while iterating them: advance, then delete", "[mesh]") {
  auto m = sphere(3);
  const std::size_t faces = m.face_count();
  std::size_t deleted = 0, visited = 0;
  std::set<Face> seen;
  auto all = m.faces();
  for (auto it = all.begin(); it != all.end();) {
    const Face f = *it++;  // the iterator moves on before f goes
    REQUIRE(m.is_live(f));
    REQUIRE(seen.insert(f).second);
    ++visited;
    if (visited % 3 != 0) {
      m.delete_face(f);  // may delete f's edges and vertices, never another face
      ++deleted;
    }
  }
  CHECK(visited == faces);
  CHECK(m.face_count() == faces - deleted);
  m.validate();
  // Vertices iterated while faces are deleted around other vertices.
  std::size_t vertices = 0;
  for (const Vertex v : m.vertices()) vertices += m.is_live(v);
  CHECK(vertices == m.vertex_count());
}

TEST_CASE("edge split", "[mesh]") {
  SECTION("an interior edge") {
    auto m = sphere(1);
    const Edge e = *m.edges().begin();
    const auto v = m.vertex_count(), ne = m.edge_count(), f = m.face_count();
    const Vertex x = m.split(e, {0, 0, 0});
    m.validate();
    CHECK(m.vertex_count() == v + 1);
    CHECK(m.edge_count() == ne + 3);
    CHECK(m.face_count() == f + 2);
    CHECK(m.valence(x) == 4);
  }
  SECTION("a boundary edge") {
    auto g = grid_soup(2).build();
    Edge b;
    for (const Edge e : g.edges())
      if (g.is_boundary(e)) b = e;
    REQUIRE(b.is_valid());
    const auto v = g.vertex_count(), ne = g.edge_count(), f = g.face_count();
    const Vertex x = g.split(b, {0, 0, 0});
    g.validate();
    CHECK(g.vertex_count() == v + 1);
    CHECK(g.edge_count() == ne + 2);
    CHECK(g.face_count() == f + 1);
    CHECK(g.is_boundary(x));
  }
}

TEST_CASE("delete_face, delete_edge and delete_vertex", "[mesh]") {
  SECTION("one face of a tetrahedron opens it") {
    auto t = tetrahedron_soup().build();
    const Face f = *t.faces().begin();
    t.delete_face(f);
    t.validate();
    CHECK_FALSE(t.is_live(f));
    CHECK(t.face_count() == 3);
    CHECK(t.edge_count() == 6);
    CHECK(t.vertex_count() == 4);
  }
  SECTION("a lone triangle vanishes with its edges and vertices") {
    auto m = grid_soup(1).build();
    m.delete_face(*m.faces().begin());
    m.validate();
    CHECK(m.face_count() == 1);
    CHECK(m.edge_count() == 3);
    CHECK(m.vertex_count() == 3);
    m.delete_face(*m.faces().begin());
    m.validate();
    CHECK(m.face_count() == 0);
    CHECK(m.edge_count() == 0);
    CHECK(m.vertex_count() == 0);
  }
  SECTION("an edge and a vertex of the sphere") {
    auto m = sphere(2);
    const Edge e = *m.edges().begin();
    const auto v = m.vertex_count(), ne = m.edge_count(), f = m.face_count();
    m.delete_edge(e);
    m.validate();
    CHECK_FALSE(m.is_live(e));
    CHECK(m.face_count() == f - 2);
    CHECK(m.edge_count() == ne - 1);
    CHECK(m.vertex_count() == v);
    Vertex inner;
    for (const Vertex w : m.vertices())
      if (!m.is_boundary(w)) inner = w;
    const std::size_t val = m.valence(inner);
    m.delete_vertex(inner);
    m.validate();
    CHECK_FALSE(m.is_live(inner));
    CHECK(m.face_count() == f - 2 - val);
    CHECK(m.edge_count() == ne - 1 - val);
  }
}

TEST_CASE("handles survive deleting half of the faces", "[mesh]") {
  auto m = sphere(3);  // 1280 faces
  auto vid = m.add_property<Vertex, std::uint32_t>("id");
  auto eid = m.add_property<Edge, std::uint32_t>("id");
  auto fid = m.add_property<Face, std::uint32_t>("id");
  std::uint32_t n = 0;
  for (const Vertex v : m.vertices()) vid[v] = n++;
  for (const Edge e : m.edges()) eid[e] = n++;
  for (const Face f : m.faces()) fid[f] = n++;
  // What the caller holds: every handle, with its id and its endpoints.
  struct held_edge {
    Edge e;
    std::uint32_t id;
    Vertex a, b;
  };
  std::vector<std::pair<Vertex, vec3>> vs;
  std::vector<held_edge> es;
  std::vector<std::pair<Face, std::uint32_t>> fs;
  for (const Vertex v : m.vertices()) vs.emplace_back(v, m.position(v));
  for (const Edge e : m.edges()) es.push_back({e, eid[e], m.to(e.halfedge(0)), m.to(e.halfedge(1))});
  for (const Face f : m.faces()) fs.emplace_back(f, fid[f]);
  std::vector<Face> doomed;
  std::mt19937 rng(2026);
  for (const auto& [f, id] : fs)
    if (rng() & 1) doomed.push_back(f);
  for (const Face f : doomed) m.delete_face(f);
  REQUIRE_NOTHROW(m.validate());
  CHECK(m.face_count() == fs.size() - doomed.size());
  std::size_t live_v = 0;
  for (const auto& [v, p] : vs)
    if (m.is_live(v)) {
      ++live_v;
      CHECK(m.position(v) == p);
      CHECK_FALSE(m.is_isolated(v));  // isolated vertices went with their faces
    }
  CHECK(live_v == m.vertex_count());
  CHECK(live_v < vs.size());
  for (const held_edge& h : es)
    if (m.is_live(h.e)) {
      CHECK(eid[h.e] == h.id);
      CHECK(m.to(h.e.halfedge(0)) == h.a);
      CHECK(m.to(h.e.halfedge(1)) == h.b);
    }
  for (const auto& [f, id] : fs)
    if (m.is_live(f)) CHECK(fid[f] == id);
  for (const Face f : doomed) CHECK_FALSE(m.is_live(f));
  // The sweeps run over the holes; parallel equals serial bit for bit.
  compute_normals(m);
  const auto serial = vertex_normals(m);
  for (auto how : {execution::openmp, execution::tbb}) {
    for (const Vertex v : m.vertices()) m.normal(v) = {};
    compute_normals(m, how);
    CHECK(vertex_normals(m) == serial);
  }
  const auto before = positions(m);
  smooth(m, 3);
  const auto smoothed = positions(m);
  for (auto how : {execution::openmp, execution::tbb}) {
    std::size_t i = 0;
    for (const Vertex v : m.vertices()) m.position(v) = before[i++];
    smooth(m, 3, how);
    CHECK(positions(m) == smoothed);
  }
  // New elements reuse the freed slots; the held live handles are unchanged.
  split_collapse(m);
  m.validate();
  for (const auto& [f, id] : fs)
    if (m.is_live(f) && fid[f] != 0) CHECK(fid[f] == id);
}

namespace {
// Every live element and, per halfedge, its target, next and face; per
// vertex, its position.
struct snapshot {
  std::vector<std::array<std::uint32_t, 3>> halfedges;  // {to, next, face}, indexed by halfedge
  std::vector<std::uint32_t> edges, faces;
  std::vector<std::pair<std::uint32_t, vec3>> vertices;
  explicit snapshot(const triangle_mesh& m) {
    for (const Edge e : m.edges()) {
      edges.push_back(e.idx());
      for (int s = 0; s < 2; ++s) {
        const Halfedge h = e.halfedge(s);
        if (halfedges.size() <= h.idx()) halfedges.resize(h.idx() + 1, {0, 0, 0});
        halfedges[h.idx()] = {m.to(h).idx(), m.next(h).idx(), m.face(h).idx()};
      }
    }
    for (const Face f : m.faces()) faces.push_back(f.idx());
    for (const Vertex v : m.vertices()) vertices.push_back({v.idx(), m.position(v)});
  }
  bool operator==(const snapshot& o) const {
    auto same_vertices = std::equal(
        vertices.begin(), vertices.end(), o.vertices.begin(), o.vertices.end(), [](const auto& a, const auto& b) {
          return a.first == b.first && a.second.x == b.second.x && a.second.y == b.second.y && a.second.z == b.second.z;
        });
    auto trimmed = [](std::vector<std::array<std::uint32_t, 3>> h, std::size_t n) {
      h.resize(n);
      return h;
    };
    const std::size_t n = std::min(halfedges.size(), o.halfedges.size());
    return same_vertices && edges == o.edges && faces == o.faces && trimmed(halfedges, n) == trimmed(o.halfedges, n);
  }
};
}  // namespace

TEST_CASE("collapse of out(v) undoes a face split with every handle as it was", "[mesh]") {
  for (int which = 0; which < 4; ++which) {
    triangle_mesh m = which == 0   ? sphere(1)
                      : which == 1 ? cube_soup().build()
                      : which == 2 ? tetrahedron_soup().build()
                                   : grid_soup(3).build();
    INFO("mesh " << which);
    const std::vector<Face> faces(m.faces().begin(), m.faces().end());
    std::size_t undone = 0;
    for (const Face f : faces) {
      const snapshot before(m);
      const auto c = m.corners(f);
      const Vertex v = m.split(f, (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3.0));
      REQUIRE(m.is_live(f));
      CHECK(m.from(m.out(v)) == v);
      CHECK(m.to(m.out(v)) ==
            c[2]);  // the corner before halfedge(f)'s target: f's triangle (b, c, v) lies away from it
      if (!m.is_collapse_ok(m.out(v))) continue;
      m.collapse(m.out(v));
      m.validate();
      CHECK_FALSE(m.is_live(v));
      CHECK(snapshot(m) == before);
      ++undone;
    }
    CHECK(undone == faces.size());
  }
}

TEST_CASE("flip turns an edge in its quadrilateral and keeps every handle", "[mesh][flip]") {
  SECTION("no flip on a tetrahedron (the new edge exists) or on the boundary") {
    const triangle_mesh t = tetrahedron_soup().build();
    for (const Edge e : t.edges()) CHECK_FALSE(t.is_flip_ok(e));
    const triangle_mesh g = grid_soup(3).build();
    for (const Edge e : g.edges())
      if (g.is_boundary(e)) CHECK_FALSE(g.is_flip_ok(e));
  }
  SECTION("a flip and its inverse on a grid: geometry and handles") {
    triangle_mesh m = grid_soup(4).build();
    const auto before = triangle_set(m);
    const std::vector<Vertex> vs(m.vertices().begin(), m.vertices().end());
    const std::vector<Face> fs(m.faces().begin(), m.faces().end());
    auto area = [&](Face f) {
      const auto c = m.corners(f);
      return cross(m.position(c[1]) - m.position(c[0]), m.position(c[2]) - m.position(c[0])).z / 2;
    };
    std::size_t flipped = 0;
    for (const Edge e : std::vector<Edge>(m.edges().begin(), m.edges().end())) {
      if (!m.is_flip_ok(e)) continue;
      const Halfedge h = e.halfedge(0);
      const Vertex a = m.from(h), b = m.to(h);
      const Vertex c = m.to(m.next(h)), d = m.to(m.next(e.halfedge(1)));
      const Face fh = m.face(h), fo = m.face(e.halfedge(1));
      const double total = area(fh) + area(fo);
      m.flip(e);
      REQUIRE_NOTHROW(m.validate());
      // The edge keeps its handle and now joins d to c; the faces keep theirs.
      CHECK(m.from(h) == d);
      CHECK(m.to(h) == c);
      CHECK(m.face(h) == fh);
      CHECK(m.face(e.halfedge(1)) == fo);
      CHECK_FALSE(m.find_halfedge(a, b).is_valid());
      CHECK(m.find_halfedge(c, d).is_valid());
      // The grid's quadrilaterals are convex: both new triangles are
      // counter-clockwise and cover the same area.
      CHECK(area(fh) > 0);
      CHECK(area(fo) > 0);
      CHECK(area(fh) + area(fo) == Approx(total));
      // A second flip gives a-b back (h now from b to a); three more:
      // c-d, a-b, c-d, a-b again.
      REQUIRE(m.is_flip_ok(e));
      m.flip(e);
      CHECK(m.from(h) == b);
      CHECK(m.to(h) == a);
      m.flip(e);
      m.flip(e);
      REQUIRE_NOTHROW(m.validate());
      CHECK(m.find_halfedge(a, b).is_valid());
      ++flipped;
    }
    CHECK(flipped == m.edge_count() - 16);  // every interior edge
    CHECK(triangle_set(m) == before);
    CHECK(std::vector<Vertex>(m.vertices().begin(), m.vertices().end()) == vs);
    CHECK(std::vector<Face>(m.faces().begin(), m.faces().end()) == fs);
  }
  SECTION("flips on a closed sphere keep it valid and closed") {
    triangle_mesh m = sphere(2);
    std::mt19937 rng(11);
    const std::vector<Edge> es(m.edges().begin(), m.edges().end());
    std::size_t done = 0;
    for (int i = 0; i < 400; ++i) {
      const Edge e = es[rng() % es.size()];
      if (!m.is_flip_ok(e)) continue;
      m.flip(e);
      ++done;
      REQUIRE_NOTHROW(m.validate());
    }
    CHECK(done > 100);
    CHECK(m.edge_count() == es.size());
    // Euler characteristic 2, every face still a triangle, every edge with two faces.
    CHECK(m.vertex_count() + m.face_count() == m.edge_count() + 2);
    for (const Edge e : m.edges()) CHECK_FALSE(m.is_boundary(e));
  }
}
