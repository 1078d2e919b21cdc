// travpool/pool.hpp: a traversable fixed-size object pool.
//
//   travpool::pool<Vertex> vs;
//   Vertex* v = vs.create(x, y, z);     // O(1), pointer stable until destroy
//   for (Vertex& w : vs) ...            // live elements only, gaps jumped in O(1)
//   vs.destroy(v);                      // O(1), misuse throws usage_error
//
// Invalidation rules
// ------------------
// * Element pointers and references stay valid until that element is
//   destroyed (destroy, clear, the pool's destructor). Nothing else moves an
//   element: not create, not reserve, not shrink_to_fit, not moving the pool.
// * An iterator stays valid until its element is destroyed; create never
//   invalidates iterators, but an element created during a sweep may or may
//   not be visited by that sweep.
// * end() is invalidated by moving or swapping the pool (like std::list's).
// * shrink_to_fit and clear invalidate nothing but what they destroy.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/bin.hpp"
#include "detail/bin_directory.hpp"
#include "detail/os_memory.hpp"
#include "detail/partition.hpp"
#include "options.hpp"
#include "parallel.hpp"

namespace travpool {

template <class T, class... Options>
class basic_pool;

// Thrown when the pool is misused (double destroy, foreign or interior
// pointer). The pool is left unchanged.
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

struct test_access;

template <class Layout, class T>
struct layout_chunks;
template <class T>
struct layout_chunks<layout::interleaved, T> {
  using type = interleaved_chunks<T>;
};

inline std::uint64_t next_pool_id() noexcept {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The bin span that default_bin_capacity fills: one 2 MiB huge page.
inline constexpr std::size_t default_bin_span = std::size_t{2} << 20;
inline constexpr std::size_t bin_header_bytes = 128;

template <class Ops>
constexpr std::size_t chunks_offset(std::uint32_t cap) noexcept {
  return round_up(bin_header_bytes + Ops::extra_bytes(cap), std::max<std::size_t>(64, Ops::chunk_align));
}

template <class Ops>
constexpr std::size_t bin_bytes(std::uint32_t cap) noexcept {
  return chunks_offset<Ops>(cap) + (std::size_t{cap} + 4) * Ops::stride;
}

template <class Ops>
constexpr std::uint32_t default_capacity() noexcept {
  const std::size_t fixed = chunks_offset<Ops>(0) + 4 * Ops::stride;
  if (fixed + Ops::stride > default_bin_span) return 1;
  std::size_t cap = (default_bin_span - fixed) / Ops::stride;
  while (cap > 1 && bin_bytes<Ops>(static_cast<std::uint32_t>(cap)) > default_bin_span) --cap;
  return static_cast<std::uint32_t>(cap);
}

template <class T, class Ops, bool Const>
class pool_iterator {
  using algo = bin_algorithms<Ops>;

 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using iterator_concept = std::bidirectional_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = std::conditional_t<Const, const T*, T*>;
  using reference = std::conditional_t<Const, const T&, T&>;

  pool_iterator() = default;
  // A const_iterator is constructible from an iterator.
  template <bool C = Const, class = std::enable_if_t<C>>
  pool_iterator(const pool_iterator<T, Ops, false>& o) noexcept : bin_(o.bin_), index_(o.index_) {}

  reference operator*() const noexcept { return *operator->(); }
  pointer operator->() const noexcept { return std::launder(static_cast<pointer>(Ops::payload(*bin_, index_))); }

  // Complexity: O(1) amortised (empty bins are skipped).
  pool_iterator& operator++() noexcept {
    index_ = algo::step_forward(*bin_, index_);
    if (index_ == bin_->last()) seek_forward(bin_->next_);
    return *this;
  }
  pool_iterator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  pool_iterator& operator--() noexcept {
    if (bin_->is_root()) {
      seek_backward(bin_->prev_);
      return *this;
    }
    index_ = algo::step_backward(*bin_, index_);
    if (index_ == 0) seek_backward(bin_->prev_);
    return *this;
  }
  pool_iterator operator--(int) noexcept {
    auto t = *this;
    --*this;
    return t;
  }

  // Returns: an iterator at the first element of the first non-empty bin
  // from `b` on (end if none). Used by ranges over whole bins.
  static pool_iterator at_bin(bin_base* b) noexcept {
    pool_iterator it;
    it.seek_forward(b);
    return it;
  }

  friend bool operator==(const pool_iterator& a, const pool_iterator& b) noexcept {
    return a.bin_ == b.bin_ && a.index_ == b.index_;
  }

 private:
  template <class, class...>
  friend class ::travpool::basic_pool;
  template <class, class, bool>
  friend class pool_iterator;
  friend struct test_access;

  pool_iterator(bin_base* b, std::uint32_t i) noexcept : bin_(b), index_(i) {}

  // Positions on the first element of the first non-empty bin from `b` on, or on end.
  void seek_forward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->next_;
    bin_ = b;
    index_ = b->is_root() ? 0 : algo::first_assigned(*b);
  }
  // Positions on the last element of the last non-empty bin from `b` back.
  void seek_backward(bin_base* b) noexcept {
    while (!b->is_root() && b->live_ == 0) b = b->prev_;
    bin_ = b;
    index_ = b->is_root() ? 0 : algo::last_assigned(*b);
  }

  bin_base* bin_ = nullptr;
  std::uint32_t index_ = 0;
};

}  // namespace detail

// The paper's default: "about 64,000 chunks per bin". travpool fills one
// 2 MiB span (65,530 chunks of 32 B for a 24-byte T); see README.
template <class T, class Layout = layout::interleaved>
inline constexpr std::uint32_t default_bin_capacity =
    detail::default_capacity<typename detail::layout_chunks<Layout, T>::type>();

// A pool of T in bins of fixed-size chunks, traversable in O(live + bins).
//
// Options (tag types, any order, at most one per category):
//   layout::interleaved (default)   the paper's chunk layout
//   sync::none (default)            single-threaded
template <class T, class... Options>
class basic_pool {
  static_assert(detail::check_options<Options...>());
  static_assert(std::is_object_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && !std::is_array_v<T>,
                "travpool: T must be a non-const, non-array object type");
  static_assert(std::is_nothrow_destructible_v<T>, "travpool: T's destructor must not throw");

 public:
  using layout_type = detail::select_option_t<detail::layout_category, layout::interleaved, Options...>;
  using sync_type = detail::select_option_t<detail::sync_category, sync::none, Options...>;

 private:
  using ops = typename detail::layout_chunks<layout_type, T>::type;
  using algo = detail::bin_algorithms<ops>;
  using bin = detail::bin_base;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = detail::pool_iterator<T, ops, false>;
  using const_iterator = detail::pool_iterator<T, ops, true>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  // Bytes between consecutive chunks.
  static constexpr std::size_t chunk_stride = ops::stride;

  // Effects: an empty pool; no memory is taken until the first create.
  // Throws: std::invalid_argument if cap.chunks is 0 or above 2^31 - 2^16.
  explicit basic_pool(travpool::bin_capacity cap = {default_bin_capacity<T, layout_type>})
      : bin_capacity_(cap.chunks), id_(detail::next_pool_id()) {
    if (cap.chunks == 0 || cap.chunks > detail::max_bin_capacity)
      throw std::invalid_argument("travpool: bin capacity must be in [1, 2^31 - 2^16]");
    span_ = std::max(std::bit_ceil(detail::bin_bytes<ops>(cap.chunks)), detail::bin_directory::granule);
  }

  basic_pool(const basic_pool&) = delete;
  basic_pool& operator=(const basic_pool&) = delete;

  // Effects: takes o's bins and identity; o becomes empty, with a new
  // identity. Element pointers and iterators to elements stay valid.
  // Complexity: O(1).
  basic_pool(basic_pool&& o) noexcept : bin_capacity_(o.bin_capacity_), span_(o.span_), id_(o.id_) { steal(o); }
  basic_pool& operator=(basic_pool&& o) noexcept {
    if (this != &o) {
      release_all();
      bin_capacity_ = o.bin_capacity_;
      span_ = o.span_;
      id_ = o.id_;
      steal(o);
    }
    return *this;
  }

  // Effects: destroys every live element and returns every bin to the OS.
  ~basic_pool() { release_all(); }

  // Effects: constructs a T from args in a free chunk.
  // Returns: a pointer that stays valid until the element is destroyed.
  // Throws: std::bad_alloc if a new bin cannot be mapped; whatever T's
  // constructor throws. In both cases the pool is unchanged (strong).
  // Complexity: O(1).
  template <class... A>
  T* create(A&&... args) {
    bin* b = avail_head_;
    const bool new_bin = b == nullptr;
    if (new_bin) b = add_bin();
    const auto c = algo::peek(*b);
    T* p;
    if constexpr (std::is_nothrow_constructible_v<T, A&&...>) {
      p = ::new (ops::payload(*b, c.index)) T(std::forward<A>(args)...);
    } else {
      try {
        p = ::new (ops::payload(*b, c.index)) T(std::forward<A>(args)...);
      } catch (...) {
        algo::restore(*b, c);
        if (new_bin) release_bin(b);
        throw;
      }
    }
    algo::commit_create(*b, c);
    ++size_;
    if (b->full()) avail_erase(b);
    return p;
  }

  // Effects: destroys *p and frees its chunk.
  // Throws: usage_error if p is not a live element of this pool (already
  // destroyed, foreign, interior, null); the pool is then unchanged.
  // Complexity: O(1).
  void destroy(const T* p) {
    const auto loc = locate(p);
    if (loc.error != nullptr) throw usage_error(std::string("travpool::destroy: ") + loc.error);
    destroy_at(*loc.b, loc.index);
  }

  // Effects: destroys the element at `it`. Returns: the iterator after it.
  // Requires: it is a dereferenceable iterator of this pool.
  iterator erase(const_iterator it) noexcept {
    iterator next(it.bin_, it.index_);
    ++next;
    destroy_at(*it.bin_, it.index_);
    return next;
  }

  // Returns: true iff p points at a live element of this pool. Safe for any
  // pointer value. Complexity: O(1).
  bool contains(const T* p) const noexcept { return locate(p).error == nullptr; }

  // Returns: an iterator to *p, or end() if p is not a live element of this
  // pool. Complexity: O(1).
  iterator get_iterator(const T* p) noexcept {
    const auto loc = locate(p);
    return loc.error == nullptr ? iterator(loc.b, loc.index) : end();
  }
  const_iterator get_iterator(const T* p) const noexcept { return const_cast<basic_pool*>(this)->get_iterator(p); }

  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Returns: the chunks of all bins held, live or free.
  size_type capacity() const noexcept { return bin_count_ * bin_capacity_; }
  size_type bin_count() const noexcept { return bin_count_; }
  std::uint32_t bin_capacity() const noexcept { return bin_capacity_; }
  // Returns: the bytes of address space one bin takes (a power of two).
  size_type bin_span() const noexcept { return span_; }

  iterator begin() noexcept { return iterator::at_bin(root_.next_); }
  iterator end() noexcept { return iterator(&root_, 0); }
  const_iterator begin() const noexcept { return const_cast<basic_pool*>(this)->begin(); }
  const_iterator end() const noexcept { return const_cast<basic_pool*>(this)->end(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  const_reverse_iterator crbegin() const noexcept { return rbegin(); }
  const_reverse_iterator crend() const noexcept { return rend(); }

  // Parallel traversal. Partitions and ranges are snapshots of the bin list:
  // they stay valid only while no element is created or destroyed (in any
  // thread) and the pool is not moved.
  using subrange = pool_subrange<iterator>;
  using const_subrange = pool_subrange<const_iterator>;
  using range_type = detail::bin_range<iterator>;
  using const_range_type = detail::bin_range<const_iterator>;

  // Returns: k ranges (k >= 1) that together cover every live element once,
  // in traversal order. Ranges consist of whole bins, cut where the running
  // live count is closest to r * size() / k, so each holds at most
  // size() / k + one bin's live elements (and at most 1.1 * size() / k +
  // bin_capacity() whenever bin_count() >= 4k). When k exceeds the number of
  // non-empty bins (in particular when k > size()), the surplus ranges are
  // empty. Throws: std::invalid_argument if k == 0; std::bad_alloc.
  // Complexity: O(bins + k log bins); no element is visited.
  std::vector<subrange> partition(std::size_t k) { return partition_impl<iterator>(k); }
  std::vector<const_subrange> partition(std::size_t k) const {
    return const_cast<basic_pool*>(this)->template partition_impl<const_iterator>(k);
  }

  // Returns: a TBB Range over all live elements (copyable, splittable by
  // live count at bin boundaries, divisible while it spans two bins), for
  // tbb::parallel_for(pool.range(), body) and tbb::parallel_reduce. The
  // body's sub-range has begin(), end() and size(). Complexity: O(bins).
  range_type range() { return range_type(std::make_shared<const detail::bin_index>(&root_)); }
  const_range_type range() const {
    return const_range_type(std::make_shared<const detail::bin_index>(const_cast<bin*>(&root_)));
  }

  // Effects: calls f(element) for every live element, bin by bin, in the
  // order of iteration. f must not create or destroy.
  template <class F>
  void for_each(F&& f) {
    for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
      if (b->live_ == 0) continue;
      const std::uint32_t last = b->last();
      for (std::uint32_t i = algo::first_assigned(*b); i != last; i = algo::step_forward(*b, i))
        f(*std::launder(static_cast<T*>(ops::payload(*b, i))));
    }
  }

  // Effects: destroys every element; keeps the bins (capacity() unchanged).
  // Invalidates: every pointer and iterator to an element.
  // Complexity: O(size + bins).
  void clear() noexcept {
    for (bin* b = root_.next_; !b->is_root(); b = b->next_) {
      destroy_elements(*b);
      algo::init(*b);
      if (!b->in_avail_) avail_push_back(b);
    }
    size_ = 0;
  }

  // Effects: ensures capacity() >= n by mapping bins.
  // Throws: std::bad_alloc; bins mapped before the failure stay.
  void reserve(size_type n) {
    while (capacity() < n) add_bin();
  }

  // Effects: returns every bin without a live element to the OS.
  // Invalidates: nothing (no element moves). Complexity: O(bins).
  void shrink_to_fit() noexcept {
    for (bin* b = root_.next_; !b->is_root();) {
      bin* next = b->next_;
      if (b->live_ == 0) release_bin(b);
      b = next;
    }
  }

  // Effects: checks every invariant of the design note in detail/bin.hpp,
  // over every bin. Throws: std::logic_error naming the bin and chunk of the
  // first violation. Complexity: O(capacity + bins).
  void validate() const;

  void swap(basic_pool& o) noexcept {
    basic_pool t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }
  friend void swap(basic_pool& a, basic_pool& b) noexcept { a.swap(b); }

 private:
  friend struct detail::test_access;

  struct location {
    bin* b;
    std::uint32_t index;
    const char* error;
  };

  template <class It>
  std::vector<pool_subrange<It>> partition_impl(std::size_t k) {
    if (k == 0) throw std::invalid_argument("travpool::partition: k must be at least 1");
    const detail::bin_index index(&root_);
    const auto cuts = detail::balanced_cuts(index, k);
    std::vector<pool_subrange<It>> parts;
    parts.reserve(k);
    for (std::size_t r = 0; r < k; ++r)
      parts.emplace_back(It::at_bin(index.bin_or_root(cuts[r])), It::at_bin(index.bin_or_root(cuts[r + 1])),
                         index.live(cuts[r], cuts[r + 1]));
    return parts;
  }

  location locate(const T* p) const noexcept {
    auto* b = static_cast<bin*>(detail::bin_directory::find(p));
    if (b == nullptr || b->owner_ != id_) return {nullptr, 0, "pointer does not belong to this pool"};
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const auto base = reinterpret_cast<std::uintptr_t>(b->chunks_);
    const std::uintptr_t lo = base + detail::first_user_chunk * ops::stride;
    const std::uintptr_t hi = base + (std::uintptr_t{b->capacity_} + detail::first_user_chunk) * ops::stride;
    if (addr < lo || addr >= hi || (addr - base) % ops::stride != 0)
      return {nullptr, 0, "pointer does not point at an element of this pool (interior or pseudo chunk)"};
    const auto i = static_cast<std::uint32_t>((addr - base) / ops::stride);
    if (i >= b->fresh_ || ops::is_free(*b, i))
      return {nullptr, 0, "element is not live (already destroyed, or never created)"};
    return {b, i, nullptr};
  }

  void destroy_at(bin& b, std::uint32_t i) noexcept {
    std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
    const bool was_full = b.full();
    algo::release(b, i);
    --size_;
    if (was_full) avail_push_front(&b);
  }

  void destroy_elements(bin& b) noexcept {
    if constexpr (!std::is_trivially_destructible_v<T>) {
      if (b.live_ == 0) return;
      const std::uint32_t last = b.last();
      for (std::uint32_t i = algo::first_assigned(b); i != last; i = algo::step_forward(b, i))
        std::destroy_at(std::launder(static_cast<T*>(ops::payload(b, i))));
    }
  }

  // Effects: maps a new empty bin, appends it to the bin list and to the
  // back of the available list. Throws: std::bad_alloc.
  bin* add_bin() {
    void* mem = detail::map_aligned(span_);
    try {
      detail::bin_directory::insert(mem, span_, mem);
    } catch (...) {
      detail::unmap_aligned(mem, span_);
      throw;
    }
    auto* b = ::new (mem) bin();
    b->chunks_ = static_cast<std::byte*>(mem) + detail::chunks_offset<ops>(bin_capacity_);
    b->capacity_ = bin_capacity_;
    b->owner_ = id_;
    algo::init(*b);
    b->prev_ = root_.prev_;
    b->next_ = &root_;
    root_.prev_->next_ = b;
    root_.prev_ = b;
    ++bin_count_;
    avail_push_back(b);
    return b;
  }

  // Requires: b holds no live element.
  void release_bin(bin* b) noexcept {
    if (b->in_avail_) avail_erase(b);
    b->prev_->next_ = b->next_;
    b->next_->prev_ = b->prev_;
    --bin_count_;
    detail::bin_directory::erase(b, span_);
    b->~bin();
    detail::unmap_aligned(b, span_);
  }

  void release_all() noexcept {
    for (bin* b = root_.next_; !b->is_root();) {
      bin* next = b->next_;
      destroy_elements(*b);
      b->live_ = 0;
      release_bin(b);
      b = next;
    }
    size_ = 0;
  }

  void steal(basic_pool& o) noexcept {
    root_.next_ = root_.prev_ = &root_;
    if (!o.root_.next_->is_root()) {
      root_.next_ = o.root_.next_;
      root_.prev_ = o.root_.prev_;
      root_.next_->prev_ = &root_;
      root_.prev_->next_ = &root_;
    }
    avail_head_ = std::exchange(o.avail_head_, nullptr);
    avail_tail_ = std::exchange(o.avail_tail_, nullptr);
    size_ = std::exchange(o.size_, 0);
    bin_count_ = std::exchange(o.bin_count_, 0);
    o.root_.next_ = o.root_.prev_ = &o.root_;
    o.id_ = detail::next_pool_id();
  }

  void avail_push_front(bin* b) noexcept {
    b->in_avail_ = true;
    b->avail_prev_ = nullptr;
    b->avail_next_ = avail_head_;
    if (avail_head_ != nullptr)
      avail_head_->avail_prev_ = b;
    else
      avail_tail_ = b;
    avail_head_ = b;
  }
  void avail_push_back(bin* b) noexcept {
    b->in_avail_ = true;
    b->avail_next_ = nullptr;
    b->avail_prev_ = avail_tail_;
    if (avail_tail_ != nullptr)
      avail_tail_->avail_next_ = b;
    else
      avail_head_ = b;
    avail_tail_ = b;
  }
  void avail_erase(bin* b) noexcept {
    (b->avail_prev_ != nullptr ? b->avail_prev_->avail_next_ : avail_head_) = b->avail_next_;
    (b->avail_next_ != nullptr ? b->avail_next_->avail_prev_ : avail_tail_) = b->avail_prev_;
    b->avail_next_ = b->avail_prev_ = nullptr;
    b->in_avail_ = false;
  }

  bin root_;                   // list root: root_.next_ is the first bin
  bin* avail_head_ = nullptr;  // bins with a free chunk; create takes the head
  bin* avail_tail_ = nullptr;
  size_type size_ = 0;
  size_type bin_count_ = 0;
  std::uint32_t bin_capacity_;
  size_type span_ = 0;
  std::uint64_t id_;
};

// A single-threaded pool with the default layout.
template <class T>
using pool = basic_pool<T>;

}  // namespace travpool

#include "detail/validate.hpp"
