// travpool/mesh/detail/parallel_edit.hpp: the lock and partition framework
// of parallel mesh edits (issue 52): many threads split and collapse on one
// shared triangle_mesh.
//
// DESIGN NOTE
// ===========
// An edit_session, made on a quiescent mesh, settles it, switches its pools
// to concurrent use (triangle_mesh::set_concurrent) and adds two vertex
// columns; its destructor (again on a quiescent mesh) removes them and
// switches back:
//
//   tp:owner  std::uint32_t  the chunk that owns v (new vertices: the
//                            chunk whose task made them, set_owner)
//   tp:lock   std::uint32_t  0 = free, else 1 + the chunk of the task that
//                            holds v; used through std::atomic_ref only
//
// The vertices are sorted by the Morton code of their position (21 bits an
// axis in the bounding box) and cut into K contiguous chunks of equal size,
// so a chunk is a compact patch and two chunks' tasks meet only at the
// patches' borders. for_each_chunk runs each chunk once, on one task
// (OpenMP dynamic schedule, tbb::parallel_for, or serially), so
// 1 + chunk is a token no two running tasks share.
//
// Rules (docs/mesh.md, "Parallel edits"), for every operation:
//   seeds are vertices of the task's own chunk; only the owner chunk
//     deletes a vertex (collapse a->b deletes a: the seed);
//   lock the seed, then, reading only the rings of locked vertices, the
//     vertices the operation needs: collapse a->b the closed one-rings of
//     a and b; split or flip of edge (a, b) a, b and the opposite
//     vertices c, d;
//   the operation reads and writes connectivity only around locked
//     vertices, and positions of locked vertices and their neighbours;
//   a vertex the operation deletes is forgotten by its lock_set (forget),
//     not released: its slot may hold another task's new vertex by then;
//   a failed try_lock releases the whole lock_set and defers the seed
//     (retried once at the end of the chunk, then serially after the
//     parallel phase: edit_stats counts each);
//   a deferred or stored item may be stale: after locking the seed, find
//     the halfedge again in the seed's ring.
// Two operations with disjoint lock sets then touch disjoint elements
// (triangle_mesh's design note, "Concurrency"); a neighbour of a locked
// vertex cannot be deleted meanwhile, as that needs its owner to lock it
// (collapse locks the closed ring of the vertex it deletes).
//
// Lock words are written with release and taken with acquire, so whatever
// an operation wrote before releasing a vertex is seen by the next task
// that locks it. A new vertex's words are constructed by the create that
// makes it; another task reaches it only through a ring it has locked.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../algorithms.hpp"
#include "../mesh.hpp"
#if TRAVPOOL_MESH_TBB
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

// ThreadSanitizer cannot see the fork and join of Debian's libgomp and
// libtbb (not built with it); for_each_chunk tells it (tests/tsan.supp
// otherwise).
#if defined(__SANITIZE_THREAD__)
#define TRAVPOOL_MESH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRAVPOOL_MESH_TSAN 1
#endif
#endif
#ifdef TRAVPOOL_MESH_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {
namespace detail {

// The mesh's private columns and its concurrency switch, for this header
// only (a friend of triangle_mesh).
struct mesh_internals {
  // Requires: a quiescent mesh; name starts with "tp:". Returns: the key of
  // a new vertex column (init in every vertex). Throws: as add_column.
  template <class T>
  static vertex_property<T> add_vertex_column(triangle_mesh& m, std::string name, T init) {
    return vertex_property<T>(m.vertices_.add_column<T>(std::move(name), std::move(init)));
  }
  // Requires: a quiescent mesh; p from add_vertex_column.
  template <class T>
  static void remove_vertex_column(triangle_mesh& m, vertex_property<T> p) noexcept {
    m.vertices_.remove_column(p.column_key());
  }
  // Requires: a quiescent mesh. triangle_mesh::set_concurrent.
  static void set_concurrent(triangle_mesh& m, bool on) noexcept { m.set_concurrent(on); }
  // Returns: whether validate() checks neither the kept prev links nor
  // skips the boundary out() rule (no low-level primitive since the mesh's
  // last own operation or settle()): then detail::decimation's parallel
  // check tests exactly what validate() tests.
  static bool plain_links(const triangle_mesh& m) noexcept { return !m.prev_fresh_ && !m.relaxed_out_; }
};

// Returns: x's 21 low bits spread to every third bit.
constexpr std::uint64_t spread3(std::uint64_t x) noexcept {
  x &= 0x1f'ffffu;
  x = (x | x << 32) & 0x001f'0000'0000'ffffULL;
  x = (x | x << 16) & 0x001f'0000'ff00'00ffULL;
  x = (x | x << 8) & 0x100f'00f0'0f00'f00fULL;
  x = (x | x << 4) & 0x10c3'0c30'c30c'30c3ULL;
  x = (x | x << 2) & 0x1249'2492'4924'9249ULL;
  return x;
}

// Parallel edit counts: operations done in the parallel phase, retried
// at the end of their chunk, and left to the serial tail.
struct edit_stats {
  std::size_t parallel = 0;
  std::size_t retried = 0;
  std::size_t serial = 0;
  edit_stats& operator+=(const edit_stats& o) noexcept {
    parallel += o.parallel, retried += o.retried, serial += o.serial;
    return *this;
  }
};

// One parallel phase on m (design note above). Not copyable or movable.
class edit_session {
 public:
  // Requires: m quiescent and valid. Effects: settles m, switches its pools
  // to concurrent use, adds tp:owner and tp:lock, and cuts the vertices in
  // Morton order into `chunks` chunks (at least 1; fewer vertices than
  // chunks leave some empty). Throws: what adding a column throws (then m
  // is as it was). O(V log V).
  edit_session(triangle_mesh& m, std::size_t chunks) : m_(m) {
    m.settle();
    owner_ = mesh_internals::add_vertex_column<std::uint32_t>(m, "tp:owner", 0u);
    try {
      lock_ = mesh_internals::add_vertex_column<std::uint32_t>(m, "tp:lock", 0u);
    } catch (...) {
      mesh_internals::remove_vertex_column(m, owner_);
      throw;
    }
    mesh_internals::set_concurrent(m, true);
    partition(std::max<std::size_t>(chunks, 1));
  }
  edit_session(const edit_session&) = delete;
  edit_session& operator=(const edit_session&) = delete;
  // Requires: m quiescent (every task done), no lock held.
  ~edit_session() {
    mesh_internals::set_concurrent(m_, false);
    mesh_internals::remove_vertex_column(m_, lock_);
    mesh_internals::remove_vertex_column(m_, owner_);
  }

  triangle_mesh& mesh() const noexcept { return m_; }
  std::size_t chunk_count() const noexcept { return first_.size() - 1; }
  // Returns: the vertices chunk k had when the session began, in Morton
  // order (some may be gone since).
  std::span<const Vertex> chunk(std::size_t k) const noexcept {
    return {order_.data() + first_[k], order_.data() + first_[k + 1]};
  }
  // Requires: v live. Thread-safe for v locked by the caller or owned by
  // its chunk (only that chunk's task writes it).
  std::uint32_t owner(Vertex v) const noexcept { return owner_[v]; }
  // Requires: v created by the calling task (not yet reachable by others).
  void set_owner(Vertex v, std::uint32_t chunk) noexcept { owner_[v] = chunk; }

  // The lock word of v (1 + chunk of the holder, or 0).
  std::atomic_ref<std::uint32_t> lock_word(Vertex v) const noexcept { return std::atomic_ref<std::uint32_t>(lock_[v]); }

 private:
  void partition(std::size_t k) {
    order_.assign(m_.vertices().begin(), m_.vertices().end());
    vec3 lo{(std::numeric_limits<double>::max)(), (std::numeric_limits<double>::max)(),
            (std::numeric_limits<double>::max)()};
    vec3 hi{-lo.x, -lo.y, -lo.z};
    for (const Vertex v : order_) {
      const vec3& p = m_.position(v);
      lo = {(std::min)(lo.x, p.x), (std::min)(lo.y, p.y), (std::min)(lo.z, p.z)};
      hi = {(std::max)(hi.x, p.x), (std::max)(hi.y, p.y), (std::max)(hi.z, p.z)};
    }
    const double extent = (std::max)({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-300});
    const double scale = double((1u << 21) - 1) / extent;
    auto cell = [&](double x, double l) {
      const double c = std::floor((x - l) * scale);
      return static_cast<std::uint64_t>(std::clamp(c, 0.0, double((1u << 21) - 1)));
    };
    std::vector<std::pair<std::uint64_t, Vertex>> keyed;
    keyed.reserve(order_.size());
    for (const Vertex v : order_) {
      const vec3& p = m_.position(v);
      keyed.emplace_back(spread3(cell(p.x, lo.x)) | spread3(cell(p.y, lo.y)) << 1 | spread3(cell(p.z, lo.z)) << 2, v);
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    first_.assign(k + 1, 0);
    const std::size_t n = keyed.size();
    for (std::size_t c = 0; c <= k; ++c) first_[c] = n * c / k;
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t i = first_[c]; i < first_[c + 1]; ++i) {
        order_[i] = keyed[i].second;
        owner_[order_[i]] = static_cast<std::uint32_t>(c);
      }
  }

  triangle_mesh& m_;
  vertex_property<std::uint32_t> owner_, lock_;
  std::vector<Vertex> order_;       // the vertices, chunk by chunk
  std::vector<std::size_t> first_;  // chunk c is order_[first_[c], first_[c + 1])
};

// The vertices one operation of chunk `chunk`'s task holds. Its destructor
// releases them all. Not thread-safe (one task's).
class lock_set {
 public:
  lock_set(const edit_session& s, std::size_t chunk) noexcept : s_(&s), token_(static_cast<std::uint32_t>(chunk) + 1) {}
  lock_set(const lock_set&) = delete;
  lock_set& operator=(const lock_set&) = delete;
  ~lock_set() { release_all(); }

  // Requires: v live, and the caller holds v or a neighbour of v (or v is
  // its own seed). Returns: whether this set holds v now (true if it held
  // it already). Never waits.
  bool try_lock(Vertex v) {
    std::uint32_t expected = 0;
    auto w = s_->lock_word(v);
    if (w.compare_exchange_strong(expected, token_, std::memory_order_acquire, std::memory_order_relaxed)) {
      if (n_ < inline_capacity) [[likely]]
        inline_[n_++] = v.idx();
      else
        spill(v);
      return true;
    }
    return expected == token_;  // one task per chunk: the token is ours
  }
  // Effects: try_lock(v), then, reading v's ring under its lock, every
  // vertex of the ring. Returns: whether all are held (on false, what was
  // taken stays held: release_all()).
  bool try_lock_closed_ring(Vertex v) {
    if (!try_lock(v)) return false;
    for (const Vertex w : s_->mesh().vertices_around(v))
      if (!try_lock(w)) return false;
    return true;
  }
  // Requires: v held, and deleted by this task's operation (collapse a->b
  // deletes a). Effects: release_all leaves v's word alone: v's slot may
  // be reused at once by another task's create, whose new vertex starts
  // free (0) and may be locked before this set is released.
  void forget(Vertex v) noexcept {
    for (std::size_t i = 0; i < n_; ++i)
      if (inline_[i] == v.idx()) {
        inline_[i] = inline_[--n_];
        return;
      }
    for (std::size_t i = 0; i < spilled_.size(); ++i)
      if (spilled_[i] == v) {
        spilled_[i] = spilled_.back();
        spilled_.pop_back();
        return;
      }
  }
  bool holds(Vertex v) const noexcept { return s_->lock_word(v).load(std::memory_order_relaxed) == token_; }
  // Returns: whether another task holds v now (a relaxed read: a hint).
  bool held_by_other(Vertex v) const noexcept {
    const std::uint32_t w = s_->lock_word(v).load(std::memory_order_relaxed);
    return w != 0 && w != token_;
  }
  // Effects: releases every vertex held (release order: what the task
  // wrote is seen by the next holder).
  void release_all() noexcept {
    for (std::size_t i = 0; i < n_; ++i) s_->lock_word(Vertex(inline_[i])).store(0, std::memory_order_release);
    for (const Vertex v : spilled_) s_->lock_word(v).store(0, std::memory_order_release);
    n_ = 0;
    spilled_.clear();
  }
  std::size_t size() const noexcept { return n_ + spilled_.size(); }

 private:
  // The held vertices: the first inline_capacity in place (a collapse's two
  // closed rings of valence 6 take 12), the rest in spilled_ (no
  // allocation per operation on a usual mesh).
  static constexpr std::size_t inline_capacity = 48;
  // Effects: holds v past the inline slots. Throws: std::bad_alloc (then
  // v's word is released again, and the exception propagates).
  TRAVPOOL_NOINLINE void spill(Vertex v) {
    try {
      spilled_.push_back(v);
    } catch (...) {
      s_->lock_word(v).store(0, std::memory_order_release);
      throw;
    }
  }

  const edit_session* s_;
  std::uint32_t token_;
  std::size_t n_ = 0;
  std::uint32_t inline_[inline_capacity];  // handle indices (no constructor to run)
  std::vector<Vertex> spilled_;
};

// The backend's: in the inline namespace of algorithms.hpp's backends (an
// ODR-safe name per set of backends), inside detail (a second detail
// namespace in an inline namespace would make mesh::detail ambiguous).
inline namespace TRAVPOOL_MESH_BACKEND {

// Effects: f(k) for every chunk k in [0, chunks), each once, on one task:
// with OpenMP (dynamic schedule, one chunk at a time), tbb::parallel_for
// (grain 1, in an arena of `threads`), on `threads` threads (0: the
// backend's default_threads), or in order on the calling thread (serial,
// or a single chunk: no fork and join). The first exception f throws is
// rethrown after every task has ended (OpenMP: the other chunks still
// run; TBB cancels the rest).
// Throws: usage_error if !available(how) (then f is not called).
template <class F>
void for_each_chunk(execution how, std::size_t chunks, std::size_t threads, F&& f) {
  if (!available(how))
    throw usage_error(std::string("travpool::mesh: execution::") + to_string(how) + " is not in this build");
  if (chunks <= 1) how = execution::serial;
  if (threads == 0) threads = default_threads(how);
#ifdef TRAVPOOL_MESH_TSAN
  char forked = 0, joined_ = 0;  // happens-before: before the loop -> each task -> after it
  __tsan_release(&forked);
  auto task = [&](std::size_t k) {
    __tsan_acquire(&forked);
    f(k);
    __tsan_release(&joined_);
  };
  struct joined {
    char* j;
    ~joined() { __tsan_acquire(j); }
  } after{&joined_};
#else
  F& task = f;
#endif
  switch (how) {
    case execution::serial:
      for (std::size_t k = 0; k < chunks; ++k) f(k);
      return;
    case execution::openmp: {
#if defined(_OPENMP)
      std::exception_ptr error;
      std::mutex error_mutex;
      const auto n = static_cast<std::ptrdiff_t>(chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(static_cast <int>(threads))
      for (std::ptrdiff_t k = 0; k < n; ++k) {
        try {
          task(static_cast<std::size_t>(k));
        } catch (...) {
          std::lock_guard<std::mutex> g(error_mutex);
          if (!error) error = std::current_exception();
        }
      }
      if (error) std::rethrow_exception(error);
#endif
      return;
    }
    case execution::tbb:
#if TRAVPOOL_MESH_TBB
    {
      tbb::task_arena arena(static_cast<int>(threads));
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t k = r.begin(); k != r.end(); ++k) task(k);
        });
      });
    }
#endif
      return;
  }
  (void)task;
}

}  // namespace TRAVPOOL_MESH_BACKEND
}  // namespace detail
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
