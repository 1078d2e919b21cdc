// CGAL's Polygon Mesh Processing on travpool::mesh::triangle_mesh (through
// <travpool/mesh/cgal.hpp>) against the same call on CGAL::Surface_mesh,
// side by side in one process, on the same real meshes (CGAL's samples,
// scripts/fetch_meshes.sh). Both meshes are built from the same triangle
// soup before each timed call (untimed); only the call is timed.
//
//   cgal_pmp_bench --meshes=DIR [--names=a,b,...] [Google Benchmark flags]
//
// Operations (per mesh):
//   normals      PMP::compute_vertex_normals into a vertex property
//   components   PMP::connected_components into a face property
//   remesh       PMP::isotropic_remeshing, 1 iteration, target = the mean
//                edge length (splits, collapses, flips, relaxation)
//   fill_holes   PMP::triangulate_hole on every border cycle (meshes with
//                holes only)
//   edge_collapse  Surface_mesh_simplification::edge_collapse with its
//                default (Lindstrom-Turk) policies, down to 10 % of the
//                edges (Count_ratio_stop_predicate 0.1)
//   normals_after_delete  compute_vertex_normals after CGAL::Euler::remove_face
//                of a random half of the faces (seed 42; not timed): the
//                sweep over a mesh with holes, with no garbage collection
//                on either side
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <travpool/mesh/cgal.hpp>
#include <travpool/mesh/io.hpp>

#include <CGAL/Polygon_mesh_processing/border.h>
#include <CGAL/Polygon_mesh_processing/compute_normal.h>
#include <CGAL/Polygon_mesh_processing/connected_components.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Polygon_mesh_processing/triangulate_hole.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/Surface_mesh_simplification/Policies/Edge_collapse/Count_ratio_stop_predicate.h>
#include <CGAL/Surface_mesh_simplification/edge_collapse.h>
#include <CGAL/boost/graph/Euler_operations.h>

namespace {

namespace tm_ = travpool::mesh;
namespace PMP = CGAL::Polygon_mesh_processing;
using K = CGAL::Epick;
using surface_mesh = CGAL::Surface_mesh<K::Point_3>;

tm_::triangle_mesh build(const tm_::soup& s, tm_::triangle_mesh*) { return s.build(); }
surface_mesh build(const tm_::soup& s, surface_mesh*) {
  surface_mesh m;
  m.reserve(static_cast<surface_mesh::size_type>(s.points.size()), 0, 0);
  std::vector<surface_mesh::Vertex_index> v;
  for (const auto& p : s.points) v.push_back(m.add_vertex(K::Point_3(p.x, p.y, p.z)));
  for (const auto& t : s.triangles) m.add_face(v[t[0]], v[t[1]], v[t[2]]);
  return m;
}

// A random half of the faces, removed with CGAL's Euler operation (the same
// faces, by creation order, in both meshes).
template <class Mesh>
void remove_half(Mesh& m) {
  using face = typename boost::graph_traits<Mesh>::face_descriptor;
  std::vector<face> fs(faces(m).begin(), faces(m).end());
  std::mt19937_64 rng(42);
  std::shuffle(fs.begin(), fs.end(), rng);
  fs.resize(fs.size() / 2);
  for (const face f : fs) CGAL::Euler::remove_face(halfedge(f, m), m);
}

double mean_edge_length(const surface_mesh& m) {
  double sum = 0;
  for (const auto e : edges(m)) sum += PMP::edge_length(e, m);
  return sum / static_cast<double>(num_edges(m));
}

template <class Mesh>
void run_op(benchmark::State& state, const tm_::soup& s, const std::string& op, double target) {
  using vd = typename boost::graph_traits<Mesh>::vertex_descriptor;
  using fd = typename boost::graph_traits<Mesh>::face_descriptor;
  using hd = typename boost::graph_traits<Mesh>::halfedge_descriptor;
  std::size_t live_faces = 0;
  for (auto _ : state) {
    Mesh m = build(s, static_cast<Mesh*>(nullptr));
    if (op == "normals_after_delete") remove_half(m);
    auto vn = get(CGAL::dynamic_vertex_property_t<K::Vector_3>(), m);
    auto fc = get(CGAL::dynamic_face_property_t<std::size_t>(), m);
    std::vector<hd> holes;
    if (op == "fill_holes") PMP::extract_boundary_cycles(m, std::back_inserter(holes));
    const auto t0 = std::chrono::steady_clock::now();
    if (op == "normals" || op == "normals_after_delete") {
      PMP::compute_vertex_normals(m, vn);
    } else if (op == "components") {
      benchmark::DoNotOptimize(PMP::connected_components(m, fc));
    } else if (op == "remesh") {
      PMP::isotropic_remeshing(faces(m), target, m, PMP::parameters::number_of_iterations(1));
    } else if (op == "edge_collapse") {
      namespace SMS = CGAL::Surface_mesh_simplification;
      benchmark::DoNotOptimize(SMS::edge_collapse(m, SMS::Count_ratio_stop_predicate<Mesh>(0.1)));
    } else if (op == "fill_holes") {
      std::vector<fd> patch;
      for (const hd h : holes) PMP::triangulate_hole(m, h, std::back_inserter(patch));
      benchmark::DoNotOptimize(patch.data());
    }
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    // Live faces (Surface_mesh's num_faces() counts removed ones too).
    live_faces += static_cast<std::size_t>(std::distance(faces(m).begin(), faces(m).end()));
    if (op == "normals" || op == "normals_after_delete") {
      const vd v = *vertices(m).begin();
      benchmark::DoNotOptimize(get(vn, v));
    }
  }
  // Live faces after the call, checked alike by scripts/bench_cgal.sh.
  state.counters["faces"] = static_cast<double>(live_faces) / static_cast<double>(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "data/meshes", names = "armadillo,bunny00,mech-holes-shark";
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--meshes=", 0) == 0)
      dir = a.substr(9);
    else if (a.rfind("--names=", 0) == 0)
      names = a.substr(8);
    else
      rest.push_back(argv[i]);
  }
  static std::vector<tm_::soup> soups;  // alive while the benchmarks run
  std::vector<std::string> list;
  std::stringstream ss(names);
  for (std::string n; std::getline(ss, n, ',');) list.push_back(n);
  soups.reserve(list.size());
  for (const std::string& n : list) {
    try {
      soups.push_back(tm_::read_soup(dir + "/" + n + ".off"));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cgal_pmp_bench: %s (scripts/fetch_meshes.sh fetches CGAL's meshes)\n", e.what());
      return 2;
    }
    const tm_::soup& s = soups.back();
    const double target = mean_edge_length(build(s, static_cast<surface_mesh*>(nullptr)));
    const bool has_holes = !CGAL::is_closed(build(s, static_cast<surface_mesh*>(nullptr)));
    for (const char* op : {"normals", "components", "remesh", "edge_collapse", "fill_holes", "normals_after_delete"}) {
      const std::string o = op;
      if (o == "fill_holes" && !has_holes) continue;
      benchmark::RegisterBenchmark(
          ("cgal/" + n + "/" + o + "/travpool").c_str(),
          [&s, o, target](benchmark::State& st) { run_op<tm_::triangle_mesh>(st, s, o, target); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("cgal/" + n + "/" + o + "/surface_mesh").c_str(),
                                   [&s, o, target](benchmark::State& st) { run_op<surface_mesh>(st, s, o, target); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  int rc = static_cast<int>(rest.size());
  benchmark::Initialize(&rc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
