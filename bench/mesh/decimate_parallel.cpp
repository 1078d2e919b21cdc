// decimate serially against decimate with OpenMP on 2 threads (issue 52's
// quality and speed targets), on the same input:
//
//   decimate_parallel MESH [--subdivide=K] [--ratio=0.1] [--reps=R] [--samples=N]
//                          [--min-angle=DEG] [--only=serial|openmp]
//
// MESH is an OFF/OBJ/PLY file read with travpool's reader, or "ico" (an
// icosahedron, as mesh_demo's default input); then K Loop subdivisions.
// Each run decimates a fresh copy (built untimed) to ratio * faces; serial
// and parallel runs alternate, R of each. Printed: the median times and
// their ratio; the symmetric Hausdorff distance to the input relative to
// its bounding-box diagonal and the smallest angle (examples/mesh/
// mesh_quality.hpp: every vertex plus N random points on each side, 0 by
// default), median and worst over the R parallel runs; the parallel runs'
// share of collapses done in parallel, on retry and serially
// (decimate_result); the input's smallest angle. --min-angle sets
// decimate_options::min_angle (the quality guard; its default otherwise;
// 0 turns the whole guard off, min_angle_ratio too). --only runs one mode,
// R times, and prints its line alone (for callgrind: docs/mesh.md, "Work
// and the serial part").
// Build: g++ -std=c++20 -O2 -DNDEBUG -fopenmp -Iinclude
// -Iexamples/mesh bench/mesh/decimate_parallel.cpp (or the CMake target).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>
#include <travpool/mesh/decimate.hpp>
#include <travpool/mesh/io.hpp>
#include "generate.hpp"
#include "mesh_quality.hpp"

using namespace travpool::mesh;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: decimate_parallel MESH|ico [--subdivide=K] [--ratio=0.1] [--reps=R] [--samples=N] "
                 "[--min-angle=DEG] [--only=serial|openmp]\n");
    return 2;
  }
  const std::string path = argv[1];
  int subdivide = 0, reps = 3;
  double ratio = 0.1, min_angle = decimate_options{}.min_angle;
  std::size_t samples = 0;
  int first = 0, last = 2;  // the modes run: [first, last), 0 serial, 1 openmp
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--subdivide=", 0) == 0)
      subdivide = std::atoi(a.c_str() + 12);
    else if (a.rfind("--ratio=", 0) == 0)
      ratio = std::atof(a.c_str() + 8);
    else if (a.rfind("--reps=", 0) == 0)
      reps = std::max(1, std::atoi(a.c_str() + 7));
    else if (a.rfind("--min-angle=", 0) == 0)
      min_angle = std::atof(a.c_str() + 12);
    else if (a == "--only=serial")
      first = 0, last = 1;
    else if (a == "--only=openmp")
      first = 1, last = 2;
    else if (a.rfind("--samples=", 0) == 0)
      samples = static_cast<std::size_t>(std::atoll(a.c_str() + 10));
    else {
      std::fprintf(stderr, "decimate_parallel: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!available(execution::openmp)) {
    std::fprintf(stderr, "decimate_parallel: built without OpenMP (-fopenmp)\n");
    return 2;
  }
  triangle_mesh m0 = path == "ico" ? icosahedron_soup().build() : read_mesh(path);
  for (int i = 0; i < subdivide; ++i) loop_subdivide(m0);
  soup in;
  to_triangles(m0, in.points, in.triangles);
  const triangle_bvh tree(in.points, in.triangles);
  const double diagonal = quality::bbox_diagonal(in.points);
  std::vector<double> time[2], hausdorff[2], angle[2];
  std::size_t parallel = 0, retried = 0, serial = 0, collapses = 0;
  for (int r = 0; r < reps; ++r)
    for (int k = first; k < last; ++k) {
      triangle_mesh m = in.build();
      decimate_options o;
      o.target_faces = std::max<std::size_t>(4, static_cast<std::size_t>(ratio * static_cast<double>(m.face_count())));
      o.threads = 2;
      o.min_angle = min_angle;
      if (min_angle == 0) o.min_angle_ratio = 0;  // --min-angle=0: no guard
      const double t0 = now();
      const decimate_result res = decimate(m, o, k == 0 ? execution::serial : execution::openmp);
      time[k].push_back(now() - t0);
      m.validate();
      soup s;
      to_triangles(m, s.points, s.triangles);
      const quality::mesh_quality q = quality::measure(s, 1, in, tree, samples);
      hausdorff[k].push_back(q.hausdorff / diagonal);
      angle[k].push_back(q.min_angle);
      if (k == 1) parallel += res.parallel, retried += res.retried, serial += res.serial, collapses += res.collapses;
    }
  const auto pct = [&](std::size_t x) { return collapses == 0 ? 0.0 : 100.0 * double(x) / double(collapses); };
  std::printf("%s, %d subdivisions, %zu faces (min angle %.2f deg), %d runs each, min_angle option %g\n", path.c_str(),
              subdivide, in.triangles.size(), quality::measure(in, 1, in, tree, 0).min_angle, reps, min_angle);
  if (time[0].empty() || time[1].empty()) {
    const int k = time[0].empty() ? 1 : 0;
    std::printf("%s, %zu faces, %s only: %.3f s, Hausdorff %.6f, min angle %.2f deg\n", path.c_str(),
                in.triangles.size(), k == 0 ? "serial" : "openmp2", median(time[k]), median(hausdorff[k]),
                median(angle[k]));
    return 0;
  }
  std::printf("  serial:  %.3f s, Hausdorff %.6f, min angle %.2f deg\n", median(time[0]), median(hausdorff[0]),
              median(angle[0]));
  std::printf("  openmp2: %.3f s, Hausdorff %.6f (worst %.6f), min angle %.2f deg (worst %.2f)\n", median(time[1]),
              median(hausdorff[1]), *std::max_element(hausdorff[1].begin(), hausdorff[1].end()), median(angle[1]),
              *std::min_element(angle[1].begin(), angle[1].end()));
  std::printf(
      "  serial / openmp2 time %.2f, Hausdorff %+.1f %%; collapses in parallel %.1f %%, retried %.2f %%, "
      "serial %.2f %%\n",
      median(time[0]) / median(time[1]), 100 * (median(hausdorff[1]) / median(hausdorff[0]) - 1), pct(parallel),
      pct(retried), pct(serial));
}
