// mesh_demo: the travpool halfedge mesh at work on millions of elements.
//
//   mesh_demo [--input FILE.off|FILE.obj|FILE.ply] [--subdivide K] [--threads N]
//             [--output FILE.off|FILE.obj|FILE.ply] [--json FILE]
//
// Without --input it generates an icosahedron and applies 9 Loop levels
// (5,242,880 faces); with --input, K defaults to 0. It then runs the mesh
// benchmark suite serially, with OpenMP over the pools' partitions and with
// TBB over the pools' ranges (each parallel time the median of 3 runs),
// and prints a table. Then it decimates to 10 % and remeshes (target
// length twice the mean, 5 iterations) a copy of the largest Loop level of
// at most 400,000 faces, serially and with many threads editing one shared
// mesh, and prints each result's Hausdorff distance to the input, its
// smallest angle and where its edits ran. --output writes the mesh
// after subdivision and smoothing. --json writes the main timings.
// Exit status: 0 on success, 1 on bad input, 2 on a bad command line.

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <tbb/global_control.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <travpool/mesh.hpp>
#include "generate.hpp"
#include "mesh_quality.hpp"
#include "timing.hpp"

using namespace travpool::mesh;

namespace {

constexpr const char* usage =
    "usage: mesh_demo [--input FILE.off|FILE.obj|FILE.ply] [--subdivide K] [--threads N]\n"
    "                 [--output FILE.off|FILE.obj|FILE.ply] [--json FILE]\n"
    "  --input FILE    read a triangle mesh (default: a generated icosahedron)\n"
    "  --subdivide K   Loop subdivision levels after reading (default: 9 for the\n"
    "                  generated mesh, 0 for --input; 0 <= K <= 12)\n"
    "  --threads N     threads for the parallel runs (default: all cores)\n"
    "  --output FILE   write the mesh after subdivision and smoothing\n"
    "  --json FILE     write vertices, edges, faces, threads, peak RSS and timings\n";

struct options {
  std::string input, output, json;
  std::optional<int> subdivide;
  int threads = 0;
};

[[noreturn]] void bad_command_line(const std::string& what) {
  std::fprintf(stderr, "mesh_demo: %s\n%s", what.c_str(), usage);
  std::exit(2);
}

int parse_int(const std::string& flag, const char* s, int lo, int hi) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
    bad_command_line(flag + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s +
                     "'");
  return static_cast<int>(v);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a != "--input" && a != "--subdivide" && a != "--threads" && a != "--output" && a != "--json")
      bad_command_line("unknown argument '" + a + "'");
    if (i + 1 >= argc) bad_command_line(a + " needs a value");
    const char* v = argv[++i];
    if (a == "--input")
      o.input = v;
    else if (a == "--output")
      o.output = v;
    else if (a == "--json")
      o.json = v;
    else if (a == "--subdivide")
      o.subdivide = parse_int(a, v, 0, 12);
    else
      o.threads = parse_int(a, v, 1, 1024);
  }
  for (const std::string* f : {&o.input, &o.output}) {
    if (f->empty()) continue;
    const auto ext = travpool::mesh::detail::lower_extension(*f);
    if (ext != "off" && ext != "obj" && ext != "ply") bad_command_line("'" + *f + "' is not .off, .obj or .ply");
  }
  return o;
}

using timing::now;
using timing::peak_rss_bytes;
using timing::timed;

// printf-style: the format attribute lets the compiler check each call.
[[gnu::format(printf, 1, 2)]] void progress(const char* fmt, ...) {
  std::fprintf(stderr, "[mesh_demo] ");
  std::va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

std::vector<vec3> positions(const triangle_mesh& m) {
  std::vector<vec3> p;
  p.reserve(m.vertex_count());
  m.vertices().for_each([&](Vertex v) { p.push_back(m.position(v)); });
  return p;
}
std::vector<vec3> normals(const triangle_mesh& m) {
  std::vector<vec3> p;
  p.reserve(m.vertex_count());
  m.vertices().for_each([&](Vertex v) { p.push_back(m.normal(v)); });
  return p;
}
void set_positions(triangle_mesh& m, const std::vector<vec3>& p) {
  std::size_t i = 0;
  m.vertices().for_each([&](Vertex v) { m.position(v) = p[i++]; });
}
void clear_normals(triangle_mesh& m) {
  m.vertices().for_each([&](Vertex v) { m.normal(v) = {}; });
}
double max_rel_error(const std::vector<vec3>& got, const std::vector<vec3>& ref) {
  double e = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) e = std::max(e, norm(got[i] - ref[i]) / std::max(norm(ref[i]), 1e-300));
  return e;
}

// The edit rows' input size (the default demo's Loop level 7).
constexpr std::size_t edit_faces = 400'000;

double mean_edge_length(const triangle_mesh& m) {
  double sum = 0;
  for (const Edge e : m.edges()) sum += norm(m.position(m.to(e.halfedge(0))) - m.position(m.to(e.halfedge(1))));
  return m.edge_count() == 0 ? 0 : sum / static_cast<double>(m.edge_count());
}

struct row {
  std::string op;
  double serial = -1, omp = -1, tbb = -1;
  std::size_t v = 0, e = 0, f = 0;
};

void print_table(const std::vector<row>& rows, int threads) {
  std::printf("\n%-16s %10s %10s %8s %10s %8s %11s %11s %11s\n", "operation", "serial s", "openmp s", "speedup",
              "tbb s", "speedup", "vertices", "edges", "faces");
  std::printf("%-16s %10s %10s %8s %10s %8s %11s %11s %11s\n", "", "", "", "", "", "", "", "", "");
  for (const row& r : rows) {
    auto t = [](double s) {
      char b[32];
      if (s < 0)
        std::snprintf(b, sizeof b, "-");
      else
        std::snprintf(b, sizeof b, "%.3f", s);
      return std::string(b);
    };
    auto sp = [](double s, double p) {
      char b[32];
      if (s < 0 || p <= 0)
        std::snprintf(b, sizeof b, "-");
      else
        std::snprintf(b, sizeof b, "%.2fx", s / p);
      return std::string(b);
    };
    std::printf("%-16s %10s %10s %8s %10s %8s %11zu %11zu %11zu\n", r.op.c_str(), t(r.serial).c_str(), t(r.omp).c_str(),
                sp(r.serial, r.omp).c_str(), t(r.tbb).c_str(), sp(r.serial, r.tbb).c_str(), r.v, r.e, r.f);
  }
  std::printf("(parallel columns: %d threads; element counts after the operation)\n", threads);
}

int run(const options& o) {
  const int threads = o.threads > 0 ? o.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
  tbb::global_control tbb_threads(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  const double t_start = now();
  std::vector<row> rows;
  auto counts = [](const triangle_mesh& m, row r) {
    r.v = m.vertex_count(), r.e = m.edge_count(), r.f = m.face_count();
    return r;
  };

  triangle_mesh m;
  double t_read = 0;
  if (o.input.empty()) {
    progress("generating an icosahedron");
    t_read = timed([&] { m = icosahedron_soup().build(); });
  } else {
    progress("reading %s", o.input.c_str());
    t_read = timed([&] { m = read_mesh(o.input); });
  }
  rows.push_back(counts(m, {.op = o.input.empty() ? "generate" : "read", .serial = t_read}));

  const int levels = o.subdivide.value_or(o.input.empty() ? 9 : 0);
  double t_sub = 0;
  // The input of the edit rows (decimate, remesh): the largest level of at
  // most edit_faces faces (the input itself if it is larger).
  soup edit_input;
  const auto keep_for_edits = [&] {
    if (edit_input.triangles.empty() || m.face_count() <= edit_faces)
      to_triangles(m, edit_input.points, edit_input.triangles);
  };
  keep_for_edits();
  for (int i = 0; i < levels; ++i) {
    if (m.face_count() > (std::size_t{1} << 31) / 4) {
      std::fprintf(stderr, "mesh_demo: --subdivide %d would exceed 2^31 faces\n", levels);
      return 1;
    }
    t_sub += timed([&] { loop_subdivide(m); });
    progress("subdivided: level %d/%d, %zu faces, %.2f s", i + 1, levels, m.face_count(), t_sub);
    keep_for_edits();
  }
  rows.push_back(counts(m, {.op = "subdivide", .serial = t_sub}));

  progress("validate");
  rows.push_back(counts(m, {.op = "validate", .serial = timed([&] { m.validate(); })}));

  progress("circulators");
  circulation_counts cc;
  rows.push_back(counts(m, {.op = "circulators", .serial = timed([&] { cc = circulate_all(m); })}));
  if (cc.vertex_vertices != 2 * m.edge_count() || cc.face_vertices != 3 * m.face_count())
    throw std::logic_error("circulator counts disagree with the element counts");

  progress("barycenter");
  vec3 center;
  rows.push_back(counts(m, {.op = "barycenter", .serial = timed([&] { center = barycenter(m); })}));

  // Normals: serial, then OpenMP and TBB; all must agree. Each time is the
  // median of 3 runs.
  constexpr int runs = 3;
  progress("normals (serial, openmp, tbb; median of %d)", runs);
  row rn{.op = "normals"};
  auto no_reset = [] {};
  rn.serial = timing::median_time(runs, no_reset, [&] { compute_normals(m, execution::serial); });
  const auto ref_normals = normals(m);
  double err = 0;
  rn.omp = timing::median_time(
      runs, [&] { clear_normals(m); }, [&] { compute_normals(m, execution::openmp); });
  err = std::max(err, max_rel_error(normals(m), ref_normals));
  rn.tbb = timing::median_time(
      runs, [&] { clear_normals(m); }, [&] { compute_normals(m, execution::tbb); });
  err = std::max(err, max_rel_error(normals(m), ref_normals));
  rows.push_back(counts(m, rn));

  progress("smooth10 (serial, openmp, tbb; median of %d)", runs);
  row rs{.op = "smooth10"};
  const auto start = positions(m);
  auto restart = [&] { set_positions(m, start); };
  rs.serial = timing::median_time(runs, restart, [&] { smooth(m, 10, execution::serial); });
  const auto ref_smooth = positions(m);
  rs.omp = timing::median_time(runs, restart, [&] { smooth(m, 10, execution::openmp); });
  err = std::max(err, max_rel_error(positions(m), ref_smooth));
  rs.tbb = timing::median_time(runs, restart, [&] { smooth(m, 10, execution::tbb); });
  err = std::max(err, max_rel_error(positions(m), ref_smooth));
  rows.push_back(counts(m, rs));
  if (err != 0) throw std::logic_error("parallel results differ from the serial ones");

  double t_write = 0;
  if (!o.output.empty()) {
    progress("writing %s", o.output.c_str());
    t_write = timed([&] { write_mesh(m, o.output); });
    rows.push_back(counts(m, {.op = "write", .serial = t_write}));
  }

  progress("split_collapse");
  const auto v0 = m.vertex_count(), e0 = m.edge_count(), f0 = m.face_count();
  split_collapse_result sc;
  const double t_sc = timed([&] { sc = split_collapse(m); });
  rows.push_back(counts(m, {.op = "split_collapse", .serial = t_sc}));
  if (m.vertex_count() != v0 || m.edge_count() != e0 || m.face_count() != f0 || sc.refused != 0)
    throw std::logic_error("split_collapse did not restore the mesh");
  progress("validate");
  rows.push_back(counts(m, {.op = "validate", .serial = timed([&] { m.validate(); })}));

  // Topology edits by many threads on one shared mesh: each mode edits its
  // own copy of edit_input (built untimed), and the result is validated.
  std::vector<std::string> edit_notes;
  const auto edit_row = [&](const char* op, auto&& edit) {
    progress("%s (serial, openmp, tbb) on %zu faces", op, edit_input.triangles.size());
    row r{.op = op};
    const triangle_bvh input_surface(edit_input.points, edit_input.triangles);
    std::string note = std::string(op) + ":";
    for (const execution how : {execution::serial, execution::openmp, execution::tbb}) {
      triangle_mesh e = edit_input.build();
      std::string stats;
      const double t = timed([&] { stats = edit(e, how); });
      e.validate();
      (how == execution::serial ? r.serial : how == execution::openmp ? r.omp : r.tbb) = t;
      r = counts(e, r);
      soup edited;
      to_triangles(e, edited.points, edited.triangles);
      // Hausdorff at the vertices of both sides (no extra samples).
      const quality::mesh_quality q = quality::measure(edited, mean_edge_length(e), edit_input, input_surface, 0);
      char b[256];
      std::snprintf(b, sizeof b, " %s: Hausdorff %.3g%% of the diagonal, min angle %.1f deg, %s;", to_string(how),
                    100 * q.hausdorff / quality::bbox_diagonal(edit_input.points), q.min_angle, stats.c_str());
      note += b;
    }
    rows.push_back(r);
    edit_notes.push_back(note);
  };
  edit_row("decimate 10%", [&](triangle_mesh& e, execution how) {
    const auto res = decimate(e, {.target_faces = std::max<std::size_t>(4, e.face_count() / 10)}, how);
    return "collapses in parallel " + std::to_string(res.parallel) + ", retried " + std::to_string(res.retried) +
           ", serial " + std::to_string(res.serial);
  });
  edit_row("remesh 2L x5", [&](triangle_mesh& e, execution how) {
    const auto res = remesh(e, {.target_edge_length = 2 * mean_edge_length(e), .iterations = 5}, how);
    return "edits in parallel " + std::to_string(res.parallel_ops) + ", retried " + std::to_string(res.retried_ops) +
           ", serial " + std::to_string(res.serial_ops);
  });

  print_table(rows, threads);
  for (const std::string& n : edit_notes) std::printf("%s\n", n.c_str());
  const long long rss = peak_rss_bytes();
  std::printf("parallel == serial: max relative difference %.3g (normals and smooth10, openmp and tbb)\n", err);
  std::printf("barycenter (%.6g, %.6g, %.6g); peak RSS %.1f MiB; pools: %zu + %zu + %zu bins; total %.1f s\n", center.x,
              center.y, center.z, static_cast<double>(rss) / (1 << 20), m.vertices().bin_count(), m.edges().bin_count(),
              m.faces().bin_count(), now() - t_start);

  if (!o.json.empty()) {
    std::ofstream js(o.json);
    js.precision(6);
    js << std::fixed;
    js << "{\"vertices\":" << m.vertex_count() << ",\"edges\":" << m.edge_count() << ",\"faces\":" << m.face_count()
       << ",\"threads\":" << threads << ",\"peak_rss_bytes\":" << rss << ",\"ops\":{\"read\":" << t_read
       << ",\"subdivide\":" << t_sub << ",\"normals\":" << rn.omp << ",\"smooth10\":" << rs.omp
       << ",\"split_collapse\":" << t_sc << ",\"write\":" << t_write << "}}\n";
    if (!js.flush()) {
      std::fprintf(stderr, "mesh_demo: cannot write %s\n", o.json.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    return run(o);
  } catch (const io_error& e) {
    std::fprintf(stderr, "mesh_demo: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh_demo: error: %s\n", e.what());
    return 1;
  }
}
