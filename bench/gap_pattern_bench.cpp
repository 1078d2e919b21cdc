// gap_pattern_bench: sweeps after erasing runs of neighbouring elements, the
// gap pattern the paper (section 6) calls more common than random erasure.
//
// The elements, in creation order, are cut into runs of L neighbours; each
// run is erased with probability p, decided by a hash of the run number, so
// every container loses exactly the same elements: at p = 10 %, L in {1, 8,
// 64, 1024}; at p = 50 %, L in {1, 8, 16, 32, 64, 256, 1024, 4096}. L = 1 is
// the paper's random erasure, repeated here so that it sits side by side
// with the runs. Every travpool layout runs every style; the peers
// (plf::colony, CGAL::Compact_container, std::vector + deleted flag) and
// travpool::concurrent_pool run range-for. A dense std::vector is the
// baseline.
//
// As in sweep_bench, the container and its gaps are prepared before
// timing, one iteration is one sweep with the `sum` kernel, and the report
// divides by the live elements (counter `live`).
//
// Benchmark names: gaps/sum/<container>.<style>/<p>%<random|runsL>
#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

template <class Adapter, class Style>
void register_sweep(const tb::gap_pattern& g) {
  const std::string key = Adapter::name() + "/" + g.name();
  const std::string name = "gaps/sum/" + Adapter::name() + "." + Style::name + "/" + g.name();
  benchmark::RegisterBenchmark(name.c_str(),
                               [key, g](benchmark::State& state) {
                                 using C = typename Adapter::container;
                                 const std::size_t n = tb::cfg().n;
                                 C& c = tb::prepared<C>(
                                     key, [&] { return tb::build_with_gaps<Adapter>(n, g); },
                                     [](const C& cc) { return static_cast<std::size_t>(cc.size()); });
                                 std::uint64_t sweep = 0;
                                 for (auto _ : state) tb::kernel_sum::run<Style>(c, sweep++);
                                 state.counters["live"] = static_cast<double>(tb::slot().live);
                                 state.counters["n"] = static_cast<double>(n);
                               })
      ->Repetitions(tb::cfg().reps)
      ->MinTime(0.2)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  tb::init(argc, argv, 20'000'000);

  std::vector<tb::gap_pattern> patterns;
  for (std::size_t run : {1, 8, 64, 1024}) patterns.push_back({0.1, run});
  for (std::size_t run : {1, 8, 16, 32, 64, 256, 1024, 4096}) patterns.push_back({0.5, run});

  register_sweep<tb::vector_adapter, tb::style_range_for>({0.0, 1});
  register_sweep<tb::vector_huge_adapter, tb::style_range_for>({0.0, 1});
  for (const tb::gap_pattern& g : patterns) {
    tb::for_each_pool_layout([&g](auto adapter) {
      using A = decltype(adapter);
      register_sweep<A, tb::style_for_each>(g);
      register_sweep<A, tb::style_range_for>(g);
      if constexpr (tb::has_segments<typename A::container>) {
        register_sweep<A, tb::style_segments>(g);
        register_sweep<A, tb::style_segments_span>(g);
      }
    });
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
    register_sweep<tb::colony_adapter, tb::style_range_for>(g);
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
    register_sweep<tb::cgal_adapter, tb::style_range_for>(g);
#endif
    register_sweep<tb::flagged_vector_adapter, tb::style_flag_range_for>(g);
    register_sweep<tb::concurrent_pool_adapter, tb::style_range_for>(g);
  }

  benchmark::RunSpecifiedBenchmarks();
  tb::release_prepared();
  benchmark::Shutdown();
}
