// memory_probe_bench: the paper's Table 2, memory of one container.
//
// Not a Google Benchmark program: one process creates N elements in ONE
// container and prints one JSON line
//
//   {"container": ..., "n": N, "rss_before": B, "rss_after": B, "peak_rss": B,
//    "bytes_per_element": ..., "element_bytes": ...}
//
// rss_* are VmRSS of /proc/self/status right before the empty container is
// made and right after the N creations; bytes_per_element is their
// difference / N (the growth in resident memory). peak_rss is VmHWM, the
// peak resident memory of the whole process (the paper's "memory
// consumption of the complete process"). scripts/bench.sh runs one process
// per container, all with the same N.
//
//   memory_probe_bench --list
//   memory_probe_bench --container=NAME [--n=N]
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>

#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

// VmRSS or VmHWM of this process, in bytes.
std::size_t proc_status_bytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, len, key) == 0 && line[len] == ':') return std::stoull(line.substr(len + 1)) * 1024;
  return 0;
}

struct vector_no_reserve_adapter : tb::no_after_release {
  using container = std::vector<tb::element>;
  static std::string name() { return "std::vector(no_reserve)"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static std::size_t add(container& c, std::uint64_t i) {
    c.push_back(tb::make_element(i));
    return 0;
  }
};

// `new` alone, the paper's "C++ new" row: the pointers are not kept (the
// process ends right after the measurement).
struct new_only_adapter : tb::no_after_release {
  struct container {};
  static std::string name() { return "new(pointers_not_kept)"; }
  static std::unique_ptr<container> make(std::size_t) { return std::make_unique<container>(); }
  static tb::element* add(container&, std::uint64_t i) { return new tb::element(tb::make_element(i)); }
};

struct probe {
  std::size_t element_bytes;
  std::function<void(std::size_t)> fill;  // creates n elements, keeps them
};

template <class Adapter>
void add_probe(std::map<std::string, probe>& m, std::size_t element_bytes, const std::string& name = Adapter::name()) {
  m[name] = probe{element_bytes, [](std::size_t n) {
                    static std::unique_ptr<typename Adapter::container> keep;  // alive until exit
                    keep = Adapter::make(n);
                    for (std::size_t i = 0; i < n; ++i) {
                      auto h = Adapter::add(*keep, i);
                      benchmark::DoNotOptimize(h);
                    }
                  }};
}

std::map<std::string, probe> probes() {
  std::map<std::string, probe> m;
  const std::size_t e = sizeof(tb::element);
  tb::for_each_pool_layout([&m, e](auto adapter) { add_probe<decltype(adapter)>(m, e); });
  add_probe<tb::vector_adapter>(m, e, "std::vector(reserve)");
  add_probe<vector_no_reserve_adapter>(m, e);
  add_probe<tb::vector_huge_adapter>(m, e, "std::vector(reserve,huge_pages)");
  add_probe<tb::list_adapter>(m, e);
  add_probe<new_only_adapter>(m, e);
  add_probe<tb::new_adapter>(m, e, "new+vector<T*>");
  add_probe<tb::boost_pool_adapter>(m, e);
  add_probe<tb::boost_pool_vector_adapter>(m, e);
  add_probe<tb::fast_pool_list_adapter>(m, e);
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
  add_probe<tb::colony_adapter>(m, e);
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
  add_probe<tb::cgal_adapter>(m, sizeof(tb::cgal_element));
#endif
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 20'000'000;
  std::string which;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--n=", 0) == 0)
      n = std::stoull(a.substr(4));
    else if (a.rfind("--container=", 0) == 0)
      which = a.substr(12);
    else if (a == "--list")
      list = true;
    else {
      std::fprintf(stderr, "usage: %s --list | --container=NAME [--n=N]\n", argv[0]);
      return 2;
    }
  }
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);  // as in the benchmark programs
  const auto m = probes();
  if (list) {
    for (const auto& [name, p] : m) std::printf("%s\n", name.c_str());
    return 0;
  }
  const auto it = m.find(which);
  if (it == m.end()) {
    std::fprintf(stderr, "unknown container '%s' (see --list)\n", which.c_str());
    return 2;
  }
  const std::size_t before = proc_status_bytes("VmRSS");
  it->second.fill(n);
  const std::size_t after = proc_status_bytes("VmRSS");
  const std::size_t peak = proc_status_bytes("VmHWM");
  std::printf(
      "{\"container\": \"%s\", \"n\": %zu, \"rss_before\": %zu, \"rss_after\": %zu, \"peak_rss\": %zu, "
      "\"bytes_per_element\": %.3f, \"element_bytes\": %zu}\n",
      which.c_str(), n, before, after, peak, static_cast<double>(after - before) / static_cast<double>(n),
      it->second.element_bytes);
  return 0;
}
