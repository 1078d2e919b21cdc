// travpool/mesh/remesh.hpp: isotropic remeshing (Botsch & Kobbelt, "A
// remeshing approach to multiresolution modeling", SGP 2004) of a
// triangle_mesh in place.
//
// DESIGN NOTE
// ===========
// With L the target edge length, each iteration runs
//   1. split    every edge longer than 4/3 L at its midpoint, longest first,
//               until none is (the edges of each new vertex are checked
//               again); an edge beside a kept boundary edge longer than
//               itself is not split (that would not end);
//   2. collapse every edge shorter than 4/5 L, removing the endpoint of lower
//               valence, if is_collapse_ok (the link condition), no edge of
//               the kept vertex gets longer than 4/3 L and no face around the
//               removed vertex turns over (its normal keeps a positive dot
//               product with the old one); the kept vertex stays where it is;
//   3. flip     every interior edge whose flip lowers the sum over its four
//               vertices of |valence - target| (target 6 inside, 4 on the
//               boundary), if is_flip_ok and neither new face turns over;
//   4. relax    every interior vertex towards the area-weighted mean of its
//               faces' centroids, moved in the tangent plane (the normal is
//               the area-weighted face normal): p += (I - n n^T)(c - p);
//   5. project  every moved vertex onto the input surface: its closest point
//               on a triangle_bvh (bvh.hpp) of the input, built once, starting
//               from the triangle the vertex was last projected onto (hint).
// Steps 4 and 5 are one Jacobi sweep (new positions into the scratch buffer,
// then copied), so their result does not depend on the vertex order, and
// execution::openmp / tbb run them in parallel (for_each_element,
// algorithms.hpp).
//
// Parallel (execution::openmp / tbb): steps 1-3 edit the one shared mesh
// from many threads at once (detail/parallel_edit.hpp's edit_session, one
// per iteration): the vertices in Morton order are cut into chunks, each
// run by one task, and every split, collapse and flip first try-locks the
// vertices it reads and writes (split and flip: the edge's ends and the
// two opposite corners; collapse: the closed one-rings of both ends). A
// failed lock defers the operation to the end of its chunk, and a second
// failure to the serial tail after the step; a collapse that would delete
// another chunk's vertex goes to the tail too (remesh_result counts each
// kind). Each step keeps the serial step's tests and choices, so the
// guarantees below hold in every mode; the order differs (longest first
// within a chunk, not across the mesh), so the parallel result is not the
// serial one bit for bit (docs/mesh.md compares their quality).
//
// Guarantees (every iteration, for every execution mode):
//   m.validate() holds; a closed component stays closed;
//   a boundary vertex is neither removed nor moved, a boundary edge is not
//     split or collapsed (split_boundary: split at its midpoint, which stays
//     on the boundary polyline), so every boundary loop keeps its shape;
//   every vertex is a point of the input surface after step 5 (project).
// Not guaranteed: a bound on edge lengths (a collapse the link condition or
// the fold-over test refuses leaves a short edge; a boundary edge is never
// split unless split_boundary), or on angles.
//
// Temporary vertex columns (names starting with "travpool.remesh.") are
// added for the duration of the call and removed after it, also on a throw.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <travpool/usage_error.hpp>

#include "algorithms.hpp"
#include "bvh.hpp"
#include "detail/parallel_edit.hpp"
#include "mesh.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

struct remesh_options {
  double target_edge_length = 0;  // L > 0
  int iterations = 5;             // >= 0
  bool project = true;            // step 5: back onto the input surface
  bool split_boundary = false;    // split boundary edges longer than 4/3 L (at their midpoints)
  int relaxation_steps = 1;       // >= 0: relax sweeps (each followed by projection) per iteration
  // A collapse may turn the normal of a face around the removed vertex by
  // at most acos(collapse_normal_cos) (0.8: about 37 degrees; 0: only no
  // fold-over). Keeps tips and ridges (the Hausdorff distance) at coarse L.
  double collapse_normal_cos = 0.8;
  // Parallel modes: the number of threads (0: omp_get_max_threads() /
  // TBB's default concurrency).
  unsigned threads = 0;
};

struct remesh_result {
  std::size_t splits = 0;
  std::size_t collapses = 0;
  std::size_t flips = 0;
  std::size_t refused_collapses = 0;  // short edges left: link condition, length or fold-over
  // Topology edits (splits, collapses, flips) by where they ran: in the
  // parallel phase, retried after a failed lock at the end of their chunk,
  // or serially (every edit in serial mode; the tail after each parallel
  // step otherwise).
  std::size_t parallel_ops = 0;
  std::size_t retried_ops = 0;
  std::size_t serial_ops = 0;
  int iterations = 0;
};

inline namespace TRAVPOOL_MESH_BACKEND {

namespace remesh_detail {

inline double length2(const vec3& a, const vec3& b) noexcept {
  const vec3 d = a - b;
  return dot(d, d);
}

// Adds a vertex column for the call and removes it at the end.
template <class T>
class scoped_column {
 public:
  scoped_column(triangle_mesh& m, const char* name, T init) : m_(m), p_(m.add_property<Vertex, T>(name, init)) {}
  ~scoped_column() { m_.remove_property(p_); }
  scoped_column(const scoped_column&) = delete;
  scoped_column& operator=(const scoped_column&) = delete;
  T& operator[](Vertex v) const noexcept { return p_[v]; }

 private:
  triangle_mesh& m_;
  vertex_property<T> p_;
};

class remesher {
 public:
  remesher(triangle_mesh& m, const remesh_options& o, execution how)
      : m_(m),
        o_(o),
        how_(how),
        hint_(m, "travpool.remesh.hint", triangle_bvh::no_hint),
        valence_(m, "travpool.remesh.valence", 0) {
    const double l = o.target_edge_length;
    hi2_ = (4.0 / 3.0 * l) * (4.0 / 3.0 * l);
    lo2_ = (4.0 / 5.0 * l) * (4.0 / 5.0 * l);
  }

  remesh_result run() {
    m_.settle();
    build_reference();
    for (int it = 0; it < o_.iterations; ++it) {
      if (how_ == execution::serial) {
        split_long_edges();
        collapse_short_edges();
        flip_edges();
      } else {
        parallel_edits();
      }
      for (int s = 0; s < o_.relaxation_steps; ++s) relax_and_project();
      ++r_.iterations;
    }
    if (how_ == execution::serial) r_.serial_ops = r_.splits + r_.collapses + r_.flips;
    return r_;
  }

 private:
  bool boundary(Vertex v) const noexcept { return m_.is_boundary(m_.out(v)); }
  double length2(Halfedge h) const noexcept {
    return remesh_detail::length2(m_.position(m_.from(h)), m_.position(m_.to(h)));
  }

  // The input surface: a triangle_bvh of the faces as they are, and each
  // vertex's hint = one of its faces.
  void build_reference() {
    if (!o_.project) return;
    std::vector<vec3> points;
    std::vector<std::array<std::uint32_t, 3>> tris;
    points.reserve(3 * m_.face_count());
    tris.reserve(m_.face_count());
    std::uint32_t i = 0;
    for (const Face f : m_.faces()) {
      const auto c = m_.corners(f);
      for (const Vertex v : c) {
        points.push_back(m_.position(v));
        hint_[v] = i;
      }
      tris.push_back({3 * i, 3 * i + 1, 3 * i + 2});
      ++i;
    }
    bvh_ = triangle_bvh(points, tris);
  }

  // Whether e may be split: not a kept boundary edge, and no kept boundary
  // edge longer than e in a face beside it (else splitting the other sides
  // of that triangle, again and again, would never end: the new vertices
  // approach a point of the boundary edge whose distances to its ends stay
  // above 4/3 L).
  bool splittable(Edge e, double len2) const noexcept {
    if (o_.split_boundary) return true;
    if (m_.is_boundary(e)) return false;
    for (unsigned s = 0; s < 2; ++s) {
      const Halfedge h = e.halfedge(s);
      for (Halfedge g = m_.next(h); g != h; g = m_.next(g))
        if (m_.is_boundary(g.opposite()) && length2(g) > len2) return false;
    }
    return true;
  }

  // Longest first (a max-heap of edges by squared length at push time):
  // a split's new edges are no longer than the longest side of the faces it
  // cuts, so the longest edge never grows and the splits end.
  void split_long_edges() {
    using item = std::pair<double, std::uint32_t>;
    std::vector<item> heap;
    for (const Edge e : m_.edges())
      if (const double l2 = length2(e.halfedge(0)); l2 > hi2_) heap.emplace_back(l2, e.idx());
    std::make_heap(heap.begin(), heap.end());
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end());
      const Edge e(heap.back().second);
      heap.pop_back();
      const Halfedge h = e.halfedge(0);
      const double l2 = length2(h);
      if (l2 <= hi2_ || !splittable(e, l2)) continue;
      const Vertex a = m_.from(h), b = m_.to(h);
      const Vertex v = m_.split(e, (m_.position(a) + m_.position(b)) * 0.5);
      hint_[v] = hint_[a];
      ++r_.splits;
      for (const Halfedge g : m_.out_halfedges(v))
        if (const double g2 = length2(g); g2 > hi2_) {
          heap.emplace_back(g2, g.edge().idx());
          std::push_heap(heap.begin(), heap.end());
        }
    }
  }

  // Whether collapsing h (from(h) into to(h), which stays) passes the length
  // and fold-over tests (the link condition is checked by the caller).
  bool collapse_keeps_shape(Halfedge h) const noexcept {
    const Vertex v0 = m_.from(h), v1 = m_.to(h);
    const vec3& p0 = m_.position(v0);
    const vec3& p1 = m_.position(v1);
    for (const Halfedge g : m_.out_halfedges(v0)) {
      const Vertex w = m_.to(g);
      if (w == v1) continue;
      if (remesh_detail::length2(p1, m_.position(w)) > hi2_) return false;
      if (m_.is_boundary(g)) continue;
      const Vertex x = m_.to(m_.next(g));
      if (x == v1) continue;
      const vec3& pw = m_.position(w);
      const vec3& px = m_.position(x);
      const vec3 before = cross(pw - p0, px - p0);
      const vec3 after = cross(pw - p1, px - p1);
      if (!(dot(before, after) > o_.collapse_normal_cos * norm(before) * norm(after))) return false;
    }
    return true;
  }

  void collapse_short_edges() {
    std::vector<Edge> work;
    for (const Edge e : m_.edges())
      if (length2(e.halfedge(0)) < lo2_) work.push_back(e);
    std::reverse(work.begin(), work.end());  // popped in pool order
    while (!work.empty()) {
      const Edge e = work.back();
      work.pop_back();
      // No element is created in this phase, so a dead handle stays dead.
      if (!m_.is_live(e)) continue;
      const Halfedge h0 = e.halfedge(0), h1 = e.halfedge(1);
      if (length2(h0) >= lo2_) continue;
      const Vertex v0 = m_.from(h0), v1 = m_.to(h0);
      const bool b0 = boundary(v0), b1 = boundary(v1);
      // h0 removes v0, h1 removes v1; a boundary vertex stays.
      // The one-ring test first: it refuses most, and the link condition
      // costs O(valence^2).
      bool ok0 = !b0 && collapse_keeps_shape(h0) && m_.is_collapse_ok(h0);
      bool ok1 = !b1 && collapse_keeps_shape(h1) && m_.is_collapse_ok(h1);
      if (ok0 && ok1) {  // remove the vertex of lower valence
        if (m_.valence(v0) < m_.valence(v1))
          ok1 = false;
        else
          ok0 = false;
      }
      if (!ok0 && !ok1) {
        ++r_.refused_collapses;
        continue;
      }
      const Halfedge h = ok0 ? h0 : h1;
      const Vertex kept = m_.to(h);
      m_.collapse(h);
      ++r_.collapses;
      for (const Halfedge g : m_.out_halfedges(kept))
        if (length2(g) < lo2_) work.push_back(g.edge());
    }
  }

  void flip_edges() {
    for (const Vertex v : m_.vertices()) valence_[v] = static_cast<int>(m_.valence(v));
    auto deviation = [&](Vertex v, int change) { return std::abs(valence_[v] + change - (boundary(v) ? 4 : 6)); };
    for (const Edge e : m_.edges()) {
      if (m_.is_boundary(e)) continue;
      const Halfedge h = e.halfedge(0), o = e.halfedge(1);
      const Vertex a = m_.from(h), b = m_.to(h);
      const Vertex c = m_.to(m_.next(h)), d = m_.to(m_.next(o));
      const int before = deviation(a, 0) + deviation(b, 0) + deviation(c, 0) + deviation(d, 0);
      const int after = deviation(a, -1) + deviation(b, -1) + deviation(c, 1) + deviation(d, 1);
      if (after >= before) continue;
      if (!m_.is_flip_ok(e)) continue;
      const vec3 &pa = m_.position(a), &pb = m_.position(b), &pc = m_.position(c), &pd = m_.position(d);
      const vec3 n = cross(pb - pa, pc - pa) + cross(pa - pb, pd - pb);
      if (!(dot(cross(pc - pd, pa - pd), n) > 0) || !(dot(cross(pd - pc, pb - pc), n) > 0)) continue;
      m_.flip(e);
      --valence_[a], --valence_[b], ++valence_[c], ++valence_[d];
      ++r_.flips;
    }
  }

  // ----- parallel topology edits (execution::openmp / tbb) -----
  // One detail::edit_session per iteration: its Morton chunks, each run by
  // one task, edit the shared mesh at once under per-vertex try-locks
  // (parallel_edit.hpp's rules). Step by step:
  //   split     items (a, b): the long edges whose smaller-index end a the
  //             chunk owns, in a max-heap by length (longest first within
  //             the chunk); lock a, find a-b again in a's ring, lock b and
  //             the opposite corners; split only a longest side of the
  //             faces beside it (Rivara's longest-edge bisection: a longer
  //             side goes first, so the split order within a chunk cannot
  //             cut ever more medians towards a long edge another chunk
  //             has not reached: each split's new edges are at most
  //             sqrt(3)/2 of the one it cuts, and the splits end); the new
  //             vertex is the chunk's (set_owner) and seeds its long edges;
  //   collapse  items (a, b), short edges, a the chunk's: lock the closed
  //             rings of a and b, decide as the serial step (the lower
  //             valence goes); a vertex of another chunk is never deleted
  //             here (the item goes to the serial tail); the kept vertex's
  //             new short edges are pushed with an end the chunk owns as
  //             seed, or to the tail;
  //   flip      items (a, b), interior edges, a the chunk's and the smaller
  //             index: lock a, pre-test the valences (a column, atomic)
  //             of a, b and the opposite corners, then lock b and the
  //             corners, test again and flip.
  // An item whose lock fails is retried once at the end of its chunk, then
  // serially after the step (the tail), with every lock free. Splits only
  // create, collapses and flips create nothing, so within a session no
  // slot is reused: a dead vertex stays dead (is_live is exact).
  struct edit_item {
    double l2;
    Vertex a, b;
    bool operator<(const edit_item& o) const noexcept { return l2 < o.l2; }
  };
  struct chunk_counts {
    std::size_t splits = 0, collapses = 0, flips = 0, refused = 0;
    std::size_t parallel = 0, retried = 0, serial = 0;
  };
  enum class phase { first, retry, tail };
  static void count(chunk_counts& c, phase p) noexcept {
    if (p == phase::first)
      ++c.parallel;
    else if (p == phase::retry)
      ++c.retried;
    else
      ++c.serial;
  }

  void parallel_edits() {
    const std::size_t threads = o_.threads ? o_.threads : default_threads(how_);
    const std::size_t chunks =
        (std::max<std::size_t>)(1, (std::min<std::size_t>)(8 * threads, m_.vertex_count() / 64 + 1));
    detail::edit_session s(m_, chunks);
    std::vector<std::vector<Vertex>> born(chunks);
    std::vector<chunk_counts> counts(chunks);
    parallel_split(s, threads, born, counts);
    parallel_collapse(s, threads, born, counts);
    parallel_flip(s, threads, born, counts);
    for (const chunk_counts& c : counts) {
      r_.splits += c.splits, r_.collapses += c.collapses, r_.flips += c.flips;
      r_.refused_collapses += c.refused;
      r_.parallel_ops += c.parallel, r_.retried_ops += c.retried, r_.serial_ops += c.serial;
    }
  }

  // f(v) for each live vertex chunk k owns: its share of the session's
  // vertices and those its splits made.
  template <class F>
  void for_own_vertices(const detail::edit_session& s, const std::vector<std::vector<Vertex>>& born, std::size_t k,
                        F&& f) const {
    for (const Vertex v : s.chunk(k))
      if (m_.is_live(v)) f(v);
    for (const Vertex v : born[k])
      if (m_.is_live(v)) f(v);
  }

  // Runs one step: collect(k, items) (read-only, all chunks at once), then
  // each chunk's items through one(k, item, pending, tail, phase) -> 1
  // done, 0 skipped, -1 deferred (lock failed), -2 left to the tail;
  // `pending` is the chunk's work list (a heap when Heap), to which one()
  // may add, and `tail` the chunk's items for the serial tail.
  template <bool Heap, class Collect, class One>
  void run_step(detail::edit_session& s, std::size_t threads, std::vector<chunk_counts>& counts, Collect&& collect,
                One&& one) {
    const std::size_t chunks = s.chunk_count();
    std::vector<std::vector<edit_item>> items(chunks), tails(chunks);
    detail::for_each_chunk(how_, chunks, threads, [&](std::size_t k) { collect(k, items[k]); });
    auto drain = [&](std::size_t k, std::vector<edit_item>& pending, std::vector<edit_item>* deferred, phase p) {
      while (!pending.empty()) {
        if constexpr (Heap) std::pop_heap(pending.begin(), pending.end());
        const edit_item it = pending.back();
        pending.pop_back();
        const int res = one(k, it, pending, tails[k], p);
        if (res > 0) count(counts[k], p);
        if (res == -1 && deferred) deferred->push_back(it);
        if (res == -1 && !deferred) tails[k].push_back(it);
        if (res == -2) tails[k].push_back(it);
      }
    };
    detail::for_each_chunk(how_, chunks, threads, [&](std::size_t k) {
      std::vector<edit_item>& pending = items[k];
      if constexpr (Heap) std::make_heap(pending.begin(), pending.end());
      std::vector<edit_item> deferred;
      drain(k, pending, &deferred, phase::first);
      for (const edit_item& it : deferred) {
        pending.push_back(it);
        if constexpr (Heap) std::push_heap(pending.begin(), pending.end());
        drain(k, pending, nullptr, phase::retry);
      }
    });
    // The tail, on this thread: every lock is free, so nothing is deferred.
    for (std::size_t k = 0; k < chunks; ++k) {
      std::vector<edit_item> pending;
      for (const edit_item& it : tails[k]) {
        pending.push_back(it);
        if constexpr (Heap) std::push_heap(pending.begin(), pending.end());
        while (!pending.empty()) {
          if constexpr (Heap) std::pop_heap(pending.begin(), pending.end());
          const edit_item x = pending.back();
          pending.pop_back();
          if (one(k, x, pending, pending, phase::tail) > 0) count(counts[k], phase::tail);
        }
      }
    }
  }

  static void push_heap_item(std::vector<edit_item>& pending, const edit_item& it) {
    pending.push_back(it);
    std::push_heap(pending.begin(), pending.end());
  }

  void parallel_split(detail::edit_session& s, std::size_t threads, std::vector<std::vector<Vertex>>& born,
                      std::vector<chunk_counts>& counts) {
    run_step<true>(
        s, threads, counts,
        [&](std::size_t k, std::vector<edit_item>& items) {
          for_own_vertices(s, born, k, [&](Vertex a) {
            for (const Halfedge h : m_.out_halfedges(a))
              if (const Vertex b = m_.to(h); a.idx() < b.idx())
                if (const double l2 = length2(h); l2 > hi2_) items.push_back({l2, a, b});
          });
        },
        [&](std::size_t k, const edit_item& it, std::vector<edit_item>& pending, std::vector<edit_item>& tail,
            phase p) -> int {
          const auto chunk = static_cast<std::uint32_t>(k);
          // Pushes edge (x, y) (locked vertices) seeded at an end this
          // chunk owns, else to the tail.
          auto push = [&](double l2, Vertex x, Vertex y) {
            if (p == phase::tail || s.owner(x) == chunk)
              push_heap_item(pending, {l2, x, y});
            else if (s.owner(y) == chunk)
              push_heap_item(pending, {l2, y, x});
            else
              tail.push_back({l2, x, y});
          };
          detail::lock_set locks(s, k);
          if (!locks.try_lock(it.a)) return -1;
          const Halfedge h = m_.find_halfedge(it.a, it.b);
          if (!h.is_valid()) return 0;  // split since
          const double l2 = length2(h);
          if (l2 <= hi2_) return 0;
          if (!o_.split_boundary && m_.is_boundary(h.edge())) return 0;
          if (!locks.try_lock(it.b)) return -1;
          for (const Halfedge x : {h, h.opposite()})
            if (!m_.is_boundary(x) && !locks.try_lock(m_.to(m_.next(x)))) return -1;
          // Longest-edge bisection (Rivara): split e only when no side of
          // the faces beside it is longer; else that side goes first (e
          // comes back when it is split: the split pushes its ring), and
          // a longer kept boundary side leaves e as it is.
          for (const Halfedge x : {h, h.opposite()}) {
            if (m_.is_boundary(x)) continue;
            for (Halfedge g = m_.next(x); g != x; g = m_.next(g)) {
              const double g2 = length2(g);
              if (g2 <= l2) continue;
              if (!o_.split_boundary && m_.is_boundary(g.edge())) return 0;
              push(g2, m_.from(g), m_.to(g));
              return 0;
            }
          }
          const Vertex v = m_.split(h.edge(), (m_.position(it.a) + m_.position(it.b)) * 0.5);
          hint_[v] = hint_[it.a];
          s.set_owner(v, chunk);
          born[k].push_back(v);
          ++counts[k].splits;
          // The new vertex's long edges, and the long sides of its faces
          // (an edge that waited for a longer side of its face).
          for (const Halfedge g : m_.out_halfedges(v)) {
            if (const double g2 = length2(g); g2 > hi2_) push_heap_item(pending, {g2, v, m_.to(g)});
            if (m_.is_boundary(g)) continue;
            const Halfedge side = m_.next(g);
            if (const double s2 = length2(side); s2 > hi2_) push(s2, m_.from(side), m_.to(side));
          }
          return 1;
        });
  }

  void parallel_collapse(detail::edit_session& s, std::size_t threads, std::vector<std::vector<Vertex>>& born,
                         std::vector<chunk_counts>& counts) {
    run_step<false>(
        s, threads, counts,
        [&](std::size_t k, std::vector<edit_item>& items) {
          for_own_vertices(s, born, k, [&](Vertex a) {
            for (const Halfedge h : m_.out_halfedges(a))
              if (const Vertex b = m_.to(h); a.idx() < b.idx())
                if (const double l2 = length2(h); l2 < lo2_) items.push_back({l2, a, b});
          });
          std::reverse(items.begin(), items.end());  // popped in the chunk's order
        },
        [&](std::size_t k, const edit_item& it, std::vector<edit_item>& pending, std::vector<edit_item>& tail,
            phase p) -> int {
          // it.a is the chunk's (or p is the tail): only its owner deletes
          // it, so is_live(it.a) is exact here.
          if (!m_.is_live(it.a)) return 0;
          detail::lock_set locks(s, k);
          if (!locks.try_lock(it.a)) return -1;
          const Halfedge h0 = m_.find_halfedge(it.a, it.b);
          if (!h0.is_valid() || length2(h0) >= lo2_) return 0;
          if (!locks.try_lock_closed_ring(it.a) || !locks.try_lock_closed_ring(it.b)) return -1;
          const Halfedge h1 = h0.opposite();
          const Vertex v0 = it.a, v1 = it.b;
          bool ok0 = !boundary(v0) && collapse_keeps_shape(h0) && m_.is_collapse_ok(h0);
          bool ok1 = !boundary(v1) && collapse_keeps_shape(h1) && m_.is_collapse_ok(h1);
          if (ok0 && ok1) {
            if (m_.valence(v0) < m_.valence(v1))
              ok1 = false;
            else
              ok0 = false;
          }
          if (!ok0 && !ok1) {
            ++counts[k].refused;
            return 0;
          }
          const Halfedge h = ok0 ? h0 : h1;
          const Vertex gone = m_.from(h), kept = m_.to(h);
          const auto chunk = static_cast<std::uint32_t>(k);
          if (p != phase::tail && s.owner(gone) != chunk) return -2;  // another chunk's vertex
          m_.collapse(h);
          locks.forget(gone);
          ++counts[k].collapses;
          const bool own_kept = s.owner(kept) == chunk;
          for (const Halfedge g : m_.out_halfedges(kept))
            if (const double g2 = length2(g); g2 < lo2_) {
              const Vertex w = m_.to(g);
              if (own_kept || p == phase::tail)
                pending.push_back({g2, kept, w});
              else if (s.owner(w) == chunk)
                pending.push_back({g2, w, kept});
              else
                tail.push_back({g2, kept, w});
            }
          return 1;
        });
  }

  void parallel_flip(detail::edit_session& s, std::size_t threads, std::vector<std::vector<Vertex>>& born,
                     std::vector<chunk_counts>& counts) {
    // valence_ holds each vertex's valence minus its target (4 on the
    // boundary, 6 inside; a flip changes no vertex's boundary status), read
    // and written through atomic_ref: a flip pre-tests the four deviations
    // after locking only a (c and d are in a's ring) and locks b, c and d
    // only when the flip may pay, then tests again.
    for_each_element(m_.vertices(), how_, [&](Vertex v) {
      const Halfedge o = m_.out(v);  // invalid for an isolated vertex
      valence_[v] = static_cast<int>(m_.valence(v)) - (o.is_valid() && m_.is_boundary(o) ? 4 : 6);
    });
    auto excess = [&](Vertex v) { return std::atomic_ref<int>(valence_[v]).load(std::memory_order_relaxed); };
    auto add = [&](Vertex v, int d) {  // v locked: the only writer
      std::atomic_ref<int> r(valence_[v]);
      r.store(r.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
    };
    auto pays = [&](Vertex a, Vertex b, Vertex c, Vertex d) {
      const int ea = excess(a), eb = excess(b), ec = excess(c), ed = excess(d);
      const int before = std::abs(ea) + std::abs(eb) + std::abs(ec) + std::abs(ed);
      const int after = std::abs(ea - 1) + std::abs(eb - 1) + std::abs(ec + 1) + std::abs(ed + 1);
      return after < before;
    };
    run_step<false>(
        s, threads, counts,
        [&](std::size_t k, std::vector<edit_item>& items) {
          for_own_vertices(s, born, k, [&](Vertex a) {
            for (const Halfedge h : m_.out_halfedges(a))
              if (const Vertex b = m_.to(h); a.idx() < b.idx() && !m_.is_boundary(h.edge())) items.push_back({0, a, b});
          });
          std::reverse(items.begin(), items.end());
        },
        [&](std::size_t k, const edit_item& it, std::vector<edit_item>&, std::vector<edit_item>&, phase) -> int {
          detail::lock_set locks(s, k);
          if (!locks.try_lock(it.a)) return -1;
          const Halfedge h = m_.find_halfedge(it.a, it.b);
          if (!h.is_valid() || m_.is_boundary(h.edge())) return 0;  // flipped since
          const Halfedge o = h.opposite();
          const Vertex a = it.a, b = it.b, c = m_.to(m_.next(h)), d = m_.to(m_.next(o));
          // A pre-test: b, c and d may be changing; a vertex another task
          // holds defers the item (as its lock would), else a flip that
          // does not pay is dropped without taking three locks.
          if (!pays(a, b, c, d))
            return locks.held_by_other(b) || locks.held_by_other(c) || locks.held_by_other(d) ? -1 : 0;
          if (!locks.try_lock(b) || !locks.try_lock(c) || !locks.try_lock(d)) return -1;
          if (!pays(a, b, c, d)) return 0;
          if (!m_.is_flip_ok(h.edge())) return 0;
          const vec3 &pa = m_.position(a), &pb = m_.position(b), &pc = m_.position(c), &pd = m_.position(d);
          const vec3 n = cross(pb - pa, pc - pa) + cross(pa - pb, pd - pb);
          if (!(dot(cross(pc - pd, pa - pd), n) > 0) || !(dot(cross(pd - pc, pb - pc), n) > 0)) return 0;
          m_.flip(h.edge());
          add(a, -1), add(b, -1), add(c, 1), add(d, 1);
          ++counts[k].flips;
          return 1;
        });
  }

  void relax_and_project() {
    for_each_element(m_.vertices(), how_, [&](Vertex v) {
      const vec3 p = m_.position(v);
      vec3 q = p;
      const Halfedge start = m_.out(v);
      if (start.is_valid() && !m_.is_boundary(start)) {
        vec3 centroid_sum, normal_sum;
        double area_sum = 0;
        for (const Halfedge g : m_.out_halfedges(v)) {
          const vec3& pw = m_.position(m_.to(g));
          const vec3& px = m_.position(m_.to(m_.next(g)));
          const vec3 n = cross(pw - p, px - p);
          const double a = norm(n);
          area_sum += a;
          centroid_sum += (p + pw + px) * (a / 3.0);
          normal_sum += n;
        }
        if (area_sum > 0) {
          const vec3 nrm = normalized(normal_sum);
          vec3 t = centroid_sum * (1.0 / area_sum) - p;
          t -= nrm * dot(t, nrm);
          q = p + t;
        }
        if (o_.project && !bvh_.empty()) {
          const closest_point_result r = bvh_.closest_point(q, hint_[v]);
          hint_[v] = r.triangle;
          q = r.point;
        }
      }
      m_.scratch(v) = q;
    });
    for_each_element(m_.vertices(), how_, [&](Vertex v) { m_.position(v) = m_.scratch(v); });
  }

  triangle_mesh& m_;
  const remesh_options& o_;
  execution how_;
  scoped_column<std::uint32_t> hint_;
  scoped_column<int> valence_;
  triangle_bvh bvh_;
  double hi2_ = 0, lo2_ = 0;
  remesh_result r_;
};

}  // namespace remesh_detail

// Remeshes m in place towards edges of length o.target_edge_length: the
// design note above. Vertex normals (the scratch buffer) are stale after it;
// handles of deleted elements are invalid, others stay valid.
// how: execution::openmp / tbb run the topology edits on o.threads threads
// at once on m (the design note's scheme) and the relaxation and
// projection sweeps in parallel; the result meets the same guarantees as
// the serial one but is not the same mesh.
// Throws: usage_error, with m unchanged, if the length is not positive and
// finite, iterations or relaxation_steps is negative, collapse_normal_cos
// is outside [-1, 1), or !available(how);
// std::bad_alloc (then m is a valid mesh, partly remeshed).
// Complexity: O(iterations * (F + splits + collapses) * valence^2 + vertex
// projections, O(log F) each).
inline remesh_result remesh(triangle_mesh& m, const remesh_options& o, execution how = execution::serial) {
  if (!(o.target_edge_length > 0) || !std::isfinite(o.target_edge_length))
    throw usage_error("remesh: target_edge_length must be positive and finite");
  if (o.iterations < 0) throw usage_error("remesh: iterations must not be negative");
  if (o.relaxation_steps < 0) throw usage_error("remesh: relaxation_steps must not be negative");
  if (!(o.collapse_normal_cos >= -1 && o.collapse_normal_cos < 1))
    throw usage_error("remesh: collapse_normal_cos must be in [-1, 1)");
  if (!available(how)) throw usage_error(std::string("remesh: execution::") + to_string(how) + " is not in this build");
  if (m.face_count() == 0 || o.iterations == 0) return {};
  remesh_detail::remesher r(m, o, how);
  return r.run();
}

}  // namespace TRAVPOOL_MESH_BACKEND
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
