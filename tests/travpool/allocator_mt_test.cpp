// travpool::concurrent_allocator from several threads: concurrent churn on
// containers sharing the per-size pools, nodes freed by another thread than
// the one that allocated them, and stats/shrink_to_fit racing with churn.
// Runs under ThreadSanitizer in CI (label "threads").
#include <travpool/allocator.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

template <class T>
using mt_alloc = travpool::concurrent_allocator<T>;
using mt_list = std::list<std::uint64_t, mt_alloc<std::uint64_t>>;
using mt_map =
    std::map<std::uint64_t, std::uint64_t, std::less<>, mt_alloc<std::pair<const std::uint64_t, std::uint64_t>>>;
using mt_umap = std::unordered_map<std::uint64_t, std::uint64_t, std::hash<std::uint64_t>, std::equal_to<>,
                                   mt_alloc<std::pair<const std::uint64_t, std::uint64_t>>>;

constexpr int thread_count = 4;

std::size_t live_nodes() { return mt_alloc<int>::stats().nodes; }

template <class F>
void run_threads(int n, F f) {
  std::vector<std::thread> ts;
  for (int t = 0; t < n; ++t) ts.emplace_back(f, t);
  for (auto& t : ts) t.join();
}

}  // namespace

TEST_CASE("concurrent_allocator: threads churn their own containers on shared pools", "[allocator][threads]") {
  const std::size_t base = live_nodes();
  std::atomic<int> mismatches{0};
  run_threads(thread_count, [&](int t) {
    std::mt19937_64 rng(static_cast<unsigned>(t + 1));
    mt_list l;
    mt_map m;
    mt_umap u;
    std::map<std::uint64_t, std::uint64_t> ref;
    for (int step = 0; step < 4000; ++step) {
      const std::uint64_t k = rng() % 500;
      switch (rng() % 4) {
        case 0:
          l.push_back(k);
          m[k] = k + 1;
          u[k] = k + 1;
          ref[k] = k + 1;
          break;
        case 1:
          if (!l.empty()) l.pop_front();
          m.erase(k);
          u.erase(k);
          ref.erase(k);
          break;
        case 2:
          l.push_front(k);
          break;
        case 3:
          if (!l.empty()) l.pop_back();
          break;
      }
    }
    if (!std::equal(m.begin(), m.end(), ref.begin(), ref.end())) ++mismatches;
    if (u.size() != ref.size()) ++mismatches;
    for (const auto& [k, v] : ref)
      if (u.count(k) != 1 || u.at(k) != v) ++mismatches;
  });
  CHECK(mismatches == 0);
  CHECK(live_nodes() == base);
}

TEST_CASE("concurrent_allocator: nodes freed on another thread", "[allocator][threads]") {
  const std::size_t base = live_nodes();
  // Producers build lists and maps and hand them over; consumers check and
  // destroy them, so every node is freed by a thread that did not allocate it.
  std::mutex mutex;
  std::vector<std::unique_ptr<mt_list>> lists;
  std::vector<std::unique_ptr<mt_map>> maps;
  std::atomic<int> producers_left{thread_count / 2};
  std::atomic<long> checked{0};
  std::atomic<int> bad{0};
  constexpr int batches = 200, batch_size = 50;
  run_threads(thread_count, [&](int t) {
    if (t % 2 == 0) {  // producer
      for (int b = 0; b < batches; ++b) {
        auto l = std::make_unique<mt_list>();
        auto m = std::make_unique<mt_map>();
        for (std::uint64_t i = 0; i < batch_size; ++i) {
          l->push_back(i);
          m->emplace(i, i * 3);
        }
        std::lock_guard<std::mutex> lock(mutex);
        lists.push_back(std::move(l));
        maps.push_back(std::move(m));
      }
      --producers_left;
    } else {  // consumer
      for (;;) {
        std::unique_ptr<mt_list> l;
        std::unique_ptr<mt_map> m;
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (!lists.empty()) {
            l = std::move(lists.back());
            lists.pop_back();
            m = std::move(maps.back());
            maps.pop_back();
          }
        }
        if (!l) {
          if (producers_left == 0) {
            std::lock_guard<std::mutex> lock(mutex);
            if (lists.empty()) break;
          }
          std::this_thread::yield();
          continue;
        }
        std::uint64_t expect = 0;
        for (auto v : *l) bad += v != expect++;
        for (const auto& [k, v] : *m) bad += v != k * 3;
        bad += l->size() != batch_size || m->size() != batch_size;
        ++checked;
        l.reset();  // frees nodes allocated by the producer
        m.reset();
      }
    }
  });
  CHECK(bad == 0);
  CHECK(checked == (thread_count / 2) * batches);
  CHECK(live_nodes() == base);
}

TEST_CASE("concurrent_allocator: stats and shrink_to_fit race with churn", "[allocator][threads]") {
  const std::size_t base = live_nodes();
  std::atomic<bool> done{false};
  std::atomic<int> bad_snapshots{0}, snapshots{0};
  // Catch assertions are not thread-safe: count here, check below. At least
  // one snapshot even if the workers finish before the observer starts.
  std::thread observer([&] {
    do {
      const auto s = mt_alloc<int>::stats();
      bad_snapshots += s.nodes > s.capacity;
      ++snapshots;
      mt_alloc<int>::shrink_to_fit();
    } while (!done);
  });
  run_threads(thread_count - 1, [&](int t) {
    std::mt19937 rng(static_cast<unsigned>(t + 10));
    for (int round = 0; round < 20; ++round) {
      mt_list l;
      for (int i = 0; i < 2000; ++i) l.push_back(rng());
      while (!l.empty()) l.pop_front();
    }
  });
  done = true;
  observer.join();
  CHECK(bad_snapshots == 0);
  CHECK(snapshots > 0);
  CHECK(live_nodes() == base);
}
