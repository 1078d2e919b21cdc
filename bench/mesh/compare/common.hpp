// bench/mesh/compare/common.hpp: what every contender of mesh_compare
// shares: the scenario (the soups and the choices the parent makes once),
// results as key -> value maps, checksums, medians, and running a
// contender in a forked child.
//
// Result keys (times in seconds, medians of the runs):
//   build, normals.{serial,openmp,tbb}, smooth10.{...}, split_collapse,
//   V, E, F, refused, {normal,smooth,final}_sum.{x,y,z,abs}   full mesh;
//   loop, loop.{V,E,F}, loop_sum.*          one Loop level of the coarse soup;
//   del.delete, del.{V,E,F}, del.normals.*, del.smooth10.*,
//   del_{normal,smooth}_sum.*               after deleting half the faces;
//   held.<k>.{n,p}{x,y,z}                   normal and smoothed position of
//                                           held vertex k after deletion;
//   peak_rss, loop.peak_rss, del.peak_rss  the part's child's peak RSS;
//   rss_end                                 bytes.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <travpool/mesh/mesh.hpp>
#include "timing.hpp"

namespace travpool::mesh::compare {

using timing::timed;
using soup_points = std::vector<vec3>;
using soup_tris = std::vector<std::array<std::uint32_t, 3>>;
using results = std::map<std::string, double>;

// What the parent prepares once; every contender gets the same.
struct scenario {
  soup_points pts;  // the full mesh (>= min faces)
  soup_tris tris;
  soup_points coarse_pts;  // one Loop level before it
  soup_tris coarse_tris;
  std::vector<std::uint32_t> doomed;  // soup face indices to delete, in deletion order
  std::vector<std::uint32_t> held;    // soup indices of vertices that survive the deletion
  int runs = 3;
};

inline double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline long long rss_now_bytes() {
  std::ifstream in("/proc/self/statm");
  long long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

inline void progress(const std::string& s) {
  std::fprintf(stderr, "[mesh_compare] %s\n", s.c_str());
  std::fflush(stderr);
}

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

inline void add_sum(results& r, const std::string& key, const checksum& c) {
  r[key + ".x"] = c.sum.x, r[key + ".y"] = c.sum.y, r[key + ".z"] = c.sum.z, r[key + ".abs"] = c.abs;
}

inline void add_vec(results& r, const std::string& key, const vec3& v) {
  r[key + "x"] = v.x, r[key + "y"] = v.y, r[key + "z"] = v.z;
}

// Times `runs` rebuilds-then-subdivide: build() (untimed) returns a mesh,
// subdivide(mesh) is timed; check(mesh) records the last one's results.
template <class Build, class Subdivide, class Check>
double time_loop(int runs, Build&& build, Subdivide&& subdivide, Check&& check) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto m = build();
    t.push_back(timed([&] { subdivide(m); }));
    if (i + 1 == runs) check(m);
  }
  return median(t);
}

// Runs `f` in a forked child; returns its results plus its peak RSS
// (getrusage of the child). Throws std::runtime_error if the child fails.
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

}  // namespace travpool::mesh::compare
