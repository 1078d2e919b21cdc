// create_bench: the paper's Figure 11, creating N elements.
//
// Each repetition builds an empty container (untimed), times exactly the
// loop of N creations (manual timing), then destroys the container untimed.
// travpool runs once per bin size of the figure (4,000 .. 128,000 chunks)
// and once with its default bin capacity; the other contenders have no bin
// size and run once, as in the paper.
//
// Benchmark names: fig11/<contender>/<bin size or "-">
#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

template <class Adapter, class Make>
void register_create(const std::string& name, const std::string& bin, Make make) {
  benchmark::RegisterBenchmark(("fig11/" + name + "/" + bin).c_str(),
                               [make](benchmark::State& state) {
                                 const std::size_t n = tb::cfg().n;
                                 for (auto _ : state) {
                                   std::unique_ptr<typename Adapter::container> c;
                                   try {
                                     c = make(n);
                                   } catch (const std::exception& e) {  // e.g. a bin size a layout rejects
                                     state.SkipWithError(e.what());
                                     break;
                                   }
                                   const tb::region_timer t;
                                   // The handles are dropped: the container keeps every element, so
                                   // nothing can be optimised away, and forcing an iterator handle
                                   // through DoNotOptimize would cost colony/CGAL/list extra stores.
                                   for (std::size_t i = 0; i < n; ++i) (void)Adapter::add(*c, i);
                                   const double cpu = t.cpu();
                                   state.SetIterationTime(t.wall());
                                   state.counters["cpu_s"] = cpu;
                                   benchmark::ClobberMemory();
                                   c.reset();  // teardown, not timed
                                   Adapter::after_release();
                                 }
                                 state.counters["n"] = static_cast<double>(n);
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(tb::cfg().reps)
      ->Unit(benchmark::kMillisecond);
}

template <class Adapter>
void register_plain() {
  register_create<Adapter>(Adapter::name(), "-", [](std::size_t n) { return Adapter::make(n); });
}

}  // namespace

int main(int argc, char** argv) {
  tb::init(argc, argv, 20'000'000);

  tb::for_each_pool_layout([](auto adapter) {
    using A = decltype(adapter);
    for (std::uint32_t bin : {4'000u, 8'000u, 16'000u, 32'000u, 64'000u, 128'000u})
      register_create<A>(A::name(), std::to_string(bin), [bin](std::size_t) { return A::make_with_bin(bin); });
    register_create<A>(A::name(), "default", [](std::size_t n) { return A::make(n); });
  });
  register_plain<tb::boost_pool_adapter>();
  register_plain<tb::boost_pool_vector_adapter>();
  register_plain<tb::fast_pool_list_adapter>();
  register_plain<tb::new_adapter>();
  register_plain<tb::list_adapter>();
  register_plain<tb::vector_adapter>();
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
  register_plain<tb::colony_adapter>();
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
  register_plain<tb::cgal_adapter>();
#endif

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
