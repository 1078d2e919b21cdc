// travpool/detail/acquire_concurrent.hpp: bin acquisition for
// sync::bin_locks (the paper's section 4), with the interface described in
// acquire_local.hpp.
//
// Locks: a readers-writers lock on the bin list (readers: scans; writer:
// adding, retiring or reusing a bin), a lock per bin (bin_lock.hpp, biased
// to the bin's claimant), and the storage's span mutex. Order: list, then
// bin, then spans. T is constructed and destroyed under a bin's lock or
// biased section only, never under the list lock.
//
// Claims. Each thread remembers one bin per pool (remembered_for) and
// claims it: b->claim_ = the thread's number. Other threads' scans skip a
// claimed bin without touching its lock, so threads fill different bins,
// and the claimant's creates and destroys in it run in the biased section,
// without a locked instruction:
//   claim_ = t != 0  =>  only t creates in b; lock_'s bias is 0 or t
//   claim_ and retired_ change only under b's lock
// A thread leaves its bin when the bin is full (its claim is released, so
// others may use the bin again once something is destroyed in it), when
// another pool evicts the bin from its remembered-bin slot, and when it
// exits (thread_claims below): a partly filled bin is then scanned into by
// the next thread instead of staying claimed by a thread that is gone.
//
// Hot bins. The destroys of a thread that creates in the pool (it
// remembers a bin of it), in a bin claimed by nobody, run under its lock
// and count towards biasing it to that thread, as the claimant's do;
// the bin of the thread's last biased destroy is its hot bin
// (remembered_bin::hot), and take() tries it before the claimed bin, so a
// destroy followed by a create reuses the chunk just freed, as pool<T>'s
// LIFO free list does. Only the bias is needed to create there:
//   lock_'s bias = t  =>  claim_ in {0, t}   (a claim revokes other biases)
// so a hot bin is never another thread's claimed bin. Scans skip full bins
// unlocked, so they revoke a destroyer's bias only on a bin they can use.
// A thread that exits drops the biases of its claimed and hot bins; a bias
// it holds on another bin (a hot bin it left) stays until the next thread
// that locks that bin revokes it, one heavy barrier.
//
// Retired bins. shrink() cannot unmap an empty bin: other threads may still
// remember it and read its header. It unlinks the bin, returns its chunk
// pages (advise_dontneed) and keeps the header mapped on the retired list
// (linked by avail_next_), where the next new bin comes from:
//   b retired  =>  b off the bin list, b->retired_, b->claim_ = 0, no bias
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "acquire_local.hpp"
#include "bin.hpp"
#include "bin_lock.hpp"
#include "platform.hpp"
#include "thread_claims.hpp"

namespace travpool::detail {

template <class Storage, bool Checked>
class concurrent_bins : public Storage {
  using bin = bin_base;
  using algo = typename Storage::algo;
  using traits = typename Storage::traits;

 public:
  static constexpr bool exact_size = false;  // size() sums the bins
  using Storage::Storage;

  // Effects: takes a chunk from, in order: the bin of this thread's last
  // destroy in this pool if it is biased to this thread and has room (the
  // freed chunk is reused while it is in cache, as pool<T>'s LIFO list
  // would); the remembered (claimed) bin; a scanned or new bin.
  // Complexity: no locked instruction when one of the first two is biased
  // to this thread and has room; else the remembered bin's lock; else a
  // scan under the shared list lock, or a new bin under the exclusive one.
  TRAVPOOL_ALWAYS_INLINE taken take() {
    remembered_bin& slot = remembered_for(this->id());
    if (slot.pool_id == this->id()) {
      // The bin of this thread's last biased destroy first: its chunk is
      // the head of that bin's free list, and still in cache.
      if (bin* h = slot.hot; h != nullptr) {
        if (h->lock_.enter(thread_number())) {
          if (!h->full()) {
            const std::uint32_t i = take_chunk(*h);
            h->lock_.leave();
            return {h, i, false};
          }
          h->lock_.leave();
        }
        slot.hot = nullptr;
      }
      bin* b = slot.bin;
      // Biased to this thread: no locked instruction. (Retiring a bin
      // takes its lock, which revokes the bias.)
      if (b->lock_.enter(thread_number())) {
        if (!b->full()) {
          const std::uint32_t i = take_chunk(*b);
          b->lock_.leave();
          return {b, i, false};
        }
        b->lock_.leave();
      }
    }
    return take_locked(slot);
  }

  void untake(const taken& t) noexcept {
    {
      std::lock_guard<bin_lock> g(t.bin->lock_);
      release_chunk(*t.bin, t.index);
      this->stats_hooks().on_uncreate(*t.bin);
    }
    if (t.new_bin) {
      // Strong guarantee: take the new bin back unless another thread
      // created in it meanwhile.
      std::unique_lock list(list_mutex_);
      std::lock_guard<bin_lock> g(t.bin->lock_);
      if (t.bin->live_ == 0 && !t.bin->retired_) retire_bin(t.bin);
    }
  }

  // Effects: f() inside b's biased section if b is biased to this thread
  // (and b becomes this thread's hot bin: take() tries it first), else
  // under b's lock, after which the operation counts towards biasing b to
  // this thread if b is claimed by it, or by nobody while this thread
  // remembers a bin of this pool. A ~T run by f that locks b again gets
  // usage_error.
  template <class F>
  TRAVPOOL_ALWAYS_INLINE decltype(auto) locked(bin& b, F&& f) {
    const std::uint32_t me = thread_number();
    if (b.lock_.enter(me)) {
      struct leave_on_exit {
        bin& b;
        ~leave_on_exit() { b.lock_.leave(); }
      } leave{b};
      const section_scope inside(b.lock_);
      remembered_bin& slot = remembered_for(this->id());
      if (slot.pool_id == this->id()) slot.hot = &b;
      return std::forward<F>(f)();
    }
    std::lock_guard<bin_lock> g(b.lock_);
    struct settle_on_exit {
      bin& b;
      std::uint32_t me;
      std::uint64_t pool_id;
      ~settle_on_exit() {
        const std::uint32_t claim = b.claim_.load(std::memory_order_relaxed);
        if (claim == me || (claim == 0 && remembered_for(pool_id).pool_id == pool_id)) b.lock_.settle(me);
      }
    } settle{b, me, this->id()};
    return std::forward<F>(f)();
  }

  TRAVPOOL_ALWAYS_INLINE void free_chunk(bin& b, std::uint32_t i) noexcept {
    release_chunk(b, i);
    this->stats_hooks().on_destroy(b);
  }

  // Returns: the sum of the bins' live counts, each read once with a
  // relaxed load, without the bins' locks (taking them would revoke their
  // owners' bias). Exact while no other thread creates or destroys; else
  // each bin's part is that bin's count at some moment during the call.
  // Complexity: O(bins), under the shared list lock.
  std::size_t size() const noexcept {
    std::size_t n = 0;
    for_each_bin_unlocked([&n](const bin& b) { n += load_relaxed(b.live_); });
    return n;
  }

  void reserve(std::size_t n) {
    std::unique_lock list(list_mutex_);
    while (this->bin_count() * this->capacity() < n) add_bin();
  }

  // Effects: retires every bin without a live element.
  void shrink() noexcept {
    std::unique_lock list(list_mutex_);
    for (bin* b = this->first(); !b->is_root();) {
      bin* next = b->next_;
      std::lock_guard<bin_lock> g(b->lock_);
      if (b->live_ == 0) retire_bin(b);
      b = next;
    }
  }

  // Effects: destroys every element (destructors must not use the pool)
  // and resets every bin to empty.
  template <class F>
  void clear(F destroy_payload) noexcept {
    std::unique_lock list(list_mutex_);
    for (bin* b = this->first(); !b->is_root(); b = b->next_) {
      std::lock_guard<bin_lock> g(b->lock_);
      begin_change(*b);
      destroy_all(*b, destroy_payload);
      this->stats_hooks().on_clear(*b);
      algo::init(*b);
      end_change(*b);
    }
  }

  template <class F>
  void release_all(F destroy_payload) noexcept {
    // Before anything is unmapped: exiting threads stop looking at our bins.
    if (enrolled_.exchange(false, std::memory_order_relaxed)) claim_registry::instance().withdraw(this->id());
    Storage::release_all([&](bin& b) { destroy_all(b, destroy_payload); });
    while (retired_ != nullptr) this->unmap_bin(std::exchange(retired_, retired_->avail_next_));
  }

  // Effects: f(b) for every bin, under the shared list lock only: f reads
  // what others may be writing with load_relaxed (live_, counters_).
  template <class F>
  void for_each_bin_unlocked(F&& f) const {
    std::shared_lock list(list_mutex_);
    for (const bin* b = this->first(); !b->is_root(); b = b->next_) f(*b);
  }

  template <class F>
  void for_each_bin_locked(F&& f) const {
    std::shared_lock list(list_mutex_);
    for (bin* b = this->first(); !b->is_root(); b = b->next_) {
      std::lock_guard<bin_lock> g(b->lock_);
      f(*b);
    }
  }

  void steal(concurrent_bins& o) noexcept {
    Storage::steal(o);  // o's id comes along, and with it its enrolment
    retired_ = std::exchange(o.retired_, nullptr);
    enrolled_.store(o.enrolled_.exchange(false, std::memory_order_relaxed), std::memory_order_relaxed);
  }

  // Requires: &o != this, equal capacities, both pools quiescent (no other
  // thread uses either; not called from T's constructor or destructor).
  // Effects: releases the claims (and biases) of o's bins, under the list
  // locks of both and each bin's lock, then Storage::splice: o takes a new
  // identity, so the bins other threads remember for o are forgotten, and
  // scans of this pool may use every spliced bin with room. o keeps its
  // retired bins. This pool's own claims and remembered bins stay valid.
  void splice(concurrent_bins& o) noexcept {
    // o's id is about to be replaced: exiting threads must stop looking at
    // bins under it before the bins move (and this pool may unmap them).
    if (o.enrolled_.exchange(false, std::memory_order_relaxed)) claim_registry::instance().withdraw(o.id());
    std::scoped_lock lists(list_mutex_, o.list_mutex_);
    for (bin* b = o.first(); !b->is_root(); b = b->next_) {
      std::lock_guard<bin_lock> g(b->lock_);
      release_claim(b);
    }
    Storage::splice(o);
  }

  // Returns: the retired bins (still mapped). Complexity: O(retired bins),
  // under the shared list lock.
  std::size_t retired_count() const noexcept {
    std::shared_lock list(list_mutex_);
    std::size_t n = 0;
    for (const bin* b = retired_; b != nullptr; b = b->avail_next_) ++n;
    return n;
  }

  const char* check_lists() const noexcept {
    for (const bin* b = this->first(); !b->is_root(); b = b->next_)
      if (b->retired_) return "retired bin is still in the bin list";
    return nullptr;
  }

 private:
  template <class F>
  static void destroy_all(bin& b, F& destroy_payload) noexcept {
    if constexpr (!std::is_null_pointer_v<F>) {
      if (b.live_ == 0) return;
      const std::uint32_t last = b.last();
      for (std::uint32_t i = traits::first_assigned(b); i != last; i = traits::next_assigned(b, i))
        destroy_payload(b, i);
    }
  }

  // Checked pools: a change is under way while b.mods_ is odd, so that
  // sweeps can detect a race without taking the lock.
  static void begin_change([[maybe_unused]] bin& b) noexcept {
    if constexpr (Checked) b.mods_.store(b.mods_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static void end_change(bin& b) noexcept { begin_change(b); }

  TRAVPOOL_ALWAYS_INLINE std::uint32_t take_chunk(bin& b) noexcept {
    begin_change(b);
    const std::uint32_t i = algo::create(b);
    this->stats_hooks().on_create(b, 0);
    end_change(b);
    return i;
  }
  TRAVPOOL_ALWAYS_INLINE void release_chunk(bin& b, std::uint32_t i) noexcept {
    begin_change(b);
    algo::release(b, i);
    end_change(b);
  }

  // The remembered bin is not biased to this thread, or is full. If the
  // thread still claims it, create there under its lock (and count towards
  // biasing it again); else leave it and scan.
  [[gnu::noinline]] taken take_locked(remembered_bin& slot) {
    std::uint32_t failed = 0;
    const std::uint32_t me = thread_number();
    if (slot.pool_id == this->id()) {
      bin* b = slot.bin;
      if (b->claim_.load(std::memory_order_relaxed) == me) {
        // Still this thread's bin: whoever holds its lock (a destroy from
        // another thread) holds it briefly, so wait rather than wander off.
        if (!b->lock_.try_lock()) {
          failed = 1;
          b->lock_.lock();
        }
        // The claim and retired_ are written under this lock, and may have
        // changed since the check above; a retired bin stays mapped.
        const bool still_mine = b->claim_.load(std::memory_order_relaxed) == me;
        if (still_mine && !b->retired_ && !b->full()) {
          b->lock_.settle(me);
          const std::uint32_t i = take_chunk(*b);
          b->lock_.unlock();
          return {b, i, false};
        }
        if (still_mine) release_claim(b);  // leaving it: others may use it
        b->lock_.unlock();
      }
    }
    return take_scan(slot, failed);
  }

  // Scans the other bins with try_lock under the shared list lock, starting
  // after the remembered one, for a bin with room that no other thread
  // claims; else appends a bin. The bin found is claimed.
  taken take_scan(remembered_bin& slot, std::uint32_t failed) {
    std::uint32_t scanned = 0;
    const std::uint32_t me = thread_number();
    // Before this thread claims a bin of this pool: the pool is enrolled,
    // and the thread releases its claims when it exits.
    if (!enrolled_.load(std::memory_order_relaxed)) enroll();
    thread_claims::arm();
    // The slot is another pool's (a pool whose id maps to the same slot):
    // give that pool's bin up rather than leave it claimed by nobody who
    // remembers it.
    if (slot.pool_id != this->id()) release_remembered(slot, 64);
    {
      std::shared_lock list(list_mutex_);
      // Under the list lock retired_ and the links are stable.
      bin* b = slot.pool_id == this->id() && !slot.bin->retired_ ? slot.bin->next_ : this->first();
      const std::size_t n = this->bin_count();
      for (std::size_t seen = 0; seen < n; b = b->next_) {
        if (b->is_root()) continue;
        ++seen, ++scanned;
        // A bin another thread claims is skipped unlocked: locking it
        // would revoke that thread's bias.
        const std::uint32_t claim = b->claim_.load(std::memory_order_relaxed);
        if (claim != 0 && claim != me) continue;
        // A full bin is skipped unlocked too (live_ is read without the lock,
        // and rechecked under it): locking it would revoke the bias of a
        // thread that destroys in it.
        if (load_relaxed(b->live_) == this->capacity()) continue;
        if (!b->lock_.try_lock()) {
          ++failed;
          continue;
        }
        const std::uint32_t locked_claim = b->claim_.load(std::memory_order_relaxed);
        if (!b->full() && (locked_claim == 0 || locked_claim == me)) {
          const std::uint32_t i = claim_and_take(*b, me, failed, scanned);
          b->lock_.unlock();
          slot = {this->id(), b};
          return {b, i, false};
        }
        b->lock_.unlock();
      }
    }
    std::unique_lock list(list_mutex_);
    bin* b = reuse_retired();
    if (b == nullptr) {
      // Map and touch the new bin without the list lock: the other threads'
      // scans would otherwise sleep through its page fault.
      list.unlock();
      b = this->make_bin();
      b->claim_.store(me, std::memory_order_relaxed);  // before other scans can see it
      list.lock();
      this->link(b);
    }
    std::lock_guard<bin_lock> g(b->lock_);
    const std::uint32_t i = claim_and_take(*b, me, failed, scanned);
    slot = {this->id(), b};
    return {b, i, true};
  }

  // Requires: b's lock. Effects: claims b for `me` and assigns a chunk.
  std::uint32_t claim_and_take(bin& b, std::uint32_t me, std::uint32_t failed, std::uint32_t scanned) noexcept {
    b.claim_.store(me, std::memory_order_relaxed);
    b.lock_.settle(me);
    this->stats_hooks().on_scan(b, failed, scanned);
    return take_chunk(b);
  }

  [[gnu::noinline]] void enroll() {
    claim_registry::instance().enroll(this->id());
    enrolled_.store(true, std::memory_order_relaxed);
  }

  // Requires: the exclusive list lock. Throws: std::bad_alloc.
  bin* add_bin() {
    if (bin* b = reuse_retired()) return b;
    bin* b = this->make_bin();
    this->link(b);
    return b;
  }

  // Requires: the exclusive list lock. Effects: if a retired bin exists,
  // reinitialises it and links it at the end of the bin list.
  // Returns: that bin, or nullptr.
  bin* reuse_retired() noexcept {
    bin* b = retired_;
    if (b == nullptr) return nullptr;
    std::lock_guard<bin_lock> g(b->lock_);
    algo::init(*b);
    this->reregister(b);
    retired_ = b->avail_next_;
    b->avail_next_ = nullptr;
    store_relaxed(b->retired_, false);  // read unlocked by contains()
    this->link(b);
    return b;
  }

  // Requires: b's lock (so its bias is none or the caller's own). Effects:
  // b is claimed by no thread and biased to none.
  static void release_claim(bin* b) noexcept {
    b->lock_.unbias();
    b->claim_.store(0, std::memory_order_relaxed);
  }

  // Requires: the exclusive list lock, b's lock, no live element in b.
  // Effects: unlinks b, returns its chunk pages, keeps its header mapped.
  void retire_bin(bin* b) noexcept {
    this->unlink(b);
    store_relaxed(b->retired_, true);
    release_claim(b);
    b->avail_next_ = retired_;
    retired_ = b;
    const auto first_page = round_up(reinterpret_cast<std::uintptr_t>(b) + bin_header_bytes, page_size);
    const auto end = reinterpret_cast<std::uintptr_t>(b) + this->span();
    if (end > first_page) advise_dontneed(reinterpret_cast<void*>(first_page), end - first_page);
  }

  alignas(64) mutable std::shared_mutex list_mutex_;  // readers: scans; writer: list changes
  bin* retired_ = nullptr;                            // linked by avail_next_
  std::atomic<bool> enrolled_{false};                 // id() is in claim_registry
};

}  // namespace travpool::detail
