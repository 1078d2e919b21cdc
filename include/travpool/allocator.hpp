// travpool/allocator.hpp: a standard Allocator for node-based containers,
// backed by travpool pools.
//
//   std::list<Edge, boost::fast_pool_allocator<Edge>> edges;  // before
//   std::list<Edge, travpool::allocator<Edge>> edges;          // after
//
// Routing
// -------
// allocate(1) for a node of at most max_node_bytes takes one chunk of a
// travpool pool for that node's size and alignment; every other request
// (n != 1, bigger nodes, bucket arrays, vectors) goes to ::operator new.
// deallocate(p, n) routes the same way, so n must be the n of the allocate.
//
// Sharing model: per size, process-wide (like boost::fast_pool_allocator)
// ----------------------------------------------------------------------
// All allocators of one variant (option set) share one pool per (node size,
// alignment): std::list<int> nodes and std::set<float> nodes of the same
// size share chunks. Allocators are stateless and always equal, so any
// instance frees what any other allocated; containers copy, move, swap and
// splice as with std::allocator, and move assignment is O(1) and noexcept.
// Per-instance pools were rejected: each container would map at least one
// 64 KiB..2 MiB bin per node size, so a mesh with 10^5 small std::set
// (adjacency lists) would need 10^5 mappings (above Linux's default
// vm.max_map_count of 65,530).
//
// When memory is returned
// -----------------------
// A freed node goes back to its pool at once and is reused by the next
// allocation of that size. Bins (2 MiB of address space each, touched pages
// only) are given back by shrink_to_fit(), every bin without a live node, in
// every pool of the variant, to the process's span cache
// (travpool/memory.hpp): there they stay resident, MADV_FREE'd, until the
// kernel needs the memory, a pool reuses them, or trim_span_cache() unmaps
// them; what the cache has no room for is unmapped (concurrent_allocator:
// the bin's pages go back, its address range stays reserved for reuse
// because other threads may remember the bin). The pools themselves
// are never destroyed (containers with static storage duration may free
// nodes during static destruction); their bins go back at process exit.
//
// Thread safety
// -------------
// allocator<T> (sync::none): no synchronisation at all. Every
//   container using allocator<T> with the same node size must be used by one
//   thread at a time, *across containers* (the pool is shared). Use it in
//   single-threaded programs or phases. Like fast_pool_allocator<T,
//   default_user_allocator_new_delete, boost::details::pool::null_mutex>.
// concurrent_allocator<T> (sync::bin_locks): any thread may allocate
//   and free, also nodes allocated by another thread (a container may be
//   built on one thread and destroyed on another); shrink_to_fit and stats
//   too. Each node pool is a concurrent_pool: a lock per bin and a bin
//   remembered per thread, so threads allocate in different bins. Like the
//   default boost::fast_pool_allocator<T>, without its global mutex.
// The two variants are distinct types with separate pools: a node of one
// must not be freed through the other.
//
// Misuse: deallocate(p, 1) of a p that is not a live node of the routed pool
// (double free, the other variant's node, a block from allocate(n > 1))
// makes the pool throw usage_error, which ends the program through
// deallocate's noexcept.
#pragma once

#include <cstddef>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>

#include "pool.hpp"

namespace travpool {

// Totals over all node pools of one allocator variant.
struct allocator_stats {
  std::size_t pools = 0;     // node sizes in use
  std::size_t nodes = 0;     // live nodes
  std::size_t capacity = 0;  // chunks in all bins, live or free
  std::size_t bins = 0;      // bins held
  // Address space of the bins held and their directory slots (touched
  // pages only are resident).
  std::size_t bytes_mapped = 0;
};

namespace detail {

// Storage of one node. The empty user-provided constructor keeps create()
// from zeroing the bytes.
template <std::size_t Size, std::size_t Align>
struct alignas(Align) node_storage {
  node_storage() noexcept {}
  std::byte bytes[Size];
};

class node_pool_base {
 public:
  virtual void shrink_to_fit() noexcept = 0;
  virtual void add_stats(allocator_stats& s) const noexcept = 0;
  node_pool_base* next_ = nullptr;  // registry link

 protected:
  ~node_pool_base() = default;
};

// The node pools of one variant (option set), for shrink_to_fit and stats.
template <class... Options>
class node_pool_registry {
 public:
  static void add(node_pool_base* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    p->next_ = head_;
    head_ = p;
  }
  template <class F>
  static void for_each(F f) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (node_pool_base* p = head_; p != nullptr; p = p->next_) f(*p);
  }

 private:
  static inline std::mutex mutex_;  // constant-initialised; lock order: docs/design.md
  static inline node_pool_base* head_ = nullptr;
};

template <class Pool>
void add_pool_stats(const Pool& p, allocator_stats& s) noexcept {
  s.pools += 1;
  s.nodes += p.size();
  s.capacity += p.capacity();
  s.bins += p.bin_count();
  s.bytes_mapped += p.memory() - sizeof(Pool);  // bins of every size (a pool's first bins grow)
}

// The process-wide pool of type Pool (a basic_pool of node_storage), for
// the variant with option set Options. Keyed by the pool type, so each
// checks mode (config.hpp) has pools of its own.
template <class Pool, class... Options>
class node_pool final : public node_pool_base {
 public:
  // Returns: the pool, created on first use (thread-safe) and never destroyed.
  static node_pool& instance() {
    static node_pool* const p = make();
    return *p;
  }

  // The pool provides whatever thread safety its sync option promises.
  void* allocate() { return pool_.create(); }
  void deallocate(void* p) { pool_.destroy(static_cast<const typename Pool::value_type*>(p)); }
  void shrink_to_fit() noexcept override { pool_.shrink_to_fit(); }
  void add_stats(allocator_stats& s) const noexcept override { add_pool_stats(pool_, s); }

 private:
  node_pool() = default;
  static node_pool* make() {
    auto* p = new node_pool();
    node_pool_registry<Options...>::add(p);
    return p;
  }

  Pool pool_;
};

}  // namespace detail

inline namespace TRAVPOOL_ABI_NAMESPACE {

// The pool type that basic_allocator<T, Options...> takes T's nodes from:
// the allocator's options, with layout::interleaved unless they name a
// layout. Node chunks are never swept, so the faster create/destroy of
// interleaved wins over compact's sweeps (pool<T>'s own default);
// layout::compact remains an option. Outside the allocator, so that
// naming basic_allocator<T> needs no complete T (a node type may hold a
// container of itself: [allocator.requirements.completeness]).
template <class T, class... Options>
using allocator_pool_t =
    std::conditional_t<detail::count_category_v<detail::layout_category, Options...> == 0,
                       basic_pool<detail::node_storage<sizeof(T), alignof(T)>, layout::interleaved, Options...>,
                       basic_pool<detail::node_storage<sizeof(T), alignof(T)>, Options...>>;

// A standard Allocator (see the header comment for routing, sharing, memory
// return and thread safety). Options: those of basic_pool, for the node
// pools: a sync option (sync::none by default, sync::bin_locks,
// sync::global_mutex) and a layout (layout::interleaved by default, unlike
// pool<T>; or layout::compact: smaller chunks, slower churn; see
// docs/migrating.md).
// Each option set is a variant with pools of its own.
template <class T, class... Options>
class basic_allocator {
  static_assert(detail::check_options<Options...>());

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::false_type;
  using is_always_equal = std::true_type;
  template <class U>
  struct rebind {
    using other = basic_allocator<U, Options...>;
  };

  // Nodes up to this size take pool chunks; bigger ones go to operator new.
  static constexpr std::size_t max_node_bytes = 4096;
  // Whether allocate(1) takes a pool chunk for this T.
  static constexpr bool pools_nodes = sizeof(T) <= max_node_bytes;

  constexpr basic_allocator() noexcept = default;
  template <class U>
  constexpr basic_allocator(const basic_allocator<U, Options...>&) noexcept {}

  // Returns: storage for n objects of T, uninitialised.
  // Throws: std::bad_array_new_length if n > max_size(); std::bad_alloc.
  // Complexity: O(1). Thread safety: see the header comment.
  [[nodiscard]] T* allocate(size_type n) {
    if constexpr (pools_nodes) {
      if (n == 1) return static_cast<T*>(node_pool().allocate());
    }
    if (n > max_size()) throw std::bad_array_new_length();
    if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__)
      return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}));
    else
      return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  // Requires: p came from allocate(n) of an allocator equal to this one.
  // Effects: frees it. A pooled p that is not a live node ends the program.
  // Complexity: O(1).
  void deallocate(T* p, size_type n) noexcept {
    if constexpr (pools_nodes) {
      if (n == 1) {
        node_pool().deallocate(p);
        return;
      }
    }
    // Sized delete where the compiler provides it (clang without
    // -fsized-deallocation does not), else the unsized form.
#if defined(__cpp_sized_deallocation)
    if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__)
      ::operator delete (p, n * sizeof(T), std::align_val_t{alignof(T)});
    else
      ::operator delete(p, n * sizeof(T));
#else
    if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__)
      ::operator delete (p, std::align_val_t{alignof(T)});
    else
      ::operator delete(p);
#endif
  }

  constexpr size_type max_size() const noexcept { return (std::numeric_limits<size_type>::max)() / sizeof(T); }

  // Effects: returns every bin without a live node, of every node pool of
  // this variant, to the OS. Invalidates nothing.
  // Thread safety: for sync::none, no allocator of the variant may be in use
  // on another thread. Complexity: O(bins).
  static void shrink_to_fit() noexcept {
    detail::node_pool_registry<Options...>::for_each([](detail::node_pool_base& p) { p.shrink_to_fit(); });
  }

  // Returns: totals over every node pool of this variant (all node sizes).
  // Thread safety: as shrink_to_fit; for the thread-safe variant a snapshot.
  static allocator_stats stats() noexcept {
    allocator_stats s;
    detail::node_pool_registry<Options...>::for_each([&s](detail::node_pool_base& p) { p.add_stats(s); });
    return s;
  }

 private:
  static auto& node_pool() { return detail::node_pool<allocator_pool_t<T, Options...>, Options...>::instance(); }
};

template <class T, class U, class... Options>
constexpr bool operator==(const basic_allocator<T, Options...>&, const basic_allocator<U, Options...>&) noexcept {
  return true;
}

// Single-threaded: see "Thread safety" above.
template <class T>
using allocator = basic_allocator<T>;

// Thread-safe: any thread may allocate and deallocate.
template <class T>
using concurrent_allocator = basic_allocator<T, sync::bin_locks>;

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
