// The biased bin lock on its own (detail/bin_locks/bin_lock.hpp): when a
// bin is biased again after a revocation. An owner thread (an agent that
// runs the steps it is given, so that it keeps its thread number and its
// section record) settles under the mutex and enters biased sections; the
// test thread revokes. Each case counts the owner's operations under the
// mutex until the bias is back, which the design note fixes exactly:
// cooldown + 1 (the cooldown's operations, then the one that is biased).
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include <travpool/detail/bin_locks/bin_lock.hpp>

namespace {

namespace td = travpool::detail;

// A thread that runs one step at a time, each to its end before run()
// returns.
class agent {
 public:
  agent() : thread_([this] { loop(); }) {}
  ~agent() {
    run(nullptr);
    thread_.join();
  }
  agent(const agent&) = delete;
  agent& operator=(const agent&) = delete;

  // Effects: runs f on the agent's thread (nullptr: the agent exits).
  void run(std::function<void()> f) {
    std::unique_lock g(m_);
    step_ = std::move(f);
    exit_ = !step_;
    pending_ = true;
    cv_.notify_all();
    cv_.wait(g, [this] { return !pending_; });
  }

 private:
  void loop() {
    for (;;) {
      std::unique_lock g(m_);
      cv_.wait(g, [this] { return pending_; });
      if (exit_) {
        pending_ = false;
        cv_.notify_all();
        return;
      }
      step_();
      pending_ = false;
      cv_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::function<void()> step_;
  bool pending_ = false;
  bool exit_ = false;
  std::thread thread_;
};

// On the owner's thread: one operation under the mutex (a destroy in a bin
// it does not hold the bias of).
void settle_once(td::bin_lock& l) {
  std::lock_guard<td::bin_lock> g(l);
  l.settle();
}

// On the owner's thread. Returns: how many operations under the mutex it
// took until the bin was biased to this thread (0 if it was already).
unsigned settles_until_biased(td::bin_lock& l) {
  const std::uint32_t me = td::thread_number();
  unsigned n = 0;
  while (l.biased_to() != me && n < 100000) {
    settle_once(l);
    ++n;
  }
  return n;
}

// On the owner's thread: n biased sections (as n creates in its bin).
// Returns: how many of them were entered (the test thread checks: a Catch2
// assertion that failed here would end the agent's thread, not the case).
unsigned enter_sections(td::bin_lock& l, unsigned n) {
  unsigned entered = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (td::section_record* r = l.enter(*td::current_thread_state())) {
      ++entered;
      l.leave(*r);
    }
  }
  return entered;
}

// On the test thread: takes and drops the mutex, revoking the owner's bias.
void revoke(td::bin_lock& l) {
  l.lock();
  l.unlock();
  REQUIRE(l.biased_to() == 0);
}

}  // namespace

TEST_CASE("bin_lock: the cooldown doubles for a revocation soon after the bias, restarts after a calm one",
          "[concurrent][biased]") {
  if (!td::biasing_enabled()) {
    WARN("skipped: membarrier(2) unavailable or TRAVPOOL_BIASED_LOCKS=0");
    return;
  }
  constexpr unsigned calm = 1u << 14;
  td::bin_lock l;
  agent owner;
  unsigned n = 0;
  const auto until_biased = [&] { owner.run([&] { n = settles_until_biased(l); }); };
  const auto sections = [&](unsigned k) {
    unsigned entered = 0;
    owner.run([&] { entered = enter_sections(l, k); });
    REQUIRE(entered == k);
  };

  // Never revoked: the first operation under the mutex biases the bin.
  until_biased();
  CHECK(n == 1);
  // Revoked: 64 operations under the mutex, then the 65th is biased.
  revoke(l);
  until_biased();
  CHECK(n == 65);
  // Revoked again at once: the cooldown doubles, each time, up to 2^15.
  unsigned cooldown = 64;
  for (int k = 0; k < 10; ++k) {
    revoke(l);
    cooldown = cooldown < (1u << 15) ? 2 * cooldown : cooldown;
    until_biased();
    CHECK(n == cooldown + 1);
  }
  CHECK(cooldown == (1u << 15));
  // A revocation after calm sections less one, counted from the bias: still
  // soon, the cooldown stays at its cap.
  sections(calm - 1);
  revoke(l);
  until_biased();
  CHECK(n == cooldown + 1);
  // After calm sections: the contention has passed, the cooldown restarts.
  sections(calm);
  revoke(l);
  until_biased();
  CHECK(n == 65);
  // A claim given up is not a revocation: the served cooldown stands.
  std::uint32_t after_unbias = 1;
  owner.run([&] {
    {
      std::lock_guard<td::bin_lock> g(l);
      l.unbias();
    }
    after_unbias = l.biased_to();
    n = settles_until_biased(l);
  });
  CHECK(after_unbias == 0);
  CHECK(n == 1);
  // And it doubles again from there when the next revocation comes soon.
  sections(100);
  revoke(l);
  until_biased();
  CHECK(n == 129);
  // The count saturates: a tenure past 2^16 sections is still calm.
  sections(70000);
  revoke(l);
  until_biased();
  CHECK(n == 65);
}
