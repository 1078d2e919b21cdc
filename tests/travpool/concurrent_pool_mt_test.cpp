// concurrent_pool (sync::bin_locks) and sync::global_mutex under threads:
// stress with cross-thread destroys, pool and thread lifetimes, concurrent
// shrink_to_fit. Runs under ThreadSanitizer in CI.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"

namespace {

struct element {
  std::uint64_t owner;  // creating thread
  std::uint64_t seq;
  std::uint64_t check;
  static std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return (a * 0x9e3779b97f4a7c15ull) ^ (b + 7); }
};

// A mailbox through which threads hand elements to each other.
struct mailbox {
  std::mutex mutex;
  std::vector<element*> items;
};

template <class Pool>
void stress(unsigned threads, std::size_t ops_per_thread, std::uint32_t cap, bool with_shrinker) {
  Pool pool(travpool::bin_capacity{cap});
  std::vector<mailbox> boxes(threads);
  std::vector<std::vector<element*>> owned(threads);
  std::atomic<std::uint64_t> foreign_destroys{0};
  std::atomic<std::uint64_t> corrupted{0};  // Catch2 assertions are not thread-safe
  std::atomic<bool> stop{false};

  auto worker = [&](unsigned t) {
    std::mt19937_64 rng(1000 + t);
    auto& mine = owned[t];
    std::uint64_t seq = 0;
    for (std::size_t op = 0; op < ops_per_thread; ++op) {
      const unsigned r = static_cast<unsigned>(rng() % 100);
      if (r < 50 || mine.empty()) {
        mine.push_back(pool.create(element{t, seq, element::mix(t, seq)}));
        ++seq;
      } else if (r < 92) {
        const std::size_t i = rng() % mine.size();
        element* e = mine[i];
        if (e->check != element::mix(e->owner, e->seq)) corrupted.fetch_add(1);
        if (e->owner != t) foreign_destroys.fetch_add(1, std::memory_order_relaxed);
        pool.destroy(e);
        mine[i] = mine.back();
        mine.pop_back();
      } else if (r < 96) {
        // Hand an element to the next thread.
        const std::size_t i = rng() % mine.size();
        auto& box = boxes[(t + 1) % threads];
        std::lock_guard g(box.mutex);
        box.items.push_back(mine[i]);
        mine[i] = mine.back();
        mine.pop_back();
      } else {
        std::lock_guard g(boxes[t].mutex);
        mine.insert(mine.end(), boxes[t].items.begin(), boxes[t].items.end());
        boxes[t].items.clear();
      }
    }
    std::lock_guard g(boxes[t].mutex);
    mine.insert(mine.end(), boxes[t].items.begin(), boxes[t].items.end());
    boxes[t].items.clear();
  };

  std::thread shrinker;
  if (with_shrinker)
    shrinker = std::thread([&] {
      while (!stop.load()) {
        pool.shrink_to_fit();
        (void)pool.size();
        std::this_thread::yield();
      }
    });
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; ++t) ts.emplace_back(worker, t);
  for (auto& th : ts) th.join();
  stop = true;
  if (shrinker.joinable()) shrinker.join();

  // Elements left in mailboxes after their receiver finished belong to no one
  // yet: collect them too.
  REQUIRE(corrupted.load() == 0);
  std::set<const element*> reported;
  for (auto& box : boxes)
    for (element* e : box.items) REQUIRE(reported.insert(e).second);
  for (auto& v : owned)
    for (element* e : v) REQUIRE(reported.insert(e).second);
  pool.validate();
  std::set<const element*> swept;
  for (const element& e : pool) {
    REQUIRE(e.check == element::mix(e.owner, e.seq));
    swept.insert(&e);
  }
  REQUIRE(swept == reported);
  REQUIRE(pool.size() == reported.size());
  if (threads > 1) REQUIRE(foreign_destroys.load() > 0);
  pool.shrink_to_fit();
  pool.validate();
}

}  // namespace

TEST_CASE("concurrent_pool stress: mixed creates and cross-thread destroys", "[concurrent][stress]") {
  using pool_type = travpool::concurrent_pool<element>;
  for (unsigned threads : {2u, 4u, 8u}) {
    INFO(threads << " threads");
    stress<pool_type>(threads, 1'000'000, 512, false);
  }
}

TEST_CASE("concurrent_pool stress with shrink_to_fit running alongside", "[concurrent][stress]") {
  stress<travpool::concurrent_pool<element>>(4, 200'000, 64, true);
}

TEST_CASE("global_mutex pool stress", "[concurrent][stress]") {
  stress<travpool::basic_pool<element, travpool::sync::global_mutex>>(4, 200'000, 256, false);
}

TEST_CASE("one thread uses many pools, more than it remembers", "[concurrent][lifetime]") {
  constexpr int pools = 40;
  std::vector<std::unique_ptr<travpool::concurrent_pool<int>>> ps;
  for (int i = 0; i < pools; ++i)
    ps.push_back(std::make_unique<travpool::concurrent_pool<int>>(travpool::bin_capacity{8}));
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; ++t)
    ts.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round)
        for (int i = 0; i < pools; ++i) ps[static_cast<std::size_t>((i * 7 + t) % pools)]->create(round);
    });
  for (auto& th : ts) th.join();
  for (auto& p : ps) {
    p->validate();
    REQUIRE(p->size() == 600);
  }
}

TEST_CASE("a pool destroyed while threads that used it still live", "[concurrent][lifetime]") {
  // Threads create in pool A, wait while A is destroyed and B (possibly at
  // the same address) is made, then create in B: they must not follow their
  // remembered bins of A.
  std::atomic<int> phase{0};
  std::atomic<int> done_a{0};
  alignas(travpool::concurrent_pool<int>) unsigned char storage[sizeof(travpool::concurrent_pool<int>)];
  auto* a = ::new (storage) travpool::concurrent_pool<int>(travpool::bin_capacity{16});
  std::atomic<travpool::concurrent_pool<int>*> current{a};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) current.load()->create(i);
      done_a.fetch_add(1);
      while (phase.load() == 0) std::this_thread::yield();
      for (int i = 0; i < 1000; ++i) current.load()->create(i);
    });
  while (done_a.load() < 4) std::this_thread::yield();
  REQUIRE(a->size() == 4000);
  a->~basic_pool();
  auto* b = ::new (storage) travpool::concurrent_pool<int>(travpool::bin_capacity{16});  // same address
  current = b;
  phase = 1;
  for (auto& th : ts) th.join();
  b->validate();
  REQUIRE(b->size() == 4000);
  b->~basic_pool();
}

TEST_CASE("threads exit; their pool and new threads carry on", "[concurrent][lifetime]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{32});
  std::vector<int*> from_dead;
  std::mutex m;
  for (int generation = 0; generation < 5; ++generation) {
    std::vector<std::thread> ts;
    for (int t = 0; t < 3; ++t)
      ts.emplace_back([&] {
        std::vector<int*> mine;
        for (int i = 0; i < 500; ++i) mine.push_back(pool.create(i));
        // Destroy some of what threads of earlier generations left.
        std::lock_guard g(m);
        for (int i = 0; i < 100 && !from_dead.empty(); ++i) {
          pool.destroy(from_dead.back());
          from_dead.pop_back();
        }
        from_dead.insert(from_dead.end(), mine.begin(), mine.end());
      });
    for (auto& th : ts) th.join();
    pool.shrink_to_fit();
    pool.validate();
    REQUIRE(pool.size() == from_dead.size());
  }
}

TEST_CASE("concurrent misuse is detected and leaves the pool intact", "[concurrent][misuse]") {
  travpool::concurrent_pool<int> pool(travpool::bin_capacity{64});
  std::vector<int*> v;
  for (int i = 0; i < 1000; ++i) v.push_back(pool.create(i));
  std::atomic<int> errors{0};
  std::vector<std::thread> ts;
  // Two threads race to destroy the same elements: exactly one wins each.
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([&] {
      for (int* p : v) try {
          pool.destroy(p);
        } catch (const travpool::usage_error&) {
          errors.fetch_add(1);
        }
    });
  for (auto& th : ts) th.join();
  REQUIRE(errors.load() == 1000);
  REQUIRE(pool.size() == 0);
  pool.validate();
}

TEST_CASE("contains() on pointers into another thread's pool while it unmaps bins", "[concurrent][lifetime]") {
  // Each pool is used by one thread only; the main thread asks its own pool
  // about pointers into the other pool's bins, which come and go.
  travpool::pool<int> mine(travpool::bin_capacity{16});
  mine.create(1);
  std::atomic<const int*> published{nullptr};
  std::atomic<bool> stop{false};
  std::thread other([&] {
    travpool::pool<int> theirs(travpool::bin_capacity{16});
    while (!stop.load()) {
      int* x = theirs.create(1);
      published.store(x);
      theirs.destroy(x);
      theirs.shrink_to_fit();  // unmaps the bin
    }
  });
  std::size_t false_positives = 0;
  for (int i = 0; i < 200000; ++i)
    if (mine.contains(published.load())) ++false_positives;
  stop = true;
  other.join();
  REQUIRE(false_positives == 0);
  mine.validate();
}
