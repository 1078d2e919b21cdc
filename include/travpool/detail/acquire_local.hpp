// travpool/detail/acquire_local.hpp: bin acquisition (the interface of
// acquisition.hpp) for sync::none, and for sync::global_mutex as the same
// layer behind one mutex.
//
// local_bins keeps the bins that have a free chunk on an "available" list,
// doubly linked through the bin headers; create takes the head, so it
// fills one bin at a time, and a destroy in a full bin pushes that bin
// to the front:
//   b on the available list  <=>  b is on the bin list and !b->full()
// Tracked (checks::on, checks::hardened): every change of a bin's chunks
// is counted (b.mods_ odd while it runs, bin.hpp), and a create or destroy
// that finds its bin's count odd throws usage_error: the pool is being
// used from two threads at once. Found when the two changes overlap and
// the other thread's store is visible already, so some such races are, not
// all; the cost is a load and two stores per operation. Two threads that
// add a bin at once are found for certain (growth_scope, below).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>

#include "../usage_error.hpp"
#include "acquisition.hpp"
#include "bin.hpp"

namespace travpool::detail {

template <class Storage, bool Tracked = false>
class local_bins : public Storage {
  using bin = bin_base;
  using algo = typename Storage::algo;

 public:
  static constexpr bool exact_size = true;  // size() is a counter
  using Storage::Storage;

  // Throws: std::bad_alloc; usage_error (Tracked) if the bin is changing.
  TRAVPOOL_ALWAYS_INLINE taken take() {
    bin* b = avail_head_;
    const bool new_bin = b == nullptr;
    if (new_bin) b = add_bin();
    const std::uint16_t m = begin_change(*b, "create");
    const std::uint32_t i = algo::create(*b);
    ++size_;
    if (b->full()) avail_erase(b);
    end_change(*b, m);
    this->stats_hooks().on_create(*b, size_);
    return {b, i, new_bin};
  }

  void untake(const taken& t) noexcept {
    const std::uint16_t m = begin_change(*t.bin);
    release_chunk(*t.bin, t.index);
    end_change(*t.bin, m);
    this->stats_hooks().on_uncreate(*t.bin);
    if (t.new_bin && t.bin->live_ == 0) release_bin(t.bin);
  }

  // Throws: usage_error (Tracked) if b is changing; what f throws.
  template <class F>
  TRAVPOOL_ALWAYS_INLINE decltype(auto) locked(bin& b, F&& f) {
    if constexpr (Tracked) {
      if (changing(b)) throw_race("destroy");
    }
    return std::forward<F>(f)();
  }

  // Returns: the first assigned chunk of b after i (b.last() if none).
  TRAVPOOL_ALWAYS_INLINE std::uint32_t free_chunk(bin& b, std::uint32_t i) noexcept {
    const std::uint16_t m = begin_change(b);
    const std::uint32_t next = release_chunk(b, i);
    end_change(b, m);
    this->stats_hooks().on_destroy(b);
    return next;
  }

  std::size_t size() const noexcept { return size_; }

  // Effects: adds bins until chunk_count() >= n; growing bins skip the
  // steps of growth that the rest of n fills at once (grow_for).
  void reserve(std::size_t n) {
    while (this->chunk_count() < n) {
      this->grow_for(n - this->chunk_count());
      add_bin();
    }
  }

  // Effects: gives back every bin without a live element.
  void shrink() noexcept {
    shrink([](const bin&) noexcept { return true; });
  }
  // Effects: gives back, in list order, every bin b without a live element
  // for which release(b) (asked just before) returns true.
  template <class Pred>
  void shrink(Pred release) noexcept {
    for (bin* b = this->first(); !b->is_root();) {
      bin* next = b->next_;
      if (b->live_ == 0 && release(std::as_const(*b))) release_bin(b);
      b = next;
    }
  }

  // Effects: destroys every element, freeing each chunk as its element
  // goes (so ~T may destroy elements not reached yet); keeps the bins.
  // Bins are filled in list order again.
  template <class F>
  void clear(F destroy_payload) noexcept {
    for (bin* b = this->first(); !b->is_root(); b = b->next_) {
      destroy_all(*b, destroy_payload);
      this->stats_hooks().on_clear(*b);
      algo::init(*b);
    }
    while (avail_head_ != nullptr) avail_erase(avail_head_);
    for (bin* b = this->first(); !b->is_root(); b = b->next_) avail_push_back(b);
    size_ = 0;
  }

  // Effects: destroys every element and gives every bin back. A bin leaves
  // the available list before it is given back (its elements' frees put a
  // full bin on it), so the list never names a bin that is gone.
  template <class F>
  void release_all(F destroy_payload) noexcept {
    Storage::release_all([&](bin& b) {
      destroy_all(b, destroy_payload);
      if (b.in_avail_) avail_erase(&b);
    });
    avail_head_ = avail_tail_ = nullptr;
    size_ = 0;
  }

  template <class F>
  void for_each_bin_unlocked(F&& f) const {
    for (const bin* b = this->first(); !b->is_root(); b = b->next_) f(*b);
  }

  void steal(local_bins& o) noexcept {
    Storage::steal(o);
    avail_head_ = std::exchange(o.avail_head_, nullptr);
    avail_tail_ = std::exchange(o.avail_tail_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }

  // Requires: &o != this, equal capacities, no other thread in either.
  // Effects: Storage::splice; o's available bins follow this layer's, in
  // their order, so creates fill this pool's bins first.
  void splice(local_bins& o) noexcept {
    Storage::splice(o);
    if (o.avail_head_ != nullptr) {
      (avail_tail_ != nullptr ? avail_tail_->avail_next_ : avail_head_) = o.avail_head_;
      o.avail_head_->avail_prev_ = avail_tail_;
      avail_tail_ = o.avail_tail_;
      o.avail_head_ = o.avail_tail_ = nullptr;
    }
    size_ += std::exchange(o.size_, 0);
    this->stats_hooks().on_live(size_);
  }

  // Requires: &o != this, no other thread in either.
  // Effects: moves o's bins b with move(b) true (asked before each move),
  // in their order, to the end of this layer's bin list, and those with
  // room to the end of its available list; the others stay in o.
  template <class Pred>
  void splice_if(local_bins& o, Pred move) noexcept {
    for (bin* b = o.first(); !b->is_root();) {
      bin* const next = b->next_;
      if (move(std::as_const(*b))) {
        const bool had_room = b->in_avail_;
        if (had_room) o.avail_erase(b);
        o.size_ -= b->live_;
        Storage::move_bin(o, b);
        size_ += b->live_;
        if (had_room) avail_push_back(b);
      }
      b = next;
    }
    this->stats_hooks().on_live(size_);
  }

  static constexpr std::size_t retired_count() noexcept { return 0; }

  // Returns: why the available list breaks its invariant, or nullptr.
  const char* check_lists() const noexcept {
    std::size_t on_list = 0, walked = 0;
    for (const bin* b = this->first(); !b->is_root(); b = b->next_) {
      if (b->in_avail_ == b->full()) return "membership of the available list is wrong";
      on_list += b->in_avail_;
    }
    for (const bin* b = avail_head_; b != nullptr; b = b->avail_next_) {
      if (!b->in_avail_ || ++walked > on_list) return "available list is corrupt";
      if (b->avail_next_ == nullptr && b != avail_tail_) return "available list tail is wrong";
    }
    return walked == on_list ? nullptr : "available list misses bins";
  }

  bin* avail_head() const noexcept { return avail_head_; }

 private:
  friend struct test_access;

  template <class F>
  void destroy_all(bin& b, F& destroy_payload) noexcept {
    if constexpr (!std::is_null_pointer_v<F>) {
      while (b.live_ != 0) {
        const std::uint32_t i = Storage::traits::first_assigned(b);
        destroy_payload(b, i);
        free_chunk(b, i);
      }
    }
  }

  TRAVPOOL_ALWAYS_INLINE std::uint32_t release_chunk(bin& b, std::uint32_t i) noexcept {
    const bool was_full = b.full();
    const std::uint32_t next = algo::release(b, i);
    --size_;
    if (was_full) avail_push_front(&b);
    return next;
  }

  // Throws: std::bad_alloc; usage_error (Tracked) if another thread is
  // adding a bin meanwhile.
  bin* add_bin() {
    [[maybe_unused]] const growth_scope growing(growing_);
    bin* b = this->make_bin();
    this->link(b);
    avail_push_back(b);
    return b;
  }
  void release_bin(bin* b) noexcept {
    if (b->in_avail_) avail_erase(b);
    this->unlink(b);
    this->unmap_bin(b);
  }

  void avail_push_front(bin* b) noexcept {
    avail_link<&bin::avail_next_, &bin::avail_prev_>(b, avail_head_, avail_tail_);
  }
  void avail_push_back(bin* b) noexcept {
    avail_link<&bin::avail_prev_, &bin::avail_next_>(b, avail_tail_, avail_head_);
  }
  // Links b in at the list's end `end` (head or tail; `other` is the other
  // end): b's `Out` link names the old end, its `In` link is null.
  template <bin* bin::*Out, bin* bin::*In>
  static void avail_link(bin* b, bin*& end, bin*& other) noexcept {
    b->in_avail_ = true;
    b->*In = nullptr;
    b->*Out = end;
    (end != nullptr ? end->*In : other) = b;
    end = b;
  }
  void avail_erase(bin* b) noexcept {
    (b->avail_prev_ != nullptr ? b->avail_prev_->avail_next_ : avail_head_) = b->avail_next_;
    (b->avail_next_ != nullptr ? b->avail_next_->avail_prev_ : avail_tail_) = b->avail_prev_;
    b->avail_next_ = b->avail_prev_ = nullptr;
    b->in_avail_ = false;
  }

  // Returns: what end_change takes (the count before the change).
  static std::uint16_t begin_change([[maybe_unused]] bin& b) noexcept {
    if constexpr (Tracked)
      return begin_counted_change(b);
    else
      return 0;
  }
  // Throws: usage_error (Tracked) if b is changing already: op is a
  // create or destroy racing another thread's.
  TRAVPOOL_ALWAYS_INLINE static std::uint16_t begin_change([[maybe_unused]] bin& b, [[maybe_unused]] const char* op) {
    if constexpr (Tracked) {
      const std::uint16_t m = b.mods_.load(std::memory_order_relaxed);
      if ((m & 1) != 0) throw_race(op);
      b.mods_.store(static_cast<std::uint16_t>(m + 1), std::memory_order_relaxed);
      return m;
    } else {
      return 0;
    }
  }
  static void end_change([[maybe_unused]] bin& b, [[maybe_unused]] std::uint16_t m) noexcept {
    if constexpr (Tracked) end_counted_change(b, m);
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void throw_race(const char* op) {
    throw_misuse(op,
                 "another create or destroy is under way in the same bin: a pool without sync::bin_locks is used "
                 "from two threads at once (concurrent_pool is the thread-safe one)");
  }

  // Tracked: set while a bin is added (create's slow path, reserve) by an
  // atomic exchange, a locked instruction on the slow path only, so that a
  // second thread adding a bin at the same time (two threads that start
  // creating in an empty pool) is detected for certain.
  struct growth_flag {
    std::atomic<bool> on{false};
  };
  struct no_growth_flag {};
  using growth_state = std::conditional_t<Tracked, growth_flag, no_growth_flag>;
  struct growth_scope {
    explicit growth_scope([[maybe_unused]] growth_state& g) : g_(g) {
      if constexpr (Tracked) {
        if (g.on.exchange(true, std::memory_order_relaxed)) throw_race("create");
      }
    }
    ~growth_scope() {
      if constexpr (Tracked) g_.on.store(false, std::memory_order_relaxed);
    }
    growth_scope(const growth_scope&) = delete;
    growth_scope& operator=(const growth_scope&) = delete;
    growth_state& g_;
  };

  [[no_unique_address]] growth_state growing_;
  bin* avail_head_ = nullptr;  // bins with a free chunk; create takes the head
  bin* avail_tail_ = nullptr;
  std::size_t size_ = 0;
};

// sync::global_mutex: the layer below, every operation under one recursive
// mutex (recursive, so that T's constructor and destructor may use the
// pool). On its own cache line: written on every operation. Lock order:
// docs/design.md, "Locks and their order".
template <class Super>
class mutex_bins : public Super {
  using bin = bin_base;
  using guard = std::lock_guard<std::recursive_mutex>;

 public:
  using Super::Super;

  taken take() {
    guard g(mutex_);
    return Super::take();
  }
  void untake(const taken& t) noexcept {
    guard g(mutex_);
    Super::untake(t);
  }
  template <class F>
  decltype(auto) locked(bin& b, F&& f) {
    guard g(mutex_);
    return Super::locked(b, std::forward<F>(f));
  }
  std::size_t size() const noexcept {
    guard g(mutex_);
    return Super::size();
  }
  void reserve(std::size_t n) {
    guard g(mutex_);
    Super::reserve(n);
  }
  void shrink() noexcept {
    guard g(mutex_);
    Super::shrink();
  }
  template <class F>
  void clear(F destroy_payload) noexcept {
    guard g(mutex_);
    Super::clear(destroy_payload);
  }
  void splice(mutex_bins& o) noexcept {
    std::scoped_lock g(mutex_, o.mutex_);
    Super::splice(o);
  }
  template <class F>
  void for_each_bin_unlocked(F&& f) const {
    guard g(mutex_);
    Super::for_each_bin_unlocked(f);
  }

 private:
  alignas(64) mutable std::recursive_mutex mutex_;
};

}  // namespace travpool::detail
