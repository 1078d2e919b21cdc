// travpool/detail/bin_locks/bin_lock.hpp: the locks of sync::bin_locks
// (the paper's section 4): thread numbers, an owner-tagged spin lock, and
// the bin lock biased to its claiming thread. Lock order: docs/design.md,
// "Locks and their order".
//
// DESIGN NOTE
// ===========
// A bin_lock is a spin_lock plus a bias: the thread it is biased to enters
// and leaves its critical section with plain stores (no locked
// instruction); any other thread revokes the bias first (an asymmetric
// Dekker handshake over membarrier(2), described at bin_lock below).
// Invariants (t = a thread number, never 0 and never reused):
//   spin_lock: owner_ = t  <=>  t holds it;  owner_ = 0  <=>  free
//   bias_ = t != 0  =>  only t writes in_cs_;  bias_ is written under the lock
//   t inside its biased section  =>  in_cs_ = 1, and bias_ = t was read
//                                    after in_cs_ := 1
//   revoke() returned  =>  bias_ = 0 and in_cs_ = 0 (the former owner is
//                          out of its section and takes the lock next time)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "../../config.hpp"
#include "../../usage_error.hpp"
#include "../platform.hpp"

namespace travpool::detail {

// One step of a wait that expects to be short: spins for the first 64
// steps, then yields the CPU.
inline void backoff(unsigned step) noexcept {
  if (step < 64)
    cpu_relax();
  else
    std::this_thread::yield();
}

// A number for the calling thread, never 0 and never reused in the process
// (a thread that exits does not hand its number to a new one).
inline std::uint32_t thread_number() noexcept {
  static std::atomic<std::uint32_t> next{1};
  thread_local std::uint32_t number = 0;  // constant-initialised: no TLS guard
  if (number == 0) [[unlikely]] {
    number = next.fetch_add(1, std::memory_order_relaxed);
    if (number == 0) std::abort();  // 2^32 threads: numbers would repeat, and biased locks rely on them
  }
  return number;
}

// A plain lock word that holds its owner's thread_number, so that a thread
// that would wait for a lock it holds itself (a destructor destroying an
// element of its own bin) gets usage_error instead of a hang. try_lock is
// one CAS when free; unlock is a plain release store. Bins are held for a
// few nanoseconds and rarely contended (threads allocate in different
// bins), so waiting spins, then yields.
class spin_lock {
 public:
  bool try_lock() noexcept {
    std::uint32_t expected = 0;
    return owner_.compare_exchange_strong(expected, thread_number(), std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }
  // Throws: usage_error if the calling thread holds this lock already.
  void lock() {
    const std::uint32_t me = thread_number();
    for (unsigned spins = 0;; ++spins) {
      std::uint32_t expected = 0;
      if (owner_.compare_exchange_weak(expected, me, std::memory_order_acquire, std::memory_order_relaxed)) return;
      if (expected == me) throw_reentrant();
      backoff(spins);
    }
  }
  void unlock() noexcept { owner_.store(0, std::memory_order_release); }
  bool held_by(std::uint32_t me) const noexcept { return owner_.load(std::memory_order_relaxed) == me; }

  [[noreturn]] static void throw_reentrant() {
    throw usage_error(
        "travpool: re-entrant call into a concurrent_pool bin this thread has locked (a destructor that "
        "destroys or inspects elements of its own pool)");
  }

 private:
  std::atomic<std::uint32_t> owner_{0};
};

// The process-wide heavy barrier for biased bin locks: membarrier(2)'s
// private expedited command, which runs a full memory barrier on every CPU
// that runs a thread of this process before it returns. Returns false (and
// bins are never biased) where the kernel lacks it, or when the environment
// sets TRAVPOOL_BIASED_LOCKS=0.
inline std::atomic<bool>& biasing_switch() noexcept {
  static std::atomic<bool> on{!env_starts_with("TRAVPOOL_BIASED_LOCKS", '0') && membarrier_register()};
  return on;
}
inline bool biasing_enabled() noexcept { return biasing_switch().load(std::memory_order_relaxed); }
// Aborts if the barrier fails after registration succeeded: revoking
// without it could corrupt a bin.
inline void heavy_barrier() noexcept { membarrier_all(); }

class bin_lock;

// The biased sections the calling thread is inside (innermost first), kept
// on the C++ stack by section_scope, so that a lock() from inside one of them
// (a destructor run by destroy that touches its own bin) is caught even
// while another thread is revoking the bias.
struct section_frame {
  const bin_lock* lock;
  section_frame* prev;
};
inline section_frame*& section_top() noexcept {
  thread_local section_frame* top = nullptr;
  return top;
}
// The bins the calling thread changes without their lock because its
// caller promised a quiescent pool (quiescent_scope), innermost first.
inline section_frame*& quiescent_top() noexcept {
  thread_local section_frame* top = nullptr;
  return top;
}

// A bin's lock (the paper's per-bin mutex), biased towards the thread that
// claims the bin, so that this thread's creates and destroys in it take no
// locked instruction: on x86 an uncontended CAS costs more than the whole
// of pool<T>::create.
//
//   any thread      lock() / try_lock() / unlock(): the mutex. If the bin is
//                   biased to another thread, the bias is revoked first.
//   owning thread   enter(me) ... leave(): while the bin is biased to `me`,
//                   a critical section made of two plain stores and a load.
//
// Revocation is an asymmetric Dekker handshake (the use membarrier(2) was
// made for). The owner stores in_cs_ = 1, then loads bias_; the revoker
// stores bias_ = 0, runs heavy_barrier(), then waits for in_cs_ == 0. The
// barrier runs a full fence on the owner's CPU, so either the owner sees
// bias_ == 0 and takes the mutex instead, or the revoker sees in_cs_ == 1
// and waits for the owner's release store of 0, which orders the owner's
// section before the revoker's. Only the claiming thread ever writes in_cs_:
// bias_ is 0 or the bin's claimant, and the claim changes hands only under
// the mutex, from a claimant that is not inside a section.
//
// Rebiasing: an owner that lost its bias takes the mutex; after `cooldown`
// such operations it biases the bin again. Every revocation doubles the
// cooldown (64 to 2^15 operations), so that a bin that another thread keeps
// destroying in (a producer-consumer pair) pays a heavy barrier once per
// tens of thousands of operations, and otherwise runs on the mutex.
class bin_lock {
 public:
  bool try_lock() noexcept {
    if (inside_section() || !word_.try_lock()) return false;
    if (revoke()) return true;
    word_.unlock();  // a re-entrant call from inside this thread's own section
    return false;
  }
  // Throws: usage_error if the calling thread holds this lock, or is inside
  // a biased section of this bin, already.
  void lock() {
    if (inside_section()) spin_lock::throw_reentrant();
    word_.lock();
    if (!revoke()) {
      word_.unlock();
      spin_lock::throw_reentrant();
    }
  }
  void unlock() noexcept { word_.unlock(); }

  // Owner's entry. Returns: true if the bin is biased to `me` (the calling
  // thread's number); the caller is then inside the section and must call
  // leave(). false: the caller must take the mutex.
  // Throws: usage_error if the caller is inside this bin's section already
  // (a destructor that destroys an element of its own bin).
  bool enter(std::uint32_t me) {
    if (bias_.load(std::memory_order_relaxed) != me) return false;
    // Inside this bin's section, or holding its lock (a destructor run by
    // a locked destroy or clear), already.
    if (in_cs_.load(std::memory_order_relaxed) != 0 || word_.held_by(me)) spin_lock::throw_reentrant();
    in_cs_.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the revoker's heavy_barrier() fences the CPU
    if (bias_.load(std::memory_order_relaxed) == me) return true;
    in_cs_.store(0, std::memory_order_release);
    return false;
  }
  void leave() noexcept { in_cs_.store(0, std::memory_order_release); }

  // Requires: the mutex, held by `me`, the bin's claimant or (no claimant)
  // a thread that destroys in it.
  // Effects: counts one operation under the mutex; biases the bin to `me`
  // once the cooldown has passed.
  void settle(std::uint32_t me) noexcept {
    if (bias_.load(std::memory_order_relaxed) == me || !biasing_enabled()) return;
    const std::uint32_t cooldown = cool_shift_ == 0 ? 0 : std::uint32_t{1} << cool_shift_;
    if (std::uint32_t{settled_} < cooldown) {
      ++settled_;
      return;
    }
    settled_ = 0;
    bias_.store(me, std::memory_order_relaxed);
  }
  // Requires: the mutex (so the bias is 0 or the caller's own).
  // Effects: the bin is biased to nobody (its claim is being given up).
  void unbias() noexcept { bias_.store(0, std::memory_order_relaxed); }
  std::uint32_t biased_to() const noexcept { return bias_.load(std::memory_order_relaxed); }

  // Returns: whether the calling thread may change the bin now: it holds
  // the mutex, or is inside the bin's biased section as recorded by a
  // section_scope (bias_ alone cannot say: a revoker clears it while the
  // owner is still inside, and waits for it to leave), or changes it under
  // a quiescent_scope.
  bool held_by_caller() const noexcept {
    if (word_.held_by(thread_number()) || inside_section()) return true;
    for (const section_frame* f = quiescent_top(); f != nullptr; f = f->prev)
      if (f->lock == this) return true;
    return false;
  }

  // Returns: true if the calling thread is inside this bin's biased section
  // (recorded by a section_scope).
  bool inside_section() const noexcept {
    for (const section_frame* f = section_top(); f != nullptr; f = f->prev)
      if (f->lock == this) return true;
    return false;
  }

 private:
  // Requires: the mutex. Effects: revokes a bias to another thread.
  // Returns: false if the bias is the caller's own and the caller is inside
  // its section (re-entrance), else true.
  bool revoke() noexcept {
    const std::uint32_t owner = bias_.load(std::memory_order_relaxed);
    if (owner == 0) return true;
    if (owner == thread_number()) return in_cs_.load(std::memory_order_relaxed) == 0;
    bias_.store(0, std::memory_order_relaxed);
    heavy_barrier();
    for (unsigned spins = 0; in_cs_.load(std::memory_order_acquire) != 0; ++spins) backoff(spins);
    cool_shift_ = static_cast<std::uint8_t>(cool_shift_ == 0 ? 6 : cool_shift_ < 15 ? cool_shift_ + 1 : 15);
    settled_ = 0;
    return true;
  }

  spin_lock word_;                      // the mutex
  std::atomic<std::uint32_t> bias_{0};  // thread_number of the owner, or 0
  std::atomic<std::uint8_t> in_cs_{0};  // the owner is inside its section
  std::uint8_t cool_shift_ = 0;         // cooldown 2^cool_shift_ (0: none); under the mutex
  std::uint16_t settled_ = 0;           // owner's operations since the bias was lost; likewise
};

// Records, for the lifetime of the scope, that the calling thread changes
// the bin of `lock` without taking it, because the operation requires a
// quiescent pool (erase): the lock contract check accepts the change. It
// is not a biased section: a ~T run meanwhile may still lock the bin.
class quiescent_scope {
 public:
  explicit quiescent_scope(const bin_lock& lock) noexcept : frame_{&lock, quiescent_top()} {
    quiescent_top() = &frame_;
  }
  ~quiescent_scope() { quiescent_top() = frame_.prev; }
  quiescent_scope(const quiescent_scope&) = delete;
  quiescent_scope& operator=(const quiescent_scope&) = delete;

 private:
  section_frame frame_;
};

// A "Requires: the bin's lock" of travpool's own code found broken (checked
// under checks::on): a bug in travpool, not misuse, so it reports `what`
// and aborts rather than throw through a noexcept path.
[[noreturn, gnu::cold, gnu::noinline]] inline void lock_contract_violated(const char* what) noexcept {
  std::fprintf(stderr, "travpool: internal error: %s without holding the bin's lock\n", what);
  std::abort();
}

// Records, for the lifetime of the scope, that the calling thread is inside
// the biased section of `lock` (used around code that runs destructors).
class section_scope {
 public:
  explicit section_scope(const bin_lock& lock) noexcept : frame_{&lock, section_top()} { section_top() = &frame_; }
  ~section_scope() { section_top() = frame_.prev; }
  section_scope(const section_scope&) = delete;
  section_scope& operator=(const section_scope&) = delete;

 private:
  section_frame frame_;
};

}  // namespace travpool::detail
