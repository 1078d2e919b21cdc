// mesh_compare: the travpool mesh against a std::vector + 32-bit index mesh
// (on 4 KiB and on huge pages), the pointer mesh and OpenMesh 9, on the
// same input in one run.
//
//   mesh_compare [--input FILE.off|FILE.obj] [--min-faces N] [--runs R]
//                [--threads N] [--held K] [--only NAME,...]
//                [--parts loop,full,deletion] [--thp on|off] [--json FILE]
//
// The parent reads the input (or generates an icosahedron), applies Loop
// subdivision (travpool mesh) until it has at least N faces (default
// 5,000,000), and exports two triangle soups: the full mesh and the one a
// Loop level before it (the coarse soup). It chooses once, with
// std::mt19937_64 seeded 42, half the faces of the full soup (to delete, in
// that order) and K (default 1000) vertices that survive the deletion (to
// hold). Each part of each contender (Loop, full mesh, deletion) then runs
// in its own forked child, so that its peak RSS is its own (--only runs
// the named contenders only, --parts the named parts only; --thp off
// disables transparent huge pages for the whole run, every contender
// alike, with prctl(PR_SET_THP_DISABLE), so vector_huge equals vector):
//   (a) travpool    travpool/mesh (column pools, 32-bit handles);
//                   compare/pool_meshes.hpp, compare/travpool_deletion.hpp
//   (b) vector      bench/mesh/vector_mesh.hpp on std::allocator, and
//       vector_huge the same on huge pages; compare/vector_meshes.hpp
//   (c) openmesh    OpenMesh 9; compare/openmesh.hpp
//   (d) pointer     bench/mesh/pointer_mesh.hpp; compare/pool_meshes.hpp
// The operations: one Loop level of the coarse soup; on the full soup
// normals, smooth10 and split_collapse; after deleting the chosen faces
// (travpool, vector, vector_huge) normals and smooth10 again. Every
// operation runs R times; the tables show medians. Agreement checks
// (compare/report.hpp) compare counts and checksums with travpool and
// check the held handles; the exit status is 3 if one fails.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include <sys/prctl.h>

#include <tbb/global_control.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <travpool/mesh/io.hpp>
#include "compare/openmesh.hpp"
#include "compare/report.hpp"
#include "compare/travpool_deletion.hpp"
#include "compare/vector_meshes.hpp"
#include "generate.hpp"

using namespace travpool::mesh;
using namespace travpool::mesh::compare;

namespace {

constexpr const char* usage =
    "usage: mesh_compare [--input FILE.off|FILE.obj] [--min-faces N] [--runs R] [--threads N] [--held K]"
    " [--only NAME,...] [--parts loop,full,deletion] [--thp on|off] [--json FILE]\n";

// Whether `name` is in the comma-separated `list` (an empty list: all).
bool listed(const std::string& list, const std::string& name) {
  return list.empty() || ("," + list + ",").find("," + name + ",") != std::string::npos;
}

// The deletion: a random half of the faces (soup indices, in deletion
// order), and `held` random soup vertices that keep a face.
void choose_deletion(scenario& sc, std::size_t held) {
  std::mt19937_64 rng(42);
  std::vector<std::uint32_t> faces(sc.tris.size());
  std::iota(faces.begin(), faces.end(), 0u);
  std::shuffle(faces.begin(), faces.end(), rng);
  faces.resize(faces.size() / 2);
  sc.doomed = std::move(faces);
  std::vector<std::uint8_t> dead(sc.tris.size(), 0), keeps(sc.pts.size(), 0);
  for (const std::uint32_t f : sc.doomed) dead[f] = 1;
  for (std::size_t f = 0; f < sc.tris.size(); ++f)
    if (!dead[f])
      for (const std::uint32_t v : sc.tris[f]) keeps[v] = 1;
  std::vector<std::uint32_t> survivors;
  for (std::size_t v = 0; v < keeps.size(); ++v)
    if (keeps[v]) survivors.push_back(static_cast<std::uint32_t>(v));
  std::shuffle(survivors.begin(), survivors.end(), rng);
  survivors.resize(std::min(held, survivors.size()));
  sc.held = std::move(survivors);
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, json, only, parts, thp = "on";
  long long min_faces = 5'000'000;
  std::size_t held = 1000;
  scenario sc;
  int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s", usage);
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--input")
      input = v;
    else if (a == "--json")
      json = v;
    else if (a == "--min-faces")
      min_faces = std::atoll(v);
    else if (a == "--runs")
      sc.runs = std::max(1, std::atoi(v));
    else if (a == "--threads")
      threads = std::max(1, std::atoi(v));
    else if (a == "--only")
      only = v;
    else if (a == "--parts")
      parts = v;
    else if (a == "--thp" && (std::string(v) == "on" || std::string(v) == "off"))
      thp = v;
    else if (a == "--held")
      held = static_cast<std::size_t>(std::max(1, std::atoi(v)));
    else {
      std::fprintf(stderr, "mesh_compare: unknown argument '%s'\n%s", a.c_str(), usage);
      return 2;
    }
  }
  if (thp == "off" && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
    std::fprintf(stderr, "mesh_compare: prctl(PR_SET_THP_DISABLE) failed\n");
    return 1;
  }
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
  tbb::global_control tbb_threads(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  int levels = 0;
  std::size_t input_faces = 0;
  try {
    triangle_mesh m = input.empty() ? icosahedron_soup().build() : read_mesh(input);
    input_faces = m.face_count();
    while (static_cast<long long>(m.face_count()) < min_faces) {
      if (static_cast<long long>(4 * m.face_count()) >= min_faces) to_triangles(m, sc.coarse_pts, sc.coarse_tris);
      loop_subdivide(m);
      ++levels;
      progress("subdivided to " + std::to_string(m.face_count()) + " faces");
    }
    to_triangles(m, sc.pts, sc.tris);
    if (levels == 0) sc.coarse_pts = sc.pts, sc.coarse_tris = sc.tris;  // the input is big enough: Loop it once
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh_compare: %s\n", e.what());
    return 1;
  }
  choose_deletion(sc, held);
  // The subdivided mesh's bins went to travpool's span cache: unmap them, or
  // every child would start with them resident (and copy them on write).
  travpool::trim_span_cache();
  const double base_rss = double(rss_now_bytes());
  std::printf(
      "input %s: %zu faces, %d Loop levels -> %zu vertices, %zu faces (coarse soup: %zu faces); %d threads;"
      " %d runs (medians); deleting %zu faces, holding %zu vertex handles\n",
      input.empty() ? "icosahedron" : input.c_str(), input_faces, levels, sc.pts.size(), sc.tris.size(),
      sc.coarse_tris.size(), threads, sc.runs, sc.doomed.size(), sc.held.size());

  // Each contender's parts, each run in its own child (its own peak RSS;
  // no part starts on memory another left behind).
  struct contender {
    const char* name;
    results (*loop)(const scenario&);
    results (*full)(const scenario&);
    results (*deletion)(const scenario&);
  };
  const contender contenders[] = {
      {"travpool", run_travpool_loop, run_travpool, run_travpool_deletion},
      {"pointer", run_pointer_loop, run_pointer, nullptr},
      {"vector", run_vector_loop<bench::vector_mesh>, run_vector<bench::vector_mesh>,
       run_vector_deletion<bench::vector_mesh>},
      {"vector_huge", run_vector_loop<bench::vector_mesh_huge>, run_vector<bench::vector_mesh_huge>,
       run_vector_deletion<bench::vector_mesh_huge>},
      {"openmesh", run_openmesh_loop, run_openmesh, nullptr},
  };
  std::map<std::string, results> all;
  try {
    for (const contender& c : contenders) {
      if (!listed(only, c.name)) continue;
      results& r = all[c.name];
      auto part = [&](const char* what, results (*f)(const scenario&), const std::string& rss_key) {
        if (f == nullptr || !listed(parts, what == std::string("full mesh") ? "full" : what)) return;
        progress(std::string(c.name) + ": " + what);
        results p = in_child(std::string(c.name) + " (" + what + ")", [&] { return f(sc); });
        p[rss_key] = p["peak_rss"];
        if (rss_key != "peak_rss") p.erase("peak_rss");
        r.insert(p.begin(), p.end());
      };
      part("loop", c.loop, "loop.peak_rss");
      part("full mesh", c.full, "peak_rss");
      part("deletion", c.deletion, "del.peak_rss");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh_compare: %s\n", e.what());
    return 1;
  }

  const report rep(std::move(all), double(sc.pts.size()));
  rep.print_tables(sc.runs, base_rss);
  rep.print_ratios(base_rss);
  const bool agree = rep.check_agreement();
  std::printf("\n%s\n", agree ? "all agreement checks pass" : "AGREEMENT CHECKS FAILED");
  if (!json.empty()) {
    const std::string header =
        "\"input\":\"" + (input.empty() ? std::string("icosahedron") : input) +
        "\",\"levels\":" + std::to_string(levels) + ",\"vertices\":" + std::to_string(sc.pts.size()) +
        ",\"faces\":" + std::to_string(sc.tris.size()) + ",\"coarse_faces\":" + std::to_string(sc.coarse_tris.size()) +
        ",\"deleted_faces\":" + std::to_string(sc.doomed.size()) + ",\"held\":" + std::to_string(sc.held.size()) +
        ",\"threads\":" + std::to_string(threads) + ",\"thp\":\"" + thp + "\"" +
        ",\"runs\":" + std::to_string(sc.runs) +
        ",\"base_rss_bytes\":" + std::to_string(static_cast<long long>(base_rss));
    rep.write_json(json, header, agree);
  }
  return agree ? 0 : 3;
}
