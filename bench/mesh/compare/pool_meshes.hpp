// bench/mesh/compare/pool_meshes.hpp: contenders (a) travpool
// (travpool/mesh, column pools) and (d) the pointer mesh
// (bench/mesh/pointer_mesh.hpp), which share one protocol: one Loop level of
// the coarse soup (R rebuilds, only the subdivision timed); on the full
// soup normals and smooth10 serially, with OpenMP and with TBB, then
// split_collapse. Each runs in its own child. travpool also runs the
// deletion scenario (travpool_deletion.hpp).
#pragma once

#include <travpool/mesh/algorithms.hpp>
#include "common.hpp"
#include "pointer_ops.hpp"

namespace travpool::mesh::compare {

// Ops gives build(pts, tris), loop(m), for_each_position(m, f(vec3&)),
// for_each_normal(m, f(const vec3&)), normals(m, how), smooth(m, how) and
// split_collapse(m).

template <class Mesh, class Ops>
checksum position_checksum(Ops ops, Mesh& m) {
  checksum c;
  ops.for_each_position(m, [&](const vec3& p) { c.add(p); });
  return c;
}

// One Loop level of the coarse soup, sc.runs times (rebuilt untimed).
template <class Mesh, class Ops>
results run_pool_loop(const scenario& sc, Ops ops) {
  results r;
  r["loop"] = time_loop(
      sc.runs, [&] { return ops.build(sc.coarse_pts, sc.coarse_tris); }, [&](Mesh& m) { ops.loop(m); },
      [&](Mesh& m) {
        r["loop.V"] = double(m.vertex_count()), r["loop.E"] = double(m.edge_count());
        r["loop.F"] = double(m.face_count());
        add_sum(r, "loop_sum", position_checksum(ops, m));
      });
  return r;
}

// Normals, smooth10 and split_collapse on the full soup.
template <class Mesh, class Ops>
results run_pool_mesh(const scenario& sc, Ops ops) {
  results r;
  const int runs = sc.runs;
  Mesh m;
  r["build"] = timed([&] { m = ops.build(sc.pts, sc.tris); });
  auto reset = [&] {
    std::size_t i = 0;
    ops.for_each_position(m, [&](vec3& p) { p = sc.pts[i++]; });
  };
  std::vector<double> ns, no, nt, ss, so, st, sc_t;
  for (int i = 0; i < runs; ++i) {
    ns.push_back(timed([&] { ops.normals(m, execution::serial); }));
    no.push_back(timed([&] { ops.normals(m, execution::openmp); }));
    nt.push_back(timed([&] { ops.normals(m, execution::tbb); }));
  }
  checksum normal_sum;
  ops.for_each_normal(m, [&](const vec3& n) { normal_sum.add(n); });
  add_sum(r, "normal_sum", normal_sum);
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] { ops.smooth(m, execution::serial); }));
    reset();
    so.push_back(timed([&] { ops.smooth(m, execution::openmp); }));
    reset();
    st.push_back(timed([&] { ops.smooth(m, execution::tbb); }));
  }
  add_sum(r, "smooth_sum", position_checksum(ops, m));
  reset();
  std::size_t refused = 0;
  for (int i = 0; i < runs; ++i) sc_t.push_back(timed([&] { refused += ops.split_collapse(m).refused; }));
  add_sum(r, "final_sum", position_checksum(ops, m));
  r["normals.serial"] = median(ns), r["normals.openmp"] = median(no), r["normals.tbb"] = median(nt);
  r["smooth10.serial"] = median(ss), r["smooth10.openmp"] = median(so), r["smooth10.tbb"] = median(st);
  r["split_collapse"] = median(sc_t);
  r["V"] = double(m.vertex_count()), r["E"] = double(m.edge_count()), r["F"] = double(m.face_count());
  r["refused"] = double(refused);
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

struct column_mesh_ops {
  static triangle_mesh build(const soup_points& pts, const soup_tris& tris) {
    return triangle_mesh::from_triangles(pts, tris);
  }
  static void loop(triangle_mesh& m) { loop_subdivide(m); }
  template <class F>
  static void for_each_position(triangle_mesh& m, F&& f) {
    m.vertices().for_each([&](Vertex v) { f(m.position(v)); });
  }
  template <class F>
  static void for_each_normal(const triangle_mesh& m, F&& f) {
    m.vertices().for_each([&](Vertex v) { f(m.normal(v)); });
  }
  static void normals(triangle_mesh& m, execution how) { compute_normals(m, how); }
  static void smooth(triangle_mesh& m, execution how) { travpool::mesh::smooth(m, 10, how); }
  static split_collapse_result split_collapse(triangle_mesh& m) { return travpool::mesh::split_collapse(m); }
};

struct pointer_mesh_ops {
  using mesh = bench::pointer::triangle_mesh;
  static mesh build(const soup_points& pts, const soup_tris& tris) { return mesh::from_triangles(pts, tris); }
  static void loop(mesh& m) { bench::pointer::loop_subdivide(m); }
  template <class F>
  static void for_each_position(mesh& m, F&& f) {
    m.vertices().for_each([&](bench::pointer::vertex& v) { f(v.position()); });
  }
  template <class F>
  static void for_each_normal(const mesh& m, F&& f) {
    for (const bench::pointer::vertex& v : m.vertices()) f(v.normal());
  }
  static void normals(mesh& m, execution how) { bench::pointer::compute_normals(m, how); }
  static void smooth(mesh& m, execution how) { bench::pointer::smooth(m, 10, how); }
  static split_collapse_result split_collapse(mesh& m) { return bench::pointer::split_collapse(m); }
};

inline results run_pointer_loop(const scenario& sc) {
  return run_pool_loop<bench::pointer::triangle_mesh>(sc, pointer_mesh_ops{});
}
inline results run_pointer(const scenario& sc) {
  return run_pool_mesh<bench::pointer::triangle_mesh>(sc, pointer_mesh_ops{});
}

}  // namespace travpool::mesh::compare
