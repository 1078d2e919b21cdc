// travpool::concurrent_hive (hive<T, Allocator, sync::bin_locks>) from
// several threads: insertions and erasures in parallel, erasures of other
// threads' elements, lookups during both, threads that exit before the hive
// trims or reshapes, and every block going back to the allocator; plus
// what differs from hive when used by one thread (blocks of one capacity,
// retired blocks, splice of blocks of another capacity). hive_test runs the
// [hive] clauses and the differential test on concurrent_hive too.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/hive.hpp>

namespace {

using travpool::concurrent_hive;
using travpool::hive_limits;

constexpr int thread_count = 4;

// A value that says who inserted it and when: thread t's k-th insertion.
std::uint64_t tag(int t, std::uint64_t k) { return (std::uint64_t(t) << 40) | k; }

// A thread-safe allocator that records every allocation of the hive's
// blocks (address -> bytes) in a shared book, so that a test can check
// that each goes back once, with its size.
struct shared_book {
  std::mutex m;
  std::map<const void*, std::size_t> out;
  std::size_t allocations = 0, bad_deallocations = 0;
};
template <class T>
struct locked_allocator {
  using value_type = T;
  shared_book* book;
  explicit locked_allocator(shared_book* b) noexcept : book(b) {}
  template <class U>
  locked_allocator(const locked_allocator<U>& o) noexcept : book(o.book) {}
  T* allocate(std::size_t n) {
    void* p = ::operator new (n * sizeof(T), std::align_val_t{alignof(T)});
    const std::lock_guard<std::mutex> g(book->m);
    book->out.emplace(p, n * sizeof(T));
    ++book->allocations;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    {
      const std::lock_guard<std::mutex> g(book->m);
      const auto it = book->out.find(p);
      if (it == book->out.end() || it->second != n * sizeof(T)) {
        ++book->bad_deallocations;
        return;
      }
      book->out.erase(it);
    }
    ::operator delete (p, std::align_val_t{alignof(T)});
  }
  template <class U>
  bool operator==(const locked_allocator<U>& o) const noexcept {
    return book == o.book;
  }
};

// The hive holds exactly `expected` (as a multiset of values), its
// structure is sound, and iteration visits size() elements.
template <class H>
void check_holds(const H& h, std::multiset<std::uint64_t> expected) {
  h.validate();
  CHECK(h.size() == expected.size());
  CHECK(static_cast<std::size_t>(std::distance(h.begin(), h.end())) == h.size());
  CHECK(std::multiset<std::uint64_t>(h.begin(), h.end()) == expected);
}

}  // namespace

TEST_CASE("concurrent_hive: is hive with sync::bin_locks", "[hive][threads]") {
  STATIC_REQUIRE(
      std::is_same_v<concurrent_hive<int>, travpool::hive<int, std::allocator<int>, travpool::sync::bin_locks>>);
  STATIC_REQUIRE(std::is_same_v<concurrent_hive<int>::iterator::value_type, int>);
  STATIC_REQUIRE(std::is_same_v<decltype(travpool::hive{1, 2}), travpool::hive<int>>);  // deduction is unchanged
}

TEST_CASE("concurrent_hive: threads insert and erase their own elements in parallel", "[hive][threads]") {
  concurrent_hive<std::uint64_t> h(hive_limits(50, 200));  // small blocks: many of them, many crossings
  constexpr std::uint64_t per_thread = 21000;              // a multiple of 3: every k % 3 == 1 is erased
  std::vector<std::vector<std::uint64_t>> kept(thread_count);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      std::vector<const std::uint64_t*> mine;
      for (std::uint64_t k = 0; k < per_thread; ++k) {
        mine.push_back(&*h.insert(tag(t, k)));
        // Every third insertion, erase the one before it (found again from
        // its address): erasures run while other threads insert.
        if (k % 3 == 2) {
          // (Dereferenced while other threads change its block: the
          // checks ask only that the element is live.)
          const auto it = h.get_iterator(mine[k - 1]);
          if (it == h.end() || &*it != mine[k - 1] || *it != tag(t, k - 1)) failures.fetch_add(1);
          h.erase(it);
        }
      }
      for (std::uint64_t k = 0; k < per_thread; ++k) {
        // (An erased element's chunk is reused by later insertions: its
        // address may hold another element now.)
        if (k % 3 != 1) {
          if (!h.contains(mine[k]) || *mine[k] != tag(t, k)) failures.fetch_add(1);
          kept[t].push_back(tag(t, k));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  std::multiset<std::uint64_t> expected;
  for (const auto& v : kept) expected.insert(v.begin(), v.end());
  check_holds(h, expected);
  CHECK(h.capacity() % 200 == 0);  // blocks of one capacity, the limits' max
}

TEST_CASE("concurrent_hive: threads erase the elements other threads inserted", "[hive][threads]") {
  concurrent_hive<std::uint64_t> h(hive_limits(8, 64));
  constexpr std::uint64_t per_thread = 8000;
  std::vector<std::vector<const std::uint64_t*>> inserted(thread_count);
  std::vector<std::vector<std::uint64_t>> kept(thread_count);
  // A one-shot spin barrier: std::barrier's atomic wait hangs now and then
  // under wine (GCC 12 without futexes: scripts/cross_windows.sh).
  std::atomic<int> arrived{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint64_t k = 0; k < per_thread; ++k) inserted[t].push_back(&*h.insert(tag(t, k)));
      arrived.fetch_add(1);
      while (arrived.load() < thread_count) std::this_thread::yield();
      // Erase every other element of the next thread, which meanwhile
      // inserts more and erases its own neighbour's: blocks are shared
      // between an inserting and an erasing thread.
      const auto& theirs = inserted[(t + 1) % thread_count];
      for (std::uint64_t k = 0; k < per_thread; ++k) {
        if (k % 2 == 0) {
          const auto it = h.get_iterator(theirs[k]);
          if (it == h.end()) {
            failures.fetch_add(1);
            continue;
          }
          h.erase(it);
        }
        kept[t].push_back(tag(t, per_thread + k));
        h.insert(tag(t, per_thread + k));
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  std::multiset<std::uint64_t> expected;
  for (int t = 0; t < thread_count; ++t) {
    for (std::uint64_t k = 1; k < per_thread; k += 2) expected.insert(tag(t, k));
    expected.insert(kept[t].begin(), kept[t].end());
  }
  check_holds(h, expected);
}

TEST_CASE("concurrent_hive: erase returns the next element across blocks while others insert", "[hive][threads]") {
  // Thread 0 erases a run of its own elements, each through the iterator the
  // previous erase returned, while the other threads insert into blocks of
  // their own (appended to the block list, after thread 0's, meanwhile).
  // The iterators erase returns lead from one of thread 0's blocks to the
  // next.
  // (The other threads may insert into the chunks thread 0 freed, behind
  // its position. If erase returned another thread's element, that element
  // would be erased and missing below.)
  concurrent_hive<std::uint64_t> h(hive_limits(16, 16));
  constexpr std::uint64_t first_run = 4000;
  for (std::uint64_t k = 0; k < first_run; ++k) h.insert(tag(0, k));
  auto it = h.begin();  // before the others start: begin() is a sweep's first step
  std::atomic<bool> done{false};
  std::vector<std::vector<std::uint64_t>> inserted(thread_count);
  std::vector<std::thread> inserters;
  for (int t = 1; t < thread_count; ++t)
    inserters.emplace_back([&, t] {
      for (std::uint64_t k = 0; !done.load(std::memory_order_relaxed) || k < 1000; ++k) {
        h.insert(tag(t, k));
        inserted[t].push_back(tag(t, k));
      }
    });
  // Erase every element of thread 0 through erase's result: the first run
  // is at the front of the list, in iteration order.
  for (std::uint64_t erased = 0; erased < first_run; ++erased) it = h.erase(it);
  done.store(true);
  for (auto& th : inserters) th.join();
  std::multiset<std::uint64_t> expected;
  for (const auto& v : inserted) expected.insert(v.begin(), v.end());
  check_holds(h, expected);  // thread 0's are gone, every other thread's is there
}

TEST_CASE("concurrent_hive: threads that exit before trim, reshape and new threads", "[hive][threads]") {
  shared_book book;
  {
    using H = concurrent_hive<std::uint64_t, locked_allocator<std::uint64_t>>;
    H h(hive_limits(32, 32), locked_allocator<std::uint64_t>(&book));
    std::multiset<std::uint64_t> expected;
    std::mutex expected_m;
    const auto round = [&](int r) {
      std::vector<std::thread> threads;
      for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&, t] {
          std::vector<std::uint64_t> mine;
          for (std::uint64_t k = 0; k < 3000; ++k) {
            const auto it = h.insert(tag(t, r * 10000 + k));
            if (k % 4 == 0)
              h.erase(it);
            else
              mine.push_back(tag(t, r * 10000 + k));
          }
          const std::lock_guard<std::mutex> g(expected_m);
          expected.insert(mine.begin(), mine.end());
        });
      for (auto& th : threads) th.join();  // the threads exit, remembering blocks of h
    };
    round(0);
    check_holds(h, expected);
    // Empty every block, then trim: the blocks are retired (the exited
    // threads' claims are gone), and the next threads' blocks reuse them.
    h.clear();
    expected.clear();
    const std::size_t allocated = book.allocations;
    h.trim_capacity();
    CHECK(h.capacity() == 0);
    round(1);
    check_holds(h, expected);
    CHECK(book.allocations >= allocated);
    // Reshape to another capacity: new blocks, the elements moved.
    h.reshape(hive_limits(100, 100));
    check_holds(h, expected);
    CHECK(h.capacity() % 100 == 0);
    round(2);
    check_holds(h, expected);
    h.shrink_to_fit();
    check_holds(h, expected);
    {
      const std::lock_guard<std::mutex> g(book.m);
      CHECK_FALSE(book.out.empty());
    }
  }
  // Every block, listed or retired, went back once, with its size.
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("concurrent_hive: size, empty and capacity while threads insert", "[hive][threads]") {
  concurrent_hive<std::uint64_t> h;
  std::atomic<bool> go{false};
  std::atomic<int> stopped{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (std::uint64_t k = 0; k < 50000; ++k) h.insert(tag(t, k));
      stopped.fetch_add(1);
    });
  go.store(true);
  std::size_t last = 0;
  bool monotone = true;
  while (stopped.load() < 2) {
    // Each block's count is read once, so the sum never exceeds what was
    // inserted; with insertions only, it never falls.
    const std::size_t n = h.size();
    monotone = monotone && n >= last && n <= 100000 && n <= h.capacity() + 100000;
    last = n;
  }
  for (auto& th : threads) th.join();
  CHECK(monotone);
  CHECK(h.size() == 100000);
  CHECK_FALSE(h.empty());
}

TEST_CASE("concurrent_hive: blocks of one capacity with splice and reshape", "[hive][capacity][limits]") {
  using H = concurrent_hive<int>;
  H a({1, 2, 3}, hive_limits(4, 8));
  CHECK(a.capacity() == 8);  // the limits' max, when below 2 MiB of chunks
  H big;
  big.insert(1);
  CHECK(big.capacity() == H::block_capacity_default_limits().max);
  a.reserve(20);
  CHECK(a.capacity() == 24);
  // splice: x's blocks of the same capacity move, its empty blocks stay
  // (retired: they leave x's capacity).
  H b({4, 5}, hive_limits(8, 8));
  b.reserve(30);
  a.splice(b);
  CHECK(b.empty());
  CHECK(b.capacity() == 0);
  CHECK(a.size() == 5);
  CHECK(std::multiset<int>(a.begin(), a.end()) == std::multiset<int>{1, 2, 3, 4, 5});
  b.insert(6);  // b goes on in a retired block
  CHECK(b.size() == 1);
  b.validate();
  // Blocks of another capacity within the limits move and keep it; new
  // blocks still have a's capacity.
  H c({7, 8}, hive_limits(4, 6));
  a.splice(c);
  CHECK(c.empty());
  CHECK(a.size() == 7);
  CHECK(a.capacity() == 24 + 8 + 6);
  for (int k = 0; k < 32; ++k) a.insert(100 + k);  // the 31 free chunks, then a new block
  CHECK(a.capacity() == 24 + 8 + 6 + 8);
  for (int k = 0; k < 32; ++k) CHECK(erase(a, 100 + k) == 1);
  a.validate();
  // A block outside the limits: length_error, nothing changes.
  H d({9}, hive_limits(16, 16));
  CHECK_THROWS_AS(a.splice(d), std::length_error);
  CHECK(d.size() == 1);
  CHECK(a.size() == 7);
  CHECK(erase(a, 7) + erase(a, 8) == 2);
  a.validate();
  // reshape keeps the blocks if their capacity is within the limits ...
  const auto* p = &*a.begin();
  a.reshape(hive_limits(2, 100));
  CHECK(&*a.begin() == p);
  // ... and moves the elements into blocks of the new capacity otherwise.
  a.reshape(hive_limits(3, 3));
  CHECK(a.capacity() % 3 == 0);
  CHECK(std::multiset<int>(a.begin(), a.end()) == std::multiset<int>{1, 2, 3, 4, 5});
  a.validate();
  // An empty hive with retired blocks of the old capacity: new blocks.
  H e(hive_limits(8, 8));
  e.insert(1);
  e.clear();
  e.trim_capacity();
  e.reshape(hive_limits(16, 16));
  e.insert(2);
  CHECK(e.capacity() == 16);
  e.validate();
}

TEMPLATE_TEST_CASE("concurrent_hive: a thread dereferences its iterators while another erases in their block",
                   "[hive][threads][checks]", travpool::checks::on, travpool::checks::hardened) {
  // With checks, whatever the build: a dereference checks that its element
  // is live, reading the block's words relaxed, and does not report the
  // other thread's erasures in the same block (only a sweep step would).
  // (checks::on reported them now and then before; the hardened case is
  // for ThreadSanitizer, which saw its plain read of the bitmap word race
  // with the erasures. debug_checks_test has the deterministic case.)
  using checked_hive =
      travpool::hive<std::uint64_t, std::allocator<std::uint64_t>, travpool::sync::bin_locks, TestType>;
  checked_hive h(hive_limits(4096, 4096));
  constexpr std::uint64_t n = 2000;
  std::vector<typename checked_hive::iterator> mine, theirs;
  for (std::uint64_t k = 0; k < n; ++k) (k % 2 == 0 ? mine : theirs).push_back(h.insert(k));
  REQUIRE(h.capacity() == 4096);  // one block: every erasure below changes it
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread reader([&] {
    do {
      for (std::uint64_t j = 0; j < mine.size(); ++j) {
        try {
          if (*mine[j] != 2 * j) failures.fetch_add(1);
        } catch (const travpool::usage_error&) {
          failures.fetch_add(1);
        }
      }
    } while (!done.load());
  });
  for (int round = 0; round < 50; ++round) {
    for (auto& it : theirs) h.erase(it);
    // Inserted again: into the chunks just freed, in the same block.
    for (std::uint64_t j = 0; j < theirs.size(); ++j) theirs[j] = h.insert(2 * j + 1);
  }
  done.store(true);
  reader.join();
  CHECK(failures.load() == 0);
  CHECK(h.size() == n);
  CHECK(h.capacity() == 4096);
  h.validate();
}

TEST_CASE("concurrent_hive: erase misuse is a usage_error with checks", "[hive][threads][misuse]") {
  concurrent_hive<int, std::allocator<int>> h{1, 2, 3};
  using checks = typename concurrent_hive<int>::checks_type;
  if constexpr (std::is_same_v<checks, travpool::checks::off>) {
    SUCCEED("checks::off: misuse is undefined");
  } else {
    auto it = h.begin();
    const auto copy = it;
    h.erase(it);
    CHECK_THROWS_AS(h.erase(copy), travpool::usage_error);
    CHECK_THROWS_AS(h.erase(h.end()), travpool::usage_error);
    concurrent_hive<int> other{4};
    CHECK_THROWS_AS(h.erase(other.begin()), travpool::usage_error);
    CHECK(h.size() == 2);
    CHECK(other.size() == 1);
    h.validate();
  }
}
