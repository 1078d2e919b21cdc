// sweep_bench: the paper's Table 3, sweeping every live element.
//
// Containers: std::vector (also on huge pages, as travpool's bins are) and
// std::list (dense), travpool in every layout
// (dense, then after erasing each element with probability 10 % and 50 %),
// plf::colony and CGAL::Compact_container under the same gap patterns.
// travpool is swept with for_each, range-for, const range-for,
// std::ranges::for_each, std::transform_reduce over begin()/end() (sum
// only), and segments() where the layout provides it (its blocks walked by
// their own iterator, and as spans where they are one run).
//
// The container is built and its gaps are made before timing starts (and
// shared by the benchmarks that sweep the same container); one benchmark
// iteration is exactly one sweep. Each sweep runs two kernels: `sum` (the
// memory-bound sum of x + y + z, passed to DoNotOptimize) and `listing15`
// (the paper's Listing 15; see bench_common.hpp). The report divides the time
// of a sweep by the live elements (the counter `live`), as the paper does.
//
// Benchmark names: table3/<kernel>/<container>.<style>/<gaps>
#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

template <class Adapter, class Style, class Kernel>
void register_sweep(const tb::gap_pattern& g) {
  const std::string key = Adapter::name() + "/" + g.name();
  const std::string name =
      std::string("table3/") + Kernel::name + "/" + Adapter::name() + "." + Style::name + "/" + g.name();
  benchmark::RegisterBenchmark(name.c_str(),
                               [key, g](benchmark::State& state) {
                                 using C = typename Adapter::container;
                                 const std::size_t n = tb::cfg().n;
                                 C& c = tb::prepared<C>(
                                     key, [&] { return tb::build_with_gaps<Adapter>(n, g); },
                                     [](const C& cc) { return static_cast<std::size_t>(cc.size()); });
                                 std::uint64_t sweep = 0;
                                 for (auto _ : state) Kernel::template run<Style>(c, sweep++);
                                 state.counters["live"] = static_cast<double>(tb::slot().live);
                                 state.counters["n"] = static_cast<double>(n);
                               })
      ->Repetitions(tb::cfg().reps)
      ->MinTime(0.2)
      ->Unit(benchmark::kMillisecond);
}

// Every style and kernel over one prepared container, registered together
// so that they share the setup.
// (Listing 15 writes the elements: not for read-only styles.)
template <class Adapter, class... Styles>
void register_container(const tb::gap_pattern& g) {
  (register_sweep<Adapter, Styles, tb::kernel_sum>(g), ...);
  auto listing15 = [&g]<class Style>() {
    if constexpr (!requires { Style::read_only; }) register_sweep<Adapter, Style, tb::kernel_listing15>(g);
  };
  (listing15.template operator()<Styles>(), ...);
}

}  // namespace

int main(int argc, char** argv) {
  tb::init(argc, argv, 20'000'000);
  // Dense, random erasure of 10 % and 50 %, and 50 % erased in runs of 8.
  const tb::gap_pattern patterns[] = {{0.0, 1}, {0.1, 1}, {0.5, 1}, {0.5, 8}};

  register_container<tb::vector_adapter, tb::style_range_for>(patterns[0]);
  register_container<tb::vector_huge_adapter, tb::style_range_for>(patterns[0]);
  register_container<tb::list_adapter, tb::style_range_for>(patterns[0]);
  for (const auto& g : patterns) {
    tb::for_each_pool_layout([&g](auto adapter) {
      using A = decltype(adapter);
      if constexpr (tb::has_segments<typename A::container>)
        register_container<A, tb::style_for_each, tb::style_range_for, tb::style_const_range_for,
                           tb::style_ranges_for_each, tb::style_transform_reduce, tb::style_segments,
                           tb::style_segments_span>(g);
      else
        register_container<A, tb::style_for_each, tb::style_range_for, tb::style_const_range_for,
                           tb::style_ranges_for_each, tb::style_transform_reduce>(g);
    });
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
    register_container<tb::colony_adapter, tb::style_range_for>(g);
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
    register_container<tb::cgal_adapter, tb::style_range_for>(g);
#endif
  }

  benchmark::RunSpecifiedBenchmarks();
  tb::release_prepared();
  benchmark::Shutdown();
}
