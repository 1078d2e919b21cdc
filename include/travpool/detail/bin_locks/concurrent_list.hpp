// travpool/detail/bin_locks/concurrent_list.hpp: the bin list of
// sync::bin_locks pools (the paper's section 4), the base of
// concurrent_bins (concurrent_bins.hpp): the list-wide operations of the
// acquisition interface (../acquisition.hpp) under a readers-writers lock,
// the retired list, and the pool's enrolment in the claim registry
// (thread_claims.hpp).
//
// DESIGN NOTE
// ===========
// Locks: a readers-writers lock on the bin list (readers: scans; writer:
// adding, retiring or reusing a bin), a lock per bin (bin_lock.hpp, biased
// to the bin's claimant), and the storage's span mutex; their order, with
// every other lock's: docs/design.md, "Locks and their order". T is
// constructed and destroyed under a bin's lock or biased section, and
// destroyed by clear() under the exclusive list lock too (destructors must
// not use the pool there).
//
// Retired bins. shrink() cannot unmap an empty bin: other threads may still
// remember it and read its header. It unlinks the bin, returns its chunk
// pages (the span source's drop_pages) and keeps the header mapped on the
// retired list (linked by avail_next_), where the next new bin of its
// capacity comes from:
//   b retired  =>  b off the bin list, b->retired_, b->claim_ = 0, no bias
//   memory held = the spans of the listed and the retired bins
//               = (bin_count() + retired_count()) spans when every bin has
//                 capacity() (a pool; a concurrent_hive may splice in others)
//
// Enrolment. The pool's id is in the claim registry from before its first
// claim (enroll, called by the first scan) until before it unmaps a bin or
// changes its id (release_all, splice):
//   enrolled_  <=>  id() is in claim_registry
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>  // std::shared_lock
#include <type_traits>
#include <utility>

#include "../../config.hpp"
#include "../bin.hpp"
#include "../platform.hpp"
#include "bin_lock.hpp"
#include "thread_claims.hpp"

namespace travpool::detail {

// Checked: checks::on (the lock contract is checked); Tracked: checks::on
// or checks::hardened (bins count their changes, below).
template <class Storage, bool Checked, bool Tracked = Checked>
class concurrent_bin_list : public Storage {
  using bin = bin_base;
  using algo = typename Storage::algo;
  using traits = typename Storage::traits;

 public:
  using Storage::Storage;

  void reserve(std::size_t n) {
    std::unique_lock list(list_mutex_);
    while (this->chunk_count() < n) add_bin();
  }

  // Effects: retires every bin without a live element (for which
  // retire(b) is true, in list order).
  void shrink() noexcept {
    shrink([](const bin&) noexcept { return true; });
  }
  template <class Pred>
  void shrink(Pred retire) noexcept {
    std::unique_lock list(list_mutex_);
    for (bin* b = this->first(); !b->is_root();) {
      bin* next = b->next_;
      std::lock_guard<bin_lock> g(b->lock_);
      if (b->live_ == 0 && retire(std::as_const(*b))) retire_bin(b);
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
      const std::uint16_t m = begin_change(*b);
      destroy_all(*b, destroy_payload);
      this->stats_hooks().on_clear(*b);
      algo::init(*b);
      end_change(*b, m);
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

  void steal(concurrent_bin_list& o) noexcept {
    Storage::steal(o);  // o's id comes along, and with it its enrolment
    retired_ = std::exchange(o.retired_, nullptr);
    enrolled_.store(o.enrolled_.exchange(false, std::memory_order_relaxed), std::memory_order_relaxed);
  }

  // Requires: &o != this, both pools quiescent (no other thread uses
  // either; not called from T's constructor or destructor). o's bins keep
  // their capacity (concurrent_pool requires equal ones: pool.hpp).
  // Effects: releases the claims (and biases) of o's bins, under the list
  // locks of both and each bin's lock, then Storage::splice: o takes a new
  // identity, so the bins other threads remember for o are forgotten, and
  // scans of this pool may use every spliced bin with room. o keeps its
  // retired bins. This pool's own claims and remembered bins stay valid.
  void splice(concurrent_bin_list& o) noexcept {
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

 protected:
  template <class F>
  static void destroy_all(bin& b, F& destroy_payload) noexcept {
    if constexpr (!std::is_null_pointer_v<F>) {
      if (b.live_ == 0) return;
      const std::uint32_t last = b.last();
      for (std::uint32_t i = traits::first_assigned(b); i != last; i = traits::next_assigned(b, i))
        destroy_payload(b, i);
    }
  }

  // Requires: b's lock, or b's biased section, or a quiescent pool that
  // the caller declared with a quiescent_scope (erase).
  // Checked pools: the requirement is checked. Tracked pools: a change is
  // under way while b.mods_ is odd, so that sweeps can detect a race
  // without taking the lock.
  // Returns: what end_change takes (the count before the change).
  static std::uint16_t begin_change([[maybe_unused]] bin& b) noexcept {
    if constexpr (Checked) {
      if (!b.lock_.held_by_caller()) lock_contract_violated("a bin's chunks changed");
    }
    if constexpr (Tracked)
      return begin_counted_change(b);
    else
      return 0;
  }
  static void end_change([[maybe_unused]] bin& b, [[maybe_unused]] std::uint16_t m) noexcept {
    if constexpr (Checked) {
      if (!b.lock_.held_by_caller()) lock_contract_violated("a bin's chunks changed");
    }
    if constexpr (Tracked) end_counted_change(b, m);
  }

  TRAVPOOL_NOINLINE void enroll() {
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

  // Requires: the exclusive list lock. Effects: if a retired bin of the
  // capacity new bins have exists, reinitialises the latest retired and
  // links it at the end of the bin list. (Retired bins of another
  // capacity, which a concurrent_hive may hold after splice and reshape,
  // stay retired.) Returns: that bin, or nullptr.
  bin* reuse_retired() noexcept {
    bin** at = &retired_;
    while (*at != nullptr && (*at)->capacity_ != this->capacity()) at = &(*at)->avail_next_;
    bin* b = *at;
    if (b == nullptr) return nullptr;
    std::lock_guard<bin_lock> g(b->lock_);
    algo::init(*b);
    b->owner_ = this->id();  // splice gave this pool a new identity since b was retired
    this->reregister(b);
    *at = b->avail_next_;
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
    const auto first_page = round_up(reinterpret_cast<std::uintptr_t>(b) + bin_header_bytes, page_size());
    const auto end = reinterpret_cast<std::uintptr_t>(b) + this->span_of(*b);
    if (end > first_page) Storage::spans_type::drop_pages(reinterpret_cast<void*>(first_page), end - first_page);
  }

  alignas(64) mutable rw_mutex list_mutex_;  // readers: scans; writer: list changes
  bin* retired_ = nullptr;                   // linked by avail_next_
  std::atomic<bool> enrolled_{false};        // id() is in claim_registry
};

}  // namespace travpool::detail
