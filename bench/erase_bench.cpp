// erase_bench: destroying elements in random order.
//
//   all   destroy every one of the N elements, in a random order
//   half  destroy a random 50 % of them, in a random order
//
// Each repetition creates N elements and stores their handles (pointer for
// travpool and `new`, iterator for the others) in the order of a fixed-seed
// random permutation, the same for every contender: untimed. The timed
// region is exactly the loop of erase calls over the first N (or N/2)
// handles, read sequentially. The
// rest (the container's destructor, deleting what `new` still holds) is
// untimed. Wall time is the benchmark's manual time; the thread CPU time of
// the loop is the counter cpu_s.
//
// boost::object_pool is left out: its destroy() is an ordered free, O(free
// chunks) per call, so N random destroys are quadratic.
//
// Benchmark names: erase/<all|half>/<contender>
#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

const std::vector<std::uint32_t>& permutation() {
  static const std::vector<std::uint32_t> p = tb::random_permutation(tb::cfg().n, 0xe7a5e);
  return p;
}

template <class Adapter>
void register_erase(const char* mode, double fraction) {
  benchmark::RegisterBenchmark((std::string("erase/") + mode + "/" + Adapter::name()).c_str(),
                               [fraction](benchmark::State& state) {
                                 const std::size_t n = tb::cfg().n;
                                 const auto& perm = permutation();
                                 const auto m = static_cast<std::size_t>(static_cast<double>(n) * fraction);
                                 std::vector<typename Adapter::handle> h;
                                 for (auto _ : state) {
                                   auto c = Adapter::make(n);
                                   h.assign(n, typename Adapter::handle{});
                                   // Element i's handle goes to slot perm[i]: h is in erase order, so
                                   // the timed loop reads it sequentially and times only the erasure.
                                   for (std::size_t i = 0; i < n; ++i) h[perm[i]] = Adapter::add(*c, i);
                                   const tb::region_timer t;
                                   for (std::size_t k = 0; k < m; ++k) Adapter::erase(*c, h[k]);
                                   const double cpu = t.cpu();
                                   state.SetIterationTime(t.wall());
                                   state.counters["cpu_s"] = cpu;
                                   benchmark::ClobberMemory();
                                   for (std::size_t k = m; k < n; ++k) Adapter::drop(*c, h[k]);
                                   c.reset();
                                   Adapter::after_release();
                                 }
                                 state.counters["erased"] = static_cast<double>(m);
                                 state.counters["n"] = static_cast<double>(n);
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(tb::cfg().reps)
      ->Unit(benchmark::kMillisecond);
}

template <class Adapter>
void register_both() {
  register_erase<Adapter>("all", 1.0);
  register_erase<Adapter>("half", 0.5);
}

}  // namespace

int main(int argc, char** argv) {
  tb::init(argc, argv, 20'000'000);

  tb::for_each_pool_layout([](auto adapter) { register_both<decltype(adapter)>(); });
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
  register_both<tb::colony_adapter>();
#endif
#ifdef TRAVPOOL_BENCH_HAVE_CGAL
  register_both<tb::cgal_adapter>();
#endif
  register_both<tb::new_adapter>();
  register_both<tb::list_adapter>();
  register_both<tb::fast_pool_list_adapter>();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
