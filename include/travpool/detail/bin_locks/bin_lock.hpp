// travpool/detail/bin_locks/bin_lock.hpp: the locks of sync::bin_locks
// (the paper's section 4): thread numbers, an owner-tagged spin lock, the
// section records that say which biased sections a thread is inside, and
// the bin lock biased to its claiming thread. Lock order: docs/design.md,
// "Locks and their order".
//
// DESIGN NOTE
// ===========
// A bin_lock is a spin_lock plus a bias: the thread it is biased to enters
// and leaves its critical section with plain stores (no locked
// instruction); any other thread revokes the bias first (an asymmetric
// Dekker handshake over membarrier(2), described at bin_lock below).
// The owner's side of the handshake is a slot of the owner's own section
// record, not a flag in the bin: a thread that lost the bias between its
// two loads of bias_ may still be about to store, and a flag in the bin
// would then be written by two threads (the former owner clearing it while
// the next owner is inside). A record is written only by the thread that
// holds it, and a bias names a record.
// Invariants (t = a thread number, never 0 and never reused; r = a record
// index, never 0; R(r) = the record):
//   spin_lock: owner_ = t  <=>  t holds it;  owner_ = 0  <=>  free
//   R(r) is held by at most one thread; only its holder writes it, and it
//     changes hands only at thread exit (when no section is open), under
//     the record table's mutex
//   bias_ = r != 0  =>  only the holder of R(r) enters b without the mutex;
//                       bias_ is written under the mutex
//   a thread inside b's biased section  =>  &b is in an inside[] slot of
//     its record, stored before its second load of bias_ read r
//   revoke() returned  =>  bias_ = 0 and no slot of R(r) holds &b (the
//     former owner is out of its section and takes the mutex next time)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "../../config.hpp"
#include "../../usage_error.hpp"
#include "../platform.hpp"
#include "remembered_bins.hpp"

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
  bool try_lock() noexcept { return try_lock_as(thread_number()); }
  // As try_lock, for the calling thread, whose thread_number is `me` (its
  // exit, which reads no thread_local).
  bool try_lock_as(std::uint32_t me) noexcept {
    std::uint32_t expected = 0;
    return owner_.compare_exchange_strong(expected, me, std::memory_order_acquire, std::memory_order_relaxed);
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

// The bins the calling thread changes without their lock because its
// caller promised a quiescent pool (quiescent_scope), innermost first, on
// the C++ stack.
struct section_frame {
  const bin_lock* lock;
  section_frame* prev;
};
inline section_frame*& quiescent_top() noexcept {
  thread_local section_frame* top = nullptr;
  return top;
}

// ---------------------------------------------------------------------------
// Section records
// ---------------------------------------------------------------------------

// The biased sections a thread is inside, for revokers to wait on: inside[]
// holds the bins' locks, innermost at depth - 1, the rest null. Written only
// by its holder (slots with release stores); read by revokers. Sections
// nest when a ~T run in one destroys in another bin; past depth_max, bins
// are entered through their mutex instead.
struct alignas(64) section_record {
  static constexpr std::uint32_t depth_max = 4;
  std::atomic<const bin_lock*> inside[depth_max] = {};
  std::uint32_t depth = 0;               // holder only
  std::atomic<std::uint32_t> holder{0};  // the holder's thread_number; 0: free

  bool holds(const bin_lock* l) const noexcept {
    for (std::uint32_t k = 0; k < depth; ++k)
      if (inside[k].load(std::memory_order_relaxed) == l) return true;
    return false;
  }
};

// The process-wide table of section records, by index (1, 2, ...). A
// record is taken by a thread the first time it may be biased, and given
// back when the thread exits, for another thread to take: a bin still
// biased to it is then biased to that thread, which is safe (one holder at
// a time, and the exiting thread's sections happen before, through the
// table's mutex). Records are never freed, so a revoker may read any.
class section_records {
 public:
  static constexpr std::uint32_t block_size = 256;
  static constexpr std::uint32_t block_count = 4096;  // 2^20 records

  // Never destroyed: threads may exit after static destruction has begun.
  static section_records& instance() noexcept {
    return fork_safe_instance<&section_records::mutex_>([](void* at) { return ::new (at) section_records(); });
  }

  // Returns: the index of a record now held by thread `me`, or 0 (out of
  // memory, or 2^20 threads hold one).
  std::uint32_t acquire(std::uint32_t me) noexcept {
    std::lock_guard<std::mutex> g(mutex_);
    std::uint32_t index = 0;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (made_ == block_size * block_count) return 0;
      if (made_ % block_size == 0) {
        section_record* block = new (std::nothrow) section_record[block_size];
        if (block == nullptr) return 0;
        blocks_[made_ / block_size].store(block, std::memory_order_release);
      }
      index = ++made_;
    }
    at(index).holder.store(me, std::memory_order_relaxed);
    return index;
  }
  // Requires: the caller holds record `index` and is inside no section.
  // Effects: the record is free, for the next thread that needs one.
  void release(std::uint32_t index) noexcept {
    at(index).holder.store(0, std::memory_order_relaxed);
    std::lock_guard<std::mutex> g(mutex_);
    try {
      free_.push_back(index);
    } catch (...) {  // lost to reuse; stays valid for revokers
    }
  }
  // Requires: index came from acquire(), ordered before this call (a bias
  // read under its bin's lock, or the caller's own record).
  section_record& at(std::uint32_t index) const noexcept { return *find(index); }
  // Returns: the thread_number of the holder of record `index` (a bias
  // read without the bin's lock), 0 if none or not yet visible here.
  std::uint32_t holder_of(std::uint32_t index) const noexcept {
    const section_record* r = find(index);
    return r == nullptr ? 0 : r->holder.load(std::memory_order_relaxed);
  }

 private:
  friend struct test_access;
  section_records() = default;
  // Returns: record `index`, or null if its block is not visible here.
  section_record* find(std::uint32_t index) const noexcept {
    const std::uint32_t k = index - 1;
    section_record* block = blocks_[k / block_size].load(std::memory_order_acquire);
    return block == nullptr ? nullptr : block + k % block_size;
  }
  std::mutex mutex_;
  std::vector<std::uint32_t> free_;
  std::uint32_t made_ = 0;
  std::atomic<section_record*> blocks_[block_count] = {};
};

// Initialised before main(), as claim_registry_at_start is: a fork() must
// not catch another thread inside the first call (its guard would stay
// held in the child).
inline section_records& section_records_at_start = section_records::instance();

// The calling thread's record, if it holds one (its thread_state, which
// thread_claims.hpp gives back at thread exit). Read by the fast paths
// without a TLS guard.
inline thread_section_record& this_thread_record() noexcept { return current_thread_state()->record; }

// The exit of the thread whose state is p (platform.hpp: at_thread_exit):
// gives up its claims and biases (release_claims, if it scanned), then its
// section record, then frees the state. Reads no thread_local: their
// storage may be gone by now (platform.hpp: tls_is_emulated), and the
// thread's number and record are in the state. It then points the thread
// back at idle_thread_state, so that code running after it on this thread
// (a later thread_local destructor that uses a pool) never reaches the
// freed state: it starts afresh, and its state is never released (the
// hook has run). Under emutls that pointer's storage may be gone already;
// writing it then makes emutls allocate it again (a few bytes, not freed),
// which is better than leaving it pointing at the freed state where
// emutls's storage outlives the hook (threads not made by winpthreads).
// Set when the process's static objects are destroyed: exit() has begun.
// On Windows ExitProcess then ends every other thread wherever it is (in a
// mutex, or holding a bin's lock) before the exiting thread's fiber-local
// callbacks run, so an exit that took those locks could wait forever. From
// then on a thread's exit gives nothing back: the process is ending. Its
// state is kept on kept_thread_states, a list from a global, so that leak
// checkers see it reachable.
inline std::atomic<bool> process_exiting{false};
struct process_exit_marker {
  process_exit_marker() = default;
  process_exit_marker(const process_exit_marker&) = delete;
  process_exit_marker& operator=(const process_exit_marker&) = delete;
  ~process_exit_marker() { process_exiting.store(true, std::memory_order_relaxed); }
};
inline process_exit_marker process_exit_marked_at_start;
inline std::atomic<thread_state*> kept_thread_states{nullptr};

// Effects: puts state on kept_thread_states, never to be freed.
inline void keep_thread_state(thread_state* state) noexcept {
  state->next_kept = kept_thread_states.load(std::memory_order_relaxed);
  while (!kept_thread_states.compare_exchange_weak(state->next_kept, state, std::memory_order_release,
                                                   std::memory_order_relaxed)) {
  }
}

inline void exit_thread_state(void* p) noexcept {
  auto* state = static_cast<thread_state*>(p);
  if (process_exiting.load(std::memory_order_relaxed)) return keep_thread_state(state);
  if (state->release_claims != nullptr) state->release_claims(*state);
  const thread_section_record& r = state->record;
  // A section left open (the thread exits from inside one, std::exit in a
  // ~T) keeps its slot: the record is kept from other threads, and a
  // revoker of that bin waits, as it would for the open section. The state
  // is kept too, and stays the thread's: code that runs after this on the
  // thread (a later destructor using that bin) still finds itself inside
  // the section (bin_lock::inside_section reads the record) and gets
  // usage_error, instead of waiting for its own section to end.
  if (r.record != nullptr && r.record->depth != 0) return keep_thread_state(state);
  if (r.record != nullptr) section_records::instance().release(r.index);
  thread_state*& current = current_thread_state();
  if (current == state) current = &idle_thread_state;
  delete state;
}

// Returns: the calling thread's own state, made the first time (its exit
// armed: exit_thread_state); nullptr if none could be made (out of
// memory). If the exit hook cannot be had (it has run already, or the
// system has no fiber-local slot left), the state is kept without it: the
// thread's claims and record then stay until its pools are destroyed, and
// the state is never freed.
TRAVPOOL_NOINLINE inline thread_state* own_thread_state() noexcept {
  thread_state*& current = current_thread_state();
  if (current != &idle_thread_state) return current;
  auto* state = new (std::nothrow) thread_state{};
  if (state == nullptr) return nullptr;
  state->number = thread_number();
  (void)at_thread_exit<&exit_thread_state>(state);
  return current = state;
}

// Initialised before main(), as section_records_at_start is: a fork() must
// not catch another thread inside the first call (on Windows the
// allocation of the fiber-local slot; this registers nothing).
inline const bool thread_exit_known_at_start = at_thread_exit<&exit_thread_state>(nullptr);

// Returns: the calling thread's record index, taking a record (given back
// at thread exit, with the thread's state) the first time;
// thread_section_record::none if no record could be had (it is then never
// biased).
TRAVPOOL_NOINLINE inline std::uint32_t take_section_record() noexcept {
  thread_state* const state = own_thread_state();
  if (state == nullptr) return thread_section_record::none;  // idle_thread_state is never written
  thread_section_record& r = state->record;
  if (r.record != nullptr || r.closed) return r.index;
  section_records& table = section_records::instance();
  const std::uint32_t index = table.acquire(thread_number());
  if (index == 0) {
    r.closed = true;  // not again under every settle()
    return thread_section_record::none;
  }
  r.record = &table.at(index);
  r.index = index;
  return index;
}
inline std::uint32_t section_record_index() noexcept {
  const thread_section_record& r = this_thread_record();
  return r.record != nullptr ? r.index : take_section_record();
}

// A bin's lock (the paper's per-bin mutex), biased towards the thread that
// claims the bin, so that this thread's creates and destroys in it take no
// locked instruction: on x86 an uncontended CAS costs more than the whole
// of pool<T>::create.
//
//   any thread      lock() / try_lock() / unlock(): the mutex. If the bin is
//                   biased to another thread, the bias is revoked first.
//   owning thread   r = enter(state) ... leave(*r): while the bin is biased
//                   to the calling thread's section record r, a critical
//                   section entered and left with plain loads and stores.
//
// Revocation is an asymmetric Dekker handshake (the use membarrier(2) was
// made for). bias_ names the owner's section record. The owner loads
// bias_, stores &lock into the next inside[] slot of its record, then loads
// bias_ again; the revoker stores bias_ = 0, runs heavy_barrier(), then
// waits until no slot of that record holds &lock. The barrier runs a full
// fence on the owner's CPU, so either the owner sees bias_ != its record
// and takes the mutex instead, or the revoker sees the slot and waits for
// the owner's release store of null, which orders the owner's section
// before the revoker's. A thread that read its bias, lost it, and stores
// into its slot only afterwards writes its own record, which nobody else
// is inside through; it then sees the change and clears the slot.
//
// Rebiasing: after a revocation, the bin is biased again (to the next
// thread that settles in it) only once `cooldown` operations have run
// under its mutex. A revocation that comes within `calm` (2^14) operations
// after the cooldown was served doubles the cooldown (64 up to 2^15), so
// that a bin that another thread keeps destroying in (a producer-consumer
// pair) pays a heavy barrier once per tens of thousands of operations and
// otherwise runs on the mutex; a later one restarts it at 64. A bias
// given up (unbias: a claim left at a full bin, a retired bin, a thread's
// exit) is not a revocation: the served cooldown stands, and the next
// thread to settle is biased at once. So a bin pays for the contention it
// has now, not for a phase of cross-thread destroys long past (which
// would otherwise keep it on the mutex for up to 2^15 operations after
// every claim of it, for the rest of the pool's life).
// Cost bound, in counted operations (a section entered counts, also a
// hot-bin probe that finds the bin full): a revocation needs the bias, so
// at least the cooldown runs between any two, and a restart at least
// cooldown + calm, both counted from the revocation before. The worst
// timing (five doublings from 64, then a calm revocation, over and over)
// pays one heavy barrier per 3,400 counted operations, about 10x the old
// rule's worst (which never restarted: one per 2^15 once grown); a steady
// producer-consumer pair pays one per 2^15 as before, and a thread that
// destroys in the bin every P operations, P between 2^14 + 64 and
// 2^15 + 2^14, one per P (before: one per 2^15 + P).
//   settled_ = operations since the last revocation (mutex operations
//              toward the cooldown, then biased sections), up to 2^16 - 1
//   bias_ != 0  =>  settled_ >= cooldown
class bin_lock {
 public:
  bool try_lock() noexcept { return !inside_section() && try_lock_as(thread_number(), this_thread_record()); }
  // As try_lock, for the calling thread, whose thread_number is `me` and
  // whose record is `t`, without its check of the sections (which reads a
  // thread_local): the caller checks t.record->holds(this) instead. Used
  // by the thread's exit, which reads no thread_local.
  bool try_lock_as(std::uint32_t me, const thread_section_record& t) noexcept {
    if (!word_.try_lock_as(me)) return false;
    if (revoke(t)) return true;
    word_.unlock();  // a re-entrant call from inside this thread's own section
    return false;
  }
  // Throws: usage_error if the calling thread holds this lock, or is inside
  // a biased section of this bin, already.
  void lock() {
    if (inside_section()) spin_lock::throw_reentrant();
    word_.lock();
    if (!revoke(this_thread_record())) {
      word_.unlock();
      spin_lock::throw_reentrant();
    }
  }
  void unlock() noexcept { word_.unlock(); }

  // Owner's entry; s is the calling thread's state (current_thread_state()).
  // Returns: the thread's section record if the bin is biased to it; the
  // caller is then inside the section and must call leave() with it.
  // nullptr: the caller must take the mutex.
  // Throws: usage_error if the caller is inside this bin's section already
  // (a destructor that destroys an element of its own bin). Hint: the bin
  // is only a hint (a hot bin), and re-entrance returns nullptr instead.
  template <bool Hint = false>
  TRAVPOOL_ALWAYS_INLINE section_record* enter(const thread_state& s) {
    const std::uint32_t bias = bias_.load(std::memory_order_relaxed);
    if (bias != s.record.index) return nullptr;  // the index is never 0, nor a bias without a record
    section_record& r = *s.record.record;
    const std::uint32_t d = r.depth;
    // Holding this bin's lock (a destructor run by a locked destroy or
    // clear), or inside its section (a destructor run in it): re-entrance.
    // Inside another bin's section: nest, up to depth_max.
    if (word_.held_by(s.number)) {
      if constexpr (Hint) return nullptr;
      spin_lock::throw_reentrant();
    }
    if (d != 0 && !may_nest<Hint>(r)) return nullptr;
    // Release (a plain store on x86): a revoker of an earlier section in
    // this slot that reads this value still synchronises with that section.
    r.inside[d].store(this, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the revoker's heavy_barrier() fences the CPU
    if (bias_.load(std::memory_order_relaxed) == bias) {
      r.depth = d + 1;
      // The owner writes settled_ only inside its section; a revoker reads
      // it after the owner has left (revoke).
      if (settled_ != settled_max) ++settled_;
      return &r;
    }
    r.inside[d].store(nullptr, std::memory_order_release);
    return nullptr;
  }
  section_record* enter() { return enter(*current_thread_state()); }
  // Requires: r is the calling thread's record, and the innermost section
  // it entered is this one.
  TRAVPOOL_ALWAYS_INLINE void leave(section_record& r) noexcept {
    const std::uint32_t d = --r.depth;
    r.inside[d].store(nullptr, std::memory_order_release);
  }

  // Requires: the mutex, held by the bin's claimant or (no claimant) by a
  // thread that destroys in it.
  // Effects: counts one operation under the mutex; biases the bin to the
  // calling thread once the cooldown has passed (not if the thread cannot
  // have a section record: it is exiting, or out of memory).
  void settle() noexcept {
    if (!biasing_enabled()) return;
    const std::uint32_t me = section_record_index();
    if (bias_.load(std::memory_order_relaxed) == me || me == thread_section_record::none) return;
    if (std::uint32_t{settled_} < cooldown()) {
      ++settled_;
      return;
    }
    bias_.store(me, std::memory_order_relaxed);
  }
  // Requires: the mutex (so the bias is 0 or the caller's own).
  // Effects: the bin is biased to nobody (its claim is being given up).
  void unbias() noexcept { bias_.store(0, std::memory_order_relaxed); }
  // Returns: the thread_number of the thread the bin is biased to, or 0
  // (also for a record no thread holds now).
  std::uint32_t biased_to() const noexcept {
    const std::uint32_t bias = bias_.load(std::memory_order_relaxed);
    return bias == 0 ? 0 : section_records::instance().holder_of(bias);
  }
  // Returns: whether thread `me` (a thread_number) holds the mutex.
  bool held_by(std::uint32_t me) const noexcept { return word_.held_by(me); }
  // Returns: whether the bin is biased to section record `index` (the
  // calling thread's own: this_thread_record().index).
  bool biased_to_record(std::uint32_t index) const noexcept { return bias_.load(std::memory_order_relaxed) == index; }

  // Returns: whether the calling thread may change the bin now: it holds
  // the mutex, or is inside the bin's biased section as its record says
  // (bias_ alone cannot say: a revoker clears it while the owner is still
  // inside, and waits for it to leave), or changes it under a
  // quiescent_scope.
  bool held_by_caller() const noexcept {
    if (word_.held_by(thread_number()) || inside_section()) return true;
    for (const section_frame* f = quiescent_top(); f != nullptr; f = f->prev)
      if (f->lock == this) return true;
    return false;
  }

  // Returns: true if the calling thread is inside this bin's biased section
  // (a slot of its record holds this lock, from enter to leave, even while
  // another thread revokes the bias and waits for it).
  bool inside_section() const noexcept {
    const thread_section_record& t = this_thread_record();
    return t.record != nullptr && t.record->holds(this);
  }

 private:
  // Returns: whether a section of this bin may open inside the sections
  // recorded in r: false past depth_max (the caller takes the mutex), and
  // with Hint, false if r is inside this bin's section already.
  // Throws: usage_error if r is inside this bin's section already (not Hint).
  template <bool Hint>
  TRAVPOOL_COLD bool may_nest(const section_record& r) const {
    if (r.holds(this)) {
      if constexpr (Hint) return false;
      spin_lock::throw_reentrant();
    }
    return r.depth < section_record::depth_max;
  }

  // Requires: the mutex; t is the calling thread's record. Effects: revokes
  // a bias to another thread. Returns: false if the bias is the caller's
  // own and the caller is inside its section (re-entrance), else true.
  bool revoke(const thread_section_record& t) noexcept {
    const std::uint32_t owner = bias_.load(std::memory_order_relaxed);
    if (owner == 0) return true;
    if (owner == t.index) return !t.record->holds(this);
    bias_.store(0, std::memory_order_relaxed);
    heavy_barrier();
    const section_record& r = section_records::instance().at(owner);
    for (const auto& slot : r.inside)
      for (unsigned spins = 0; slot.load(std::memory_order_acquire) == this; ++spins) backoff(spins);
    const bool soon = std::uint32_t{settled_} < cooldown() + calm;
    cool_shift_ = static_cast<std::uint8_t>(cool_shift_ == 0 || !soon ? 6 : cool_shift_ < 15 ? cool_shift_ + 1 : 15);
    settled_ = 0;
    return true;
  }

  // Returns: the operations under the mutex that a revocation costs before
  // the bin is biased again. Requires: the mutex.
  std::uint32_t cooldown() const noexcept { return cool_shift_ == 0 ? 0 : std::uint32_t{1} << cool_shift_; }

  static constexpr std::uint32_t calm = std::uint32_t{1} << 14;
  static constexpr std::uint16_t settled_max = 0xffff;  // >= 2^15 + calm

  spin_lock word_;                      // the mutex
  std::atomic<std::uint32_t> bias_{0};  // the owner's section record index, or 0
  std::uint8_t cool_shift_ = 0;         // cooldown 2^cool_shift_ (0: none); under the mutex
  // Operations since the last revocation, up to settled_max (see above).
  // Under the mutex, or inside the owner's section.
  std::uint16_t settled_ = 0;
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

}  // namespace travpool::detail
