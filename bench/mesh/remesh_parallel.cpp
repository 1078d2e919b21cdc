// remesh serially against remesh with OpenMP and TBB editing one mesh
// (issue 52): quality, the share of edits that ran in parallel, and time.
//
//   remesh_parallel MESH [SCALE] [REPS]
//
// MESH is an OFF/OBJ/PLY file read with travpool's reader; L = SCALE (1 by
// default) x the input's mean edge length, 5 iterations, 2 threads (env
// THREADS=n for another count). Each run remeshes a fresh copy (built
// untimed); the modes alternate, REPS (3) of each, and the medians and
// their ratios are printed. The first run of each mode prints its counts
// (splits, collapses, flips; parallel, retried, serial) and its quality
// (examples/mesh/mesh_quality.hpp: 100,000 samples a side). Environment:
// NORELAX=1 runs the topology edits alone (no relaxation, no projection);
// MODE=0|1|2 runs serial, OpenMP or TBB alone, and NOQ=1 skips the quality
// (for callgrind: docs/mesh.md, "Parallel remeshing").
// Build: g++ -std=c++20 -O2 -DNDEBUG -fopenmp -DTRAVPOOL_MESH_TBB=1
// -Iinclude -Iexamples/mesh bench/mesh/remesh_parallel.cpp -ltbb (or the
// CMake target remesh_parallel).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>
#include "mesh_quality.hpp"

using namespace travpool::mesh;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: remesh_parallel MESH [SCALE] [REPS]\n");
    return 2;
  }
  const std::string path = argv[1];
  const double scale = argc > 2 ? std::atof(argv[2]) : 1;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const soup in = read_soup(path);
  const triangle_bvh tree(in.points, in.triangles);
  double mean = 0;
  {
    const triangle_mesh m = in.build();
    std::size_t n = 0;
    for (const Edge e : m.edges()) {
      mean += norm(m.position(m.from(e.halfedge(0))) - m.position(m.to(e.halfedge(0))));
      ++n;
    }
    mean /= static_cast<double>(n);
  }
  const double l = scale * mean;
  const int only = std::getenv("MODE") ? std::atoi(std::getenv("MODE")) : -1;
  std::vector<double> t[3];
  for (int r = 0; r < reps; ++r)
    for (int k = 0; k < 3; ++k) {
      const execution how = k == 0 ? execution::serial : k == 1 ? execution::openmp : execution::tbb;
      if ((only >= 0 && only != k) || !available(how)) continue;
      triangle_mesh m = in.build();
      remesh_options o;
      o.target_edge_length = l;
      o.threads = std::getenv("THREADS") ? static_cast<unsigned>(std::atoi(std::getenv("THREADS"))) : 2;
      if (std::getenv("NORELAX")) {
        o.relaxation_steps = 0;
        o.project = false;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const remesh_result res = remesh(m, o, how);
      t[k].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (r == 0 && !std::getenv("NOQ")) {
        m.validate();
        soup s;
        to_triangles(m, s.points, s.triangles);
        const quality::mesh_quality q = quality::measure(s, l, in, tree, 100000);
        const std::size_t edits = res.splits + res.collapses + res.flips;
        std::printf(
            "%s: faces %zu, splits %zu, collapses %zu, flips %zu; parallel %zu, retried %zu, serial %zu (%.2f %% not "
            "parallel); min angle %.1f, mean min angle %.1f, in range %.3f, valence 6 %.3f, Hausdorff / diagonal "
            "%.3g\n",
            to_string(how), m.face_count(), res.splits, res.collapses, res.flips, res.parallel_ops, res.retried_ops,
            res.serial_ops, 100.0 * double(res.retried_ops + res.serial_ops) / double(std::max<std::size_t>(1, edits)),
            q.min_angle, q.mean_min_angle, q.in_range, q.valence6, q.hausdorff / quality::bbox_diagonal(in.points));
      }
    }
  if (only >= 0) return 0;
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double s = median(t[0]), omp = median(t[1]), tbb = median(t[2]);
  std::printf(
      "%s, L = %.2g x mean: median s serial %.3f, openmp %.3f, tbb %.3f; serial / parallel: openmp %.2f, tbb %.2f (%d "
      "interleaved runs)\n",
      path.c_str(), scale, s, omp, tbb, omp > 0 ? s / omp : 0.0, tbb > 0 ? s / tbb : 0.0, reps);
  return 0;
}
