// bench/mesh/compare/report.hpp: mesh_compare's output: the tables (full
// mesh, Loop, after deletion), the ratios the targets name, the agreement
// checks, and the JSON file.
//
// Agreement: element counts must be equal; checksums (common.hpp) must
// satisfy max |sum diff| / V < 1e-9 and |abs diff| / abs < 1e-12; the
// held vertices' normals and positions must match the vector mesh's at the
// same soup index within 1e-12, and every held handle must be live and
// unmoved after the deletion and live after the timed operations.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "common.hpp"

namespace travpool::mesh::compare {

class report {
 public:
  report(std::map<std::string, results> all, double vertices) : all_(std::move(all)), vertices_(vertices) {}

  // The value of key k for contender c, or -1 if it has none.
  double get(const std::string& c, const std::string& k) const {
    const auto ci = all_.find(c);
    if (ci == all_.end()) return -1;
    const auto it = ci->second.find(k);
    return it == ci->second.end() ? -1.0 : it->second;
  }

  void print_tables(int runs, double base_rss) const {
    std::printf("\nfull mesh, and one Loop level of the coarse soup (loop):\n");
    std::printf("%-11s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %9s\n", "contender", "build", "norm 1t", "norm omp",
                "norm tbb", "smth 1t", "smth omp", "smth tbb", "splt_col", "loop", "peak MiB", "+base MiB");
    for (const char* c : names)
      if (has(c))
        std::printf("%-11s%s%s%s%s%s%s%s%s%s %9s %9s\n", c, cell(c, "build").c_str(), cell(c, "normals.serial").c_str(),
                    cell(c, "normals.openmp").c_str(), cell(c, "normals.tbb").c_str(),
                    cell(c, "smooth10.serial").c_str(), cell(c, "smooth10.openmp").c_str(),
                    cell(c, "smooth10.tbb").c_str(), cell(c, "split_collapse").c_str(), cell(c, "loop").c_str(),
                    mib(c, "peak_rss", 0).c_str(), mib(c, "peak_rss", base_rss).c_str());
    std::printf("\nafter deleting half the faces (vector meshes: before garbage collection):\n");
    std::printf("%-11s %8s %8s %8s %8s %8s %8s %8s %9s\n", "contender", "delete", "norm 1t", "norm omp", "norm tbb",
                "smth 1t", "smth omp", "smth tbb", "peak MiB");
    for (const char* c : {"travpool", "vector", "vector_huge"})
      if (has(c))
        std::printf("%-11s%s%s%s%s%s%s%s %9s\n", c, cell(c, "del.delete").c_str(),
                    cell(c, "del.normals.serial").c_str(), cell(c, "del.normals.openmp").c_str(),
                    cell(c, "del.normals.tbb").c_str(), cell(c, "del.smooth10.serial").c_str(),
                    cell(c, "del.smooth10.openmp").c_str(), cell(c, "del.smooth10.tbb").c_str(),
                    mib(c, "del.peak_rss", 0).c_str());
    std::printf(
        "(seconds, medians of %d runs; 'peak MiB' is the child's peak RSS, '+base MiB' the part above the %.0f MiB"
        " the parent held at fork: input soups and libraries)\n",
        runs, base_rss / (1 << 20));
  }

  void print_ratios(double base_rss) const {
    std::printf("\nratios (> 1 means travpool is faster or smaller; omp / tbb: travpool's OpenMP / TBB run):\n");
    for (const char* c : {"vector", "vector_huge", "openmesh", "pointer"}) {
      if (!has(c)) continue;
      const bool serial_only = std::string(c) == "openmesh";
      const char* p = serial_only ? ".serial" : ".openmp";
      std::printf("  vs %-11s normals %s  smooth10 %s  split_collapse %s  loop %s  peak RSS %s (above base %s)\n", c,
                  pair("normals", c, p).c_str(), pair("smooth10", c, p).c_str(),
                  ratio(c, "split_collapse", "split_collapse").c_str(), ratio(c, "loop", "loop").c_str(),
                  ratio(c, "peak_rss", "peak_rss").c_str(), ratio(c, "peak_rss", "peak_rss", base_rss).c_str());
    }
    std::printf("  after deletion (vector meshes before GC, OpenMP):\n");
    for (const char* c : {"vector", "vector_huge"})
      if (has(c))
        std::printf("    vs %-11s normals %s  smooth10 %s  serial: normals %s, smooth10 %s\n", c,
                    pair("del.normals", c, ".openmp").c_str(), pair("del.smooth10", c, ".openmp").c_str(),
                    ratio(c, "del.normals.serial", "del.normals.serial").c_str(),
                    ratio(c, "del.smooth10.serial", "del.smooth10.serial").c_str());
    std::printf(
        "  (openmesh and pointer: their serial / own mode; split_collapse of vector* and openmesh includes GC)\n");
  }

  // Prints every check; returns true iff all pass.
  bool check_agreement() const {
    bool ok = true;
    std::printf("\nagreement (vs travpool):\n");
    for (const char* c : {"pointer", "vector", "vector_huge", "openmesh"}) {
      if (!has(c)) continue;
      ok &= counts(c, {"V", "E", "F", "refused"});
      ok &= sums(c, {"normal_sum", "smooth_sum", "final_sum"});
      ok &= counts(c, {"loop.V", "loop.E", "loop.F"});
      ok &= sums(c, {"loop_sum"});
    }
    for (const char* c : {"vector", "vector_huge"}) {
      if (!has(c)) continue;
      ok &= counts(c, {"del.V", "del.E", "del.F"});
      ok &= sums(c, {"del_normal_sum", "del_smooth_sum"});
    }
    if (!has("travpool") || !value("travpool", "held.n")) return ok;  // no deletion part
    const double n = get("travpool", "held.n");
    const bool kept =
        n > 0 && get("travpool", "held.ok_after_delete") == n && get("travpool", "held.live_after_ops") == n;
    std::printf(
        "  travpool  held handles: %.0f live and unmoved after deletion, %.0f live after the timed operations,"
        " of %.0f  %s\n",
        get("travpool", "held.ok_after_delete"), get("travpool", "held.live_after_ops"), n, verdict(kept));
    ok &= kept;
    for (const char* c : {"vector", "vector_huge"}) {
      if (!has(c)) continue;
      double worst = 0;
      int missing = 0;
      for (int k = 0; k < int(n); ++k)
        for (const char* ax : {".nx", ".ny", ".nz", ".px", ".py", ".pz"}) {
          const std::string key = "held." + std::to_string(k) + ax;
          const auto a = value(c, key), b = value("travpool", key);
          if (!a || !b)
            ++missing;
          else
            worst = std::max(worst, std::abs(*a - *b));
        }
      const bool same = missing == 0 && worst < 1e-12;
      std::printf("  %-11s held vertices' normals and smoothed positions vs soup index: max |diff| %.3g  %s\n", c,
                  worst, verdict(same));
      ok &= same;
    }
    return ok;
  }

  // Writes every contender's results but the per-held-vertex values.
  void write_json(const std::string& file, const std::string& header, bool agree) const {
    std::ofstream js(file);
    js.precision(9);
    js << "{" << header << ",\"agree\":" << (agree ? "true" : "false");
    for (const char* c : names) {
      if (!has(c)) continue;
      js << ",\"" << c << "\":{";
      bool first = true;
      if (const auto ci = all_.find(c); ci != all_.end())
        for (const auto& [k, v] : ci->second) {
          if (k.rfind("held.", 0) == 0 && k.find('.', 5) != std::string::npos && k != "held.ok_after_delete" &&
              k != "held.live_after_ops")
            continue;
          js << (first ? "" : ",") << "\"" << k << "\":" << v;
          first = false;
        }
      js << "}";
    }
    js << "}\n";
  }

  static constexpr const char* names[] = {"travpool", "pointer", "vector", "vector_huge", "openmesh"};

 private:
  bool has(const std::string& c) const { return all_.count(c) != 0; }
  static const char* verdict(bool ok) { return ok ? "ok" : "MISMATCH"; }
  std::optional<double> value(const std::string& c, const std::string& k) const {
    const auto ci = all_.find(c);
    if (ci == all_.end()) return std::nullopt;
    const auto it = ci->second.find(k);
    if (it == ci->second.end()) return std::nullopt;
    return it->second;
  }
  std::string cell(const std::string& c, const std::string& k) const {
    char b[32];
    const double s = get(c, k);
    if (s < 0)
      std::snprintf(b, sizeof b, " %8s", "-");
    else
      std::snprintf(b, sizeof b, " %8.3f", s);
    return b;
  }
  // "A.AAx": (contender c's key k - base) / (travpool's key tk - base), or
  // "-" if either was not measured (a part not run).
  std::string ratio(const std::string& c, const std::string& k, const std::string& tk, double base = 0) const {
    const auto a = value(c, k), b = value("travpool", tk);
    if (!a || !b) return "-";
    char s[32];
    std::snprintf(s, sizeof s, "%.2fx", (*a - base) / (*b - base));
    return s;
  }
  // Key k of contender c in MiB above `base` bytes, or "-" if not measured.
  std::string mib(const std::string& c, const std::string& k, double base) const {
    const auto v = value(c, k);
    if (!v) return "-";
    char s[32];
    std::snprintf(s, sizeof s, "%.0f", (*v - base) / (1 << 20));
    return s;
  }
  // "A.AAx / B.BBx": contender c's op+mode over travpool's OpenMP and TBB times.
  std::string pair(const std::string& op, const std::string& c, const std::string& mode) const {
    return ratio(c, op + mode, op + ".openmp") + " / " + ratio(c, op + mode, op + ".tbb");
  }
  bool counts(const std::string& c, std::initializer_list<const char*> keys) const {
    bool ok = true;
    for (const char* k : keys) {
      if (!value(c, k) && !value("travpool", k)) continue;  // a part not run (--parts)
      const bool same = value(c, k) && value(c, k) == value("travpool", k);
      ok &= same;
      std::printf("  %-11s %-15s %12.0f vs %12.0f  %s\n", c.c_str(), k, get(c, k), get("travpool", k), verdict(same));
    }
    return ok;
  }
  bool sums(const std::string& c, std::initializer_list<const char*> keys) const {
    bool ok = true;
    for (const std::string k : keys) {
      if (!value(c, k + ".abs") && !value("travpool", k + ".abs")) continue;  // a part not run (--parts)
      double worst = 0;
      bool present = value(c, k + ".abs").has_value() && value("travpool", k + ".abs").has_value();
      for (const char* ax : {".x", ".y", ".z"})
        // Relative to the vertex count: the sums of a closed surface cancel to near 0.
        worst = std::max(worst, std::abs(get(c, k + ax) - get("travpool", k + ax)) / std::max(1.0, vertices_));
      const double a = get(c, k + ".abs"), b = get("travpool", k + ".abs");
      const double rel = std::abs(a - b) / std::max(std::abs(b), 1e-300);
      const bool same = present && worst < 1e-9 && rel < 1e-12;
      ok &= same;
      std::printf("  %-11s %-15s sum: max |diff| / V = %.3g; sum of |coordinates| %.17g, rel. diff %.3g  %s\n",
                  c.c_str(), k.c_str(), worst, a, rel, verdict(same));
    }
    return ok;
  }

  std::map<std::string, results> all_;
  double vertices_;
};

}  // namespace travpool::mesh::compare
