// concurrent_pool (sync::bin_locks) and sync::global_mutex under threads:
// stress with cross-thread destroys, pool and thread lifetimes, concurrent
// shrink_to_fit. Runs under ThreadSanitizer in CI.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#if !defined(_WIN32)
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

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
  // A quarter of the operations at small_depth (a sanitizer, or the stages
  // after the first): under TSan at -Og the full test took 202 s, the TSan
  // stage's longest case by 9 times.
  const std::size_t ops = travpool::test::small_depth ? 250'000 : 1'000'000;
  for (unsigned threads : {2u, 4u, 8u}) {
    INFO(threads << " threads");
    stress<pool_type>(threads, ops, 512, false);
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

TEST_CASE("threads exit, and their pool and new threads carry on", "[concurrent][lifetime]") {
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
  // about pointers into the other pool's bins, which come and go (the span
  // cache is off, so that shrink_to_fit really unmaps them).
  const std::size_t saved_limit = travpool::set_span_cache_limit(0);
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
  travpool::set_span_cache_limit(saved_limit);
  REQUIRE(false_positives == 0);
  mine.validate();
}

// Biased bin locks (detail::bin_lock): a thread's creates and destroys in the
// bin it claims take no locked instruction; another thread that locks the
// bin revokes the bias first.
namespace {
std::uint32_t biased_to(const travpool::concurrent_pool<element>& pool, std::size_t bin) {
  return travpool::detail::test_access::bins(pool)[bin]->lock_.biased_to();
}
}  // namespace

TEST_CASE("a bin is biased to the thread that claims it, and other threads revoke the bias", "[concurrent][biased]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{4096});
  std::vector<element*> v;
  std::uint32_t creator = 0;
  std::thread a([&] {
    creator = travpool::detail::thread_number();
    for (std::uint64_t i = 0; i < 1000; ++i) v.push_back(pool.create(element{0, i, element::mix(0, i)}));
  });
  a.join();
  REQUIRE(pool.bin_count() == 1);
  // The creator exited: it gave up its claim and its bias (thread_claims).
  REQUIRE(creator != 0);
  REQUIRE(biased_to(pool, 0) == 0);
  REQUIRE(travpool::detail::test_access::bins(pool)[0]->claim_.load() == 0);
  // Another thread destroys in that bin: it takes the bin's lock.
  std::thread b([&] {
    for (std::size_t i = 0; i < v.size(); i += 2) pool.destroy(v[i]);
  });
  b.join();
  REQUIRE(biased_to(pool, 0) == 0);
  pool.validate();
  REQUIRE(pool.size() == 500);
  // A live creator loses its bias to a remote destroy and regains it after
  // the cooldown (64 of its own operations under the lock).
  std::atomic<int> step{0};
  std::uint32_t owner = 0;
  std::vector<element*> w;
  std::thread c([&] {
    owner = travpool::detail::thread_number();
    for (std::uint64_t i = 0; i < 10; ++i) w.push_back(pool.create(element{1, i, element::mix(1, i)}));
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    for (std::uint64_t i = 10; i < 200; ++i) w.push_back(pool.create(element{1, i, element::mix(1, i)}));
    step = 3;
    while (step.load() != 4) std::this_thread::yield();
  });
  while (step.load() != 1) std::this_thread::yield();
  // c claimed bin 0 (it had room) or a new bin; find it.
  const auto bins = travpool::detail::test_access::bins(pool);
  std::size_t mine = bins.size();
  for (std::size_t i = 0; i < bins.size(); ++i)
    if (bins[i]->claim_.load() == owner) mine = i;
  REQUIRE(mine < bins.size());
  REQUIRE(biased_to(pool, mine) == owner);
  pool.destroy(w[0]);  // revokes c's bias while c is alive (and idle)
  REQUIRE(biased_to(pool, mine) == 0);
  step = 2;
  while (step.load() != 3) std::this_thread::yield();
  REQUIRE(biased_to(pool, mine) == owner);  // 190 creates > the cooldown of 64
  step = 4;
  c.join();
  pool.validate();
  REQUIRE(pool.size() == 500 + 199);
  for (std::size_t i = 1; i < v.size(); i += 2) REQUIRE(v[i]->check == element::mix(0, v[i]->seq));
  for (std::size_t i = 1; i < w.size(); ++i) REQUIRE(w[i]->check == element::mix(1, w[i]->seq));
}

TEST_CASE("a create after a destroy reuses the freed chunk, in a bin nobody claims (hot bin)", "[concurrent][biased]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  using travpool::detail::test_access;
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{256});
  // Observed by the worker, checked here (Catch2 assertions stay on this thread).
  struct observed {
    std::uint32_t me = 0, bins = 0, claim0 = 1, claim2 = 0, bias0_locked = 0, claim0_after = 1, claim2_end = 0;
    bool reused20 = false, reused10 = false;
  } o;
  std::thread t([&] {
    o.me = travpool::detail::thread_number();
    std::vector<element*> v;
    for (std::uint64_t i = 0; i < 600; ++i) v.push_back(pool.create(element{0, i, element::mix(0, i)}));
    // Bins 0 and 1 filled up: this thread left them, and claims bin 2.
    o.bins = static_cast<std::uint32_t>(pool.bin_count());
    o.claim0 = test_access::bins(pool)[0]->claim_.load();
    o.claim2 = test_access::bins(pool)[2]->claim_.load();
    // The first destroy in bin 0 takes its lock and biases it to this
    // thread (no cooldown: nobody has revoked a bias of bin 0).
    pool.destroy(v[10]);
    o.bias0_locked = biased_to(pool, 0);
    o.claim0_after = test_access::bins(pool)[0]->claim_.load();
    // The next runs in the biased section and makes bin 0 the hot bin: the
    // creates after it reuse the chunks just freed (LIFO), not bin 2's.
    pool.destroy(v[20]);
    o.reused20 = pool.create(element{0, 20, element::mix(0, 20)}) == v[20];
    o.reused10 = pool.create(element{0, 10, element::mix(0, 10)}) == v[10];
    // Bin 0 is full again: the next create goes to the claimed bin.
    pool.create(element{0, 600, element::mix(0, 600)});
    o.claim2_end = test_access::bins(pool)[2]->claim_.load();
    pool.destroy(v[30]);  // bin 0 is the hot bin again
  });
  t.join();
  REQUIRE(o.me != 0);
  REQUIRE(o.bins == 3);
  REQUIRE(o.claim0 == 0);
  REQUIRE(o.claim2 == o.me);
  REQUIRE(o.bias0_locked == o.me);
  REQUIRE(o.claim0_after == 0);
  REQUIRE(o.reused20);
  REQUIRE(o.reused10);
  REQUIRE(o.claim2_end == o.me);
  REQUIRE(pool.bin_count() == 3);
  REQUIRE(pool.size() == 600);
  pool.validate();
  // The thread exited: it gave up its claim, and the hot bin's bias too.
  REQUIRE(biased_to(pool, 0) == 0);
  REQUIRE(biased_to(pool, 2) == 0);
  REQUIRE(test_access::bins(pool)[2]->claim_.load() == 0);
  std::size_t n = 0;
  for (const element& x : pool) {
    REQUIRE(x.check == element::mix(0, x.seq));
    ++n;
  }
  REQUIRE(n == 600);
}

TEST_CASE("creates refill the holes of the thread's last destroys in several bins, latest first (hot bins)",
          "[concurrent][biased]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  using travpool::detail::test_access;
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{256});
  struct observed {
    std::uint32_t bins = 0, bias0 = 0, bias1 = 0;
    std::size_t live2_before = 0, live2_after = 0;
    element* refilled[4] = {};
    element* expected[4] = {};
  } o;
  std::thread t([&] {
    std::vector<element*> v;
    for (std::uint64_t i = 0; i < 600; ++i) v.push_back(pool.create(element{0, i, element::mix(0, i)}));
    o.bins = static_cast<std::uint32_t>(pool.bin_count());  // bins 0 and 1 full; bin 2 claimed
    // Locked destroys, which bias bins 0 and 1 to this thread; then biased
    // ones, which make bin 0, then bin 1, the hot bins.
    pool.destroy(v[10]);
    pool.destroy(v[300]);
    o.bias0 = biased_to(pool, 0);
    o.bias1 = biased_to(pool, 1);
    pool.destroy(v[20]);
    pool.destroy(v[310]);
    o.live2_before = test_access::bins(pool)[2]->live_;
    // Bin 1's holes first (LIFO), then bin 0's: none goes to bin 2.
    const element* order[4] = {v[310], v[300], v[20], v[10]};
    for (int k = 0; k < 4; ++k) {
      o.expected[k] = const_cast<element*>(order[k]);
      o.refilled[k] = pool.create(element{0, 1000 + static_cast<std::uint64_t>(k), element::mix(0, 1000 + k)});
    }
    o.live2_after = test_access::bins(pool)[2]->live_;
    pool.create(element{0, 2000, element::mix(0, 2000)});  // bins 0 and 1 full: the claimed bin
    for (element* e : v) {
      if (e != v[10] && e != v[20] && e != v[300] && e != v[310]) pool.destroy(e);
    }
  });
  t.join();
  REQUIRE(o.bins == 3);
  REQUIRE(o.bias0 != 0);
  REQUIRE(o.bias1 != 0);
  for (int k = 0; k < 4; ++k) CHECK(o.refilled[k] == o.expected[k]);
  CHECK(o.live2_after == o.live2_before);
  REQUIRE(pool.size() == 5);
  pool.validate();
  // The thread exited: it gave up the biases of its hot bins too.
  CHECK(biased_to(pool, 0) == 0);
  CHECK(biased_to(pool, 1) == 0);
  CHECK(biased_to(pool, 2) == 0);
}

namespace {
// An element whose destructor creates `creates` elements in `pool` (set
// for one destroy), recording them.
struct spawning {
  static inline travpool::concurrent_pool<spawning>* pool = nullptr;
  static inline int creates = 0;
  static inline std::vector<spawning*> made;
  std::uint64_t seq = 0;
  explicit spawning(std::uint64_t s) : seq(s) {}
  ~spawning() {
    for (; creates > 0; --creates) made.push_back(pool->create(1000 + made.size()));
  }
};
std::uint32_t biased_to(const travpool::concurrent_pool<spawning>& pool, std::size_t bin) {
  return travpool::detail::test_access::bins(pool)[bin]->lock_.biased_to();
}
}  // namespace

TEST_CASE("a destructor run by a biased destroy may create: hot bins it is inside are skipped",
          "[concurrent][biased][reentrant]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  using travpool::detail::test_access;
  travpool::concurrent_pool<spawning> pool(travpool::bin_capacity{256});
  spawning::pool = &pool;
  spawning::made.clear();
  struct observed {
    std::uint32_t bins = 0, bias0 = 0, bias1 = 0;
    std::vector<std::size_t> bins_made;  // the list position of each element made by the destructor
    bool threw = false;
  } o;
  std::thread t([&] {
    std::vector<spawning*> v;
    for (std::uint64_t i = 0; i < 600; ++i) v.push_back(pool.create(i));
    o.bins = static_cast<std::uint32_t>(pool.bin_count());  // bins 0 and 1 full; bin 2 claimed
    pool.destroy(v[310]);                                   // locked: biases bin 1
    pool.destroy(v[300]);                                   // biased: bin 1 is hot
    pool.destroy(v[10]);                                    // locked: biases bin 0
    pool.destroy(v[20]);                                    // biased: hot bins 1, 0 (latest)
    o.bias0 = biased_to(pool, 0);
    o.bias1 = biased_to(pool, 1);
    // Destroyed in bin 1's biased section, which makes bin 1 the latest hot
    // bin again; its destructor creates 3 times: bin 1 (it is inside) is
    // skipped, bin 0's two holes are refilled, then bin 1 again is skipped
    // and the claimed bin 2 takes the third.
    spawning::creates = 3;
    try {
      pool.destroy(v[311]);
    } catch (const travpool::usage_error&) {
      o.threw = true;
    }
    for (spawning* e : spawning::made) o.bins_made.push_back(test_access::position(pool, e).first);
    for (spawning* e : v)
      if (e != v[10] && e != v[20] && e != v[300] && e != v[310] && e != v[311]) pool.destroy(e);
    for (spawning* e : spawning::made) pool.destroy(e);
  });
  t.join();
  REQUIRE(o.bins == 3);
  REQUIRE(o.bias0 != 0);
  REQUIRE(o.bias1 != 0);
  CHECK_FALSE(o.threw);
  CHECK(o.bins_made == std::vector<std::size_t>{0, 0, 2});
  CHECK(pool.empty());
  pool.validate();
  spawning::made.clear();
}

TEST_CASE("a thread that leaves a full bin refills the fullest bin with room, not the next one",
          "[concurrent][refill]") {
  using travpool::detail::test_access;
  // Capacity 256: a scan prefers bins with at least 256 / 64 = 4 free chunks.
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{256});
  std::vector<element*> v;
  std::uint32_t me = 0;
  std::thread([&] {
    me = travpool::detail::thread_number();
    for (std::uint64_t i = 0; i < 5 * 256; ++i) v.push_back(pool.create(element{0, i, element::mix(0, i)}));
  }).join();
  REQUIRE(pool.bin_count() == 5);
  const auto bins = test_access::bins(pool);
  const auto in_bin = [&](std::size_t k) {
    std::vector<element*> r;
    for (element* e : v)
      if (test_access::position(pool, e).first == k) r.push_back(e);
    return r;
  };
  // Destroyed from this thread, which creates nothing in the pool: no bin
  // becomes another thread's hot bin. Bins 0 to 3 keep 6, 56, 236 and 254
  // elements; bin 4 stays full.
  const std::size_t destroyed[] = {250, 200, 20, 2};
  for (std::size_t k = 0; k < 4; ++k) {
    auto e = in_bin(k);
    REQUIRE(e.size() == 256);
    for (std::size_t j = 0; j < destroyed[k]; ++j) pool.destroy(e[j]);
  }
  std::uint32_t live2 = 0, live1 = 0, claim2 = 0;
  std::thread([&] {
    // First fit would take bin 0, the first with room; bin 3 has fewer
    // than 4 free chunks.
    pool.create(element{1, 0, element::mix(1, 0)});
    live2 = bins[2]->live_;
    claim2 = bins[2]->claim_.load();
    for (std::uint64_t i = 1; i < 21; ++i) pool.create(element{1, i, element::mix(1, i)});
    live1 = bins[1]->live_;
  }).join();
  REQUIRE(me != 0);
  CHECK(live2 == 237);
  CHECK(claim2 != 0);
  CHECK(live1 == 57);  // bin 2 full again: then bin 1, the fullest with 4 free chunks
  CHECK(bins[0]->live_ == 6);
  CHECK(bins[3]->live_ == 254);
  REQUIRE(pool.size() == 5 * 256 - 472 + 21);
  pool.validate();
}

TEST_CASE("producer-consumer: every element is destroyed by the other thread", "[concurrent][biased]") {
  // The consumer's destroys keep revoking the producer's bias while the
  // producer creates: the revocation handshake under fire.
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{256});
  constexpr std::size_t n = 200'000, ring = 64;
  std::vector<std::atomic<element*>> slots(ring);
  for (auto& s : slots) s.store(nullptr);
  std::atomic<std::uint64_t> bad{0};
  std::thread consumer([&] {
    for (std::size_t i = 0; i < n; ++i) {
      auto& s = slots[i % ring];
      element* e;
      while ((e = s.exchange(nullptr, std::memory_order_acquire)) == nullptr) std::this_thread::yield();
      if (e->seq != i || e->check != element::mix(e->owner, e->seq)) bad.fetch_add(1);
      pool.destroy(e);
    }
  });
  for (std::size_t i = 0; i < n; ++i) {
    element* e = pool.create(element{7, i, element::mix(7, i)});
    auto& s = slots[i % ring];
    while (s.load(std::memory_order_relaxed) != nullptr) std::this_thread::yield();
    s.store(e, std::memory_order_release);
  }
  consumer.join();
  REQUIRE(bad.load() == 0);
  REQUIRE(pool.empty());
  pool.validate();
}

TEST_CASE("get_iterator and contains on elements of a bin another thread is creating in", "[concurrent][lookup]") {
  // The consumer looks up what the producer just created, in the bin the
  // producer keeps creating in: the iterator's cursor reads that bin's
  // bitmap word while the producer writes it (relaxed, under TSan a race
  // otherwise). The consumer destroys nothing, and reads the element
  // through the iterator: a dereference checks only that its element is
  // live (relaxed reads too), not that the bin is quiescent.
  travpool::concurrent_pool<element> pool(travpool::bin_capacity{4096});
  constexpr std::size_t n = 50'000;
  std::vector<std::atomic<element*>> made(n);
  for (auto& m : made) m.store(nullptr);
  std::atomic<std::uint64_t> bad{0};
  std::thread consumer([&] {
    for (std::size_t i = 0; i < n; ++i) {
      element* e;
      while ((e = made[i].load(std::memory_order_acquire)) == nullptr) std::this_thread::yield();
      const auto it = pool.get_iterator(e);
      if (it == pool.end() || !pool.contains(e) || &*it != e || it->seq != i) bad.fetch_add(1);
    }
  });
  for (std::size_t i = 0; i < n; ++i)
    made[i].store(pool.create(element{7, i, element::mix(7, i)}), std::memory_order_release);
  consumer.join();
  REQUIRE(bad.load() == 0);
  REQUIRE(pool.size() == n);
  pool.validate();
}

TEST_CASE("concurrent_pool stress with biasing switched off", "[concurrent][stress]") {
  auto& on = travpool::detail::biasing_switch();
  const bool was = on.exchange(false);
  stress<travpool::concurrent_pool<element>>(4, 200'000, 512, false);
  on.store(was);
}

TEST_CASE("re-entering a biased bin from inside its own section is usage_error", "[concurrent][reentrant]") {
  travpool::detail::bin_lock lock;
  const std::uint32_t me = travpool::detail::thread_number();
  lock.lock();
  lock.settle();  // no cooldown yet: biased at once (when biasing is on)
  lock.unlock();
  if (lock.biased_to() != me) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  travpool::detail::section_record* r = lock.enter();
  REQUIRE(r != nullptr);
  REQUIRE_THROWS_AS(lock.enter(), travpool::usage_error);
  REQUIRE_FALSE(lock.try_lock());
  REQUIRE_THROWS_AS(lock.lock(), travpool::usage_error);
  lock.leave(*r);
  REQUIRE(lock.try_lock());  // the owner itself: no revocation needed
  REQUIRE(lock.biased_to() == me);
  lock.unlock();
  std::thread([&] {
    lock.lock();  // another thread: revokes
    REQUIRE(lock.biased_to() == 0);
    lock.unlock();
  }).join();
  REQUIRE(lock.enter() == nullptr);
}

// The bias changes hands while a former owner may still be between its two
// loads of the bias. A former owner's late store must not let a revoker in
// while the new owner is inside (it did when the owner's flag was in the
// bin: the former owner cleared it, or saw it set and threw). To make such
// windows likely, a timer interrupts each thread every 200 us and its signal
// handler sleeps 50 us, at whatever instruction the thread was on, and the
// threads move to a fresh lock every 2 ms, so that the bias changes hands
// after a short cooldown. Each thread enters through its bias or the mutex,
// marks the section occupied, and counts an overlap if another thread was
// already inside. (TSan delivers signals at its own points, so there the
// windows are rarer; the plain builds are the ones that broke the old lock.)
#if defined(_WIN32)
TEST_CASE("a biased bin lock changing hands under preemption excludes every other thread", "[concurrent][biased]") {
  WARN("skipped: needs per-thread POSIX timers and signals");
}
#else
namespace {
extern "C" void nap_on_signal(int) {
  const timespec nap{0, 50'000};
  nanosleep(&nap, nullptr);
}
}  // namespace

TEST_CASE("a biased bin lock changing hands under preemption excludes every other thread", "[concurrent][biased]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  struct guarded {
    travpool::detail::bin_lock lock;
    std::atomic<int> occupied{0};
    std::uint64_t counter = 0;  // under the lock; a race here is TSan's to see
  };
  constexpr int epochs = 600;
  const auto slots = std::make_unique<guarded[]>(epochs);
  std::atomic<int> epoch{0};
  std::atomic<std::uint64_t> overlaps{0}, biased{0}, total{0};
  struct sigaction on_timer {};
  on_timer.sa_handler = nap_on_signal;
  sigemptyset(&on_timer.sa_mask);
  struct sigaction before {};
  REQUIRE(sigaction(SIGRTMIN, &on_timer, &before) == 0);
  const unsigned threads = 2 * std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      // A timer that interrupts this thread (not the process) every 200 us.
      sigevent ev{};
      ev.sigev_notify = SIGEV_THREAD_ID;
      ev.sigev_signo = SIGRTMIN;
      const auto tid = static_cast<pid_t>(::syscall(SYS_gettid));
#ifdef sigev_notify_thread_id
      ev.sigev_notify_thread_id = tid;
#else
      ev._sigev_un._tid = tid;  // its name where glibc has no sigev_notify_thread_id
#endif
      timer_t timer{};
      const bool armed = timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0;
      if (armed) {
        const itimerspec every{{0, 200'000}, {0, 200'000}};
        timer_settime(timer, 0, &every, nullptr);
      }
      std::uint64_t mine = 0, through_bias = 0;
      for (int e; (e = epoch.load(std::memory_order_relaxed)) < epochs;)
        for (int k = 0; k < 64; ++k, ++mine) {
          guarded& g = slots[e];
          const auto section = [&] {
            if (g.occupied.exchange(1, std::memory_order_relaxed) != 0) overlaps.fetch_add(1);
            ++g.counter;
            g.occupied.store(0, std::memory_order_relaxed);
          };
          if (travpool::detail::section_record* r = g.lock.enter()) {
            section();
            g.lock.leave(*r);
            ++through_bias;
          } else {
            std::lock_guard<travpool::detail::bin_lock> held(g.lock);
            section();
            g.lock.settle();  // biased to this thread after the cooldown
          }
        }
      if (armed) timer_delete(timer);
      biased.fetch_add(through_bias);
      total.fetch_add(mine);
    });
  for (int e = 1; e <= epochs; ++e) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    epoch.store(e);
  }
  for (auto& th : pool) th.join();
  sigaction(SIGRTMIN, &before, nullptr);
  std::uint64_t counted = 0;
  for (int e = 0; e < epochs; ++e) counted += slots[e].counter;
  REQUIRE(overlaps.load() == 0);
  REQUIRE(counted == total.load());
  CHECK(biased.load() > 0);
}
#endif  // !defined(_WIN32)

// Section records change hands: threads exit every round, and the next
// round's threads take their records, with the biases still naming them.
// Sections nest up to 6 deep (a ~T run in one bin's section that destroys
// in another bin), past the 4 slots of a record, where entering falls back
// to the mutex.
TEST_CASE("biased bin locks stay exclusive as section records pass to new threads and sections nest",
          "[concurrent][biased]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  namespace td = travpool::detail;
  struct guarded {
    td::bin_lock lock;
    std::atomic<int> occupied{0};
    std::uint64_t counter = 0;
  };
  constexpr int locks = 8, deepest = 6;
  std::vector<guarded> g(locks + deepest);
  std::atomic<std::uint64_t> overlaps{0}, biased{0}, total{0}, deep{0};
  struct walker {
    std::vector<guarded>& g;
    std::atomic<std::uint64_t>& overlaps;
    std::uint64_t entered = 0, through_bias = 0, deep_biased = 0;
    void section(guarded& x) {
      if (x.occupied.exchange(1, std::memory_order_relaxed) != 0) overlaps.fetch_add(1);
      ++x.counter;
      x.occupied.store(0, std::memory_order_relaxed);
    }
    // Enters lock k, and inside it k + 1, ..., `depth` sections in all.
    void nest(int k, int depth, int level = 1) {
      if (depth == 0) return;
      guarded& x = g[k];
      ++entered;
      if (td::section_record* r = x.lock.enter()) {
        section(x);
        nest(k + 1, depth - 1, level + 1);
        x.lock.leave(*r);
        ++through_bias;
        deep_biased += level > 1;
      } else {
        std::lock_guard<td::bin_lock> held(x.lock);
        section(x);
        nest(k + 1, depth - 1, level + 1);
        x.lock.settle();
      }
    }
  };
  for (int round = 0; round < 100; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t, round] {
        walker w{g, overlaps};
        for (int i = 0; i < 3000; ++i) w.nest((i + t + round) % locks, 1 + i % deepest);
        biased.fetch_add(w.through_bias);
        total.fetch_add(w.entered);
        deep.fetch_add(w.deep_biased);
      });
    for (auto& th : threads) th.join();
  }
  std::uint64_t counted = 0;
  for (const guarded& x : g) counted += x.counter;
  REQUIRE(overlaps.load() == 0);
  REQUIRE(counted == total.load());
  CHECK(biased.load() > 0);
  CHECK(deep.load() > 0);  // nested biased sections happened
}

namespace {
// An element whose destructor misuses its own pool, catching the error.
struct meddler {
  travpool::concurrent_pool<meddler>* pool = nullptr;
  meddler* victim = nullptr;
  std::atomic<int>* phase = nullptr;
  std::atomic<int>* caught = nullptr;
  ~meddler() {
    if (pool == nullptr) return;
    if (phase != nullptr) {
      // Let another thread start revoking this bin's bias, and wait until it
      // has cleared it: it now waits for this thread to leave its section.
      phase->store(1);
      while (travpool::detail::test_access::bins(*pool)[0]->lock_.biased_to() != 0) std::this_thread::yield();
    }
    try {
      if (victim != nullptr)
        pool->destroy(victim);
      else
        pool->create();
    } catch (const travpool::usage_error&) {
      caught->fetch_add(1);
    }
  }
};
}  // namespace

TEST_CASE("a destructor touching its own biased bin during a revocation gets usage_error, not a hang",
          "[concurrent][biased][reentrant]") {
  if (!travpool::detail::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  travpool::concurrent_pool<meddler> pool(travpool::bin_capacity{64});
  std::atomic<int> phase{0}, caught{0};
  meddler* victim = pool.create();
  meddler* a = pool.create();
  meddler* other = pool.create();
  a->pool = &pool, a->victim = victim, a->phase = &phase, a->caught = &caught;
  REQUIRE(travpool::detail::test_access::bins(pool)[0]->lock_.biased_to() == travpool::detail::thread_number());
  std::size_t seen = 0;
  std::thread revoker([&] {
    while (phase.load() == 0) std::this_thread::yield();
    // A remote destroy locks the bin: revokes, waits for the destroy of `a`
    // to finish. (size() takes no bin lock, so it would not revoke.)
    pool.destroy(other);
    seen = pool.size();
  });
  pool.destroy(a);
  revoker.join();
  REQUIRE(caught.load() == 1);
  REQUIRE(seen == 1);
  REQUIRE(pool.contains(victim));
  pool.validate();
}

TEST_CASE("a destructor run under the bin's lock cannot enter the bin's biased section",
          "[concurrent][biased][reentrant]") {
  travpool::concurrent_pool<meddler> pool(travpool::bin_capacity{64});
  std::atomic<int> caught{0};
  for (int i = 0; i < 10; ++i) {
    meddler* m = pool.create();
    m->pool = &pool, m->caught = &caught;  // ~meddler creates in this pool
  }
  pool.clear();  // locks the bin (its bias is this thread's own) and runs the destructors
  REQUIRE(caught.load() == 10);
  REQUIRE(pool.empty());
  pool.validate();
}
