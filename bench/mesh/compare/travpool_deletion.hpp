// bench/mesh/compare/travpool_deletion.hpp: contender (a), travpool: the
// shared protocol of pool_meshes.hpp, and the deletion scenario (its own
// child) on a mesh of the full soup:
//   1. delete the faces sc.doomed (soup indices, in that order) with
//      delete_face, which deletes the edges and vertices left isolated;
//   2. time normals and smooth10 (serial, OpenMP, TBB) on what is left.
// The caller's handles: the handles of the vertices sc.held (which survive
// the deletion) are taken before it with their positions; after it each
// must be live and at the same position (held.ok_after_delete counts
// those), and after the timed operations each must still be live
// (held.live_after_ops) and its normal and smoothed position are reported
// (held.<k>.n*, .p*) for the parent to compare with the vector mesh's
// vertex sc.held[k] (same soup index there: no garbage collection).
#pragma once

#include "pool_meshes.hpp"

namespace travpool::mesh::compare {

inline results run_travpool_deletion(const scenario& sc) {
  results r;
  const int runs = sc.runs;
  triangle_mesh m = triangle_mesh::from_triangles(sc.pts, sc.tris);
  // A fresh mesh traverses in creation order: soup order.
  const std::vector<Vertex> vs(m.vertices().begin(), m.vertices().end());
  const std::vector<Face> fs(m.faces().begin(), m.faces().end());
  if (vs.size() != sc.pts.size() || fs.size() != sc.tris.size()) throw std::runtime_error("deletion: bad build");
  for (const std::uint32_t f : sc.doomed) {
    const auto c = m.corners(fs[f]);
    if (std::find(c.begin(), c.end(), vs[sc.tris[f][0]]) == c.end())
      throw std::runtime_error("deletion: face handles are not in soup order");
  }
  std::vector<Vertex> held;
  std::vector<vec3> held_at;
  for (const std::uint32_t i : sc.held) held.push_back(vs[i]), held_at.push_back(m.position(vs[i]));
  r["del.delete"] = timed([&] {
    for (const std::uint32_t f : sc.doomed) m.delete_face(fs[f]);
  });
  std::size_t ok = 0;
  for (std::size_t k = 0; k < held.size(); ++k) ok += m.is_live(held[k]) && m.position(held[k]) == held_at[k];
  r["held.n"] = double(held.size()), r["held.ok_after_delete"] = double(ok);
  r["del.V"] = double(m.vertex_count()), r["del.E"] = double(m.edge_count()), r["del.F"] = double(m.face_count());
  std::vector<double> ns, no, nt, ss, so, st;
  for (int i = 0; i < runs; ++i) {
    ns.push_back(timed([&] { compute_normals(m, execution::serial); }));
    no.push_back(timed([&] { compute_normals(m, execution::openmp); }));
    nt.push_back(timed([&] { compute_normals(m, execution::tbb); }));
  }
  checksum c;
  m.vertices().for_each([&](Vertex v) { c.add(m.normal(v)); });
  add_sum(r, "del_normal_sum", c);
  for (std::size_t k = 0; k < held.size(); ++k) add_vec(r, "held." + std::to_string(k) + ".n", m.normal(held[k]));
  // Reset by soup index through the handles taken before the deletion.
  auto reset = [&] {
    for (std::size_t i = 0; i < vs.size(); ++i)
      if (m.is_live(vs[i])) m.position(vs[i]) = sc.pts[i];
  };
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] { smooth(m, 10, execution::serial); }));
    reset();
    so.push_back(timed([&] { smooth(m, 10, execution::openmp); }));
    reset();
    st.push_back(timed([&] { smooth(m, 10, execution::tbb); }));
  }
  c = {};
  m.vertices().for_each([&](Vertex v) { c.add(m.position(v)); });
  add_sum(r, "del_smooth_sum", c);
  std::size_t live = 0;
  for (std::size_t k = 0; k < held.size(); ++k) {
    live += m.is_live(held[k]);
    add_vec(r, "held." + std::to_string(k) + ".p", m.position(held[k]));
  }
  r["held.live_after_ops"] = double(live);
  r["del.normals.serial"] = median(ns), r["del.normals.openmp"] = median(no), r["del.normals.tbb"] = median(nt);
  r["del.smooth10.serial"] = median(ss), r["del.smooth10.openmp"] = median(so), r["del.smooth10.tbb"] = median(st);
  return r;
}

inline results run_travpool_loop(const scenario& sc) { return run_pool_loop<triangle_mesh>(sc, column_mesh_ops{}); }
inline results run_travpool(const scenario& sc) { return run_pool_mesh<triangle_mesh>(sc, column_mesh_ops{}); }

}  // namespace travpool::mesh::compare
