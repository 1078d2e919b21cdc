// erase_idioms_bench: deleting the elements a predicate selects, during or
// after a sweep, and creating after it (docs/api.md, "Deleting during a
// sweep").
//
// Every repetition fills a fresh pool with N elements {x, y, z} (x = i),
// untimed, and then times two phases:
//   erase   delete every element a hash of x selects (a fixed, scattered
//           fraction, --fraction=F, default 0.5), by one idiom:
//             in_loop        for (it = begin(); it != end();)
//                              it = pred(*it) ? erase(it) : next(it)
//             erase_if       travpool::erase_if(pool, pred)
//             collect        for_each collecting the pointers into a
//                            std::vector (capacity N, its pages touched
//                            outside the timing),
//                            then destroy each
//             parallel       concurrent_pool only: each of T threads runs
//                            for_each over its part of partition(T),
//                            collects (as collect, a vector per thread),
//                            and destroys what it collected
//                            after every thread has finished collecting
//   create  N/2 creates into the pool the idiom left (the births after it)
// The manual time of `.../erase` is the erase phase, of `.../create` the
// births; cpu_s is the thread CPU time of the phase. Each name runs its
// own pools, so run with --benchmark_enable_random_interleaving=true to
// interleave the idioms' repetitions (scripts: docs/api.md gives the
// command).
//
// Benchmark names: idioms/<pool|pool_interleaved|concurrent_pool>/<idiom>/<erase|create>
#include <algorithm>
#include <barrier>
#include <cstring>
#include <thread>

#include "common/bench_common.hpp"

namespace tb = travpool_bench;

namespace {

struct item {
  std::uint64_t x, y, z;
};

// The predicate: a fixed, scattered fraction of the elements (--fraction=F,
// default 0.5), chosen by a multiplicative hash of x.
std::uint64_t doomed_below = std::uint64_t{1} << 63;
inline bool doomed(const item& e) noexcept { return e.x * 0x9e3779b97f4a7c15ull < doomed_below; }

enum class idiom { in_loop, erase_if, collect, parallel };

const char* name_of(idiom i) {
  switch (i) {
    case idiom::in_loop:
      return "in_loop";
    case idiom::erase_if:
      return "erase_if";
    case idiom::collect:
      return "collect";
    case idiom::parallel:
      return "parallel";
  }
  return "?";
}

template <class Pool>
std::size_t erase_by(Pool& p, idiom how, std::vector<std::vector<item*>>& lists) {
  std::size_t erased = 0;
  switch (how) {
    case idiom::in_loop:
      for (auto it = p.begin(); it != p.end();) {
        if (doomed(*it)) {
          it = p.erase(it);
          ++erased;
        } else {
          ++it;
        }
      }
      break;
    case idiom::erase_if:
      erased = travpool::erase_if(p, [](const item& e) { return doomed(e); });
      break;
    case idiom::collect: {
      auto& doomed_ones = lists[0];
      p.for_each([&](item& e) {
        if (doomed(e)) doomed_ones.push_back(&e);
      });
      for (item* e : doomed_ones) p.destroy(e);
      erased = doomed_ones.size();
      break;
    }
    case idiom::parallel: {  // registered for concurrent_pool only (destroys from several threads)
      auto parts = p.partition(lists.size());
      std::vector<std::size_t> counts(parts.size());
      std::barrier sync(static_cast<std::ptrdiff_t>(parts.size()));
      auto work = [&](std::size_t i) {
        auto& mine = lists[i];
        parts[i].for_each([&](item& e) {
          if (doomed(e)) mine.push_back(&e);
        });
        sync.arrive_and_wait();  // no destroy while a part is still swept
        for (item* e : mine) p.destroy(e);
        counts[i] = mine.size();
      };
      std::vector<std::thread> pool_threads;
      for (std::size_t i = 1; i < parts.size(); ++i) pool_threads.emplace_back(work, i);
      work(0);
      for (auto& t : pool_threads) t.join();
      for (std::size_t c : counts) erased += c;
    } break;
  }
  return erased;
}

template <class Pool>
void register_idiom(const char* pool_name, idiom how, bool births) {
  const std::string name = std::string("idioms/") + pool_name + "/" + name_of(how) + (births ? "/create" : "/erase");
  benchmark::RegisterBenchmark(name.c_str(),
                               [how, births](benchmark::State& state) {
                                 const std::size_t n = tb::cfg().n;
                                 const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
                                 std::vector<std::vector<item*>> lists(threads);
                                 std::size_t erased = 0;
                                 for (auto _ : state) {
                                   Pool p;
                                   for (std::size_t i = 0; i < n; ++i) p.create(item{i, i, i});
                                   for (auto& l : lists) {  // its pages touched outside the timing
                                     l.assign(n, nullptr);
                                     l.clear();
                                   }
                                   std::size_t done = 0;
                                   double wall = 0, cpu = 0;
                                   if (!births) {
                                     const tb::region_timer t;
                                     done = erase_by(p, how, lists);
                                     cpu = t.cpu();
                                     wall = t.wall();
                                   } else {
                                     done = erase_by(p, how, lists);
                                     const tb::region_timer t;
                                     for (std::size_t i = 0; i < n / 2; ++i) p.create(item{i, 0, 0});
                                     cpu = t.cpu();
                                     wall = t.wall();
                                   }
                                   benchmark::DoNotOptimize(p.size());
                                   if (done == 0 || p.size() != n - done + (births ? n / 2 : 0))
                                     state.SkipWithError("wrong number of elements erased");
                                   erased = done;
                                   state.SetIterationTime(wall);
                                   state.counters["cpu_s"] = cpu;
                                 }
                                 state.counters["erased"] = static_cast<double>(erased);
                                 state.counters["n"] = static_cast<double>(n);
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(tb::cfg().reps)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--fraction=", 11) == 0) {
      const double f = std::strtod(argv[i] + 11, nullptr);
      doomed_below = static_cast<std::uint64_t>(std::clamp(f, 0.0, 0.999999) * 18446744073709551616.0);
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      break;
    }
  tb::init(argc, argv, 4'000'000);
  benchmark::AddCustomContext("fraction", std::to_string(static_cast<double>(doomed_below) / 18446744073709551616.0));
  for (bool births : {false, true}) {
    for (idiom how : {idiom::in_loop, idiom::erase_if, idiom::collect})
      register_idiom<travpool::pool<item>>("pool", how, births);
    for (idiom how : {idiom::in_loop, idiom::erase_if, idiom::collect})
      register_idiom<travpool::basic_pool<item, travpool::layout::interleaved>>("pool_interleaved", how, births);
    for (idiom how : {idiom::in_loop, idiom::erase_if, idiom::collect, idiom::parallel})
      register_idiom<travpool::concurrent_pool<item>>("concurrent_pool", how, births);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
