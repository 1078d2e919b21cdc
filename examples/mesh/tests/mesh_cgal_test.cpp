// <travpool/mesh/cgal.hpp>: CGAL's BGL concept checks, then CGAL's
// algorithms on triangle_mesh against the same calls on a CGAL::Surface_mesh
// built from the same triangles (vertex i of one is vertex i of the other):
// same counts, same results. Real meshes come from Debian's libcgal-demo
// (scripts/fetch_meshes.sh; TRAVPOOL_MESH_DATA names the directory).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/cgal.hpp>

#include <CGAL/Polygon_mesh_processing/border.h>
#include <CGAL/Polygon_mesh_processing/compute_normal.h>
#include <CGAL/Polygon_mesh_processing/connected_components.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Polygon_mesh_processing/triangulate_hole.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/Surface_mesh_simplification/Edge_collapse_visitor_base.h>
#include <CGAL/Surface_mesh_simplification/Policies/Edge_collapse/Count_ratio_stop_predicate.h>
#include <CGAL/Surface_mesh_simplification/edge_collapse.h>
#include <CGAL/boost/graph/Euler_operations.h>
#include <CGAL/boost/graph/graph_concepts.h>
#include <CGAL/boost/graph/helpers.h>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/io.hpp>

#include "generate.hpp"

using namespace travpool::mesh;
namespace PMP = CGAL::Polygon_mesh_processing;
using K = CGAL::Epick;
using surface_mesh = CGAL::Surface_mesh<K::Point_3>;
using SV = surface_mesh::Vertex_index;

// The concepts CGAL's algorithms ask of a polygon mesh, for the mesh and
// its const view.
BOOST_CONCEPT_ASSERT((CGAL::HalfedgeListGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((CGAL::FaceListGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((CGAL::MutableFaceGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((CGAL::MutableHalfedgeGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((boost::VertexListGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((boost::EdgeListGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((boost::BidirectionalGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((boost::AdjacencyGraphConcept<triangle_mesh>));
BOOST_CONCEPT_ASSERT((CGAL::FaceListGraphConcept<const triangle_mesh>));
BOOST_CONCEPT_ASSERT(
    (boost::ReadWritePropertyMapConcept<boost::property_map<triangle_mesh, boost::vertex_point_t>::type, Vertex>));

namespace {

// Both meshes of one triangle soup, with vertex i of each.
struct twin {
  triangle_mesh tm;
  surface_mesh sm;
  std::vector<Vertex> tv;
  std::vector<SV> sv;
};

twin make_twin(const soup& s) {
  twin t{s.build(), {}, {}, {}};
  for (const Vertex v : t.tm.vertices()) t.tv.push_back(v);
  for (const vec3& p : s.points) t.sv.push_back(t.sm.add_vertex(K::Point_3(p.x, p.y, p.z)));
  for (const auto& tri : s.triangles)
    REQUIRE(t.sm.add_face(t.sv[tri[0]], t.sv[tri[1]], t.sv[tri[2]]) != surface_mesh::null_face());
  REQUIRE(t.tv.size() == t.sv.size());
  return t;
}

std::string data_dir() {
#ifdef TRAVPOOL_MESH_DATA
  return TRAVPOOL_MESH_DATA;
#else
  return "";
#endif
}

soup real_mesh(const std::string& name) {
  const std::string path = data_dir() + "/" + name + ".off";
  INFO("real mesh " << path << " (scripts/fetch_meshes.sh fetches it)");
  REQUIRE(std::filesystem::exists(path));
  return read_soup(path);
}

// What a mesh holds, compared as counts and by vertex number.
template <class Mesh>
void require_valid(const Mesh& m) {
  REQUIRE(CGAL::is_valid_polygon_mesh(m));
  REQUIRE(CGAL::is_triangle_mesh(m));
}

// Both meshes of a twin pass the same checks.
void require_both_valid(const twin& t) {
  require_valid(t.tm);
  require_valid(t.sm);
}

void require_same_counts(const twin& t) {
  REQUIRE(t.tm.vertex_count() == t.sm.number_of_vertices());
  REQUIRE(t.tm.edge_count() == t.sm.number_of_edges());
  REQUIRE(t.tm.face_count() == t.sm.number_of_faces());
  // num_*(g) is the handle bound (CGAL: an upper bound of the count), and
  // the internal index maps are valid indices into arrays of that size.
  REQUIRE(num_vertices(t.tm) >= std::distance(vertices(t.tm).begin(), vertices(t.tm).end()));
  REQUIRE(num_halfedges(t.tm) >= std::distance(halfedges(t.tm).begin(), halfedges(t.tm).end()));
  REQUIRE(num_vertices(t.tm) == t.tm.handle_bound<Vertex>());
  REQUIRE(num_faces(t.tm) == t.tm.handle_bound<Face>());
  REQUIRE(CGAL::BGL::internal::is_index_map_valid(CGAL::internal_np::vertex_index_t{}, get(boost::vertex_index, t.tm),
                                                  t.tm));
  REQUIRE(CGAL::BGL::internal::is_index_map_valid(CGAL::internal_np::halfedge_index_t{},
                                                  get(boost::halfedge_index, t.tm), t.tm));
  REQUIRE(
      CGAL::BGL::internal::is_index_map_valid(CGAL::internal_np::edge_index_t{}, get(boost::edge_index, t.tm), t.tm));
  REQUIRE(
      CGAL::BGL::internal::is_index_map_valid(CGAL::internal_np::face_index_t{}, get(boost::face_index, t.tm), t.tm));
}

bool close(double a, double b, double rel = 1e-9) {
  return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

// The mesh's own invariants (out() on the boundary included, after
// settle()) and a native edit on top of what CGAL left.
void require_native_ok(triangle_mesh& m) {
  REQUIRE_NOTHROW(m.validate());
  m.settle();
  REQUIRE_NOTHROW(m.validate());
  const Face f = *m.faces().begin();
  m.delete_face(f);
  REQUIRE_NOTHROW(m.validate());
}

// How many of the dynamic maps' columns (cgal.hpp names them
// "cgal:dynamic:N") the mesh holds, for every kind.
std::size_t dynamic_columns(const triangle_mesh& m) {
  std::size_t n = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string name = "cgal:dynamic:" + std::to_string(i);
    n += m.has_property<Vertex>(name) + m.has_property<Edge>(name) + m.has_property<Face>(name);
  }
  return n;
}

// The triangles as sorted triples of vertex numbers, rotated to start at
// the smallest.
template <class Mesh, class Number>
std::vector<std::array<std::uint32_t, 3>> triangles_of(const Mesh& m, const Number& num) {
  std::vector<std::array<std::uint32_t, 3>> out;
  for (const auto f : faces(m)) {
    std::array<std::uint32_t, 3> c{};
    int i = 0;
    for (const auto v : CGAL::vertices_around_face(halfedge(f, m), m)) c[i++] = num.at(v);
    std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
    out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("cgal: the BGL views match the mesh", "[mesh][cgal]") {
  triangle_mesh m = sphere(2);
  // The counts CGAL sees are the handle bounds: above every index, at least
  // the live counts (its concepts ask an upper bound, as Surface_mesh's
  // removed elements make it).
  REQUIRE(num_vertices(m) == m.handle_bound<Vertex>());
  REQUIRE(num_edges(m) == m.handle_bound<Edge>());
  REQUIRE(num_halfedges(m) == m.handle_bound<Halfedge>());
  REQUIRE(num_faces(m) == m.handle_bound<Face>());
  REQUIRE(num_vertices(m) >= m.vertex_count());
  REQUIRE(num_edges(m) >= m.edge_count());
  REQUIRE(num_faces(m) >= m.face_count());
  for (const Vertex v : vertices(m)) REQUIRE(get(boost::vertex_index, m, v) == v.idx());
  for (const Halfedge h : halfedges(m)) REQUIRE(get(get(boost::halfedge_index, m), h) < num_halfedges(m));
  for (const auto e : edges(m)) REQUIRE(get(boost::edge_index, m, e) == e.edge().idx());
  for (const Face f : faces(m)) REQUIRE(get(boost::face_index, m, f) < num_faces(m));
  std::size_t n = 0;
  for (const Halfedge h : halfedges(m)) {
    REQUIRE(m.is_live(h));
    REQUIRE(target(h, m) == m.to(h));
    REQUIRE(source(h, m) == m.from(h));
    REQUIRE(next(prev(h, m), m) == h);
    REQUIRE(halfedge(edge(h, m), m) == h);
    ++n;
  }
  REQUIRE(n == 2 * m.edge_count());
  for (const Vertex v : vertices(m)) {
    REQUIRE(target(halfedge(v, m), m) == v);
    REQUIRE(degree(v, m) == m.valence(v));
    for (const Vertex w : adjacent_vertices(v, m)) REQUIRE(edge(v, w, m).second);
  }
  for (const Face f : faces(m)) REQUIRE(degree(f, m) == 3);
  // vertex_point reads and writes position().
  const Vertex v = *m.vertices().begin();
  auto vpm = get(CGAL::vertex_point, m);
  put(vpm, v, K::Point_3(1.5, -2, 0.25));
  REQUIRE(m.position(v) == vec3{1.5, -2, 0.25});
  REQUIRE(get(vpm, v) == K::Point_3(1.5, -2, 0.25));
}

TEST_CASE("cgal: dynamic property maps are columns of the mesh, gone with the map", "[mesh][cgal]") {
  triangle_mesh m = sphere(1);
  REQUIRE(dynamic_columns(m) == 0);
  {
    auto vm = get(CGAL::dynamic_vertex_property_t<int>(), m);
    auto hm = get(CGAL::dynamic_halfedge_property_t<double>(), m);
    auto copy = vm;
    for (const Vertex v : m.vertices()) put(vm, v, static_cast<int>(v.idx()) * 3);
    for (const Halfedge h : halfedges(m)) put(hm, h, h.idx() + 0.5);
    for (const Vertex v : m.vertices()) REQUIRE(get(copy, v) == static_cast<int>(v.idx()) * 3);
    for (const Halfedge h : halfedges(m)) REQUIRE(get(hm, h) == h.idx() + 0.5);
    auto em = get(CGAL::dynamic_edge_property_t<int>(), m);
    for (const auto e : edges(m)) put(em, e, static_cast<int>(source(e, m).idx()));
    for (const Halfedge h : halfedges(m))
      REQUIRE(get(em, edge(h, m)) == static_cast<int>(m.from(h.edge().halfedge(0)).idx()));
    REQUIRE(dynamic_columns(m) == 3);
  }
  // The columns went with the last copies of the maps.
  REQUIRE(dynamic_columns(m) == 0);
  auto vm = get(CGAL::dynamic_vertex_property_t<int>(), m);
  for (const Vertex v : m.vertices()) REQUIRE(get(vm, v) == 0);
  REQUIRE(dynamic_columns(m) == 1);
  // From a const mesh: a vector by handle, the mesh unchanged.
  const triangle_mesh& cm = m;
  auto fm = get(CGAL::dynamic_face_property_t<bool>(), cm);
  for (const Face f : cm.faces()) put(fm, f, f.idx() % 2 == 1);
  for (const Face f : cm.faces()) REQUIRE(get(fm, f) == (f.idx() % 2 == 1));
  REQUIRE(dynamic_columns(m) == 1);
  // A map outliving its mesh's columns (the mesh moved away) is harmless.
  triangle_mesh moved = std::move(m);
  vm = {};
  REQUIRE(dynamic_columns(moved) == 1);
}

TEST_CASE("cgal: an edge property is an edge map of CGAL's edge descriptors", "[mesh][cgal]") {
  triangle_mesh m = sphere(1);
  auto length = m.add_property<Edge, double>("length");
  for (const auto e : edges(m)) put(length, e, CGAL::Polygon_mesh_processing::edge_length(e, m));
  for (const Halfedge h : halfedges(m)) REQUIRE(get(length, edge(h, m)) == length[h.edge()]);
  REQUIRE(CGAL::Polygon_mesh_processing::edge_length(halfedge(*edges(m).begin(), m), m) == length[*m.edges().begin()]);
}

TEST_CASE("cgal: Euler operations in lockstep with Surface_mesh, between edits of the mesh's own", "[mesh][cgal]") {
  // A sphere with holes, so that CGAL edits boundary vertices too: every
  // triangle none of whose corners is next to an earlier hole is left out
  // (the holes share no vertex, so the mesh stays manifold).
  const triangle_mesh base = sphere(3);
  soup open;
  for (const Vertex v : base.vertices()) open.points.push_back(base.position(v));
  std::vector<char> near_hole(open.points.size());
  std::size_t holes = 0;
  for (const Face f : base.faces()) {
    const auto c = base.corners(f);
    if (!near_hole[c[0].idx()] && !near_hole[c[1].idx()] && !near_hole[c[2].idx()] && holes < 40) {
      for (const Vertex v : c) {
        near_hole[v.idx()] = 1;
        for (const Vertex w : base.vertices_around(v)) near_hole[w.idx()] = 1;
      }
      ++holes;
      continue;
    }
    open.triangles.push_back({c[0].idx(), c[1].idx(), c[2].idx()});
  }
  twin t = make_twin(open);
  REQUIRE(!CGAL::is_closed(t.tm));
  std::mt19937 rng(7);
  // Vertices by number, the same in both meshes: n <-> tv[n] <-> sv[n].
  std::map<Vertex, std::uint32_t> tnum;
  std::map<SV, std::uint32_t> snum;
  std::vector<SV> sv;
  auto number = [&](Vertex v, SV w) {
    REQUIRE(!tnum.count(v));
    REQUIRE(!snum.count(w));
    tnum[v] = snum[w] = static_cast<std::uint32_t>(sv.size());
    sv.push_back(w);
  };
  for (std::size_t i = 0; i < t.tv.size(); ++i) number(t.tv[i], t.sv[i]);
  int flips = 0, splits = 0, collapses = 0, centers = 0, native = 0, border_ops = 0;
  for (int step = 0; step < 1000; ++step) {
    if (step % 50 == 25) {
      // The mesh's own edit (split(Face)), and Surface_mesh's equivalent.
      std::vector<Face> fs(t.tm.faces().begin(), t.tm.faces().end());
      const Face f = fs[rng() % fs.size()];
      const auto c = t.tm.corners(f);
      const vec3 p = (1.0 / 3) * (t.tm.position(c[0]) + t.tm.position(c[1]) + t.tm.position(c[2]));
      const auto [sh, found] = halfedge(sv[tnum.at(c[2])], sv[tnum.at(c[0])], t.sm);
      REQUIRE(found);
      const Vertex v = t.tm.split(f, p);
      const auto sc = CGAL::Euler::add_center_vertex(sh, t.sm);
      t.sm.point(target(sc, t.sm)) = K::Point_3(p.x, p.y, p.z);
      number(v, target(sc, t.sm));
      REQUIRE_NOTHROW(t.tm.validate());  // out() rule included: split() settled first
      ++native;
      continue;
    }
    // A random halfedge of the travpool mesh, and its twin.
    std::vector<Edge> es(t.tm.edges().begin(), t.tm.edges().end());
    const Halfedge th = es[rng() % es.size()].halfedge(rng() % 2);
    const auto [sh, found] = halfedge(sv[tnum.at(source(th, t.tm))], sv[tnum.at(target(th, t.tm))], t.sm);
    REQUIRE(found);
    const bool border = CGAL::is_border(edge(th, t.tm), t.tm);
    REQUIRE(border == CGAL::is_border(edge(sh, t.sm), t.sm));
    border_ops += border;
    switch (rng() % 4) {
      case 0:
        if (CGAL::Euler::does_satisfy_link_condition(edge(th, t.tm), t.tm) && !CGAL::is_border(th, t.tm) &&
            !CGAL::is_border(opposite(th, t.tm), t.tm) && !CGAL::is_border(source(th, t.tm), t.tm) &&
            degree(target(th, t.tm), t.tm) > 3 && degree(source(th, t.tm), t.tm) > 3 &&
            degree(target(next(th, t.tm), t.tm), t.tm) > 3 &&
            degree(target(next(opposite(th, t.tm), t.tm), t.tm), t.tm) > 3) {
          REQUIRE(CGAL::Euler::does_satisfy_link_condition(edge(sh, t.sm), t.sm));
          const Vertex gone = source(th, t.tm);
          const SV sgone = source(sh, t.sm);
          const Vertex kept = CGAL::Euler::collapse_edge(edge(th, t.tm), t.tm);
          const SV skept = CGAL::Euler::collapse_edge(edge(sh, t.sm), t.sm);
          REQUIRE(tnum.at(kept) == snum.at(skept));
          REQUIRE(!t.tm.is_live(gone));
          tnum.erase(gone), snum.erase(sgone);
          ++collapses;
        }
        break;
      case 1: {
        const Halfedge nh = CGAL::Euler::split_edge(th, t.tm);  // ends at the new vertex
        const auto snh = CGAL::Euler::split_edge(sh, t.sm);
        number(target(nh, t.tm), target(snh, t.sm));
        // The faces beside the edge are quadrilaterals now: split each.
        for (auto [x, y] : {std::pair{nh, snh}, std::pair{opposite(th, t.tm), opposite(sh, t.sm)}}) {
          if (CGAL::is_border(x, t.tm)) continue;
          CGAL::Euler::split_face(x, next(next(x, t.tm), t.tm), t.tm);
          CGAL::Euler::split_face(y, next(next(y, t.sm), t.sm), t.sm);
        }
        ++splits;
        break;
      }
      case 2:
        if (!border &&
            !halfedge(target(next(th, t.tm), t.tm), target(next(opposite(th, t.tm), t.tm), t.tm), t.tm).second &&
            degree(target(th, t.tm), t.tm) > 3 && degree(source(th, t.tm), t.tm) > 3) {
          CGAL::Euler::flip_edge(th, t.tm);
          CGAL::Euler::flip_edge(sh, t.sm);
          ++flips;
        }
        break;
      default: {
        const Halfedge x = CGAL::is_border(th, t.tm) ? opposite(th, t.tm) : th;
        const auto y = CGAL::is_border(th, t.tm) ? opposite(sh, t.sm) : sh;
        const Halfedge c = CGAL::Euler::add_center_vertex(x, t.tm);  // ends at the new vertex
        const auto sc = CGAL::Euler::add_center_vertex(y, t.sm);
        number(target(c, t.tm), target(sc, t.sm));
        ++centers;
        if (rng() % 2 == 0) {
          tnum.erase(target(c, t.tm)), snum.erase(target(sc, t.sm));
          REQUIRE(CGAL::Euler::remove_center_vertex(c, t.tm) == x);
          REQUIRE(CGAL::Euler::remove_center_vertex(sc, t.sm) == y);
        }
      }
    }
    if (step % 100 == 99) {
      require_both_valid(t);
      REQUIRE_NOTHROW(t.tm.validate());
      require_same_counts(t);
    }
  }
  CHECK(flips > 20);
  CHECK(splits > 20);
  CHECK(collapses > 20);
  CHECK(centers > 20);
  CHECK(native == 20);
  CHECK(border_ops > 20);
  require_both_valid(t);
  require_same_counts(t);
  REQUIRE(triangles_of(t.tm, tnum) == triangles_of(t.sm, snum));
  // Every boundary vertex's out() is a boundary halfedge again.
  t.tm.settle();
  for (const Vertex v : t.tm.vertices())
    REQUIRE(bool(CGAL::is_border(v, t.tm)) == (!t.tm.is_isolated(v) && t.tm.is_boundary(t.tm.out(v))));
  require_native_ok(t.tm);
}

TEST_CASE("cgal: Polygon Mesh Processing on real meshes, against Surface_mesh", "[mesh][cgal][real]") {
  const auto name = GENERATE(as<std::string>{}, "elephant", "blobby_3cc", "mech-holes-shark");
  INFO(name);
  twin t = make_twin(real_mesh(name));
  require_both_valid(t);
  require_same_counts(t);
  const std::size_t n = t.tv.size();

  SECTION("compute_vertex_normals, area, volume") {
    auto tn = t.tm.add_property<Vertex, K::Vector_3>("normal3");
    auto sn = t.sm.add_property_map<SV, K::Vector_3>("v:n").first;
    PMP::compute_vertex_normals(t.tm, tn);
    PMP::compute_vertex_normals(t.sm, sn);
    for (std::size_t i = 0; i < n; ++i) {
      const K::Vector_3 a = tn[t.tv[i]], b = sn[t.sv[i]];
      REQUIRE(close(a.x(), b.x(), 1e-12));
      REQUIRE(close(a.y(), b.y(), 1e-12));
      REQUIRE(close(a.z(), b.z(), 1e-12));
    }
    REQUIRE(close(PMP::area(t.tm), PMP::area(t.sm)));
    REQUIRE(CGAL::is_closed(t.tm) == CGAL::is_closed(t.sm));
    if (CGAL::is_closed(t.tm)) REQUIRE(close(PMP::volume(t.tm), PMP::volume(t.sm)));
  }

  SECTION("connected_components") {
    auto tc = t.tm.add_property<Face, std::size_t>("cc");
    auto sc = t.sm.add_property_map<surface_mesh::Face_index, std::size_t>("f:cc").first;
    const std::size_t nt = PMP::connected_components(t.tm, tc);
    const std::size_t ns = PMP::connected_components(t.sm, sc);
    REQUIRE(nt == ns);
    REQUIRE(nt == (name == "blobby_3cc" ? 3u : 1u));
    std::vector<std::size_t> st(nt), ss(ns);
    for (const Face f : t.tm.faces()) ++st[tc[f]];
    for (const auto f : t.sm.faces()) ++ss[sc[f]];
    std::sort(st.begin(), st.end()), std::sort(ss.begin(), ss.end());
    REQUIRE(st == ss);
  }

  SECTION("triangulate_hole on every border cycle") {
    std::vector<surface_mesh::Halfedge_index> s_cycles;
    PMP::extract_boundary_cycles(t.sm, std::back_inserter(s_cycles));
    std::map<SV, std::size_t> snumber;
    for (std::size_t i = 0; i < n; ++i) snumber[t.sv[i]] = i;
    if (name == "mech-holes-shark") REQUIRE(s_cycles.size() > 1);
    for (const auto sh : s_cycles) {
      const Vertex a = t.tv[snumber.at(source(sh, t.sm))], b = t.tv[snumber.at(target(sh, t.sm))];
      const auto [th, found] = halfedge(a, b, t.tm);
      REQUIRE(found);
      REQUIRE(CGAL::is_border(th, t.tm));
      std::vector<Face> tf;
      std::vector<surface_mesh::Face_index> sf;
      PMP::triangulate_hole(t.tm, th, std::back_inserter(tf));
      PMP::triangulate_hole(t.sm, sh, std::back_inserter(sf));
      REQUIRE(tf.size() == sf.size());
    }
    REQUIRE(CGAL::is_closed(t.tm));
    require_both_valid(t);
    require_same_counts(t);
    std::map<Vertex, std::size_t> tnumber;
    for (std::size_t i = 0; i < n; ++i) tnumber[t.tv[i]] = i;
    REQUIRE(triangles_of(t.tm, tnumber) == triangles_of(t.sm, snumber));
    REQUIRE(close(PMP::area(t.tm), PMP::area(t.sm)));
    require_native_ok(t.tm);
  }

  SECTION("edge_collapse (Surface_mesh_simplification) to 30 % of the edges, after deleting faces") {
    // Handles with holes: num_*(g) is then above the live counts, and the
    // algorithm's arrays are indexed by handle.
    std::map<SV, std::size_t> snumber;
    for (std::size_t i = 0; i < n; ++i) snumber[t.sv[i]] = i;
    std::map<Vertex, std::size_t> tnumber;
    for (std::size_t i = 0; i < n; ++i) tnumber[t.tv[i]] = i;
    std::vector<std::array<std::uint32_t, 3>> doomed;
    for (const auto& tri : triangles_of(t.sm, snumber))
      if ((tri[0] * 2654435761u >> 28) == 0) doomed.push_back(tri);
    for (const auto& tri : doomed) {
      const auto [th, tfound] = halfedge(t.tv[tri[0]], t.tv[tri[1]], t.tm);
      const auto [sh, sfound] = halfedge(t.sv[tri[0]], t.sv[tri[1]], t.sm);
      REQUIRE(tfound);
      REQUIRE(sfound);
      CGAL::Euler::remove_face(th, t.tm);
      CGAL::Euler::remove_face(sh, t.sm);
    }
    require_both_valid(t);
    require_same_counts(t);
    namespace SMS = CGAL::Surface_mesh_simplification;
    const int tr = SMS::edge_collapse(t.tm, SMS::Count_ratio_stop_predicate<triangle_mesh>(0.3));
    const int sr = SMS::edge_collapse(t.sm, SMS::Count_ratio_stop_predicate<surface_mesh>(0.3));
    REQUIRE(tr > 0);
    REQUIRE(tr == sr);
    require_both_valid(t);
    require_same_counts(t);
    // The same collapses: the surviving triangles, by input vertex number.
    std::map<SV, std::size_t> snum2;
    std::map<Vertex, std::size_t> tnum2;
    for (std::size_t i = 0; i < n; ++i) {
      if (!t.sm.is_removed(t.sv[i])) snum2[t.sv[i]] = i;
      if (t.tm.is_live(t.tv[i])) tnum2[t.tv[i]] = i;
    }
    REQUIRE(triangles_of(t.tm, tnum2) == triangles_of(t.sm, snum2));
    REQUIRE(close(PMP::area(t.tm), PMP::area(t.sm), 1e-9));
    require_native_ok(t.tm);
  }

  SECTION("isotropic_remeshing, border edges constrained through an edge property") {
    const double target = 0.5 * PMP::edge_length(*edges(t.sm).begin(), t.sm);
    auto tc = t.tm.add_property<Edge, bool>("constrained");
    auto sc = t.sm.add_property_map<surface_mesh::Edge_index, bool>("e:constrained", false).first;
    for (const auto e : edges(t.tm)) put(tc, e, CGAL::is_border(e, t.tm));
    for (const auto e : edges(t.sm)) put(sc, e, CGAL::is_border(e, t.sm));
    PMP::isotropic_remeshing(faces(t.tm), target, t.tm,
                             PMP::parameters::number_of_iterations(2).edge_is_constrained_map(tc));
    PMP::isotropic_remeshing(faces(t.sm), target, t.sm,
                             PMP::parameters::number_of_iterations(2).edge_is_constrained_map(sc));
    require_both_valid(t);
    require_same_counts(t);
    REQUIRE(close(PMP::area(t.tm), PMP::area(t.sm), 1e-6));
    std::size_t tb = 0, sb = 0;
    for (const auto e : edges(t.tm)) tb += CGAL::is_border(e, t.tm);
    for (const auto e : edges(t.sm)) sb += CGAL::is_border(e, t.sm);
    REQUIRE(tb == sb);
    // Loop subdivision of what CGAL left equals that of the same triangles
    // built afresh (its boundary rule reads out(v)).
    soup copy;
    std::map<Vertex, std::uint32_t> at;
    for (const Vertex v : t.tm.vertices())
      at[v] = static_cast<std::uint32_t>(copy.points.size()), copy.points.push_back(t.tm.position(v));
    for (const Face f : t.tm.faces()) {
      const auto c = t.tm.corners(f);
      copy.triangles.push_back({at[c[0]], at[c[1]], at[c[2]]});
    }
    triangle_mesh fresh = copy.build();
    const std::vector<Vertex> old_t(t.tm.vertices().begin(), t.tm.vertices().end());
    const std::vector<Vertex> old_f(fresh.vertices().begin(), fresh.vertices().end());
    loop_subdivide(t.tm);
    loop_subdivide(fresh);
    REQUIRE(t.tm.face_count() == fresh.face_count());
    for (std::size_t i = 0; i < old_t.size(); ++i) {
      const vec3 a = t.tm.position(old_t[i]), b = fresh.position(old_f[i]);
      REQUIRE(close(a.x, b.x, 1e-12));
      REQUIRE(close(a.y, b.y, 1e-12));
      REQUIRE(close(a.z, b.z, 1e-12));
    }
    require_native_ok(t.tm);
  }
}

namespace {
// Property rules through CGAL's edge_collapse: its visitor's OnCollapsing
// applies them for the vertex CGAL keeps, target(halfedge(e)) (Euler::
// collapse_edge), and OnCollapsed checks that it was that one. CGAL
// copies the visitor: the counts live outside it.
struct collapse_counts {
  Vertex kept;
  std::size_t collapses = 0, wrong = 0;
};
struct rules_visitor : CGAL::Surface_mesh_simplification::Edge_collapse_visitor_base<triangle_mesh> {
  triangle_mesh* m = nullptr;
  collapse_counts* n = nullptr;
  template <class Profile, class Placement>
  void OnCollapsing(const Profile& profile, const Placement& placement) {
    const Halfedge h = halfedge(edge(profile.v0_v1(), *m), *m);
    n->kept = m->to(h);
    const vec3 p = placement ? vec3{placement->x(), placement->y(), placement->z()} : m->position(n->kept);
    m->apply_collapse_rules(h, p);
  }
  template <class Profile>
  void OnCollapsed(const Profile&, Vertex v) {
    ++n->collapses;
    n->wrong += v != n->kept;
  }
};
}  // namespace

TEST_CASE("cgal: property rules through edge_collapse's visitor", "[mesh][cgal]") {
  namespace SMS = CGAL::Surface_mesh_simplification;
  triangle_mesh m = grid_soup(12).build();
  const std::size_t before = m.vertex_count();
  // Every vertex counts the vertices merged into it.
  auto count = m.add_property<Vertex, std::int64_t>("count", 1);
  m.set_rule(count, follow_function<Vertex, std::int64_t>([&](Vertex, std::span<const weighted<Vertex>> src) {
               std::int64_t n = 0;
               for (const auto& x : src) n += count[x.handle];
               return n;
             }));
  collapse_counts counts;
  rules_visitor vis;
  vis.m = &m;
  vis.n = &counts;
  SMS::edge_collapse(m, SMS::Count_ratio_stop_predicate<triangle_mesh>(0.5), CGAL::parameters::visitor(vis));
  m.settle();
  m.validate();
  CHECK(counts.collapses > 0);
  CHECK(m.vertex_count() + counts.collapses == before);
  CHECK(counts.wrong == 0);
  std::int64_t total = 0;
  for (const Vertex v : m.vertices()) total += count[v];
  CHECK(total == static_cast<std::int64_t>(before));
}
