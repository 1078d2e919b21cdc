// bench/mesh/compare/openmesh.hpp: contender (c), OpenMesh 9
// (TriMesh_ArrayKernelT<DefaultTraitsDouble> with status): one Loop level
// of the coarse soup with OpenMesh's own Subdivider::Uniform::LoopT (an
// extra data point: the same rules, its own weights table, so positions
// agree up to rounding), its update_face_normals / update_vertex_normals,
// a serial smooth10 over vv_range, and split + is_collapse_ok + collapse +
// garbage_collection(). No parallel iteration.
#pragma once

#include <memory>

#include <OpenMesh/Core/Mesh/TriMesh_ArrayKernelT.hh>
#include <OpenMesh/Tools/Subdivider/Uniform/LoopT.hh>

#include "common.hpp"

namespace travpool::mesh::compare {

using om_mesh = OpenMesh::TriMesh_ArrayKernelT<OpenMesh::DefaultTraitsDouble>;

// Requests the status and normal properties (before timing, as ever).
inline void request_properties(om_mesh& m) {
  m.request_vertex_status();
  m.request_edge_status();
  m.request_halfedge_status();
  m.request_face_status();
  m.request_face_normals();
  m.request_vertex_normals();
}

// Adds the soup. Throws std::runtime_error if OpenMesh rejects a face.
inline void build_openmesh(om_mesh& m, const soup_points& pts, const soup_tris& tris) {
  std::vector<om_mesh::VertexHandle> vh;
  vh.reserve(pts.size());
  m.reserve(pts.size(), pts.size() + tris.size(), tris.size());
  for (const vec3& p : pts) vh.push_back(m.add_vertex(om_mesh::Point(p.x, p.y, p.z)));
  for (const auto& t : tris)
    if (!m.add_face(vh[t[0]], vh[t[1]], vh[t[2]]).is_valid()) throw std::runtime_error("OpenMesh rejected a face");
}

inline results run_openmesh_loop(const scenario& sc) {
  results r;
  r["loop"] = time_loop(
      sc.runs,
      [&] {
        auto m = std::make_unique<om_mesh>();
        request_properties(*m);
        build_openmesh(*m, sc.coarse_pts, sc.coarse_tris);
        return m;
      },
      [](std::unique_ptr<om_mesh>& m) {
        OpenMesh::Subdivider::Uniform::LoopT<om_mesh> loop;
        loop.attach(*m);
        loop(1);
        loop.detach();
      },
      [&](std::unique_ptr<om_mesh>& m) {
        r["loop.V"] = double(m->n_vertices()), r["loop.E"] = double(m->n_edges()), r["loop.F"] = double(m->n_faces());
        checksum s;
        for (auto v : m->vertices()) s.add({m->point(v)[0], m->point(v)[1], m->point(v)[2]});
        add_sum(r, "loop_sum", s);
      });
  return r;
}

inline results run_openmesh(const scenario& sc) {
  results r;
  const soup_points& pts = sc.pts;
  const int runs = sc.runs;
  om_mesh m;
  request_properties(m);
  r["build"] = timed([&] { build_openmesh(m, sc.pts, sc.tris); });
  auto reset = [&] {
    for (std::size_t i = 0; i < pts.size(); ++i)
      m.set_point(om_mesh::VertexHandle(static_cast<int>(i)), om_mesh::Point(pts[i].x, pts[i].y, pts[i].z));
  };
  std::vector<double> ns, ss, sct;
  for (int i = 0; i < runs; ++i)
    ns.push_back(timed([&] {
      m.update_face_normals();
      m.update_vertex_normals();
    }));
  checksum s;
  for (auto v : m.vertices()) s.add({m.normal(v)[0], m.normal(v)[1], m.normal(v)[2]});
  add_sum(r, "normal_sum", s);
  std::vector<om_mesh::Point> buf;
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] {
      buf.resize(m.n_vertices());
      for (int it = 0; it < 10; ++it) {
        for (auto v : m.vertices()) {
          if (m.is_boundary(v)) {
            buf[v.idx()] = m.point(v);
            continue;
          }
          om_mesh::Point p(0, 0, 0);
          std::size_t n = 0;
          for (auto w : m.vv_range(v)) p += m.point(w), ++n;
          buf[v.idx()] = p * (1.0 / static_cast<double>(n));
        }
        for (auto v : m.vertices()) m.set_point(v, buf[v.idx()]);
      }
    }));
  }
  s = {};
  for (auto v : m.vertices()) s.add({m.point(v)[0], m.point(v)[1], m.point(v)[2]});
  add_sum(r, "smooth_sum", s);
  buf = {};
  reset();
  std::size_t refused = 0;
  for (int i = 0; i < runs; ++i)
    sct.push_back(timed([&] {
      const int nf = static_cast<int>(m.n_faces());
      std::vector<om_mesh::VertexHandle> added;
      added.reserve(static_cast<std::size_t>(nf));
      for (int f = 0; f < nf; ++f) {
        const om_mesh::FaceHandle fh(f);
        om_mesh::Point c(0, 0, 0);
        for (auto v : m.fv_range(fh)) c += m.point(v);
        added.push_back(m.split(fh, c * (1.0 / 3.0)));
      }
      for (auto v : added) {
        bool done = false;
        for (auto h : m.voh_range(v))
          if (m.is_collapse_ok(h)) {
            m.collapse(h);
            done = true;
            break;
          }
        refused += !done;
      }
      m.garbage_collection();
    }));
  s = {};
  for (auto v : m.vertices()) s.add({m.point(v)[0], m.point(v)[1], m.point(v)[2]});
  add_sum(r, "final_sum", s);
  r["normals.serial"] = median(ns), r["smooth10.serial"] = median(ss), r["split_collapse"] = median(sct);
  r["V"] = double(m.n_vertices()), r["E"] = double(m.n_edges()), r["F"] = double(m.n_faces());
  r["refused"] = double(refused);
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

}  // namespace travpool::mesh::compare
