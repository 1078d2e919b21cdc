// travpool/detail/bin_locks/concurrent_bins.hpp: bin acquisition for
// sync::bin_locks (the paper's section 4), with the interface of
// ../acquisition.hpp: the claim and biased-lock protocol of take, untake,
// locked and free_chunk. The bin list, its locks, the retired list and the
// list-wide operations are in the base, concurrent_bin_list
// (concurrent_list.hpp); what an exiting thread gives back is in
// thread_claims.hpp. Lock order: docs/design.md, "Locks and their order".
//
// DESIGN NOTE
// ===========
// Claims. Each thread remembers one bin per pool (remembered_bins.hpp) and
// claims it: b->claim_ = the thread's number. Other threads' scans skip a
// claimed bin without touching its lock, so threads fill different bins,
// and the claimant's creates and destroys in it run in the biased section,
// without a locked instruction:
//   claim_ = t != 0  =>  only t creates in b; lock_'s bias is 0 or t
//   claim_ and retired_ change only under b's lock
// A thread leaves its bin when the bin is full (its claim is released, so
// others may use the bin again once something is destroyed in it; the bin
// keeps the thread in last_claim_, and that thread's refills prefer it, so
// that its elements, and its destroys, stay in bins of its own), when
// another pool evicts the bin from its remembered-bin slot, and when it
// exits (thread_claims.hpp): a partly filled bin is then scanned into by
// the next thread instead of staying claimed by a thread that is gone.
//
// Hot bins. The destroys of a thread that creates in the pool (it
// remembers a bin of it), in a bin claimed by nobody, run under its lock
// and count towards biasing it to that thread, as the claimant's do;
// the bins of the thread's last 4 biased destroys (a bin destroyed in
// twice in a row is entered once) are its hot bins (remembered_bin::hot,
// latest first), and take() tries them
// before the claimed bin, so a destroy followed by a create reuses the
// chunk just freed, as pool<T>'s LIFO free list does, and a run of
// destroys in several bins is refilled in all of them, as pool<T>'s
// available list refills them. Only the bias is needed to create there:
//   lock_'s bias = t  =>  claim_ in {0, t}   (a claim revokes other biases)
// so a hot bin is never another thread's claimed bin. Scans skip full bins
// unlocked, so they revoke a destroyer's bias only on a bin they can use.
// A thread that exits drops the biases of its claimed and hot bins; a bias
// it holds on another bin (a hot bin it dropped) stays until the next thread
// that locks that bin revokes it, one heavy barrier.

#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "../../config.hpp"
#include "../acquire_local.hpp"
#include "../bin.hpp"
#include "bin_lock.hpp"
#include "concurrent_list.hpp"
#include "remembered_bins.hpp"
#include "thread_claims.hpp"

namespace travpool::detail {

template <class Storage, bool Checked, bool Tracked = Checked>
class concurrent_bins : public concurrent_bin_list<Storage, Checked, Tracked> {
  using bin = bin_base;
  using bin_list = concurrent_bin_list<Storage, Checked, Tracked>;
  using algo = typename Storage::algo;
  // What the protocol uses of the list layer.
  using bin_list::begin_change;
  using bin_list::end_change;
  using bin_list::enroll;
  using bin_list::enrolled_;
  using bin_list::list_mutex_;
  using bin_list::release_claim;
  using bin_list::retire_bin;
  using bin_list::reuse_retired;

 public:
  static constexpr bool exact_size = false;  // size() sums the bins
  using bin_list::bin_list;

  // Effects: takes a chunk from, in order: the bins of this thread's last
  // biased destroys in this pool (its hot bins, latest first) that are
  // still biased to it and have room (the freed chunk is reused while it
  // is in cache, as pool<T>'s LIFO list would); the remembered (claimed)
  // bin; a scanned or new bin.
  // Complexity: no locked instruction when one of the first two is biased
  // to this thread and has room; else the remembered bin's lock; else a
  // scan under the shared list lock, or a new bin under the exclusive one.
  TRAVPOOL_ALWAYS_INLINE taken take() {
    thread_state& state = *current_thread_state();
    remembered_bin& slot = remembered_for(state, this->id());
    if (slot.pool_id == this->id()) {
      // The bin of this thread's last biased destroy first: its chunk is
      // the head of that bin's free list, and still in cache; then the
      // older hot bins (take_older_hot).
      if (bin* h = slot.hot[slot.top]; h != nullptr) {
        if (section_record* r = h->lock_.enter<true>(state)) {
          if (!h->full()) {
            const std::uint32_t i = take_chunk(*h);
            h->lock_.leave(*r);
            return {h, i, false};
          }
          h->lock_.leave(*r);
        }
        if (const taken t = take_older_hot(state, slot); t.bin != nullptr) return t;
      }
      bin* b = slot.bin;
      // Biased to this thread: no locked instruction. (Retiring a bin
      // takes its lock, which revokes the bias.)
      if (section_record* r = b->lock_.enter(state)) {
        if (!b->full()) {
          const std::uint32_t i = take_chunk(*b);
          b->lock_.leave(*r);
          return {b, i, false};
        }
        b->lock_.leave(*r);
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
    thread_state& state = *current_thread_state();
    if (section_record* r = b.lock_.enter(state)) {
      struct leave_on_exit {
        bin& b;
        section_record& r;
        ~leave_on_exit() { b.lock_.leave(r); }
      } leave{b, *r};
      remembered_bin& slot = remembered_for(state, this->id());
      if (slot.pool_id == this->id()) slot.push_hot(&b);
      return std::forward<F>(f)();
    }
    const std::uint32_t me = thread_number();
    std::lock_guard<bin_lock> g(b.lock_);
    struct settle_on_exit {
      bin& b;
      std::uint32_t me;
      std::uint64_t pool_id;
      ~settle_on_exit() {
        const std::uint32_t claim = b.claim_.load(std::memory_order_relaxed);
        if (claim == me || (claim == 0 && remembered_for(pool_id).pool_id == pool_id)) b.lock_.settle();
      }
    } settle{b, me, this->id()};
    return std::forward<F>(f)();
  }

  // Exclusive use (basic_column_pool::set_exclusive): the caller's word that
  // no other thread uses the pool meanwhile, and that its switches to and
  // from exclusive use are ordered with every other thread's use of the
  // pool (a join, a mutex). The bins' locks, claims and biases are then
  // neither read nor changed: the chunks change as under a bin's lock, and
  // a bias or claim another thread holds is still valid afterwards (that
  // thread finds the bin's state through the ordering above).
  // Requires: exclusive use; b a bin of this pool, neither full nor
  // retired. Returns: a chunk of b. free_chunk without locked() is the
  // matching destroy. Not under checks::on (its lock contract checks would
  // fail): the pool uses take() and locked() there.
  TRAVPOOL_ALWAYS_INLINE std::uint32_t take_exclusive(bin& b) noexcept { return take_chunk(b); }

  // Returns: the first assigned chunk of b after i (b.last() if none).
  TRAVPOOL_ALWAYS_INLINE std::uint32_t free_chunk(bin& b, std::uint32_t i) noexcept {
    const std::uint32_t next = release_chunk(b, i);
    this->stats_hooks().on_destroy(b);
    return next;
  }

  // Returns: the first bin after b, in list order, that has a live chunk,
  // and the index of its first one (what erase(it) returns when it erased
  // b's last element: hive.hpp), or {nullptr, 0} if there is none or b was
  // retired meanwhile. Under the shared list lock, as a scan, and without
  // any bin's lock: counts and status words are read with relaxed loads
  // (as contains() reads them), so it never waits for a bin, never revokes
  // a bias, and may run inside a ~T that holds a bin's lock (the lock
  // order of a ~T that creates: docs/design.md, "Locks and their order").
  std::pair<bin*, std::uint32_t> first_live_after(const bin& b) const {
    std::shared_lock list(list_mutex_);
    if (load_relaxed(b.retired_)) return {nullptr, 0};
    for (bin* c = b.next_; !c->is_root(); c = c->next_) {
      if (load_relaxed(c->live_) == 0) continue;
      if (const std::uint32_t i = algo::first_live_relaxed(*c); i != 0) return {c, i};
    }
    return {nullptr, 0};
  }

  // Returns: the sum of the bins' live counts, each read once with a
  // relaxed load, without the bins' locks (taking them would revoke their
  // owners' bias). Exact while no other thread creates or destroys; else
  // each bin's part is that bin's count at some moment during the call.
  // Complexity: O(bins), under the shared list lock.
  std::size_t size() const noexcept {
    std::size_t n = 0;
    this->for_each_bin_unlocked([&n](const bin& b) { n += load_relaxed(b.live_); });
    return n;
  }

 private:
  TRAVPOOL_ALWAYS_INLINE std::uint32_t take_chunk(bin& b) noexcept {
    const std::uint16_t m = begin_change(b);
    const std::uint32_t i = algo::create(b);
    this->stats_hooks().on_create(b, 0);
    end_change(b, m);
    return i;
  }
  TRAVPOOL_ALWAYS_INLINE std::uint32_t release_chunk(bin& b, std::uint32_t i) noexcept {
    const std::uint16_t m = begin_change(b);
    const std::uint32_t next = algo::release(b, i);
    end_change(b, m);
    return next;
  }

  // The latest hot bin is not biased to this thread, or is full, or the
  // thread is inside it (a ~T run by a destroy there creates): drops it,
  // and takes a chunk from the latest of the older hot bins that is biased
  // to this thread, has room and is not one the thread is inside or holds,
  // dropping those before it.
  // Returns: the chunk taken, or {nullptr} when none was: no hot bin is
  // left. Refilling the older hot bins too, not only the latest, keeps the
  // holes that a run of destroys in several bins left from staying there
  // until a scan refills the bin (docs/threads.md, "Refill and reuse
  // policies"): pool<T>'s available list refills every one of them.
  TRAVPOOL_NOINLINE taken take_older_hot(thread_state& state, remembered_bin& slot) noexcept {
    slot.pop_hot();
    for (bin* h; (h = slot.hot[slot.top]) != nullptr; slot.pop_hot()) {
      if (section_record* r = h->lock_.enter<true>(state)) {
        if (!h->full()) {
          const std::uint32_t i = take_chunk(*h);
          h->lock_.leave(*r);
          return {h, i, false};
        }
        h->lock_.leave(*r);
      }
    }
    return {nullptr, 0, false};
  }

  // The remembered bin is not biased to this thread, or is full. If the
  // thread still claims it, create there under its lock (and count towards
  // biasing it again); else leave it and scan.
  TRAVPOOL_NOINLINE taken take_locked(remembered_bin& slot) {
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
          b->lock_.settle();
          const std::uint32_t i = take_chunk(*b);
          b->lock_.unlock();
          return {b, i, false};
        }
        if (still_mine) release_claim(b);  // leaving it: others may use it
        b->lock_.unlock();
      }
    }
    return take_scan(failed);
  }

  // Scans the other bins with try_lock under the shared list lock, starting
  // after the remembered one, for a bin with room that no other thread
  // claims; else appends a bin. The bin found is claimed.
  taken take_scan(std::uint32_t failed) {
    std::uint32_t scanned = 0;
    const std::uint32_t me = thread_number();
    // Before this thread claims a bin of this pool: the pool is enrolled,
    // and the thread releases its claims when it exits.
    if (!enrolled_.load(std::memory_order_relaxed)) enroll();
    thread_claims::arm();
    // After arm(): the thread's own table (before, it may read the idle one).
    remembered_bin& slot = remembered_for(this->id());
    // The slot is another pool's (a pool whose id maps to the same slot):
    // give that pool's bin up rather than leave it claimed by nobody who
    // remembers it.
    if (slot.pool_id != this->id()) release_remembered(slot, 64);
    {
      std::shared_lock list(list_mutex_);
      // Under the list lock retired_ and the links are stable.
      bin* const start = slot.pool_id == this->id() && !slot.bin->retired_ ? slot.bin->next_ : this->first();
      const std::size_t n = this->bin_count();
      // Requires: b's lock, which it releases. Returns: a chunk of b taken
      // for this thread (b claimed and remembered), or 0 (no user chunk)
      // when b, rechecked under its lock, is full or another thread's.
      const auto take_unlock = [&](bin* b) -> std::uint32_t {
        const std::uint32_t locked_claim = b->claim_.load(std::memory_order_relaxed);
        std::uint32_t i = 0;
        if (!b->full() && (locked_claim == 0 || locked_claim == me)) i = claim_and_take(*b, me, failed, scanned);
        b->lock_.unlock();
        if (i != 0) remember(slot, b);
        return i;
      };
      if (bin* b = fullest_with_room(start, n, me, scanned); b != nullptr && b->lock_.try_lock()) {
        if (const std::uint32_t i = take_unlock(b); i != 0) return {b, i, false};
      }
      // First fit: the fullest bin was taken meanwhile, or has fewer free
      // chunks than fullest_with_room wants.
      bin* b = start;
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
        if (load_relaxed(b->live_) == b->capacity_) continue;
        if (!b->lock_.try_lock()) {
          ++failed;
          continue;
        }
        if (const std::uint32_t i = take_unlock(b); i != 0) return {b, i, false};
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
    remember(slot, b);
    return {b, i, true};
  }

  // Requires: the shared list lock. Returns: of the n bins from `start`
  // that no other thread claims and that have at least capacity_/64 free
  // chunks, the one with the most live elements (read unlocked; the caller
  // rechecks under the bin's lock) among those `me` claimed last, else
  // among the others, or nullptr. Refilling the fullest bin
  // rather than the next one keeps the elements in few dense bins under
  // churn, as pool<T>'s available list (the bin that last had room first)
  // does, and as allocators keep pages sorted by occupancy: otherwise a
  // thread that fills its bin moves on to the next bin, often an empty one,
  // and the live elements spread over every bin at the same low density,
  // which makes sweeps slower. The capacity_/64 floor bounds the scans to
  // one per capacity_/64 creates in the thread's bins. (A pool's bins have
  // one capacity; a concurrent_hive's may have several, after splice.)
  // The thread's own bins come first, however empty: a foreign bin, even a
  // fuller one, would mix two threads' elements, whose destroys then meet
  // on its lock (docs/threads.md, "Refill and reuse policies"). The
  // scan stops early only at an own bin within 2 * floor of full, so a
  // thread without one reads every header once per refill.
  bin* fullest_with_room(bin* b, std::size_t n, std::uint32_t me, std::uint32_t& scanned) const noexcept {
    // [0]: bins this thread claimed last; [1]: the others.
    bin* best[2] = {nullptr, nullptr};
    std::uint32_t best_live[2] = {0, 0};
    for (std::size_t seen = 0; seen < n; b = b->next_) {
      if (b->is_root()) continue;
      ++seen, ++scanned;
      const std::uint32_t claim = b->claim_.load(std::memory_order_relaxed);
      if (claim != 0 && claim != me) continue;
      const std::uint32_t cap = b->capacity_;
      const std::uint32_t floor = cap / 64 > 0 ? cap / 64 : 1;
      const std::uint32_t most = cap - floor;  // live at most this: floor free chunks
      const std::uint32_t live = load_relaxed(b->live_);
      const int k = b->last_claim_.load(std::memory_order_relaxed) == me ? 0 : 1;
      if (live > most || (best[k] != nullptr && live <= best_live[k])) continue;
      best[k] = b;
      best_live[k] = live;
      if (k == 0 && live >= most - floor) break;  // within 2 * floor of full: as good as any
    }
    return best[0] != nullptr ? best[0] : best[1];
  }

  // Requires: slot is this pool's, or empty (release_remembered).
  // Effects: b is the claimed bin the slot remembers; the hot bins stay.
  void remember(remembered_bin& slot, bin* b) noexcept {
    slot.pool_id = this->id();
    slot.bin = b;
  }

  // Requires: b's lock. Effects: claims b for `me` and assigns a chunk.
  std::uint32_t claim_and_take(bin& b, std::uint32_t me, std::uint32_t failed, std::uint32_t scanned) noexcept {
    b.claim_.store(me, std::memory_order_relaxed);
    b.last_claim_.store(me, std::memory_order_relaxed);
    b.lock_.settle();
    this->stats_hooks().on_scan(b, failed, scanned);
    return take_chunk(b);
  }
};

}  // namespace travpool::detail
