// Thread churn: a thread that exits gives up its claims, so short-lived
// threads reuse the bins their predecessors partly filled instead of each
// starting a new one (issue 17). Runs under ThreadSanitizer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/allocator.hpp>
#include <travpool/pool.hpp>

#include "pool_types.hpp"

namespace {

using travpool::test::under_tsan;

struct item24 {
  std::uint64_t a, b, c;
};
static_assert(sizeof(item24) == 24);

// Runs `threads` threads, `at_once` at a time, each running body(t).
template <class F>
void churn(unsigned threads, unsigned at_once, F body) {
  for (unsigned t = 0; t < threads; t += at_once) {
    std::vector<std::thread> group;
    for (unsigned k = t; k < std::min(threads, t + at_once); ++k) group.emplace_back(body, k);
    for (auto& th : group) th.join();
  }
}

std::size_t bin_bound(std::size_t live, std::size_t capacity) { return 2 * ((live + capacity - 1) / capacity) + 8; }

}  // namespace

TEST_CASE("short-lived threads reuse the bins of the threads before them", "[concurrent][thread-exit]") {
  const unsigned threads = under_tsan ? 200 : 2000;
  constexpr std::size_t creates = 10'000, destroys = 9'000;
  travpool::concurrent_pool<item24> pool;
  churn(threads, 2, [&](unsigned t) {
    std::vector<item24*> mine;
    mine.reserve(creates);
    for (std::size_t i = 0; i < creates; ++i) mine.push_back(pool.create(item24{t, i, ~i}));
    // Destroy 9 of every 10, so the bin is left with gaps.
    for (std::size_t i = 0; i < creates; ++i)
      if (i % 10 != 0) pool.destroy(mine[i]);
  });
  const std::size_t live = std::size_t{threads} * (creates - destroys);
  REQUIRE(pool.size() == live);
  INFO("bins " << pool.bin_count() << " for " << live << " live of capacity " << pool.bin_capacity());
  CHECK(pool.bin_count() <= bin_bound(live, pool.bin_capacity()));
  std::size_t n = 0;
  for (const item24& e : pool) n += e.b % 10 == 0 && e.c == ~e.b;
  CHECK(n == live);
  REQUIRE_NOTHROW(pool.validate());
}

TEST_CASE("threads that exit mid-bin leave it to the next thread (small bins)", "[concurrent][thread-exit]") {
  // Bins of 64 chunks: each thread crosses bins, leaving one claimed at exit.
  travpool::concurrent_pool<item24> pool(travpool::bin_capacity{64});
  constexpr unsigned threads = 300;
  churn(threads, 3, [&](unsigned t) {
    std::vector<item24*> mine;
    for (std::uint64_t i = 0; i < 100; ++i) mine.push_back(pool.create(item24{t, i, ~i}));
    for (std::size_t i = 0; i < mine.size(); ++i)
      if (i % 4 != 0) pool.destroy(mine[i]);
  });
  const std::size_t live = std::size_t{threads} * 25;
  REQUIRE(pool.size() == live);
  INFO("bins " << pool.bin_count());
  CHECK(pool.bin_count() <= bin_bound(live, pool.bin_capacity()));
  REQUIRE_NOTHROW(pool.validate());
}

TEST_CASE("concurrent_allocator: 1,000 threads with a short std::list each do not leave 1,000 bins",
          "[allocator][thread-exit]") {
  using list = std::list<int, travpool::concurrent_allocator<int>>;
  const std::size_t before = travpool::concurrent_allocator<int>::stats().bins;
  churn(1000, 2, [](unsigned t) {
    list l;
    for (int i = 0; i < 10; ++i) l.push_back(static_cast<int>(t) + i);
    int sum = 0;
    for (int v : l) sum += v;
    if (sum != 10 * static_cast<int>(t) + 45) std::abort();
  });
  const auto after = travpool::concurrent_allocator<int>::stats();
  INFO("bins before " << before << ", after " << after.bins);
  CHECK(after.bins <= before + 4);
}

TEST_CASE("a thread outlives the pool it claimed bins in, and another pool takes its slot",
          "[concurrent][thread-exit][lifetime]") {
  // The thread claims bins in pools that are destroyed before it exits,
  // and in one that outlives it; at exit only the live pool's bin is
  // released, and the destroyed pools' (unmapped) bins are not touched.
  travpool::concurrent_pool<item24> survivor;
  std::vector<item24*> kept;
  std::thread th([&] {
    for (int round = 0; round < 40; ++round) {
      auto gone = std::make_unique<travpool::concurrent_pool<item24>>(travpool::bin_capacity{32});
      for (std::uint64_t i = 0; i < 50; ++i) gone->create(item24{i, i, i});
      gone.reset();  // its bins are unmapped (or cached and reused) while this thread lives
      // Many pools: the survivor's remembered slot is evicted by some of them.
      kept.push_back(survivor.create(item24{1, 2, 3}));
    }
  });
  th.join();
  REQUIRE(survivor.size() == kept.size());
  // The thread's bin in the survivor is free for others: this thread fills it.
  const std::size_t bins = survivor.bin_count();
  for (int i = 0; i < 100; ++i) kept.push_back(survivor.create(item24{4, 5, 6}));
  CHECK(survivor.bin_count() == bins);
  for (item24* p : kept) survivor.destroy(p);
  REQUIRE_NOTHROW(survivor.validate());
}

TEST_CASE("a pool moved to another thread's keeping keeps releasing exiting threads' claims",
          "[concurrent][thread-exit][lifetime]") {
  travpool::concurrent_pool<item24> a;
  std::thread([&] {
    for (std::uint64_t i = 0; i < 10; ++i) a.create(item24{i, i, i});
  }).join();
  travpool::concurrent_pool<item24> b(std::move(a));  // the id and the bins move to b
  std::thread([&] {
    for (std::uint64_t i = 0; i < 10; ++i) b.create(item24{i, i, i});
  }).join();
  CHECK(b.bin_count() == 1);
  CHECK(b.size() == 20);
  a = std::move(b);
  std::thread([&] {
    for (std::uint64_t i = 0; i < 10; ++i) a.create(item24{i, i, i});
  }).join();
  CHECK(a.bin_count() == 1);
  CHECK(a.size() == 30);
  REQUIRE_NOTHROW(a.validate());
}

TEST_CASE("a thread that exits once the process is exiting gives nothing back and waits for no lock",
          "[concurrent][thread-exit]") {
  namespace td = travpool::detail;
  travpool::concurrent_pool<item24> pool;
  std::thread([&] { (void)pool.create(item24{1, 2, 3}); }).join();
  std::thread([&] { (void)pool.create(item24{4, 5, 6}); }).join();
  REQUIRE(pool.bin_count() == 1);  // the first thread's exit gave its bin up
  // As after static destruction began: the next exit keeps its claim (and
  // so the thread after it starts a bin of its own) and its state.
  td::thread_state* const kept_before = td::kept_thread_states.load();
  td::process_exiting.store(true);
  std::thread([&] { (void)pool.create(item24{7, 8, 9}); }).join();
  td::process_exiting.store(false);
  td::thread_state* const kept = td::kept_thread_states.load();
  CHECK(kept != kept_before);
  CHECK((kept != nullptr && kept->next_kept == kept_before));
  std::thread([&] { (void)pool.create(item24{10, 11, 12}); }).join();
  CHECK(pool.bin_count() == 2);
  CHECK(pool.size() == 4);
  REQUIRE_NOTHROW(pool.validate());
}

// std::exit in a ~T run inside a biased section runs the thread's exit
// while the section is open: the exit keeps the record and the state, and
// the state stays the thread's, so that a later destructor on the thread
// that locks the bin gets usage_error instead of waiting for its own
// section to end.
TEST_CASE("a thread whose exit runs inside a biased section stays inside it", "[concurrent][thread-exit]") {
  namespace td = travpool::detail;
  std::thread([] {
    td::bin_lock lock;
    lock.lock();
    lock.settle();  // no cooldown yet: biased at once (when biasing is on)
    lock.unlock();
    if (lock.biased_to() != td::thread_number()) {
      WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
      return;
    }
    td::section_record* r = lock.enter();
    REQUIRE(r != nullptr);
    td::thread_state* const state = td::current_thread_state();
    REQUIRE(td::at_thread_exit<&td::exit_thread_state>(nullptr));  // the real exit: nothing more
    td::exit_thread_state(state);                                  // as if std::exit ran here
    CHECK(td::current_thread_state() == state);
    CHECK(td::kept_thread_states.load() == state);
    CHECK_THROWS_AS(lock.lock(), travpool::usage_error);
    CHECK_FALSE(lock.try_lock());
    lock.leave(*r);
  }).join();
}
