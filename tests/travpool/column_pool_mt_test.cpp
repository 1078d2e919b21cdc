// The column pool under threads: concurrent create and destroy (with
// destroys of handles created by other threads) under sync::bin_locks and
// sync::global_mutex, with column values written and checked by their
// owners. Runs under ThreadSanitizer in CI.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>

namespace {

using namespace travpool;

struct mailbox {
  std::mutex mutex;
  std::vector<std::uint32_t> handles;
};

std::uint64_t mix(std::uint64_t t, std::uint64_t seq) { return (t * 0x9e3779b97f4a7c15ull) ^ (seq + 7); }

template <class Pool>
void stress(unsigned threads, std::size_t ops) {
  Pool pool(std::uint64_t{4096} * 64, 4096);
  auto owner = pool.template add_column<std::uint64_t>("owner", ~std::uint64_t{0});
  auto check = pool.template add_column<std::uint64_t>("check", 0);
  auto label = pool.template add_column<std::string>("label", "a label long enough for the heap, thread ?");
  std::vector<mailbox> boxes(threads);
  std::vector<std::vector<std::uint32_t>> owned(threads);
  std::atomic<std::uint64_t> bad{0};  // Catch2 assertions are not thread-safe
  std::atomic<unsigned> ready{0};     // threads start together

  auto worker = [&](unsigned t) {
    std::mt19937_64 rng(77 + t);
    auto& mine = owned[t];
    ready.fetch_add(1);
    while (ready.load() < threads) std::this_thread::yield();
    for (std::size_t op = 0; op < ops; ++op) {
      const unsigned r = static_cast<unsigned>(rng() % 100);
      if (r < 50 || mine.empty()) {
        const std::uint32_t h = pool.create();
        if (owner[h] != ~std::uint64_t{0} || check[h] != 0 || label[h].back() != '?') bad.fetch_add(1);
        owner[h] = t;
        check[h] = mix(t, op);
        label[h].back() = static_cast<char>('a' + t);
        mine.push_back(h);
      } else if (r < 90) {
        const std::size_t i = rng() % mine.size();
        const std::uint32_t h = mine[i];
        if (!pool.is_live(h) || label[h].size() < 10) bad.fetch_add(1);
        pool.destroy(h);
        mine[i] = mine.back();
        mine.pop_back();
      } else if (r < 95) {
        // Hand a handle to the next thread (the mutex orders its values).
        const std::uint32_t h = mine.back();
        mine.pop_back();
        std::lock_guard<std::mutex> g(boxes[(t + 1) % threads].mutex);
        boxes[(t + 1) % threads].handles.push_back(h);
      } else {
        std::lock_guard<std::mutex> g(boxes[t].mutex);
        for (std::uint32_t h : boxes[t].handles) {
          if (!pool.is_live(h) || label[h].back() < 'a') bad.fetch_add(1);
          owner[h] = t;  // now this thread's
          mine.push_back(h);
        }
        boxes[t].handles.clear();
      }
    }
  };
  std::vector<std::thread> pool_threads;
  for (unsigned t = 0; t < threads; ++t) pool_threads.emplace_back(worker, t);
  for (auto& th : pool_threads) th.join();

  REQUIRE(bad.load() == 0);
  std::size_t expected = 0;
  for (auto& v : owned) expected += v.size();
  for (auto& b : boxes) expected += b.handles.size();
  REQUIRE(pool.size() == expected);
  pool.validate();
  std::size_t n = 0;
  for (std::uint32_t h : pool) n += pool.is_live(h);
  REQUIRE(n == expected);
  for (unsigned t = 0; t < threads; ++t)
    for (std::uint32_t h : owned[t]) REQUIRE(owner[h] == t);
  pool.shrink_to_fit();
  pool.validate();
}

}  // namespace

TEST_CASE("concurrent column pool: create and destroy from many threads", "[column_pool][threads]") {
  stress<concurrent_column_pool>(4, 100000);
}

TEST_CASE("column pool under one mutex: create and destroy from many threads", "[column_pool][threads]") {
  stress<basic_column_pool<std::uint32_t, sync::global_mutex>>(4, 30000);
}
