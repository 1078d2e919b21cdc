// Quadric decimation side by side: travpool::mesh::decimate against CGAL's
// edge_collapse (Garland-Heckbert plane policies on CGAL::Surface_mesh,
// count stop), OpenMesh's Decimater with ModQuadric, and meshoptimizer's
// meshopt_simplify on a flat index buffer, on the same triangle soup.
//
//   decimate_compare MESH [--subdivide=K] [--ratio=0.1] [--reps=R]
//                         [--skip=area,unguarded,openmp,cgal,openmesh,meshopt]
//                         [--min-angle=DEG]
//
// Build with OpenMP (-fopenmp) for the "travpool openmp x2" contender
// (execution::openmp, 2 threads).
//
// MESH is read with travpool's reader and Loop-subdivided K times
// (travpool::mesh::loop_subdivide). Each contender decimates a fresh copy
// (built untimed) to ratio * faces; the contenders run in interleaved
// rounds (travpool, CGAL, OpenMesh, meshoptimizer, travpool, ...) and the
// median of R rounds is reported. Quality: the symmetric distance between
// input and output, sampled at every vertex and face centroid of each and
// measured to the other with CGAL's PMP::max_distance_to_triangle_mesh
// (an AABB tree), i.e. a sampled Hausdorff distance, relative to the
// input's bounding box diagonal; and each result's smallest angle.
// The travpool rows use decimate_options::min_angle = DEG (its default
// otherwise); "travpool serial unguarded" is the serial row with
// min_angle = 0 and min_angle_ratio = 0 (no quality guard), for the
// guard's cost and effect.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>

#include <CGAL/Polygon_mesh_processing/distance.h>
#include <CGAL/Simple_cartesian.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/Surface_mesh_simplification/Policies/Edge_collapse/Count_stop_predicate.h>
#include <CGAL/Surface_mesh_simplification/Policies/Edge_collapse/GarlandHeckbert_plane_policies.h>
#include <CGAL/Surface_mesh_simplification/edge_collapse.h>

#include <OpenMesh/Core/Mesh/TriMesh_ArrayKernelT.hh>
#include <OpenMesh/Tools/Decimater/DecimaterT.hh>
#include <OpenMesh/Tools/Decimater/ModQuadricT.hh>

#include <meshoptimizer.h>

namespace {

namespace tm_ = travpool::mesh;
namespace SMS = CGAL::Surface_mesh_simplification;
namespace PMP = CGAL::Polygon_mesh_processing;
using K = CGAL::Simple_cartesian<double>;
using surface_mesh = CGAL::Surface_mesh<K::Point_3>;
using om_mesh = OpenMesh::TriMesh_ArrayKernelT<>;

struct soup {
  std::vector<tm_::vec3> points;
  std::vector<std::array<std::uint32_t, 3>> tris;
};

soup soup_of(const tm_::triangle_mesh& m) {
  soup s;
  std::map<std::uint32_t, std::uint32_t> index;
  std::vector<std::uint32_t> idx;
  std::uint32_t bound = 0;
  for (const tm_::Vertex v : m.vertices()) bound = std::max(bound, v.idx() + 1);
  idx.assign(bound, 0);
  for (const tm_::Vertex v : m.vertices()) {
    if (m.is_isolated(v)) continue;
    idx[v.idx()] = static_cast<std::uint32_t>(s.points.size());
    s.points.push_back(m.position(v));
  }
  for (const tm_::Face f : m.faces()) {
    const auto c = m.corners(f);
    s.tris.push_back({idx[c[0].idx()], idx[c[1].idx()], idx[c[2].idx()]});
  }
  return s;
}

surface_mesh to_surface_mesh(const soup& s) {
  surface_mesh m;
  std::vector<surface_mesh::Vertex_index> v;
  for (const auto& p : s.points) v.push_back(m.add_vertex(K::Point_3(p.x, p.y, p.z)));
  for (const auto& t : s.tris) m.add_face(v[t[0]], v[t[1]], v[t[2]]);
  return m;
}

soup soup_of(const surface_mesh& m) {
  soup s;
  std::vector<std::uint32_t> idx(m.number_of_vertices() + m.number_of_removed_vertices());
  for (const auto v : m.vertices()) {
    idx[v] = static_cast<std::uint32_t>(s.points.size());
    const auto& p = m.point(v);
    s.points.push_back({p.x(), p.y(), p.z()});
  }
  for (const auto f : m.faces()) {
    std::array<std::uint32_t, 3> t{};
    int k = 0;
    for (const auto v : CGAL::vertices_around_face(m.halfedge(f), m)) t[k++] = idx[v];
    s.tris.push_back(t);
  }
  return s;
}

om_mesh to_openmesh(const soup& s) {
  om_mesh m;
  std::vector<om_mesh::VertexHandle> v;
  for (const auto& p : s.points) v.push_back(m.add_vertex(om_mesh::Point(p.x, p.y, p.z)));
  for (const auto& t : s.tris) m.add_face(v[t[0]], v[t[1]], v[t[2]]);
  return m;
}

soup soup_of(const om_mesh& m) {
  soup s;
  std::vector<std::uint32_t> idx(m.n_vertices());
  for (const auto v : m.vertices()) {
    idx[v.idx()] = static_cast<std::uint32_t>(s.points.size());
    const auto& p = m.point(v);
    s.points.push_back({p[0], p[1], p[2]});
  }
  for (const auto f : m.faces()) {
    std::array<std::uint32_t, 3> t{};
    int k = 0;
    for (const auto v : m.fv_range(f)) t[k++] = idx[v.idx()];
    s.tris.push_back(t);
  }
  return s;
}

double min_angle_deg(const soup& s) {
  double best = 180;
  for (const auto& t : s.tris)
    for (int i = 0; i < 3; ++i) {
      const tm_::vec3 a = s.points[t[(i + 1) % 3]] - s.points[t[i]], b = s.points[t[(i + 2) % 3]] - s.points[t[i]];
      const double c = tm_::dot(a, b) / (tm_::norm(a) * tm_::norm(b));
      best = std::min(best, std::acos(std::clamp(c, -1.0, 1.0)) * 180 / 3.141592653589793);
    }
  return best;
}

std::vector<K::Point_3> samples(const soup& s) {  // vertices and centroids
  std::vector<K::Point_3> p;
  for (const auto& q : s.points) p.emplace_back(q.x, q.y, q.z);
  for (const auto& t : s.tris) {
    const tm_::vec3 c = (s.points[t[0]] + s.points[t[1]] + s.points[t[2]]) * (1.0 / 3);
    p.emplace_back(c.x, c.y, c.z);
  }
  return p;
}

double hausdorff(const soup& a, const surface_mesh& sa, const soup& b) {
  const surface_mesh sb = to_surface_mesh(b);
  const double ab = PMP::max_distance_to_triangle_mesh<CGAL::Sequential_tag>(samples(a), sb);
  const double ba = PMP::max_distance_to_triangle_mesh<CGAL::Sequential_tag>(samples(b), sa);
  return std::max(ab, ba);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct contender {
  std::string name;
  std::vector<double> times;
  soup result;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: decimate_compare MESH [--subdivide=K] [--ratio=0.1] [--reps=R] [--skip=a,b] "
                 "[--min-angle=DEG]\n");
    return 2;
  }
  std::string path = argv[1], skip;
  int subdivide = 0, reps = 3;
  double ratio = 0.1, min_angle = tm_::decimate_options{}.min_angle;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--subdivide=", 0) == 0)
      subdivide = std::atoi(a.c_str() + 12);
    else if (a.rfind("--ratio=", 0) == 0)
      ratio = std::atof(a.c_str() + 8);
    else if (a.rfind("--reps=", 0) == 0)
      reps = std::atoi(a.c_str() + 7);
    else if (a.rfind("--min-angle=", 0) == 0)
      min_angle = std::atof(a.c_str() + 12);
    else if (a.rfind("--skip=", 0) == 0)
      skip = a.substr(7);
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  tm_::triangle_mesh input = tm_::read_mesh(path);
  for (int i = 0; i < subdivide; ++i) tm_::loop_subdivide(input);
  const soup in = soup_of(input);
  const std::size_t target = static_cast<std::size_t>(ratio * static_cast<double>(in.tris.size()));
  const surface_mesh in_sm = to_surface_mesh(in);
  double diag = 0;
  {
    tm_::vec3 lo = in.points[0], hi = in.points[0];
    for (const auto& p : in.points) {
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
    diag = tm_::norm(hi - lo);
  }
  std::printf("%s subdivided %d: %zu faces -> target %zu, %d interleaved rounds, min_angle %g\n", path.c_str(),
              subdivide, in.tris.size(), target, reps, min_angle);

  std::vector<contender> cs;
  auto wanted = [&](const char* n) { return skip.find(n) == std::string::npos; };
  cs.push_back({"travpool serial", {}, {}});
  if (wanted("unguarded")) cs.push_back({"travpool serial unguarded", {}, {}});
  if (wanted("area")) cs.push_back({"travpool serial area", {}, {}});
  if (tm_::available(tm_::execution::openmp) && wanted("openmp")) cs.push_back({"travpool openmp x2", {}, {}});
  if (wanted("cgal")) cs.push_back({"CGAL edge_collapse GH", {}, {}});
  if (wanted("openmesh")) cs.push_back({"OpenMesh ModQuadric", {}, {}});
  if (wanted("meshopt")) cs.push_back({"meshopt_simplify", {}, {}});

  for (int r = 0; r < reps; ++r) {
    for (auto& c : cs) {
      double t = 0;
      if (c.name.rfind("travpool", 0) == 0) {
        std::vector<tm_::vec3> pts = in.points;
        tm_::triangle_mesh m = tm_::triangle_mesh::from_triangles(pts, in.tris);
        tm_::decimate_options o;
        o.target_faces = target;
        o.threads = 2;
        o.area_weighted = c.name == "travpool serial area";
        o.min_angle = c.name == "travpool serial unguarded" ? 0 : min_angle;
        if (c.name == "travpool serial unguarded") o.min_angle_ratio = 0;
        const bool par = c.name == "travpool openmp x2";
        const auto t0 = std::chrono::steady_clock::now();
        const auto res = tm_::decimate(m, o, par ? tm_::execution::openmp : tm_::execution::serial);
        if (par && r == 0)
          std::printf("  openmp x2: %zu collapses in parallel, %zu retried, %zu serial\n", res.parallel, res.retried,
                      res.serial);
        t = seconds_since(t0);
        c.result = soup_of(m);
      } else if (c.name == "CGAL edge_collapse GH") {
        surface_mesh m = to_surface_mesh(in);
        const auto t0 = std::chrono::steady_clock::now();
        SMS::GarlandHeckbert_plane_policies<surface_mesh, K> gh(m);
        SMS::Count_stop_predicate<surface_mesh> stop(target * 3 / 2);
        SMS::edge_collapse(m, stop, CGAL::parameters::get_cost(gh.get_cost()).get_placement(gh.get_placement()));
        t = seconds_since(t0);
        m.collect_garbage();
        c.result = soup_of(m);
      } else if (c.name == "OpenMesh ModQuadric") {
        om_mesh m = to_openmesh(in);
        const auto t0 = std::chrono::steady_clock::now();
        OpenMesh::Decimater::DecimaterT<om_mesh> dec(m);
        OpenMesh::Decimater::ModQuadricT<om_mesh>::Handle mod;
        dec.add(mod);
        dec.initialize();
        dec.decimate_to_faces(0, target);
        t = seconds_since(t0);
        m.garbage_collection();
        c.result = soup_of(m);
      } else {
        std::vector<float> pos;
        for (const auto& p : in.points) pos.insert(pos.end(), {float(p.x), float(p.y), float(p.z)});
        std::vector<unsigned> idx;
        for (const auto& tr : in.tris) idx.insert(idx.end(), {tr[0], tr[1], tr[2]});
        std::vector<unsigned> out(idx.size());
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t n = meshopt_simplify(out.data(), idx.data(), idx.size(), pos.data(), in.points.size(),
                                               3 * sizeof(float), 3 * target, 1e9f, 0, nullptr);
        t = seconds_since(t0);
        soup s;
        s.points = in.points;
        for (std::size_t i = 0; i < n; i += 3) s.tris.push_back({out[i], out[i + 1], out[i + 2]});
        c.result = s;
      }
      c.times.push_back(t);
    }
  }
  double best_heavy = 1e300, meshopt = 0, tp = 0, tp2 = 0, tpu = 0;
  std::printf("%-26s %10s %9s %14s %12s %10s\n", "contender", "median s", "faces", "hausdorff", "/diagonal",
              "min angle");
  std::vector<std::pair<std::string, double>> med;
  for (auto& c : cs) {
    std::sort(c.times.begin(), c.times.end());
    const double m = c.times[c.times.size() / 2];
    const double h = hausdorff(in, in_sm, c.result);
    std::printf("%-26s %10.3f %9zu %14.6g %12.6f %10.2f\n", c.name.c_str(), m, c.result.tris.size(), h, h / diag,
                min_angle_deg(c.result));
    if (c.name == "travpool serial") tp = m;
    if (c.name == "travpool openmp x2") tp2 = m;
    if (c.name == "travpool serial unguarded") tpu = m;
    if (c.name == "meshopt_simplify") meshopt = m;
    if (c.name == "CGAL edge_collapse GH" || c.name == "OpenMesh ModQuadric") best_heavy = std::min(best_heavy, m);
  }
  if (best_heavy < 1e300) std::printf("travpool / faster of CGAL, OpenMesh: %.3f\n", tp / best_heavy);
  if (meshopt > 0) std::printf("travpool / meshopt_simplify: %.3f\n", tp / meshopt);
  if (tpu > 0) std::printf("travpool serial / serial unguarded: %.3f\n", tp / tpu);
  if (tp2 > 0) std::printf("travpool serial / openmp x2 (speed-up): %.3f\n", tp / tp2);
  return 0;
}
