// bench/mesh/export_bench.cpp: the bandwidth of export_buffers
// (<travpool/mesh/buffers.hpp>) against a plain memcpy of the same number
// of bytes, on a dense mesh and after scattered deletions.
//
// Every row writes into buffers allocated and touched before the timing,
// and reports bytes_per_second (of CPU time; the OpenMP rows of wall-clock
// time) of the bytes it WRITES (the vertex buffer
// and/or the index buffer); the memcpy row of each case copies that many
// bytes from a touched source to a touched destination, so
//   ratio = export bytes/s / memcpy bytes/s = memcpy time / export time.
// (Export reads more than it writes: 24-byte double positions for 12-byte
// float ones, 16 bytes of connectivity per triangle corner pair.)
//
// Meshes: an icosahedron after --levels=L Loop subdivisions (default 8:
// 655,362 vertices, 1,310,720 faces), and the same after deleting 10 % of
// its vertices (with their stars) and then faces at random until 30 % of
// the faces are gone: holes scattered over both pools.
//
// Run (medians of interleaved repetitions; the machine is shared):
//   export_bench --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true \
//                --benchmark_report_aggregates_only=true --benchmark_filter=median
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>
#include "generate.hpp"

using namespace travpool::mesh;

namespace {

int levels = 8;

triangle_mesh make_mesh(bool sparse) {
  triangle_mesh m = sphere(levels);
  compute_normals(m);
  if (!sparse) return m;
  std::mt19937 rng(42);
  std::vector<Vertex> vs(m.vertices().begin(), m.vertices().end());
  std::shuffle(vs.begin(), vs.end(), rng);
  const std::size_t faces = m.face_count();
  for (std::size_t i = 0; i < vs.size() / 10; ++i)
    if (m.is_live(vs[i])) m.delete_vertex(vs[i]);
  std::vector<Face> fs(m.faces().begin(), m.faces().end());
  std::shuffle(fs.begin(), fs.end(), rng);
  for (std::size_t i = 0; i < fs.size() && m.face_count() > faces * 7 / 10; ++i) m.delete_face(fs[i]);
  return m;
}

const triangle_mesh& mesh(bool sparse) {
  static const triangle_mesh dense_mesh = make_mesh(false);
  static const triangle_mesh sparse_mesh = make_mesh(true);
  return sparse ? sparse_mesh : dense_mesh;
}

// The export variants: what is written.
// The *_by_handle ones (buffer_options::by_handle; sparse mesh only)
// number the vertices by handle: the holes are written too (zeros), and
// counted.
enum variant {
  pos_f32,
  pos_f64,
  pos_normals_f32,
  indices_only,
  pos_f32_indices,
  pos_f32_h,
  indices_h,
  pos_f32_indices_h
};
const char* const variant_names[] = {
    "positions_f32",         "positions_f64",           "positions_normals_f32", "indices",
    "positions_f32+indices", "positions_f32_by_handle", "indices_by_handle",     "positions_f32+indices_by_handle"};
bool by_handle(variant v) { return v == pos_f32_h || v == indices_h || v == pos_f32_indices_h; }

buffer_options options_of(variant v, execution how) {
  buffer_options o;
  o.how = how;
  o.real = v == pos_f64 ? component_type::f64 : component_type::f32;
  o.positions = v != indices_only && v != indices_h;
  o.normals = v == pos_normals_f32;
  o.indices = v == indices_only || v == pos_f32_indices || v == indices_h || v == pos_f32_indices_h;
  o.by_handle = by_handle(v);
  return o;
}

std::size_t bytes_written(const triangle_mesh& m, const buffer_options& o) {
  const buffer_sizes s = buffer_sizes_of(m, o);
  return s.vertex_bytes + 4 * s.index_count;
}

void bm_export(benchmark::State& state, bool sparse, variant v, execution how) {
  const triangle_mesh& m = mesh(sparse);
  const buffer_options o = options_of(v, how);
  const buffer_sizes s = buffer_sizes_of(m, o);
  std::vector<std::byte> vb(s.vertex_bytes, std::byte{1});
  std::vector<std::uint32_t> ib(s.index_count, 1);
  for (auto _ : state) {
    export_buffers(m, vb, ib, {}, o);
    benchmark::DoNotOptimize(vb.data());
    benchmark::DoNotOptimize(ib.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes_written(m, o)));
  state.counters["vertices"] = static_cast<double>(m.vertex_count());
  state.counters["faces"] = static_cast<double>(m.face_count());
}

// The owned form: allocation, zeroing and page faults included.
void bm_export_owned(benchmark::State& state, bool sparse, variant v) {
  const triangle_mesh& m = mesh(sparse);
  const buffer_options o = options_of(v, execution::serial);
  for (auto _ : state) {
    mesh_buffers b = export_buffers(m, o);
    benchmark::DoNotOptimize(b.vertices.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes_written(m, o)));
}

void bm_memcpy(benchmark::State& state, bool sparse, variant v) {
  const std::size_t n = bytes_written(mesh(sparse), options_of(v, execution::serial));
  std::vector<std::byte> src(n, std::byte{2}), dst(n, std::byte{1});
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void register_all() {
  for (const bool sparse : {false, true}) {
    const std::string mesh_name = sparse ? "sparse" : "dense";
    for (const variant v :
         {pos_f32, pos_f64, pos_normals_f32, indices_only, pos_f32_indices, pos_f32_h, indices_h, pos_f32_indices_h}) {
      if (by_handle(v) && !sparse) continue;  // the dense export itself
      const std::string tail = "/" + mesh_name + "/" + variant_names[v];
      benchmark::RegisterBenchmark(("memcpy" + tail).c_str(), bm_memcpy, sparse, v)->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("export_serial" + tail).c_str(), bm_export, sparse, v, execution::serial)
          ->Unit(benchmark::kMicrosecond);
      if (available(execution::openmp))  // wall-clock time: the work is on several threads
        benchmark::RegisterBenchmark(("export_openmp" + tail).c_str(), bm_export, sparse, v, execution::openmp)
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      if (v == pos_f32_indices)
        benchmark::RegisterBenchmark(("export_owned" + tail).c_str(), bm_export_owned, sparse, v)
            ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --levels=L (ours), the rest to Google Benchmark.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--levels=", 9) == 0)
      levels = std::atoi(argv[i] + 9);
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
