// Tests of property rules (triangle_mesh::set_rule, docs/mesh.md "Property
// rules"): every rule on split(Face), split(Edge), collapse, flip,
// split_into_four / loop_subdivide, split_collapse, decimate and remesh,
// against values computed by hand; corner values (halfedge properties,
// UVs) through each edit and through one Loop step; a rule set to none or
// a removed property costs nothing and writes nothing; misuse is refused.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/decimate.hpp>
#include <travpool/mesh/mesh.hpp>
#include <travpool/mesh/remesh.hpp>
#include <travpool/mesh/soup.hpp>
#include <travpool/usage_error.hpp>
#include "generate.hpp"

using namespace travpool::mesh;
using Approx = Catch::Detail::Approx;

namespace {

constexpr double init = -1;  // the initial value of every test property

triangle_mesh make(std::vector<vec3> points, std::vector<std::array<std::uint32_t, 3>> triangles) {
  return triangle_mesh::from_triangles(points, triangles);
}

// One scalar vertex property per built-in rule, and one with a callback
// that returns the number of sources (and 100 more for a survivor).
struct rule_props {
  vertex_property<double> none, interp, copy, keep, avg, fn;
  explicit rule_props(triangle_mesh& m) {
    none = m.add_property<Vertex, double>("none", init);
    interp = m.add_property<Vertex, double>("interpolate", init);
    copy = m.add_property<Vertex, double>("copy", init);
    keep = m.add_property<Vertex, double>("keep", init);
    avg = m.add_property<Vertex, double>("average", init);
    fn = m.add_property<Vertex, double>("callback", init);
    m.set_rule(none, follow::none);
    m.set_rule(interp, follow::interpolate);
    m.set_rule(copy, follow::copy_from_source);
    m.set_rule(keep, follow::keep_survivor);
    m.set_rule(avg, follow::average);
    m.set_rule(fn, follow_function<Vertex, double>([](Vertex t, std::span<const weighted<Vertex>> s) {
                 double w = 0;
                 bool survivor = false;
                 for (const auto& x : s) w += x.weight, survivor |= x.handle == t;
                 CHECK(w == Approx(1.0));
                 return static_cast<double>(s.size()) + (survivor ? 100 : 0);
               }));
  }
  void set(Vertex v, double x) { none[v] = interp[v] = copy[v] = keep[v] = avg[v] = fn[v] = x; }
};

// Corner values: uv[h] = the position of to(h) plus an offset per face
// (a chart per face: every edge a seam), or no offset (one chart).
halfedge_property<vec3> add_corner_uv(triangle_mesh& m, bool chart_per_face, follow how = follow::interpolate) {
  auto uv = m.add_property<Halfedge, vec3>("uv", vec3{init, init, init});
  for (const Face f : m.faces())
    for (const Halfedge h : m.halfedges_of(f))
      uv[h] = m.position(m.to(h)) + (chart_per_face ? vec3{10.0 * f.idx(), 0, 0} : vec3{});
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s)
      if (const Halfedge h = e.halfedge(s); m.is_boundary(h)) uv[h] = m.position(m.to(h));
  m.set_rule(uv, how);
  return uv;
}

bool near(const vec3& a, const vec3& b, double eps = 1e-12) { return norm(a - b) <= eps; }

// The one-chart corner check: every corner (boundary ones too) holds its
// target's position.
void check_corners_at_targets(const triangle_mesh& m, halfedge_property<vec3> uv) {
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s) {
      const Halfedge h = e.halfedge(s);
      INFO("halfedge " << h.idx());
      CHECK(near(uv[h], m.position(m.to(h))));
    }
}

}  // namespace

TEST_CASE("split(Face): barycentric weights, corners, faces, edges", "[rules]") {
  auto m = make({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}}});
  rule_props r(m);
  const Vertex a(0), b(1), c(2);
  r.set(a, 1), r.set(b, 2), r.set(c, 4);
  auto uv = add_corner_uv(m, false);
  auto fid = m.add_property<Face, int>("fid", -1);
  auto elen = m.add_property<Edge, double>("elen", init);
  std::size_t edge_calls = 0;
  m.set_rule(fid, follow::copy_from_source);
  m.set_rule(elen, follow_function<Edge, double>([&](Edge, std::span<const weighted<Edge>> s) {
               CHECK(s.empty());  // an edge cutting a face has no source edge
               ++edge_calls;
               return 7.0;
             }));
  const Face f = *m.faces().begin();
  fid[f] = 3;
  // p = 0.5 a + 0.2 b + 0.3 c, lifted off the plane (projected back).
  const Vertex v = m.split(f, vec3{0.2, 0.3, 0.25});
  m.validate();
  CHECK(r.none[v] == init);
  CHECK(r.interp[v] == Approx(0.5 * 1 + 0.2 * 2 + 0.3 * 4));
  CHECK(r.avg[v] == Approx(7.0 / 3));
  CHECK(r.copy[v] == 1);  // a: the largest weight
  CHECK(r.keep[v] == 1);  // a new vertex copies its primary source
  CHECK(r.fn[v] == 3);
  for (const Vertex x : {a, b, c}) CHECK(r.interp[x] == (x == a ? 1 : x == b ? 2 : 4));  // untouched
  // Corners into v: the barycentric mix of the corners (here the positions,
  // and v is at the projection of p).
  m.position(v) = {0.2, 0.3, 0};
  check_corners_at_targets(m, uv);
  for (const Face g : m.faces()) CHECK(fid[g] == 3);
  CHECK(edge_calls == 3);
  for (const Edge e : m.edges()) CHECK(elen[e] == (m.to(e.halfedge(0)) == v || m.to(e.halfedge(1)) == v ? 7 : init));

  SECTION("average of corners is the centroid's corner") {
    auto m2 = make({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}}});
    auto uv2 = add_corner_uv(m2, false, follow::average);
    const Vertex v2 = m2.split(*m2.faces().begin());  // at the centroid
    CHECK(near(m2.position(v2), vec3{1.0 / 3, 1.0 / 3, 0}, 1e-15));
    check_corners_at_targets(m2, uv2);
  }
}

TEST_CASE("split(Edge): weights by the point's place, both sides, boundary", "[rules]") {
  // The unit square, diagonal a-c: (a, b, c) and (a, c, d).
  auto m = make({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, {{{0, 1, 2}}, {{0, 2, 3}}});
  rule_props r(m);
  const Vertex a(0), b(1), c(2), d(3);
  r.set(a, 1), r.set(b, 3), r.set(c, 5), r.set(d, 9);
  auto uv = add_corner_uv(m, false);
  auto fid = m.add_property<Face, int>("fid", -1);
  auto eid = m.add_property<Edge, double>("eid", init);
  m.set_rule(fid, follow::keep_survivor);
  m.set_rule(eid, follow::interpolate);
  for (const Face f : m.faces()) fid[f] = static_cast<int>(f.idx());
  for (const Edge e : m.edges()) eid[e] = 10.0 + e.idx();
  const Edge diag = m.find_halfedge(a, c).edge();
  const double diag_id = eid[diag];

  SECTION("interior edge at a quarter") {
    const Vertex v = m.split(diag, vec3{0.25, 0.25, 0});
    m.validate();
    CHECK(r.none[v] == init);
    CHECK(r.interp[v] == Approx(0.75 * 1 + 0.25 * 5));
    CHECK(r.avg[v] == Approx(3));
    CHECK(r.copy[v] == 1);  // a is nearer
    CHECK(r.keep[v] == 1);
    CHECK(r.fn[v] == 2);
    check_corners_at_targets(m, uv);
    // Faces: each new face copies the face it was cut from: the one that
    // holds its centroid.
    for (const Face f : m.faces()) {
      const auto k = m.corners(f);
      const vec3 g = (m.position(k[0]) + m.position(k[1]) + m.position(k[2])) * (1.0 / 3);
      CHECK(fid[f] == (g.x > g.y ? 0 : 1));
    }
    // The two halves of the diagonal hold its value; the cutting edges none.
    std::size_t halves = 0, cuts = 0;
    for (const Halfedge h : m.out_halfedges(v)) {
      const Vertex w = m.to(h);
      if (w == a || w == c) {
        CHECK(eid[h.edge()] == diag_id);
        ++halves;
      } else {
        CHECK(eid[h.edge()] == init);
        ++cuts;
      }
    }
    CHECK(halves == 2);
    CHECK(cuts == 2);
  }
  SECTION("boundary edge nearer b; a point off the edge is projected") {
    const Edge ab = m.find_halfedge(a, b).edge();
    const Vertex v = m.split(ab, vec3{0.6, -0.5, 0});
    m.validate();
    CHECK(r.interp[v] == Approx(0.4 * 1 + 0.6 * 3));
    CHECK(r.copy[v] == 3);  // b is nearer
    CHECK(r.avg[v] == Approx(2));
    m.position(v) = {0.6, 0, 0};
    check_corners_at_targets(m, uv);
  }
  SECTION("split(e) without a point: the midpoint") {
    const Vertex v = m.split(diag);
    CHECK(near(m.position(v), vec3{0.5, 0.5, 0}));
    CHECK(r.interp[v] == Approx(3));
    check_corners_at_targets(m, uv);
  }
}

TEST_CASE("collapse: survivor, merged edges, corners", "[rules]") {
  // A 2 x 2 grid; collapse the centre (4) into its right neighbour (5).
  const soup s = grid_soup(2);
  auto m = make(s.points, s.triangles);
  rule_props r(m);
  const Vertex a(4), b(5);
  for (const Vertex v : m.vertices()) r.set(v, 2.0 * v.idx());
  const Halfedge h = m.find_halfedge(a, b);
  REQUIRE(m.is_collapse_ok(h));
  auto eval = m.add_property<Edge, double>("eval", init);
  auto ekeep = m.add_property<Edge, double>("ekeep", init);
  auto ecopy = m.add_property<Edge, double>("ecopy", init);
  m.set_rule(eval, follow::interpolate);
  m.set_rule(ekeep, follow::keep_survivor);
  m.set_rule(ecopy, follow::copy_from_source);
  for (const Edge e : m.edges()) eval[e] = ekeep[e] = ecopy[e] = 100.0 + e.idx();
  // The faces beside h: a -> b -> x, and b -> a -> y.
  const Vertex x = m.to(m.next(h)), y = m.to(m.next(h.opposite()));
  const Edge gone_x = m.find_halfedge(x, a).edge(), kept_x = m.find_halfedge(b, x).edge();
  const Edge gone_y = m.find_halfedge(a, y).edge(), kept_y = m.find_halfedge(y, b).edge();
  const double gx = eval[gone_x], kx = eval[kept_x], gy = eval[gone_y], ky = eval[kept_y];
  auto uv = add_corner_uv(m, true);
  // Each surviving face's corners, by the vertex they were at.
  std::map<std::pair<std::uint32_t, std::uint32_t>, vec3> corner;  // (face, vertex) -> uv
  for (const Face f : m.faces())
    for (const Halfedge g : m.halfedges_of(f)) corner[{f.idx(), m.to(g).idx()}] = uv[g];

  const vec3 pa = m.position(a), pb = m.position(b);
  double wb = 1;
  SECTION("at a quarter of the edge from a") {
    wb = 0.25;
    const vec3 p = m.position(a) * 0.75 + m.position(b) * 0.25 + vec3{0, 0, 0.1};
    m.collapse(h, p);
    m.validate();
    CHECK(m.position(b) == p);
    CHECK(r.interp[b] == Approx(0.75 * 8 + 0.25 * 10));
    CHECK(r.avg[b] == Approx(9));
    CHECK(r.copy[b] == 8);   // the removed vertex's
    CHECK(r.keep[b] == 10);  // the survivor's own
    CHECK(r.none[b] == 10);
    CHECK(r.fn[b] == 102);  // two sources, b among them
    CHECK(eval[kept_x] == Approx(0.75 * gx + 0.25 * kx));
    CHECK(eval[kept_y] == Approx(0.75 * gy + 0.25 * ky));
    CHECK(ekeep[kept_x] == kx);
    CHECK(ecopy[kept_x] == gx);
  }
  SECTION("collapse(h): b stays, interpolate keeps b's value") {
    m.collapse(h);
    CHECK(r.interp[b] == 10);
    CHECK(r.avg[b] == 9);
  }
  // Every corner of a surviving face keeps its value, but one that was at
  // a (now b): it moves by wb (b - a) in its face's chart; the halfedge that
  // takes a removed one's place in its face takes its value.
  for (const Face f : m.faces())
    for (const Halfedge g : m.halfedges_of(f)) {
      const Vertex t = m.to(g);
      const auto it = corner.find({f.idx(), t.idx()});
      const auto at_a = corner.find({f.idx(), a.idx()});
      INFO("face " << f.idx() << " corner " << t.idx());
      if (it != corner.end())
        CHECK(uv[g] == it->second);
      else
        CHECK((t == b && at_a != corner.end() && near(uv[g], at_a->second + (pb - pa) * wb, 1e-14)));
    }
}

TEST_CASE("flip: the corners follow", "[rules]") {
  auto m = make({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, {{{0, 1, 2}}, {{0, 2, 3}}});
  auto uv = add_corner_uv(m, false, follow::copy_from_source);
  auto plain = m.add_property<Halfedge, vec3>("plain");  // no rule
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s) plain[e.halfedge(s)] = uv[e.halfedge(s)];
  const Edge diag = m.find_halfedge(Vertex(0), Vertex(2)).edge();
  m.flip(diag);
  m.validate();
  check_corners_at_targets(m, uv);
  // Without a rule the flipped halves keep their old corners (wrong ones).
  CHECK(!near(plain[diag.halfedge(0)], m.position(m.to(diag.halfedge(0)))));
}

TEST_CASE("loop_subdivide: Loop's masks by hand, and corner UVs", "[rules]") {
  // The unit square, diagonal a-c: every vertex is on the boundary.
  auto m = make({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, {{{0, 1, 2}}, {{0, 2, 3}}});
  rule_props r(m);
  const Vertex a(0), b(1), c(2), d(3);
  r.set(a, 0), r.set(b, 8), r.set(c, 16), r.set(d, 24);
  auto vuv = m.add_property<Vertex, vec3>("vuv");
  for (const Vertex v : m.vertices()) vuv[v] = m.position(v);
  m.set_rule(vuv, follow::interpolate);
  // The linear place of each vertex (callback: an edge's new vertex is the
  // midpoint of its first two sources, its ends; an old one stays).
  auto lin = m.add_property<Vertex, vec3>("lin");
  for (const Vertex v : m.vertices()) lin[v] = m.position(v);
  m.set_rule(lin, follow_function<Vertex, vec3>([&](Vertex t, std::span<const weighted<Vertex>> s) {
               for (const auto& x : s)
                 if (x.handle == t) return lin[t];
               return (lin[s[0].handle] + lin[s[1].handle]) * 0.5;
             }));
  auto uv = add_corner_uv(m, true);
  auto parent = m.add_property<Face, std::uint32_t>("parent");
  for (const Face f : m.faces()) parent[f] = f.idx();
  m.set_rule(parent, follow::copy_from_source);
  const vec3 ac_mid{0.5, 0.5, 0}, ab_mid{0.5, 0, 0};

  loop_subdivide(m);
  m.validate();
  REQUIRE(m.vertex_count() == 9);
  auto at = [&](const vec3& p) {
    for (const Vertex v : m.vertices())
      if (near(lin[v], p)) return v;
    FAIL("no vertex at the linear place");
    return Vertex();
  };
  // Even, boundary: 3/4 a + 1/8 (b + d) = 0 + 1 + 3.
  CHECK(r.interp[a] == Approx(4));
  CHECK(r.interp[c] == Approx(0.75 * 16 + 0.125 * (8 + 24)));
  CHECK(r.keep[a] == 0);
  CHECK(r.copy[a] == 0);                // the old vertex is its primary source
  CHECK(r.fn[a] == 103);                // itself and its two boundary neighbours
  CHECK(r.avg[a] == Approx(32.0 / 3));  // (0 + 8 + 24) / 3
  // Odd, interior edge a-c: 3/8 (a + c) + 1/8 (b + d) = 6 + 4.
  const Vertex m_ac = at(ac_mid);
  CHECK(r.interp[m_ac] == Approx(10));
  CHECK(r.avg[m_ac] == Approx(12));
  CHECK(r.fn[m_ac] == 4);
  CHECK(r.none[m_ac] == init);
  // Odd, boundary edge a-b: (a + b) / 2.
  const Vertex m_ab = at(ab_mid);
  CHECK(r.interp[m_ab] == Approx(4));
  CHECK(r.copy[m_ab] == 0);  // a tie: the edge's first end
  // A vertex UV with Loop's masks moves as the positions do.
  for (const Vertex v : m.vertices()) CHECK(near(vuv[v], m.position(v), 1e-14));
  CHECK(near(m.position(m_ac), vec3{0.5, 0.5, 0}));  // 3/8 (a + c) + 1/8 (b + d)
  // Corner UVs are linear in each old face: a corner's value is the linear
  // place of its vertex plus its old face's chart offset.
  for (const Face f : m.faces())
    for (const Halfedge g : m.halfedges_of(f)) {
      INFO("face " << f.idx() << " parent " << parent[f]);
      CHECK(near(uv[g], lin[m.to(g)] + vec3{10.0 * parent[f], 0, 0}));
    }
  std::size_t children[2] = {0, 0};
  for (const Face f : m.faces()) ++children[parent[f]];
  CHECK(children[0] == 4);
  CHECK(children[1] == 4);
  // Boundary corners: along the loop, the midpoint's corner is its place.
  for (const Edge e : m.edges())
    for (unsigned s = 0; s < 2; ++s)
      if (const Halfedge g = e.halfedge(s); m.is_boundary(g)) CHECK(near(uv[g], lin[m.to(g)]));
}

TEST_CASE("loop_subdivide of a closed mesh: vertex UVs and normals follow", "[rules]") {
  triangle_mesh m = sphere(1);
  compute_normals(m);
  auto vuv = m.add_property<Vertex, vec3>("vuv");
  for (const Vertex v : m.vertices()) vuv[v] = m.position(v);
  m.set_rule(vuv, follow::interpolate);
  m.set_rule(m.vertex_normals(), follow::interpolate);
  loop_subdivide(m);
  m.validate();
  for (const Vertex v : m.vertices()) {
    CHECK(near(vuv[v], m.position(v), 1e-12));
    CHECK(norm(m.normal(v)) == Approx(1.0));
    CHECK(dot(m.normal(v), normalized(m.position(v))) > 0.9);  // a sphere's normal
  }
}

TEST_CASE("split_collapse: interpolate and keep give back every value", "[rules]") {
  triangle_mesh m = sphere(2);
  rule_props r(m);
  for (const Vertex v : m.vertices()) r.set(v, 0.5 * v.idx());
  auto fid = m.add_property<Face, int>("fid");
  m.set_rule(fid, follow::copy_from_source);
  for (const Face f : m.faces()) fid[f] = static_cast<int>(f.idx());
  const auto res = split_collapse(m);
  CHECK(res.refused == 0);
  m.validate();
  for (const Vertex v : m.vertices()) {
    CHECK(r.interp[v] == 0.5 * v.idx());  // each survivor stays where it is
    CHECK(r.keep[v] == 0.5 * v.idx());
  }
  for (const Face f : m.faces()) CHECK(fid[f] == static_cast<int>(f.idx()));
}

TEST_CASE("decimate: a callback that counts merged vertices, serial and parallel", "[rules]") {
  for (const execution how : {execution::serial, execution::openmp}) {
    if (!available(how)) continue;
    const soup s = grid_soup(16);
    auto m = make(s.points, s.triangles);
    auto count = m.add_property<Vertex, std::int64_t>("count", 1);
    m.set_rule(count, follow_function<Vertex, std::int64_t>([&](Vertex, std::span<const weighted<Vertex>> src) {
                 std::int64_t n = 0;
                 for (const auto& x : src) n += count[x.handle];
                 return n;
               }));
    // A linear function interpolates exactly when the placement is on the
    // edge: on a plane, the quadric's placement is a, b or the midpoint.
    const std::size_t before = m.vertex_count();
    decimate_options o;
    o.target_faces = 64;
    o.threads = 2;
    const auto res = decimate(m, o, how);
    m.validate();
    CHECK(res.collapses > 0);
    std::int64_t total = 0;
    for (const Vertex v : m.vertices()) total += count[v];
    CHECK(total == static_cast<std::int64_t>(before));
  }
}

TEST_CASE("remesh: a linear function follows splits, collapses and flips", "[rules]") {
  const soup s = grid_soup(6);
  auto m = make(s.points, s.triangles);
  auto f = m.add_property<Vertex, double>("f");
  auto fn = [](const vec3& p) { return 2 * p.x - 3 * p.y + 1; };
  for (const Vertex v : m.vertices()) f[v] = fn(m.position(v));
  m.set_rule(f, follow::interpolate);
  auto uv = add_corner_uv(m, false);
  remesh_options o;
  o.target_edge_length = 0.5;
  o.iterations = 2;
  o.relaxation_steps = 0;  // vertices move only by the edits
  o.split_boundary = true;
  const auto fine = remesh(m, o);  // splits and flips
  m.validate();
  CHECK(fine.splits > 0);
  CHECK(fine.flips > 0);
  o.target_edge_length = 2;
  o.split_boundary = false;
  const auto coarse = remesh(m, o);  // collapses
  m.validate();
  CHECK(coarse.collapses > 0);
  for (const Vertex v : m.vertices()) CHECK(f[v] == Approx(fn(m.position(v))).margin(1e-12));
  check_corners_at_targets(m, uv);
}

TEST_CASE("rules: none and removal write nothing, misuse is refused", "[rules]") {
  auto m = make({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{{0, 1, 2}}});
  CHECK(!m.has_rules());
  auto p = m.add_property<Vertex, double>("p", init);
  m.set_rule(p, follow::interpolate);
  CHECK(m.has_rules());
  m.set_rule(p, follow::none);
  CHECK(!m.has_rules());
  m.set_rule(p, follow::average);
  m.remove_property(p);
  CHECK(!m.has_rules());
  auto q = m.add_property<Vertex, double>("q", init);
  m.set_rule(q, follow::average);
  m.remove_property<Vertex>("q");
  CHECK(!m.has_rules());
  // No rule: a new vertex holds the initial value.
  auto r = m.add_property<Vertex, double>("r", init);
  for (const Vertex v : m.vertices()) r[v] = 5;
  const Vertex v = m.split(*m.faces().begin());
  CHECK(r[v] == init);
  // Misuse.
  CHECK_THROWS_AS(m.set_rule(m.positions(), follow::interpolate), travpool::usage_error);
  CHECK_THROWS_AS(m.set_rule(vertex_property<double>(), follow::copy_from_source), travpool::usage_error);
  auto name = m.add_property<Vertex, std::string>("name");
  CHECK_THROWS_AS(m.set_rule(name, follow::interpolate), travpool::usage_error);
  CHECK(!m.has_rules());
  m.set_rule(name, follow::copy_from_source);  // any copyable type copies
  CHECK_THROWS_AS(m.set_rule(r, follow_function<Vertex, double>()), travpool::usage_error);
  // Integers interpolate rounded to the nearest.
  auto n = m.add_property<Vertex, int>("n");
  m.set_rule(n, follow::interpolate);
  const Edge e = m.find_halfedge(Vertex(0), Vertex(1)).edge();
  n[Vertex(0)] = 1, n[Vertex(1)] = 2;
  const Vertex w = m.split(e, vec3{0.7, 0, 0});
  CHECK(n[w] == 2);  // 0.3 + 1.4 = 1.7
  CHECK(name[w].empty());
}
