// The column pool's sweeps against a std::vector<float> column, side by
// side: y = 2 x + 1 over every live element, with all slots live and with
// a random half destroyed (the vector then skips a deleted flag, as
// PMP/OpenMesh-style meshes do before garbage collection); and create +
// destroy churn against travpool::pool.
//   range-for     for (h : pool) y[h] = 2 * x[h] + 1
//   runs          for (s : pool.runs()) for (h = s.first; h < s.last; ++h) ...
//   for_each      pool.for_each([&](h) { ... })
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <travpool/column_pool.hpp>
#include <travpool/pool.hpp>

namespace {

constexpr std::size_t n = std::size_t{1} << 22;

struct fixture {
  travpool::column_pool pool;
  travpool::column<float> x = pool.add_column<float>("x", 1.0f);
  travpool::column<float> y = pool.add_column<float>("y", 0.0f);
  std::vector<float> vx = std::vector<float>(n, 1.0f), vy = std::vector<float>(n, 0.0f);
  std::vector<char> deleted = std::vector<char>(n, 0);

  explicit fixture(bool holes) {
    std::vector<std::uint32_t> hs;
    for (std::size_t i = 0; i < n; ++i) hs.push_back(pool.create());
    if (holes) {
      std::mt19937 rng(1);
      for (std::size_t i = 0; i < n; ++i)
        if (rng() & 1) pool.destroy(hs[i]), deleted[i] = 1;
    }
  }
};

fixture& get(bool holes) {
  static fixture dense(false), sparse(true);
  return holes ? sparse : dense;
}

void vector_loop(benchmark::State& st) {
  auto& f = get(st.range(0) != 0);
  float* x = f.vx.data();
  float* y = f.vy.data();
  const bool holes = st.range(0) != 0;
  for (auto _ : st) {
    if (holes) {
      for (std::size_t i = 0; i < n; ++i)
        if (!f.deleted[i]) y[i] = 2 * x[i] + 1;
    } else {
      for (std::size_t i = 0; i < n; ++i) y[i] = 2 * x[i] + 1;
    }
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * f.pool.size()));
}

void range_for(benchmark::State& st) {
  auto& f = get(st.range(0) != 0);
  float* x = f.x.data();
  float* y = f.y.data();
  for (auto _ : st) {
    for (std::uint32_t h : f.pool) y[h] = 2 * x[h] + 1;
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * f.pool.size()));
}

void runs(benchmark::State& st) {
  auto& f = get(st.range(0) != 0);
  float* x = f.x.data();
  float* y = f.y.data();
  for (auto _ : st) {
    for (travpool::handle_run s : f.pool.runs())
      for (std::uint32_t h = s.first; h < s.last; ++h) y[h] = 2 * x[h] + 1;
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * f.pool.size()));
}

void for_each(benchmark::State& st) {
  auto& f = get(st.range(0) != 0);
  float* x = f.x.data();
  float* y = f.y.data();
  for (auto _ : st) {
    f.pool.for_each([=](std::uint32_t h) { y[h] = 2 * x[h] + 1; });
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * f.pool.size()));
}

// Churn: 2^16 creates then 2^16 destroys in creation order, with two float
// columns (create writes both initial values), against travpool::pool of a
// struct of two floats.
constexpr std::size_t churn = std::size_t{1} << 16;

void churn_column_pool(benchmark::State& st) {
  travpool::column_pool pool;
  auto x = pool.add_column<float>("x", 0.0f);
  auto y = pool.add_column<float>("y", 0.0f);
  std::vector<std::uint32_t> hs(churn);
  for (auto _ : st) {
    for (auto& h : hs) h = pool.create();
    benchmark::DoNotOptimize(x[hs[0]] + y[hs[0]]);
    for (auto h : hs) pool.destroy(h);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * churn));
}

void churn_pool(benchmark::State& st) {
  struct xy {
    float x, y;
  };
  travpool::pool<xy> pool;
  std::vector<xy*> ps(churn);
  for (auto _ : st) {
    for (auto& p : ps) p = pool.create(xy{0.0f, 0.0f});
    benchmark::DoNotOptimize(ps[0]->x + ps[0]->y);
    for (auto* p : ps) pool.destroy(p);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * churn));
}

}  // namespace

BENCHMARK(churn_column_pool)->Unit(benchmark::kMicrosecond);
BENCHMARK(churn_pool)->Unit(benchmark::kMicrosecond);

// Argument: 0 = every slot live, 1 = a random half destroyed.
BENCHMARK(vector_loop)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(range_for)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(runs)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(for_each)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
