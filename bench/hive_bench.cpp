// hive_bench: travpool::hive against plf::colony (which shares plf::hive's
// design; Debian packages colony, not hive) and travpool::pool<T>, on the
// workloads of a hive: insert, erase, iterate, sort. 24-B and 64-B
// elements; erasures dense, 10 % and 50 %, at random and in runs of 64
// neighbours in creation order (the same elements in every container:
// tb::gap_pattern).
//
//   insert/<bytes>B/<contender>             N insertions into an empty container
//   erase/<pattern>/<bytes>B/<contender>    erasing the pattern's elements, in a
//                                           random order, through iterators
//                                           (pool<T>: erase(get_iterator(p)))
//   iterate/<pattern>/<bytes>B/<contender>  one range-for sum over the live elements
//   sort/<bytes>B/<contender>               sort() of N/4 random keys (no pool<T>)
//
// Every repetition builds its container from fresh memory (travpool's span
// cache is emptied after each, as bench_common's pool adapter does), untimed
// but for the timed region; each timed region is manual time. The report
// (scripts/bench_hive.sh) takes medians and divides by plf::colony's.
#include "common/bench_common.hpp"

#include <travpool/hive.hpp>

namespace tb = travpool_bench;

namespace {

template <std::size_t Bytes>
struct item {
  std::uint64_t key;
  std::uint64_t pad[Bytes / 8 - 1];
  explicit item(std::uint64_t k) noexcept : key(k), pad{} {}
  bool operator<(const item& o) const noexcept { return key < o.key; }
};
static_assert(sizeof(item<24>) == 24 && sizeof(item<64>) == 64);

// Contenders: make(), add(c, key) -> handle, erase(c, handle), handle of an
// element pointer, and sort.
template <class T>
struct hive_side {
  static std::string name() { return "travpool::hive"; }
  using container = travpool::hive<T>;
  using handle = typename container::iterator;
  static handle add(container& c, std::uint64_t k) { return c.emplace(k); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void sort(container& c) { c.sort(); }
  static void after() { travpool::trim_span_cache(); }
};
template <class T>
struct pool_side {
  static std::string name() { return "travpool::pool"; }
  using container = travpool::pool<T>;
  using handle = T*;
  static handle add(container& c, std::uint64_t k) { return c.create(k); }
  static void erase(container& c, handle h) { c.erase(c.get_iterator(h)); }
  static void after() { travpool::trim_span_cache(); }
};
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
template <class T>
struct colony_side {
  static std::string name() { return "plf::colony"; }
  using container = plf::colony<T>;
  using handle = typename container::iterator;
  static handle add(container& c, std::uint64_t k) { return c.emplace(k); }
  static void erase(container& c, handle h) { c.erase(h); }
  static void sort(container& c) { c.sort(); }
  static void after() {}
};
#endif

template <class C>
concept sortable = requires(typename C::container& c) {
  C::sort(c);
};

template <class Side, class T>
void register_all(const std::vector<tb::gap_pattern>& patterns) {
  using container = typename Side::container;
  const std::string tail = "/" + std::to_string(sizeof(T)) + "B/" + Side::name();
  auto reg = [](const std::string& name, auto body) {
    benchmark::RegisterBenchmark(name.c_str(), body)
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(tb::cfg().reps)
        ->Unit(benchmark::kMillisecond);
  };
  reg("insert" + tail, [](benchmark::State& state) {
    const std::size_t n = tb::cfg().n;
    for (auto _ : state) {
      {
        container c;
        const tb::region_timer t;
        for (std::size_t i = 0; i < n; ++i) Side::add(c, i);
        state.SetIterationTime(t.wall());
        benchmark::DoNotOptimize(c.size());
      }
      Side::after();
    }
  });
  for (const tb::gap_pattern& g : patterns) {
    if (g.fraction > 0)
      reg("erase/" + g.name() + tail, [g](benchmark::State& state) {
        const std::size_t n = tb::cfg().n;
        const auto perm = tb::random_permutation(n, 0x41fe);
        for (auto _ : state) {
          {
            container c;
            std::vector<typename Side::handle> h(n);
            for (std::size_t i = 0; i < n; ++i) h[i] = Side::add(c, i);
            std::vector<typename Side::handle> victims;
            for (std::uint32_t i : perm)
              if (g.erases(i)) victims.push_back(h[i]);
            const tb::region_timer t;
            for (const auto& v : victims) Side::erase(c, v);
            state.SetIterationTime(t.wall());
          }
          Side::after();
        }
      });
    reg("iterate/" + g.name() + tail, [g](benchmark::State& state) {
      const std::size_t n = tb::cfg().n;
      for (auto _ : state) {
        {
          container c;
          std::vector<typename Side::handle> h(n);
          for (std::size_t i = 0; i < n; ++i) h[i] = Side::add(c, i);
          for (std::size_t i = 0; i < n; ++i)
            if (g.erases(i)) Side::erase(c, h[i]);
          std::uint64_t sum = 0;
          const tb::region_timer t;
          for (const T& e : c) sum += e.key;
          state.SetIterationTime(t.wall());
          benchmark::DoNotOptimize(sum);
        }
        Side::after();
      }
    });
  }
  if constexpr (sortable<Side>)
    reg("sort" + tail, [](benchmark::State& state) {
      const std::size_t n = tb::cfg().n / 4;
      for (auto _ : state) {
        {
          container c;
          tb::rng r{0x5027};
          for (std::size_t i = 0; i < n; ++i) Side::add(c, r());
          const tb::region_timer t;
          Side::sort(c);
          state.SetIterationTime(t.wall());
        }
        Side::after();
      }
    });
}

template <class T>
void register_size(const std::vector<tb::gap_pattern>& patterns) {
  register_all<hive_side<T>, T>(patterns);
#ifdef TRAVPOOL_BENCH_HAVE_COLONY
  register_all<colony_side<T>, T>(patterns);
#endif
  register_all<pool_side<T>, T>(patterns);
}

}  // namespace

int main(int argc, char** argv) {
  tb::init(argc, argv, 2'000'000);
  const std::vector<tb::gap_pattern> patterns{{0, 1}, {0.1, 1}, {0.5, 1}, {0.1, 64}, {0.5, 64}};
  register_size<item<24>>(patterns);
  register_size<item<64>>(patterns);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
