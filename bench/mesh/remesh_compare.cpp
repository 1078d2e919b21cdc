// Isotropic remeshing: travpool::mesh::remesh (serial, and with OpenMP on
// 2 threads) against CGAL's Polygon_mesh_processing::isotropic_remeshing on
// CGAL::Surface_mesh, with the same target length and iterations, on the
// same real meshes (and Loop subdivisions of them), side by side in one
// process. Each mesh is built from the same triangle soup before each timed
// call (untimed); only the remeshing call is timed (for both, it includes
// building the tree they project with). Runs are interleaved (travpool
// serial, travpool 2 threads, CGAL, repeated), and the medians reported:
// the machine is shared, so single runs are noisy.
//
//   remesh_compare [--meshes=DIR] [--names=a,b,...] [--subdivide=NAME:LEVELS]
//                  [--reps=R] [--iterations=N] [--scales=1,2] [--samples=S]
//                  [--threads=T]
//
// L = scale x the input's mean edge length, for each scale. Quality of the
// last run of each contender (bench/mesh/mesh_quality.hpp): minimum angle,
// mean per-triangle minimum angle, fraction of edges in [0.8 L, 4/3 L],
// fraction of interior vertices of valence 6, symmetric Hausdorff distance
// to the input relative to its bounding-box diagonal.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>

#include "mesh_quality.hpp"  // examples/mesh

#if defined(TRAVPOOL_WITH_CGAL)
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Surface_mesh.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

namespace tm_ = travpool::mesh;
namespace tq = travpool::mesh::quality;
using clock_type = std::chrono::steady_clock;

#if defined(TRAVPOOL_WITH_CGAL)
namespace PMP = CGAL::Polygon_mesh_processing;
using K = CGAL::Epick;
using surface_mesh = CGAL::Surface_mesh<K::Point_3>;

double run_cgal(const tm_::soup& in, double l, int iterations, tm_::soup& out) {
  surface_mesh m;
  std::vector<surface_mesh::Vertex_index> v;
  for (const auto& p : in.points) v.push_back(m.add_vertex(K::Point_3(p.x, p.y, p.z)));
  for (const auto& t : in.triangles) m.add_face(v[t[0]], v[t[1]], v[t[2]]);
  const auto t0 = clock_type::now();
  PMP::isotropic_remeshing(faces(m), l, m, PMP::parameters::number_of_iterations(static_cast<unsigned>(iterations)));
  const auto t1 = clock_type::now();
  m.collect_garbage();
  out = {};
  for (const auto vi : m.vertices()) {
    const auto& p = m.point(vi);
    out.points.push_back({p.x(), p.y(), p.z()});
  }
  for (const auto f : m.faces()) {
    std::array<std::uint32_t, 3> t{};
    int k = 0;
    for (const auto vi : CGAL::vertices_around_face(m.halfedge(f), m)) t[k++ < 3 ? k - 1 : 2] = vi.idx();
    out.triangles.push_back(t);
  }
  return std::chrono::duration<double>(t1 - t0).count();
}
#endif

double run_travpool(const tm_::soup& s, double l, int iterations, tm_::execution how, tm_::soup& out,
                    tm_::remesh_result& r) {
  tm_::triangle_mesh m = s.build();
  const auto t0 = clock_type::now();
  r = tm_::remesh(m, {.target_edge_length = l, .iterations = iterations}, how);
  const auto t1 = clock_type::now();
  m.validate();
  tm_::to_triangles(m, out.points, out.triangles);
  return std::chrono::duration<double>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

double mean_edge_length(const tm_::triangle_mesh& m) {
  double sum = 0;
  for (const tm_::Edge e : m.edges())
    sum += tm_::norm(m.position(m.from(e.halfedge(0))) - m.position(m.to(e.halfedge(0))));
  return m.edge_count() ? sum / static_cast<double>(m.edge_count()) : 0;
}

void print_quality(const char* who, double seconds, const tq::mesh_quality& q, double diagonal) {
  std::printf("|   %-16s | %9.3f | %9zu | %6.2f | %6.2f | %6.3f | %6.3f | %.2e |\n", who, seconds, q.faces, q.min_angle,
              q.mean_min_angle, q.in_range, q.valence6, q.hausdorff / diagonal);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "data/meshes", names = "bunny00,armadillo", subdivide = "armadillo:2", scales = "1,2";
  int reps = 3, iterations = 5, threads = 2;
  std::size_t samples = 200000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return a.substr(std::string(key).size()); };
    if (a.rfind("--meshes=", 0) == 0)
      dir = value("--meshes=");
    else if (a.rfind("--names=", 0) == 0)
      names = value("--names=");
    else if (a.rfind("--subdivide=", 0) == 0)
      subdivide = value("--subdivide=");
    else if (a.rfind("--reps=", 0) == 0)
      reps = std::atoi(value("--reps=").c_str());
    else if (a.rfind("--iterations=", 0) == 0)
      iterations = std::atoi(value("--iterations=").c_str());
    else if (a.rfind("--scales=", 0) == 0)
      scales = value("--scales=");
    else if (a.rfind("--samples=", 0) == 0)
      samples = static_cast<std::size_t>(std::atoll(value("--samples=").c_str()));
    else if (a.rfind("--threads=", 0) == 0)
      threads = std::atoi(value("--threads=").c_str());
    else {
      std::fprintf(stderr, "remesh_compare: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  struct input {
    std::string name;
    tm_::soup soup;
  };
  std::vector<input> inputs;
  try {
    for (const std::string& n : split(names)) inputs.push_back({n, tm_::read_soup(dir + "/" + n + ".off")});
    if (!subdivide.empty() && subdivide != "none") {
      const auto colon = subdivide.find(':');
      const std::string n = subdivide.substr(0, colon);
      const int levels = colon == std::string::npos ? 1 : std::atoi(subdivide.substr(colon + 1).c_str());
      tm_::triangle_mesh m = tm_::read_soup(dir + "/" + n + ".off").build();
      for (int i = 0; i < levels; ++i) tm_::loop_subdivide(m);
      tm_::soup s;
      tm_::to_triangles(m, s.points, s.triangles);
      inputs.push_back({n + "-loop" + std::to_string(levels), std::move(s)});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "remesh_compare: %s (scripts/fetch_meshes.sh fetches the meshes)\n", e.what());
    return 1;
  }
#if defined(_OPENMP)
  const bool have_omp = true;
#else
  const bool have_omp = false;
#endif
#if defined(TRAVPOOL_WITH_CGAL)
  const bool have_cgal = true;
#else
  const bool have_cgal = false;
#endif
  std::printf(
      "remesh_compare: %d iterations, medians of %d interleaved runs (shared machine: noisy), "
      "openmp on %d threads%s%s\n\n",
      iterations, reps, threads, have_omp ? "" : " (not in this build)", have_cgal ? "" : ", no CGAL");
  std::printf(
      "| mesh / contender   | time s    | faces     | min°   | mean min° | in range | val 6 | Hausdorff/diag |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const input& in : inputs) {
    const tm_::triangle_mesh m0 = in.soup.build();
    const double mean = mean_edge_length(m0);
    const tm_::soup& reference = in.soup;
    const tm_::triangle_bvh tree(reference.points, reference.triangles);
    const double diagonal = tq::bbox_diagonal(reference.points);
    for (const std::string& sc : split(scales)) {
      const double l = std::atof(sc.c_str()) * mean;
      std::vector<double> ts, tp, tc;
      tm_::soup out_s, out_p, out_c;
      tm_::remesh_result rs, rp;
      for (int r = 0; r < reps; ++r) {
        ts.push_back(run_travpool(in.soup, l, iterations, tm_::execution::serial, out_s, rs));
#if defined(_OPENMP)
        omp_set_num_threads(threads);
        tp.push_back(run_travpool(in.soup, l, iterations, tm_::execution::openmp, out_p, rp));
#endif
#if defined(TRAVPOOL_WITH_CGAL)
        tc.push_back(run_cgal(reference, l, iterations, out_c));
#endif
      }
      std::printf("| **%s** (%zu faces), L = %s x mean = %.4g | | | | | | | |\n", in.name.c_str(),
                  in.soup.triangles.size(), sc.c_str(), l);
      const tq::mesh_quality qs = tq::measure(out_s, l, reference, tree, samples);
      print_quality("travpool serial", median(ts), qs, diagonal);
      if (have_omp)
        print_quality("travpool omp", median(tp), tq::measure(out_p, l, reference, tree, samples), diagonal);
      if (have_cgal) print_quality("CGAL", median(tc), tq::measure(out_c, l, reference, tree, samples), diagonal);
      std::printf(
          "|   ratios | serial/CGAL %.3f, omp/CGAL %.3f, serial/omp %.2f | splits %zu, collapses %zu, flips %zu "
          "(parallel %zu, retried %zu, serial %zu) | | | | | |\n",
          have_cgal ? median(ts) / median(tc) : 0.0, have_cgal && have_omp ? median(tp) / median(tc) : 0.0,
          have_omp ? median(ts) / median(tp) : 0.0, rs.splits, rs.collapses, rs.flips, rp.parallel_ops, rp.retried_ops,
          rp.serial_ops);
      std::fflush(stdout);
    }
  }
  return 0;
}
