// The concurrent acquisition layer (sync::bin_locks,
// detail/bin_locks/concurrent_bins.hpp) without a payload type: claims,
// retirement and reuse of bins on one thread, the lock contract, then the
// protocol under threads (runs under ThreadSanitizer): takes, frees in the
// thread's own and other threads' bins, size() and shrink() meanwhile. A
// side table of per-chunk flags proves no chunk is handed out twice at a
// time; the table uses relaxed atomics only, so that it adds no
// synchronisation that could hide a race in the layer from TSan.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#if !defined(_WIN32)
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <catch2/catch.hpp>

#include <travpool/detail/bin_locks/concurrent_bins.hpp>

#include "../bins_test_util.hpp"

namespace {

using namespace travpool::test;  // td, chunk, algo_of, listed

template <class Bins>
void free_chunk(Bins& s, const chunk& c) {
  const bool r = s.locked(*c.first, [&] {
    s.free_chunk(*c.first, c.second);
    return true;
  });
  REQUIRE(r);
}

template <class Bins>
void validate(const Bins& s) {
  REQUIRE(s.check_lists() == nullptr);
  REQUIRE_NOTHROW(td::validate_bins<typename Bins::ops>(s, s.size()));
}

// Per-chunk "handed out" flags keyed by (bin, index): open addressing over
// bin addresses, lock-free, relaxed. Bins are reused at the same address
// after retirement, which keeps their slot.
template <std::uint32_t Cap>
class chunk_flags {
 public:
  // Returns: the flag of chunk i of bin b.
  std::atomic<std::uint8_t>& at(const td::bin_base* b, std::uint32_t i) {
    auto h = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(b) >> 16);
    for (std::size_t probe = 0; probe < slots; ++probe) {
      slot& s = table_[(h + probe) % slots];
      const td::bin_base* key = s.key.load(std::memory_order_relaxed);
      if (key == nullptr && s.key.compare_exchange_strong(key, b, std::memory_order_relaxed)) return s.held[i];
      if (key == b) return s.held[i];
    }
    std::abort();  // more bins than the table holds
  }
  // Returns: the number of flags set.
  std::size_t count() const {
    std::size_t n = 0;
    for (std::size_t k = 0; k < slots; ++k)
      for (const auto& f : table_[k].held) n += f.load(std::memory_order_relaxed);
    return n;
  }

 private:
  static constexpr std::size_t slots = 4096;
  struct slot {
    std::atomic<const td::bin_base*> key{nullptr};
    std::atomic<std::uint8_t> held[Cap + 4] = {};
  };
  std::unique_ptr<slot[]> table_ = std::make_unique<slot[]>(slots);
};

// What a thread writes into a chunk it was handed (plain stores, as a
// payload's constructor would), and checks before freeing it.
struct item {
  td::bin_base* bin;
  std::uint32_t index;
  std::uint64_t tag;
};
template <class Bins>
void write_payload(const item& it) {
  const std::uint64_t words[2] = {it.tag, ~it.tag};
  std::memcpy(Bins::ops::payload(*it.bin, it.index), words, sizeof words);
}
template <class Bins>
bool payload_intact(const item& it) {
  std::uint64_t words[2];
  std::memcpy(words, Bins::ops::payload(*it.bin, it.index), sizeof words);
  return words[0] == it.tag && words[1] == ~it.tag;
}

struct counters {
  std::atomic<std::uint64_t> takes{0}, frees{0}, foreign_frees{0}, untakes{0};
  std::atomic<std::uint64_t> double_hand_outs{0}, corrupt_payloads{0}, bad_size{0}, bad_locked{0};
  std::atomic<std::uint64_t> size_calls{0}, shrinks{0}, reserves{0};
};

template <class Storage, bool Checked, std::uint32_t Cap>
void stress(unsigned threads, int ops_per_thread) {
  using Bins = td::concurrent_bins<Storage, Checked>;
  Bins bins(Cap);
  chunk_flags<Cap> flags;
  counters n;
  std::mutex queue_mutex;
  std::deque<item> queue;  // chunks handed from one thread to another
  std::vector<std::vector<item>> held(threads);
  std::atomic<bool> stop{false};
  std::atomic<unsigned> rounds{0};  // janitor iterations

  auto release = [&](const item& it) {
    if (!payload_intact<Bins>(it)) n.corrupt_payloads.fetch_add(1, std::memory_order_relaxed);
    flags.at(it.bin, it.index).store(0, std::memory_order_relaxed);
    const bool ok = bins.locked(*it.bin, [&] {
      bins.free_chunk(*it.bin, it.index);
      return true;
    });
    if (!ok) n.bad_locked.fetch_add(1, std::memory_order_relaxed);
    n.frees.fetch_add(1, std::memory_order_relaxed);
  };

  auto worker = [&](unsigned t) {
    std::mt19937_64 rng(1234 + t);
    auto& mine = held[t];
    for (int op = 0; op < ops_per_thread; ++op) {
      // Let the janitor make progress while the workers are mid-run (a
      // relaxed flag: no synchronisation for TSan to rely on).
      if (op % 64 == 63)
        while (rounds.load(std::memory_order_relaxed) < static_cast<unsigned>(op / 64)) std::this_thread::yield();
      const unsigned r = static_cast<unsigned>(rng() % 100);
      if (r < 48 || mine.empty()) {
        n.takes.fetch_add(1, std::memory_order_relaxed);  // before: size() never exceeds it
        const td::taken t0 = bins.take();
        if (flags.at(t0.bin, t0.index).exchange(1, std::memory_order_relaxed) != 0)
          n.double_hand_outs.fetch_add(1, std::memory_order_relaxed);
        const item it{t0.bin, t0.index, rng()};
        write_payload<Bins>(it);
        if (r % 16 == 0) {  // the payload's constructor threw
          flags.at(it.bin, it.index).store(0, std::memory_order_relaxed);
          bins.untake(t0);
          n.untakes.fetch_add(1, std::memory_order_relaxed);
        } else if (r % 3 == 0) {
          std::lock_guard<std::mutex> g(queue_mutex);
          queue.push_back(it);
        } else {
          mine.push_back(it);
        }
      } else if (r < 85) {
        const std::size_t k = rng() % mine.size();
        release(mine[k]);
        mine[k] = mine.back();
        mine.pop_back();
      } else {
        item it;
        {
          std::lock_guard<std::mutex> g(queue_mutex);
          if (queue.empty()) continue;
          it = queue.front();
          queue.pop_front();
        }
        release(it);
        n.foreign_frees.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };

  // Counts, shrinks and reserves while the workers run.
  auto janitor = [&] {
    for (unsigned k = 0; !stop.load(std::memory_order_relaxed); ++k) {
      const std::size_t size = bins.size();
      if (size > n.takes.load(std::memory_order_relaxed)) n.bad_size.fetch_add(1, std::memory_order_relaxed);
      n.size_calls.fetch_add(1, std::memory_order_relaxed);
      if (k % 2 == 0) {
        bins.shrink();
        n.shrinks.fetch_add(1, std::memory_order_relaxed);
      }
      if (k % 8 == 3) {
        bins.reserve(bins.bin_count() * Cap + 1);  // one more bin: reuses a retired one if any
        n.reserves.fetch_add(1, std::memory_order_relaxed);
      }
      rounds.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::yield();
    }
  };

  std::thread side(janitor);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& th : pool) th.join();
  stop.store(true);
  side.join();

  CHECK(n.double_hand_outs == 0);
  CHECK(n.corrupt_payloads == 0);
  CHECK(n.bad_size == 0);
  CHECK(n.bad_locked == 0);
  CHECK(n.foreign_frees > 0);
  CHECK(n.untakes > 0);
  CHECK(n.size_calls + 1 >= static_cast<unsigned>(ops_per_thread / 64));
  CHECK(n.shrinks > 0);
  CHECK(n.reserves > 0);

  // Quiescent: what the threads still hold is exactly what is live.
  std::vector<item> all;
  for (auto& v : held) all.insert(all.end(), v.begin(), v.end());
  all.insert(all.end(), queue.begin(), queue.end());
  CHECK(bins.size() == all.size());
  CHECK(flags.count() == all.size());
  CHECK(n.takes - n.untakes - n.frees == all.size());
  std::set<chunk> distinct;
  for (const item& it : all) {
    REQUIRE(algo_of<Bins>::is_live(*it.bin, it.index));
    REQUIRE(bins.find(it.bin) == it.bin);
    REQUIRE(payload_intact<Bins>(it));
    distinct.insert({it.bin, it.index});
  }
  CHECK(distinct.size() == all.size());
  validate(bins);
  // Checked: every change of a bin made its count odd, then even again.
  // Unchecked bins never pay for it.
  std::uint64_t changes = 0;
  for (const td::bin_base* b : listed(bins)) {
    const std::uint32_t mods = b->mods_.load();
    CHECK(mods % 2 == 0);
    changes += mods;
  }
  if (Checked)
    CHECK(changes > 0);
  else
    CHECK(changes == 0);

  // The main thread frees everything, in the workers' (claimed, biased) bins.
  for (const item& it : all) release(it);
  CHECK(n.corrupt_payloads == 0);
  CHECK(bins.size() == 0);
  CHECK(flags.count() == 0);
  validate(bins);
  bins.shrink();
  CHECK(bins.bin_count() == 0);
  validate(bins);
  bins.release_all(nullptr);
  WARN(threads << " threads: " << n.takes << " takes, " << n.frees << " frees (" << n.foreign_frees << " handed over), "
               << n.untakes << " untakes; " << n.size_calls << " size(), " << n.shrinks << " shrink(), " << n.reserves
               << " reserve() meanwhile");
}

}  // namespace

using compact_shared = td::bin_storage<td::compact_layout<16, 8>, td::no_stats, true>;
using interleaved_shared = td::bin_storage<td::interleaved_layout<16, 8>, td::no_stats, true>;
using counting_shared = td::bin_storage<td::compact_layout<16, 8>, td::counting_stats, true>;

TEMPLATE_TEST_CASE("concurrent_bins on one thread: claims, leaving a full bin, retiring and reusing bins",
                   "[acquire][concurrent]", (td::concurrent_bins<compact_shared, true>),
                   (td::concurrent_bins<compact_shared, false>)) {
  constexpr std::uint32_t cap = 4;
  TestType s(cap);
  const std::uint32_t me = td::thread_number();
  std::set<chunk> model;

  const td::taken t = s.take();
  CHECK(t.new_bin);
  td::bin_base* b0 = t.bin;
  CHECK(b0->claim_.load() == me);  // the creating thread claims its bin
  model.insert({t.bin, t.index});
  for (std::uint32_t k = 1; k < cap; ++k) {
    const td::taken u = s.take();
    CHECK(u.bin == b0);
    CHECK_FALSE(u.new_bin);
    model.insert({u.bin, u.index});
  }
  CHECK(b0->full());
  CHECK(s.size() == cap);
  validate(s);

  // A full bin is left: its claim goes, the thread claims a new one.
  const td::taken u = s.take();
  CHECK(u.new_bin);
  td::bin_base* b1 = u.bin;
  CHECK(b1 != b0);
  CHECK(b0->claim_.load() == 0);
  CHECK(b1->claim_.load() == me);
  model.insert({u.bin, u.index});
  CHECK(listed(s) == std::vector<td::bin_base*>{b0, b1});

  // Empty b1; shrink retires it: off the list and the directory, still mapped.
  free_chunk(s, {b1, u.index});
  model.erase({b1, u.index});
  free_chunk(s, {b0, 3});
  model.erase({b0, 3});
  s.shrink();
  CHECK(listed(s) == std::vector<td::bin_base*>{b0});
  CHECK(s.bin_count() == 1);
  CHECK(b1->retired_);
  CHECK(b1->claim_.load() == 0);
  CHECK(b1->lock_.biased_to() == 0);
  CHECK(s.find(b1) == nullptr);
  CHECK(b1->capacity_ == cap);  // the header stays readable
  validate(s);

  // The next take finds the free chunk in b0 (unclaimed now); the one after
  // that reuses the retired bin, at the same address.
  const td::taken v = s.take();
  CHECK(v.bin == b0);
  CHECK(v.index == 3);
  model.insert({v.bin, v.index});
  const td::taken w = s.take();
  CHECK(w.bin == b1);
  CHECK(w.new_bin);
  CHECK_FALSE(b1->retired_);
  CHECK(s.find(b1) == b1);
  CHECK(w.index == td::first_user_chunk);  // reinitialised
  validate(s);

  // Untaking the only chunk of a new bin retires it again.
  s.untake(w);
  CHECK(b1->retired_);
  CHECK(s.bin_count() == 1);
  validate(s);

  // reserve takes retired bins first.
  s.reserve(2 * cap);
  CHECK(listed(s) == std::vector<td::bin_base*>{b0, b1});
  CHECK_FALSE(b1->retired_);
  s.reserve(3 * cap);
  CHECK(s.bin_count() == 3);
  validate(s);
  CHECK(s.size() == model.size());
  for (const chunk& c : model) CHECK(algo_of<TestType>::is_live(*c.first, c.second));

  // clear(d): d once per live chunk; every bin empty, none given back.
  std::set<chunk> destroyed;
  s.clear([&](td::bin_base& b, std::uint32_t i) { destroyed.insert({&b, i}); });
  CHECK(destroyed == model);
  CHECK(s.size() == 0);
  CHECK(s.bin_count() == 3);
  validate(s);
  s.shrink();
  CHECK(s.bin_count() == 0);
  validate(s);
  s.release_all(nullptr);  // unmaps the retired bins too
  CHECK(s.bin_count() == 0);
}

TEMPLATE_TEST_CASE("concurrent_bins: a refilling thread prefers, of the bins with room, those it claimed last",
                   "[acquire][concurrent]", (td::concurrent_bins<compact_shared, true>),
                   (td::concurrent_bins<compact_shared, false>)) {
  // Each thread's elements then stay in bins of its own, so that its
  // destroys run in bins biased to it (docs/threads.md, churn).
  constexpr std::uint32_t cap = 64;
  TestType s(cap);
  const std::uint32_t me = td::thread_number();
  // Another thread fills bin h and exits (its claim goes, h stays full).
  std::vector<chunk> in_h;
  std::thread([&] {
    for (std::uint32_t k = 0; k < cap; ++k) {
      const td::taken t = s.take();
      in_h.push_back({t.bin, t.index});
    }
  }).join();
  td::bin_base* h = in_h.front().first;
  REQUIRE(std::all_of(in_h.begin(), in_h.end(), [&](const chunk& c) { return c.first == h; }));
  CHECK(h->claim_.load() == 0);
  CHECK(h->last_claim_.load() != me);
  // This thread fills m, then m2 (leaving m), and m2 stays its claim.
  std::vector<chunk> in_m;
  for (std::uint32_t k = 0; k < 2 * cap; ++k) {
    const td::taken t = s.take();
    CHECK(t.bin != h);
    if (k < cap) in_m.push_back({t.bin, t.index});
  }
  td::bin_base* m = in_m.front().first;
  CHECK(m->claim_.load() == 0);
  CHECK(m->last_claim_.load() == me);
  // A third thread (it takes nothing) frees 4 chunks of h and 8 of m: h is
  // the fuller bin.
  std::thread([&] {
    for (int k = 0; k < 4; ++k) free_chunk(s, in_h[static_cast<std::size_t>(k)]);
    for (int k = 0; k < 8; ++k) free_chunk(s, in_m[static_cast<std::size_t>(k)]);
  }).join();
  validate(s);
  // Leaving the full m2, this thread refills from m, its own, not from the
  // fuller h; once m is full again, from h.
  for (int k = 0; k < 8; ++k) CHECK(s.take().bin == m);
  CHECK(s.take().bin == h);
  CHECK(h->last_claim_.load() == me);
  validate(s);
  s.release_all(nullptr);
}

// Checked: a change of a bin's chunks outside its lock and biased section
// breaks the layer's lock contract, which aborts (tried in a child
// process); the same free under locked() succeeds.
TEST_CASE("concurrent_bins, checked: freeing a chunk without the bin's lock aborts", "[acquire][concurrent]") {
  td::concurrent_bins<compact_shared, true> s(4);
  const td::taken t = s.take();
  // Biased to this thread where biasing is on, but not inside the section.
  if (td::biasing_enabled()) REQUIRE(t.bin->lock_.biased_to() == td::thread_number());
#if defined(_WIN32)
  WARN("the abort in a child process skipped: no fork() on Windows");
#else
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);           // not Catch's handler
    std::freopen("/dev/null", "w", stderr);  // the report is expected
    s.free_chunk(*t.bin, t.index);
    std::_Exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
#endif
  s.locked(*t.bin, [&] {
    s.free_chunk(*t.bin, t.index);
    return 0;
  });
  CHECK(s.size() == 0);
  validate(s);
  s.release_all(nullptr);
}

TEST_CASE("concurrent_bins under threads, checked: no chunk is handed out twice", "[acquire][concurrent][threads]") {
  stress<compact_shared, true, 16>(3, 60000);
}

TEST_CASE("concurrent_bins under threads, unchecked", "[acquire][concurrent][threads]") {
  stress<interleaved_shared, false, 16>(3, 60000);
}

// counting_stats' pool-wide hook object is shared by every thread: its
// on_create must not write when concurrent_bins passes live = 0 (TSan).
TEST_CASE("concurrent_bins under threads with counting_stats", "[acquire][concurrent][threads][counting_stats]") {
  stress<counting_shared, true, 8>(4, 10000);
}
