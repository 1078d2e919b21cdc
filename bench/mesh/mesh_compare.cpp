// mesh_compare: the travpool mesh against a std::vector + 32-bit index mesh
// and OpenMesh 9, on the same input in one run.
//
//   mesh_compare [--input FILE.off|FILE.obj] [--min-faces N] [--runs R]
//                [--threads N] [--json FILE]
//
// The parent process reads the input (or generates an icosahedron), applies
// Loop subdivision (travpool mesh) until it has at least N faces (default
// 5,000,000), and exports one triangle soup. Each contender then runs in its
// own forked child, so that its peak RSS (getrusage of the child) is its own:
//   (a) travpool  : examples/mesh (column pools, 32-bit handles), parallel
//                   loops over the column segments of pool partitions
//                   (OpenMP) and pool ranges (TBB);
//   (b) vector    : bench/mesh/vector_mesh.hpp, `omp parallel for`;
//   (c) openmesh  : TriMesh_ArrayKernelT<DefaultTraitsDouble> with status;
//                   its own update_normals; no parallel iteration;
//   (d) pointer   : bench/mesh/pointer_mesh.hpp, the mesh example before
//                   the column pool (one struct per element on travpool
//                   pools, linked by pointers).
// Every contender builds from the soup, then runs normals and smooth10
// (serial and parallel) and split_collapse (split every face at its
// centroid, collapse every new vertex with the link-condition check, and
// for (b) and (c) garbage_collection()), R times each; the table shows
// medians. Agreement checks compare element counts and checksums (sums of
// normals and positions) across contenders.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tbb/global_control.h>

#include <OpenMesh/Core/Mesh/TriMesh_ArrayKernelT.hh>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "algorithms.hpp"
#include "generate.hpp"
#include "io.hpp"
#include "pointer_ops.hpp"
#include "timing.hpp"
#include "vector_mesh.hpp"

using namespace travpool::mesh;
using om_mesh = OpenMesh::TriMesh_ArrayKernelT<OpenMesh::DefaultTraitsDouble>;

namespace {

using timing::now;
using timing::timed;

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
long long rss_now_bytes() {
  std::ifstream in("/proc/self/statm");
  long long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}
void progress(const std::string& s) {
  std::fprintf(stderr, "[mesh_compare] %s\n", s.c_str());
  std::fflush(stderr);
}

using soup_points = std::vector<vec3>;
using soup_tris = std::vector<std::array<std::uint32_t, 3>>;

// Results of one contender, as key -> value (times in seconds: medians).
using results = std::map<std::string, double>;

// Checksums of a set of vectors: the sum (near 0 on symmetric shapes) and
// the sum of absolute coordinates (no cancellation).
struct checksum {
  vec3 sum;
  double abs = 0;
  void add(const vec3& p) {
    sum += p;
    abs += std::abs(p.x) + std::abs(p.y) + std::abs(p.z);
  }
};
void add_sum(results& r, const std::string& key, const checksum& c) {
  r[key + ".x"] = c.sum.x, r[key + ".y"] = c.sum.y, r[key + ".z"] = c.sum.z, r[key + ".abs"] = c.abs;
}

// ----- (a) travpool and (d) the pointer mesh ------------------------------------

// The protocol of the two meshes on travpool pools, which share it: normals
// and smooth10 serially, with OpenMP and with TBB, then split_collapse.
// Ops gives build(m), for_each_position(m, f(vec3&)),
// for_each_normal(m, f(const vec3&)), normals(m, how), smooth(m, how) and
// split_collapse(m).
template <class Mesh, class Ops>
results run_pool_mesh(const soup_points& pts, Ops ops, int runs) {
  results r;
  Mesh m;
  r["build"] = timed([&] { m = ops.build(); });
  auto reset = [&] {
    std::size_t i = 0;
    ops.for_each_position(m, [&](vec3& p) { p = pts[i++]; });
  };
  auto normal_sum = [&] {
    checksum c;
    ops.for_each_normal(m, [&](const vec3& n) { c.add(n); });
    return c;
  };
  auto position_checksum = [&] {
    checksum c;
    ops.for_each_position(m, [&](const vec3& p) { c.add(p); });
    return c;
  };
  std::vector<double> ns, no, nt, ss, so, st, sc;
  for (int i = 0; i < runs; ++i) {
    ns.push_back(timed([&] { ops.normals(m, execution::serial); }));
    no.push_back(timed([&] { ops.normals(m, execution::openmp); }));
    nt.push_back(timed([&] { ops.normals(m, execution::tbb); }));
  }
  add_sum(r, "normal_sum", normal_sum());
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] { ops.smooth(m, execution::serial); }));
    reset();
    so.push_back(timed([&] { ops.smooth(m, execution::openmp); }));
    reset();
    st.push_back(timed([&] { ops.smooth(m, execution::tbb); }));
  }
  add_sum(r, "smooth_sum", position_checksum());
  reset();
  std::size_t refused = 0;
  for (int i = 0; i < runs; ++i) sc.push_back(timed([&] { refused += ops.split_collapse(m).refused; }));
  add_sum(r, "final_sum", position_checksum());
  r["normals.serial"] = median(ns), r["normals.openmp"] = median(no), r["normals.tbb"] = median(nt);
  r["smooth10.serial"] = median(ss), r["smooth10.openmp"] = median(so), r["smooth10.tbb"] = median(st);
  r["split_collapse"] = median(sc);
  r["V"] = double(m.vertex_count()), r["E"] = double(m.edge_count()), r["F"] = double(m.face_count());
  r["refused"] = double(refused);
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

struct column_mesh_ops {
  const soup_points& pts;
  const soup_tris& tris;
  triangle_mesh build() const { return triangle_mesh::from_triangles(pts, tris); }
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
  const soup_points& pts;
  const soup_tris& tris;
  bench::pointer::triangle_mesh build() const { return bench::pointer::triangle_mesh::from_triangles(pts, tris); }
  template <class F>
  static void for_each_position(bench::pointer::triangle_mesh& m, F&& f) {
    m.vertices().for_each([&](bench::pointer::vertex& v) { f(v.position()); });
  }
  template <class F>
  static void for_each_normal(const bench::pointer::triangle_mesh& m, F&& f) {
    for (const bench::pointer::vertex& v : m.vertices()) f(v.normal());
  }
  static void normals(bench::pointer::triangle_mesh& m, execution how) { bench::pointer::compute_normals(m, how); }
  static void smooth(bench::pointer::triangle_mesh& m, execution how) { bench::pointer::smooth(m, 10, how); }
  static split_collapse_result split_collapse(bench::pointer::triangle_mesh& m) {
    return bench::pointer::split_collapse(m);
  }
};

results run_travpool(const soup_points& pts, const soup_tris& tris, int runs) {
  return run_pool_mesh<triangle_mesh>(pts, column_mesh_ops{pts, tris}, runs);
}
results run_pointer(const soup_points& pts, const soup_tris& tris, int runs) {
  return run_pool_mesh<bench::pointer::triangle_mesh>(pts, pointer_mesh_ops{pts, tris}, runs);
}

// ----- (b) vector mesh --------------------------------------------------------------

results run_vector(const soup_points& pts, const soup_tris& tris, int runs) {
  results r;
  bench::vector_mesh m;
  r["build"] = timed([&] { m = bench::vector_mesh::from_triangles(pts, tris); });
  auto reset = [&] { std::copy(pts.begin(), pts.end(), m.points().begin()); };
  std::vector<double> ns, no, ss, so, sc;
  for (int i = 0; i < runs; ++i) {
    ns.push_back(timed([&] { m.compute_normals(false); }));
    no.push_back(timed([&] { m.compute_normals(true); }));
  }
  checksum s;
  for (const vec3& n : m.vertex_normals()) s.add(n);
  add_sum(r, "normal_sum", s);
  for (int i = 0; i < runs; ++i) {
    reset();
    ss.push_back(timed([&] { m.smooth(10, false); }));
    reset();
    so.push_back(timed([&] { m.smooth(10, true); }));
  }
  s = {};
  for (const vec3& p : m.points()) s.add(p);
  add_sum(r, "smooth_sum", s);
  reset();
  std::size_t refused = 0;
  for (int i = 0; i < runs; ++i)
    sc.push_back(timed([&] {
      const auto nf = static_cast<std::uint32_t>(m.n_faces());
      std::vector<std::uint32_t> added;
      added.reserve(nf);
      for (std::uint32_t f = 0; f < nf; ++f) {
        const std::uint32_t h = m.face_half(f);
        const vec3 c = m.points()[m.to(h)] + m.points()[m.to(m.next(h))] + m.points()[m.to(m.next(m.next(h)))];
        added.push_back(m.split(f, c * (1.0 / 3.0)));
      }
      for (std::uint32_t v : added) {
        std::uint32_t chosen = bench::vector_mesh::invalid;
        m.for_out(v, [&](std::uint32_t h) {
          if (chosen == bench::vector_mesh::invalid && m.is_collapse_ok(h)) chosen = h;
        });
        if (chosen == bench::vector_mesh::invalid) {
          ++refused;
          continue;
        }
        m.collapse(chosen);
      }
      m.garbage_collection();
    }));
  s = {};
  for (const vec3& p : m.points()) s.add(p);
  add_sum(r, "final_sum", s);
  r["normals.serial"] = median(ns), r["normals.openmp"] = median(no);
  r["smooth10.serial"] = median(ss), r["smooth10.openmp"] = median(so);
  r["split_collapse"] = median(sc);
  r["V"] = double(m.n_vertices()), r["E"] = double(m.n_edges()), r["F"] = double(m.n_faces());
  r["refused"] = double(refused);
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

// ----- (c) OpenMesh ------------------------------------------------------------------

results run_openmesh(const soup_points& pts, const soup_tris& tris, int runs) {
  results r;
  om_mesh m;
  m.request_vertex_status();
  m.request_edge_status();
  m.request_halfedge_status();
  m.request_face_status();
  m.request_face_normals();
  m.request_vertex_normals();
  r["build"] = timed([&] {
    std::vector<om_mesh::VertexHandle> vh;
    vh.reserve(pts.size());
    m.reserve(pts.size(), pts.size() + tris.size(), tris.size());
    for (const vec3& p : pts) vh.push_back(m.add_vertex(om_mesh::Point(p.x, p.y, p.z)));
    for (const auto& t : tris)
      if (!m.add_face(vh[t[0]], vh[t[1]], vh[t[2]]).is_valid()) throw std::runtime_error("OpenMesh rejected a face");
  });
  auto reset = [&] {
    for (std::size_t i = 0; i < pts.size(); ++i)
      m.set_point(om_mesh::VertexHandle(static_cast<int>(i)), om_mesh::Point(pts[i].x, pts[i].y, pts[i].z));
  };
  std::vector<double> ns, ss, sc;
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
    sc.push_back(timed([&] {
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
  r["normals.serial"] = median(ns), r["smooth10.serial"] = median(ss), r["split_collapse"] = median(sc);
  r["V"] = double(m.n_vertices()), r["E"] = double(m.n_edges()), r["F"] = double(m.n_faces());
  r["refused"] = double(refused);
  r["rss_end"] = double(rss_now_bytes());
  return r;
}

// Runs `f` in a forked child; returns its results plus its peak RSS.
template <class F>
results in_child(const std::string& name, F&& f) {
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fd[0]);
    std::string out;
    int status = 0;
    try {
      results r = f();
      r["rss_start"] = 0;  // filled by the parent's fork-time sample
      std::ostringstream os;
      os.precision(17);
      for (const auto& [k, v] : r) os << k << ' ' << v << '\n';
      out = os.str();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mesh_compare: %s failed: %s\n", name.c_str(), e.what());
      status = 1;
    }
    std::size_t off = 0;
    while (off < out.size()) {
      const auto n = write(fd[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    close(fd[1]);
    std::fflush(nullptr);
    _exit(status);
  }
  close(fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  int status = 0;
  rusage u{};
  wait4(pid, &status, 0, &u);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(name + " failed");
  results r;
  std::istringstream is(text);
  std::string k;
  double v;
  while (is >> k >> v) r[k] = v;
  r["peak_rss"] = double(u.ru_maxrss) * 1024.0;
  return r;
}

constexpr const char* usage =
    "usage: mesh_compare [--input FILE.off|FILE.obj] [--min-faces N] [--runs R] [--threads N] [--json FILE]\n";

}  // namespace

int main(int argc, char** argv) {
  std::string input, json;
  long long min_faces = 5'000'000;
  int runs = 3;
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
      runs = std::max(1, std::atoi(v));
    else if (a == "--threads")
      threads = std::max(1, std::atoi(v));
    else {
      std::fprintf(stderr, "mesh_compare: unknown argument '%s'\n%s", a.c_str(), usage);
      return 2;
    }
  }
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
  tbb::global_control tbb_threads(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  soup_points pts;
  soup_tris tris;
  int levels = 0;
  std::size_t input_faces = 0;
  try {
    triangle_mesh m = input.empty() ? icosahedron_soup().build() : read_mesh(input);
    input_faces = m.face_count();
    while (static_cast<long long>(m.face_count()) < min_faces) {
      loop_subdivide(m);
      ++levels;
      progress("subdivided to " + std::to_string(m.face_count()) + " faces");
    }
    to_triangles(m, pts, tris);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh_compare: %s\n", e.what());
    return 1;
  }
  // The subdivided mesh's bins went to travpool's span cache: unmap them, or
  // every child would start with them resident (and copy them on write).
  travpool::trim_span_cache();
  const double base_rss = double(rss_now_bytes());
  std::printf("input %s: %zu faces, %d Loop levels -> %zu vertices, %zu faces; %d threads; %d runs (medians)\n",
              input.empty() ? "icosahedron" : input.c_str(), input_faces, levels, pts.size(), tris.size(), threads,
              runs);

  std::map<std::string, results> all;
  try {
    progress("travpool");
    all["travpool"] = in_child("travpool", [&] { return run_travpool(pts, tris, runs); });
    progress("pointer");
    all["pointer"] = in_child("pointer", [&] { return run_pointer(pts, tris, runs); });
    progress("vector");
    all["vector"] = in_child("vector", [&] { return run_vector(pts, tris, runs); });
    progress("openmesh");
    all["openmesh"] = in_child("openmesh", [&] { return run_openmesh(pts, tris, runs); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh_compare: %s\n", e.what());
    return 1;
  }

  auto get = [&](const std::string& c, const std::string& k) {
    auto it = all[c].find(k);
    return it == all[c].end() ? -1.0 : it->second;
  };
  auto cell = [](double s) {
    char b[32];
    if (s < 0)
      std::snprintf(b, sizeof b, "%9s", "-");
    else
      std::snprintf(b, sizeof b, "%9.3f", s);
    return std::string(b);
  };
  const char* names[] = {"travpool", "pointer", "vector", "openmesh"};
  std::printf("\n%-10s %9s %9s %9s %9s %9s %9s %9s %9s %10s %10s\n", "contender", "build", "norm 1t", "norm omp",
              "norm tbb", "smth 1t", "smth omp", "smth tbb", "splt_col", "peak MiB", "+base MiB");
  for (const char* c : names) {
    std::printf("%-10s %s %s %s %s %s %s %s %s %10.0f %10.0f\n", c, cell(get(c, "build")).c_str(),
                cell(get(c, "normals.serial")).c_str(), cell(get(c, "normals.openmp")).c_str(),
                cell(get(c, "normals.tbb")).c_str(), cell(get(c, "smooth10.serial")).c_str(),
                cell(get(c, "smooth10.openmp")).c_str(), cell(get(c, "smooth10.tbb")).c_str(),
                cell(get(c, "split_collapse")).c_str(), get(c, "peak_rss") / (1 << 20),
                (get(c, "peak_rss") - base_rss) / (1 << 20));
  }
  std::printf(
      "(seconds, medians of %d runs; 'peak MiB' is the child's peak RSS, '+base MiB' the part above the %.0f MiB"
      " the parent held at fork: input soup and libraries)\n",
      runs, base_rss / (1 << 20));

  const double tp_n = get("travpool", "normals.openmp"), tp_s = get("travpool", "smooth10.openmp");
  std::printf("\nratios (> 1 means travpool is faster):\n");
  std::printf("  normals   travpool omp vs openmesh: %.2fx   vs vector omp: %.2fx   (tbb: %.2fx, %.2fx)\n",
              get("openmesh", "normals.serial") / tp_n, get("vector", "normals.openmp") / tp_n,
              get("openmesh", "normals.serial") / get("travpool", "normals.tbb"),
              get("vector", "normals.openmp") / get("travpool", "normals.tbb"));
  std::printf("  smooth10  travpool omp vs openmesh: %.2fx   vs vector omp: %.2fx   (tbb: %.2fx, %.2fx)\n",
              get("openmesh", "smooth10.serial") / tp_s, get("vector", "smooth10.openmp") / tp_s,
              get("openmesh", "smooth10.serial") / get("travpool", "smooth10.tbb"),
              get("vector", "smooth10.openmp") / get("travpool", "smooth10.tbb"));
  std::printf("  vs pointer mesh: normals omp %.2fx, smooth10 omp %.2fx, split_collapse %.2fx\n",
              get("pointer", "normals.openmp") / tp_n, get("pointer", "smooth10.openmp") / tp_s,
              get("pointer", "split_collapse") / get("travpool", "split_collapse"));
  std::printf("  split_collapse travpool vs openmesh (+gc): %.2fx   vs vector (+gc): %.2fx\n",
              get("openmesh", "split_collapse") / get("travpool", "split_collapse"),
              get("vector", "split_collapse") / get("travpool", "split_collapse"));
  std::printf("  peak RSS travpool / openmesh: %.2f (above base: %.2f); travpool / vector: %.2f (above base: %.2f)\n",
              get("travpool", "peak_rss") / get("openmesh", "peak_rss"),
              (get("travpool", "peak_rss") - base_rss) / (get("openmesh", "peak_rss") - base_rss),
              get("travpool", "peak_rss") / get("vector", "peak_rss"),
              (get("travpool", "peak_rss") - base_rss) / (get("vector", "peak_rss") - base_rss));

  // Agreement checks.
  bool agree = true;
  std::printf("\nagreement (vs travpool):\n");
  for (const char* c : {"pointer", "vector", "openmesh"}) {
    for (const char* k : {"V", "E", "F", "refused"}) {
      const bool ok = get(c, k) == get("travpool", k);
      agree &= ok;
      std::printf("  %-9s %-10s %12.0f vs %12.0f  %s\n", c, k, get(c, k), get("travpool", k), ok ? "ok" : "MISMATCH");
    }
    for (const char* k : {"normal_sum", "smooth_sum", "final_sum"}) {
      double worst = 0;
      for (const char* ax : {".x", ".y", ".z"}) {
        const double a = get(c, std::string(k) + ax), b = get("travpool", std::string(k) + ax);
        // Relative to the sum of magnitudes: the sums of a closed surface
        // cancel to near 0, so compare against the element count instead.
        worst = std::max(worst, std::abs(a - b) / std::max(1.0, double(pts.size())));
      }
      const double a = get(c, std::string(k) + ".abs"), b = get("travpool", std::string(k) + ".abs");
      const double rel = std::abs(a - b) / std::max(std::abs(b), 1e-300);
      const bool ok = worst < 1e-9 && rel < 1e-12;
      agree &= ok;
      std::printf("  %-9s %-10s sum: max |diff| / V = %.3g; sum of |coordinates| %.17g, rel. diff %.3g  %s\n", c, k,
                  worst, a, rel, ok ? "ok" : "MISMATCH");
    }
  }
  if (!json.empty()) {
    std::ofstream js(json);
    js.precision(9);
    js << "{\"input\":\"" << (input.empty() ? "icosahedron" : input) << "\",\"levels\":" << levels
       << ",\"vertices\":" << pts.size() << ",\"faces\":" << tris.size() << ",\"threads\":" << threads
       << ",\"runs\":" << runs << ",\"base_rss_bytes\":" << base_rss << ",\"agree\":" << (agree ? "true" : "false");
    for (const char* c : names) {
      js << ",\"" << c << "\":{";
      bool first = true;
      for (const auto& [k, v] : all[c]) {
        js << (first ? "" : ",") << "\"" << k << "\":" << v;
        first = false;
      }
      js << "}";
    }
    js << "}\n";
  }
  return agree ? 0 : 3;
}
