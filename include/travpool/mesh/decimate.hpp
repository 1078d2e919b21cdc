// travpool/mesh/decimate.hpp: quadric edge-collapse decimation (Garland and
// Heckbert 1997) of a triangle_mesh to a target face count, in place.
//
// DESIGN NOTE
// ===========
// Every vertex v carries a quadric Q_v (10 coefficients and a weight, in a
// vector indexed by handle: a column): the sum over the faces f at v of
//
//   Q_f(x) = w_f * (n_f . x + d_f)^2     (n_f unit, d_f = -n_f . p_f)
//
// i.e. the squared distances to the planes of the input faces around v,
// with w_f = 1 (Garland and Heckbert, CGAL's plane policies: the default,
// better in Hausdorff distance on the meshes of docs/mesh.md) or area(f)
// (OpenMesh's ModQuadric: area_weighted). An edge (a, b) costs
// Q(p) with Q = Q_a + Q_b and p its placement:
//
//   p = argmin Q   (the 3x3 system A p = -b)  if A is well conditioned,
//   else the best of a, b and (a + b) / 2;
//   p = a when a is on the boundary (b is merged into a), and edges with
//   both ends on the boundary are never collapsed: boundary vertices never
//   move and the boundary polylines stay exactly as they were.
//
// The edges sit in a lazy min-heap of (cost, edge, stamp): an item is
// current iff its stamp equals the edge's stamp, which every recomputation
// bumps. A popped current item collapses its edge if
//
//   faces > target,  error(p) = sqrt(Q(p) / weight(Q)) <= max_error,
//   m.is_collapse_ok(h)  (the link condition),
//   no face around a or b (but the two that vanish) flips or degenerates
//   when its corner moves to p:  n_new . n_old > 0 and |n_new| > eps |n_old|,
//   and none of them gets a smallest angle below min(min_angle, the
//   smallest angle of the faces around a and b before), nor its sine
//   below min_angle_ratio x that one's (the quality guard, compared as
//   sin^2: no trigonometry per collapse),
//
// else it is dropped (a later change at a or b pushes the edge again).
// After a collapse the kept vertex takes p and Q_a + Q_b, and every edge at
// it is pushed afresh. Each collapse removes two faces, so the result has
// target_faces faces, or target_faces + 1 when the counts' parities differ,
// or more when no valid collapse is left (or max_error stops it).
//
// Invariants: between collapses the mesh is valid (m.validate()); no vertex
// with a boundary halfedge moves or is removed; every vertex's quadric is
// the sum of the input face quadrics of the vertices merged into it; the
// smallest angle of the mesh is at least min(min_angle, the input's) (each
// collapse's new faces are at least min(min_angle, the worst it removes)),
// in any collapse order: so serial and parallel results share that bound.
//
// Parallel (execution::openmp / execution::tbb; parallel_phase below,
// docs/mesh.md "Decimation"): one shared mesh, its vertices cut into Morton
// chunks, each with a heap of the collapses that delete its own vertices,
// run under per-vertex try-locks. The work goes in rounds with a global
// cost cap: the cost below which the cheapest half of the collapses still
// to do lie; every chunk collapses its items up to the cap, cheapest first.
// So no chunk runs ahead of the others into costlier edges, and the order
// stays the serial one up to the spread below each cap (Hausdorff distance
// within 10 % of the serial result's on the meshes of docs/mesh.md). When
// at most 1/32 of the collapses are left, the serial loop does the rest.
// The set-up runs on the threads as well, with the serial results: the
// input check (validate_input: validate()'s checks over ranges of edges,
// faces, vertices; on any failure validate() itself runs, for its
// message), the quadrics (each face's plane, then each vertex's sum in the
// faces' traversal order: the serial sums' bits), the Morton codes and
// their sort, the tail's heap, and between rounds (from 32768 orphans:
// fewer do not pay for the forks and joins) the orphans' hand-over and
// the cap's sample. Serial are the rest between rounds, the per-vertex
// arrays' allocation and the tail's collapses: about 5 % of the
// instructions on bunny00 (docs/mesh.md).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <travpool/usage_error.hpp>

#include "algorithms.hpp"  // execution, available(), the backends' macros and headers
#if TRAVPOOL_MESH_TBB
#include <tbb/blocked_range.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#endif
#include "detail/parallel_edit.hpp"
#include "mesh.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

struct decimate_options {
  // Stop at this many faces (or one more: each collapse removes two).
  // Must be >= 4.
  std::size_t target_faces = 0;
  // Never collapse an edge whose placement's RMS distance to the planes of
  // the input faces merged into it, sqrt(Q(p) / weight), exceeds this
  // (length units). Must be >= 0.
  double max_error = std::numeric_limits<double>::infinity();
  // Parallel modes: the number of threads (0: omp_get_max_threads() /
  // TBB's default concurrency).
  unsigned threads = 0;
  // The triangle-quality guard (degrees, in [0, 60]): a collapse is refused
  // when a triangle it creates has a smallest angle below min(min_angle,
  // the smallest angle of the triangles it replaces). So the result's
  // smallest angle is at least min(min_angle, the input's), whatever the
  // collapse order (serial or parallel). 0 turns this floor off
  // (min_angle_ratio, the relative test, is separate).
  double min_angle = 10;
  // The guard's second test (in [0, 1]): a collapse is also refused when
  // the sine of a created triangle's smallest angle is below
  // min_angle_ratio x that of the smallest angle of the triangles it
  // replaces (no collapse more than halves it, by default), so no
  // collapse makes a sudden sliver even above min_angle. 0 turns it off.
  double min_angle_ratio = 0.5;
  // Weight each face's plane by its area (OpenMesh's ModQuadric) instead
  // of 1 (Garland and Heckbert's paper, CGAL's plane policies; smaller
  // Hausdorff distances on the meshes measured in docs/mesh.md).
  bool area_weighted = false;
  // Testing: m.validate() after every collapse (O(E) each; small meshes).
  bool validate_each_collapse = false;
};

struct decimate_result {
  std::size_t faces_before = 0;
  std::size_t faces_after = 0;
  std::size_t collapses = 0;
  // The largest error(p) (as max_error) of the collapses done.
  double max_error = 0;
  // Collapses done in the parallel phase, in its retry of deferred items,
  // and serially (the tail and the finish); all serial in serial mode.
  std::size_t parallel = 0;
  std::size_t retried = 0;
  std::size_t serial = 0;
};

namespace detail::decimation {

// A symmetric 4x4 quadric (upper triangle) and its weight (area).
struct quadric {
  double a2 = 0, ab = 0, ac = 0, ad = 0, b2 = 0, bc = 0, bd = 0, c2 = 0, cd = 0, d2 = 0, w = 0;

  static quadric plane(const vec3& n, double d, double weight) noexcept {
    quadric q;
    q.a2 = weight * n.x * n.x, q.ab = weight * n.x * n.y, q.ac = weight * n.x * n.z, q.ad = weight * n.x * d;
    q.b2 = weight * n.y * n.y, q.bc = weight * n.y * n.z, q.bd = weight * n.y * d;
    q.c2 = weight * n.z * n.z, q.cd = weight * n.z * d, q.d2 = weight * d * d, q.w = weight;
    return q;
  }
  quadric& operator+=(const quadric& o) noexcept {
    a2 += o.a2, ab += o.ab, ac += o.ac, ad += o.ad, b2 += o.b2, bc += o.bc, bd += o.bd;
    c2 += o.c2, cd += o.cd, d2 += o.d2, w += o.w;
    return *this;
  }
  friend quadric operator+(quadric a, const quadric& b) noexcept { return a += b; }
  // Q(p) = p^T A p + 2 b^T p + d2, clamped at 0 (rounding).
  double operator()(const vec3& p) const noexcept {
    const double x = p.x, y = p.y, z = p.z;
    const double v =
        x * (a2 * x + 2 * (ab * y + ac * z + ad)) + y * (b2 * y + 2 * (bc * z + bd)) + z * (c2 * z + 2 * cd) + d2;
    return v > 0 ? v : 0;
  }
  // The minimiser of Q, if A is well conditioned (|det| > 1e-10 trace^3 / 27
  // and the point finite).
  bool minimum(vec3& p) const noexcept {
    const double c00 = b2 * c2 - bc * bc, c01 = ac * bc - ab * c2, c02 = ab * bc - ac * b2;
    const double det = a2 * c00 + ab * c01 + ac * c02;
    const double tr = a2 + b2 + c2;
    if (!(std::fabs(det) > 1e-10 * tr * tr * tr / 27)) return false;
    const double c11 = a2 * c2 - ac * ac, c12 = ab * ac - a2 * bc, c22 = a2 * b2 - ab * ab;
    const double inv = -1.0 / det;  // p = -A^-1 (ad, bd, cd)
    p = {inv * (c00 * ad + c01 * bd + c02 * cd), inv * (c01 * ad + c11 * bd + c12 * cd),
         inv * (c02 * ad + c12 * bd + c22 * cd)};
    return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
  }
};

inline double error_of(const quadric& q, double cost) noexcept { return q.w > 0 ? std::sqrt(cost / q.w) : 0.0; }

// sin^2 of the smallest angle of the triangle (p, x, y): |n|^2 l_min^2 /
// (l_0^2 l_1^2 l_2^2), n = (x - p) x (y - p), the smallest angle being
// opposite the shortest side (and at most 60 degrees, where sin is
// increasing: the order of angles). 0 for a degenerate triangle. The same
// arithmetic for the same (p, x, y) wherever it is called.
inline double sin2_min_angle(const vec3& p, const vec3& x, const vec3& y) noexcept {
  const vec3 u = x - p, w = y - p, e = y - x;
  const vec3 n = cross(u, w);
  const double lu = dot(u, u), lw = dot(w, w), le = dot(e, e);
  const double prod = lu * lw * le;
  if (!(prod > 0)) return 0;
  return dot(n, n) * (std::min)({lu, lw, le}) / prod;
}

// A 4-ary min-heap of (cost, edge): half the levels of a binary heap, and
// an item in 8 bytes. Lazy: an item is current iff its cost equals the
// edge's current cost (decimator::cost_); stale ones are skipped on pop.
struct heap_item {
  float cost;
  std::uint32_t edge;
};
// The parallel phase's item: the halfedge to collapse and its seed,
// from(half) when pushed (owned by the chunk, so never deleted by another).
struct chunk_item {
  float cost;
  std::uint32_t half;
  std::uint32_t seed;
};
template <class Item>
class basic_heap {
 public:
  using item = Item;
  bool empty() const noexcept { return v_.empty(); }
  std::size_t size() const noexcept { return v_.size(); }
  void reserve(std::size_t n) { v_.reserve(n); }
  void clear() noexcept { v_.clear(); }
  // Unordered appends, then heapify(): O(n).
  void append(Item x) { v_.push_back(x); }
  void heapify() noexcept {
    for (std::size_t i = v_.size() / 4 + 1; i-- > 0;)
      if (i < v_.size()) down(i);
  }
  // The items, in heap order (unordered for a reader).
  const std::vector<Item>& items() const noexcept { return v_; }
  // Keeps the items with keep(item), then heapify(): O(n).
  template <class Keep>
  void filter(Keep&& keep) {
    v_.erase(std::remove_if(v_.begin(), v_.end(), [&](const Item& x) { return !keep(x); }), v_.end());
    heapify();
  }
  const Item& top() const noexcept { return v_[0]; }
  void push(Item x) {
    std::size_t i = v_.size();
    v_.push_back(x);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!(x.cost < v_[parent].cost)) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = x;
  }
  Item pop() noexcept {
    const Item top = v_[0];
    v_[0] = v_.back();
    v_.pop_back();
    if (!v_.empty()) down(0);
    return top;
  }

 private:
  void down(std::size_t i) noexcept {
    const std::size_t n = v_.size();
    const Item x = v_[i];
    for (;;) {
      const std::size_t c = 4 * i + 1;
      if (c >= n) break;
      std::size_t best = c;
      const std::size_t end = (std::min)(c + 4, n);
      for (std::size_t k = c + 1; k < end; ++k)
        if (v_[k].cost < v_[best].cost) best = k;
      if (!(v_[best].cost < x.cost)) break;
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = x;
  }
  std::vector<Item> v_;
};
using edge_heap = basic_heap<heap_item>;
using chunk_heap = basic_heap<chunk_item>;

// Sorts v (distinct keys: the result is std::sort's) on `threads` threads:
// TBB's parallel_sort, or (OpenMP) `threads` blocks sorted at once, then
// merged pairwise, a level at a time.
template <class T>
void sort_parallel(std::vector<T>& v, execution how, std::size_t threads) {
#if TRAVPOOL_MESH_TBB
  if (how == execution::tbb) {
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute([&] { tbb::parallel_sort(v.begin(), v.end()); });
    return;
  }
#endif
  const std::size_t n = v.size(), k = threads;
  if (how == execution::serial || k <= 1 || n < 4096) return std::sort(v.begin(), v.end());
  std::vector<std::size_t> b(k + 1);
  for (std::size_t i = 0; i <= k; ++i) b[i] = i * n / k;
  const auto at = [](std::vector<T>& x, std::size_t i) { return x.begin() + static_cast<std::ptrdiff_t>(i); };
  for_each_chunk(how, k, threads, [&](std::size_t i) { std::sort(at(v, b[i]), at(v, b[i + 1])); });
  std::vector<T> tmp(n);
  for (std::size_t w = 1; w < k; w *= 2) {
    for_each_chunk(how, (k + 2 * w - 1) / (2 * w), threads, [&](std::size_t p) {
      const std::size_t lo = b[2 * w * p], mid = b[(std::min)(2 * w * p + w, k)],
                        hi = b[(std::min)(2 * w * p + 2 * w, k)];
      std::merge(at(v, lo), at(v, mid), at(v, mid), at(v, hi), at(tmp, lo));
    });
    v.swap(tmp);
  }
}

// The offsets of parts (partition()'s subranges) in the traversal order:
// first[i] live elements precede part i; first.back() = all of them.
template <class Parts>
std::vector<std::size_t> offsets(const Parts& parts) {
  std::vector<std::size_t> first(parts.size() + 1, 0);
  for (std::size_t i = 0; i < parts.size(); ++i) first[i + 1] = first[i] + parts[i].size();
  return first;
}

// m.validate() with its checks split over ranges of the edges, then of the
// faces, then of the vertices (each pass only after the previous one
// passed, as validate() reads them), on `threads` threads of how's backend.
// Any check failing (or low-level links: mesh_internals::plain_links)
// runs m.validate() itself, so an invalid mesh throws exactly what
// validate() throws. Throws: std::logic_error (validate()'s).
TRAVPOOL_NOINLINE inline void validate_input(const triangle_mesh& m, execution how, std::size_t threads) {
  if (how == execution::serial || threads <= 1 || !detail::mesh_internals::plain_links(m)) return m.validate();
  const std::size_t halfedges = m.halfedge_count();
  std::atomic<bool> bad(false);
  // ok(x, part) for every element x of every part, until one is false.
  auto pass = [&](const auto& parts, auto&& ok) {
    for_each_chunk(how, parts.size(), threads, [&](std::size_t i) {
      bool good = true;
      parts[i].for_each([&](auto x) { good = good && ok(x, i); });
      if (!good) bad.store(true, std::memory_order_relaxed);
    });
    return !bad.load();
  };
  // validate()'s checks, in its order, each stopping at the first failure.
  auto edge_ok = [&](Edge e, std::size_t) {
    for (unsigned s = 0; s < 2; ++s) {
      const Halfedge h = e.halfedge(s);
      if (h.side() != s || h.edge() != e || h.opposite().opposite() != h) return false;
      if (!m.is_live(m.next(h))) return false;
      const Halfedge p = m.prev(h);
      if (!m.is_live(p) || m.next(p) != h) return false;
      if (!m.is_live(m.to(h)) || m.to(h) == m.from(h) || m.from(m.next(h)) != m.to(h)) return false;
      if (m.face(m.next(h)) != m.face(h)) return false;
      if (m.face(h).is_valid() && !m.is_live(m.face(h))) return false;
      if (m.is_isolated(m.from(h))) return false;
    }
    return true;
  };
  auto face_ok = [&](Face f, std::size_t) {
    const Halfedge h = m.halfedge(f);
    return m.is_live(h) && m.face(h) == f && m.next(m.next(m.next(h))) == h;
  };
  const std::size_t k = 4 * threads;
  const auto vparts = m.vertices().partition(k);
  std::vector<std::size_t> ring(vparts.size(), 0);
  auto vertex_ok = [&](Vertex v, std::size_t i) {
    if (m.is_isolated(v)) return true;
    const Halfedge o = m.out(v);
    if (!m.is_live(o) || m.from(o) != v) return false;
    bool boundary = false;
    std::size_t n = 0;
    for (const Halfedge h : m.out_halfedges(v)) {
      if (m.from(h) != v) return false;
      boundary |= m.is_boundary(h);
      if (++n > halfedges) return false;
    }
    if (boundary && !m.is_boundary(o)) return false;
    ring[i] += n;
    return true;
  };
  if (pass(m.edges().partition(k), edge_ok) && pass(m.faces().partition(k), face_ok) && pass(vparts, vertex_ok)) {
    std::size_t total = 0;
    for (const std::size_t n : ring) total += n;
    if (total == halfedges) return;
  }
  m.validate();  // throws the first violation's message
}

// The serial decimator's state, reused by the parallel driver's chunks.
class decimator {
 public:
  static constexpr float dead = -1.0f;  // cost_ of an edge with no current item

  decimator(triangle_mesh& m, const decimate_options& o) : m_(m), o_(o) {
    const double t = (std::min)(o.min_angle, 60.0) * 3.14159265358979323846 / 180;
    min_sin2_ = o.min_angle > 0 ? std::sin(t) * std::sin(t) : 0;
    ratio2_ = (std::min)(o.min_angle_ratio, 1.0) * (std::min)(o.min_angle_ratio, 1.0);
  }

  // f's plane: unit normal n, offset d (n . x + d = 0) and weight w;
  // false if f is degenerate (no plane).
  bool plane_of(Face f, vec3& n, double& d, double& w) const noexcept {
    const auto c = m_.corners(f);
    const vec3 &p0 = m_.position(c[0]), &p1 = m_.position(c[1]), &p2 = m_.position(c[2]);
    n = cross(p1 - p0, p2 - p0);
    const double len = norm(n);
    if (!(len > 0)) return false;
    n *= 1.0 / len;
    d = -dot(n, p0), w = o_.area_weighted ? 0.5 * len : 1.0;
    return true;
  }

  // Quadrics of every vertex: O(V + E + F). In parallel (how not serial,
  // threads > 1): the faces' quadrics over ranges of faces, then each
  // vertex's sum over its faces in the faces' traversal order, so every
  // quadric has the serial sum's bits.
  TRAVPOOL_NOINLINE void init(execution how = execution::serial, std::size_t threads = 1) {
    std::uint32_t vb = 0, eb = 0;
    m_.vertices().for_each([&](Vertex v) { vb = (std::max)(vb, v.idx() + 1); });
    m_.edges().for_each([&](Edge e) { eb = (std::max)(eb, e.idx() + 1); });
    q_.assign(vb, quadric{});
    cost_.assign(eb, dead);
    if (how == execution::serial || threads <= 1) {
      m_.faces().for_each([&](Face f) {
        vec3 n;
        double d, w;
        if (!plane_of(f, n, d, w)) return;
        const quadric q = quadric::plane(n, d, w);
        for (const Vertex v : m_.corners(f)) q_[v.idx()] += q;
      });
      return;
    }
    // Each face's plane and its position in the traversal (rank; ~0u: no
    // plane), then each vertex's planes in rank order.
    struct face_plane {
      double nx, ny, nz, d, w;
      std::uint32_t rank;
    };
    const auto fparts = m_.faces().partition(4 * threads);
    const std::vector<std::size_t> first = offsets(fparts);
    std::vector<face_plane> fp(m_.handle_bound<Face>());
    for_each_chunk(how, fparts.size(), threads, [&](std::size_t i) {
      auto r = static_cast<std::uint32_t>(first[i]);
      fparts[i].for_each([&](Face f) {
        face_plane& x = fp[f.idx()];
        vec3 n;
        const std::uint32_t at = r++;
        x.rank = plane_of(f, n, x.d, x.w) ? at : ~0u;
        x.nx = n.x, x.ny = n.y, x.nz = n.z;
      });
    });
    const auto vparts = m_.vertices().partition(4 * threads);
    for_each_chunk(how, vparts.size(), threads, [&](std::size_t i) {
      std::vector<const face_plane*> fs;
      vparts[i].for_each([&](Vertex v) {
        if (m_.is_isolated(v)) return;
        fs.clear();
        for (const Face f : m_.faces_around(v)) {  // insertion sort by rank
          const face_plane* x = &fp[f.idx()];
          if (x->rank == ~0u) continue;
          fs.push_back(x);
          for (std::size_t j = fs.size() - 1; j > 0 && fs[j - 1]->rank > x->rank; --j) std::swap(fs[j - 1], fs[j]);
        }
        quadric& q = q_[v.idx()];
        for (const face_plane* x : fs) q += quadric::plane({x->nx, x->ny, x->nz}, x->d, x->w);
      });
    });
  }

  // m.is_boundary(v) on the settled mesh decimate() works on (no
  // low-level primitive since settle(): out(v) is a boundary halfedge
  // whenever v is on the boundary), inlined here: the hottest test.
  bool boundary(Vertex v) const noexcept {
    const Halfedge o = m_.out(v);
    return o.is_valid() && m_.is_boundary(o);
  }

  // The halfedge to collapse (from(h) goes), the placement and the cost of
  // edge e; false if e may not collapse (both ends on the boundary).
  bool evaluate(Edge e, Halfedge& h, vec3& p, double& cost) const noexcept {
    const Halfedge h0 = e.halfedge(0);
    const Vertex a = m_.from(h0), b = m_.to(h0);
    const bool ba = boundary(a), bb = boundary(b);
    if (ba && bb) return false;
    const quadric q = q_[a.idx()] + q_[b.idx()];
    if (ba) {
      h = h0.opposite(), p = m_.position(a);  // b merges into a
    } else if (bb) {
      h = h0, p = m_.position(b);
    } else {
      h = h0;
      if (!q.minimum(p)) {
        const vec3 &pa = m_.position(a), &pb = m_.position(b);
        const vec3 mid = 0.5 * (pa + pb);
        const double ca = q(pa), cb = q(pb), cm = q(mid);
        p = cm <= ca && cm <= cb ? mid : (ca <= cb ? pa : pb);
      }
    }
    cost = q(p);
    return true;
  }

  // Effects: recomputes e's cost into c and cost_ (cost_ dead if e may not
  // collapse). Returns: whether e may collapse.
  bool recost(Edge e, float& c) {
    Halfedge h;
    vec3 p;
    double cost;
    if (!evaluate(e, h, p, cost)) {
      cost_[e.idx()] = dead;
      return false;
    }
    c = static_cast<float>(cost);
    cost_[e.idx()] = c;
    return true;
  }

  // Recomputes e's cost and pushes it (nothing if e may not collapse).
  template <class Heap>
  void push(Heap& heap, Edge e) {
    if (float c; recost(e, c)) heap.push({c, e.idx()});
  }

  // The link condition (as m.is_collapse_ok(h), with b's one-ring in a
  // local array instead of searches: O(valence^2) compares of handles, no
  // walks; thread-safe), the fold-over test: no face around from(h)
  // or to(h), other than the two beside h, flips or degenerates (its area
  // below 1e-6 of the old one) when its corner moves to p, and the quality
  // guard: the smallest angle of those faces moved to p is at least
  // min(o.min_angle, the smallest angle of every face around a or b
  // before), compared as sin^2 (sin2_min_angle).
  bool collapse_ok(Halfedge h, const vec3& p) const {
    const Halfedge o = h.opposite();
    const Vertex a = m_.from(h), b = m_.to(h);
    Vertex vl, vr;
    if (!m_.is_boundary(h)) {
      const Halfedge h1 = m_.next(h), h2 = m_.next(h1);
      vl = m_.to(h1);
      if (m_.is_boundary(h1.opposite()) && m_.is_boundary(h2.opposite())) return false;
    }
    if (!m_.is_boundary(o)) {
      const Halfedge o1 = m_.next(o), o2 = m_.next(o1);
      vr = m_.to(o1);
      if (m_.is_boundary(o1.opposite()) && m_.is_boundary(o2.opposite())) return false;
    }
    if (vl == vr) return false;
    const bool bound_a = boundary(a), bound_b = boundary(b);
    if (bound_a && bound_b && !m_.is_boundary(h) && !m_.is_boundary(o)) return false;
    // Faces around v (not beside the edge) must keep their orientation
    // when v moves to p.
    // The smallest sin^2 of the faces before and after (quality guard).
    const bool guard = min_sin2_ > 0 || ratio2_ > 0;
    double q_old = 1, q_new = 1;
    auto fold_free = [&](Halfedge g, const vec3& pv) {
      const Halfedge n = m_.next(g);
      const Vertex x = m_.to(g), y = m_.to(n);
      const vec3 &px = m_.position(x), &py = m_.position(y);
      if (guard) q_old = (std::min)(q_old, sin2_min_angle(pv, px, py));
      if (x == a || x == b || y == a || y == b) return true;
      const vec3 e = py - px;
      const vec3 n_old = cross(px - pv, e);
      const vec3 n_new = cross(px - p, e);
      if (guard) q_new = (std::min)(q_new, sin2_min_angle(p, px, py));
      return dot(n_old, n_new) > 0 && dot(n_new, n_new) >= 1e-12 * dot(n_old, n_old);
    };
    std::size_t val_b = 0, val_a = 0;
    const vec3& pb = m_.position(b);
    constexpr std::size_t max_ring = 64;
    Vertex ring_b[max_ring];
    for (const Halfedge g : m_.out_halfedges(b)) {
      if (val_b == max_ring) return m_.is_collapse_ok(h) && reference_fold_free(h, p) && reference_quality_ok(h, p);
      ring_b[val_b++] = m_.to(g);
      if (!m_.is_boundary(g) && !fold_free(g, pb)) return false;
    }
    auto in_ring_b = [&](Vertex w) { return std::find(ring_b, ring_b + val_b, w) != ring_b + val_b; };
    const vec3& pa = m_.position(a);
    for (const Halfedge g : m_.out_halfedges(a)) {
      const Vertex w = m_.to(g);
      ++val_a;
      if (w != b && w != vl && w != vr && in_ring_b(w)) return false;
      if (!m_.is_boundary(g) && !fold_free(g, pa)) return false;
    }
    // Two interior vertices of valence 3 sharing an edge: a tetrahedron,
    // which would collapse to a double triangle.
    if (val_a == 3 && val_b == 3 && !bound_a && !bound_b) return false;
    return !guard || quality_ok(q_old, q_new);
  }

  // The guard's tests on the smallest sin^2 before and after.
  bool quality_ok(double q_old, double q_new) const noexcept {
    return q_new >= (std::min)(min_sin2_, q_old) && q_new >= ratio2_ * q_old;
  }

  // The quality guard alone, in a loop of its own (validate_each_collapse;
  // the same arithmetic as collapse_ok's: each face from its corner at a
  // or b, so the two agree bit for bit).
  bool reference_quality_ok(Halfedge h, const vec3& p) const {
    if (!(min_sin2_ > 0 || ratio2_ > 0)) return true;
    const Vertex a = m_.from(h), b = m_.to(h);
    double q_old = 1, q_new = 1;
    for (const Vertex v : {b, a})
      for (const Halfedge g : m_.out_halfedges(v)) {
        if (m_.is_boundary(g)) continue;
        const Vertex x = m_.to(g), y = m_.to(m_.next(g));
        q_old = (std::min)(q_old, sin2_min_angle(m_.position(v), m_.position(x), m_.position(y)));
        if (x != a && x != b && y != a && y != b)
          q_new = (std::min)(q_new, sin2_min_angle(p, m_.position(x), m_.position(y)));
      }
    return quality_ok(q_old, q_new);
  }

  // The fold-over test alone, written plainly (validate_each_collapse
  // checks collapse_ok against m.is_collapse_ok(h) and this).
  bool reference_fold_free(Halfedge h, const vec3& p) const {
    const Vertex a = m_.from(h), b = m_.to(h);
    for (const Vertex v : {a, b})
      for (const Face f : m_.faces_around(v)) {
        auto c = m_.corners(f);
        if (std::find(c.begin(), c.end(), a) != c.end() && std::find(c.begin(), c.end(), b) != c.end()) continue;
        const vec3 n_old = cross(m_.position(c[1]) - m_.position(c[0]), m_.position(c[2]) - m_.position(c[0]));
        std::array<vec3, 3> q{m_.position(c[0]), m_.position(c[1]), m_.position(c[2])};
        for (int i = 0; i < 3; ++i)
          if (c[i] == v) q[i] = p;
        const vec3 n_new = cross(q[1] - q[0], q[2] - q[0]);
        if (!(dot(n_old, n_new) > 0) || dot(n_new, n_new) < 1e-12 * dot(n_old, n_old)) return false;
      }
    return true;
  }

  // Collapses h (from(h) into to(h)) with to(h) moved to p.
  void collapse(Halfedge h, const vec3& p) {
    const Vertex a = m_.from(h), b = m_.to(h);
    q_[b.idx()] += q_[a.idx()];
    m_.collapse(h, p);
  }

  // Pops until faces <= target (+1 for parity) or the heap is empty;
  // accept(h) may refuse a collapse (the item is dropped).
  template <class Heap, class Accept>
  void run(Heap& heap, std::size_t& faces, std::size_t target, decimate_result& r, std::size_t& counter,
           Accept&& accept) {
    while (faces > target + 1 && !heap.empty()) {
      const heap_item it = heap.pop();
      if (cost_[it.edge] != it.cost) continue;  // stale, or already done
      const Edge e(it.edge);
      cost_[it.edge] = dead;
      Halfedge h;
      vec3 p;
      double cost;
      if (!evaluate(e, h, p, cost)) continue;
      const Vertex a = m_.from(h), b = m_.to(h);
      const double err = error_of(q_[a.idx()] + q_[b.idx()], cost);
      if (err > o_.max_error) continue;
      if (!accept(h)) continue;
      const bool ok = collapse_ok(h, p);
      if (o_.validate_each_collapse &&
          ok != (m_.is_collapse_ok(h) && reference_fold_free(h, p) && reference_quality_ok(h, p)))
        throw std::logic_error("decimate: the link test disagrees with triangle_mesh::is_collapse_ok");
      if (!ok) continue;
      // The edges collapse() deletes: h's, and in each triangle beside h
      // the one at from(h) (a -> b, b -> vl, vl -> a: vl -> a goes).
      const Edge gone[3] = {h.edge(), m_.is_boundary(h) ? Edge() : m_.next(m_.next(h)).edge(),
                            m_.is_boundary(h.opposite()) ? Edge() : m_.next(h.opposite()).edge()};
      collapse(h, p);
      for (const Edge g : gone)
        if (g.is_valid()) cost_[g.idx()] = dead;
      faces -= 2;
      ++r.collapses, ++counter;
      r.max_error = (std::max)(r.max_error, err);
      if (o_.validate_each_collapse) m_.validate();
      for (const Halfedge g : m_.out_halfedges(b)) push(heap, g.edge());
    }
  }

  // One heap of every edge that may collapse: O(E). In parallel (how not
  // serial, threads > 1) the costs over ranges of edges, appended in the
  // edges' traversal order (the serial heap).
  template <class Heap>
  TRAVPOOL_NOINLINE void push_all(Heap& heap, execution how = execution::serial, std::size_t threads = 1) {
    heap.reserve(m_.edge_count() + m_.edge_count() / 2);
    if (how == execution::serial || threads <= 1) {
      m_.edges().for_each([&](Edge e) {
        if (float c; recost(e, c)) heap.append({c, e.idx()});
      });
    } else {
      const auto parts = m_.edges().partition(4 * threads);
      std::vector<std::vector<typename Heap::item>> items(parts.size());
      for_each_chunk(how, parts.size(), threads, [&](std::size_t i) {
        items[i].reserve(parts[i].size());
        parts[i].for_each([&](Edge e) {
          if (float c; recost(e, c)) items[i].push_back({c, e.idx()});
        });
      });
      for (const auto& v : items)
        for (const auto& x : v) heap.append(x);
    }
    heap.heapify();
  }

  triangle_mesh& m_;
  const decimate_options& o_;
  std::vector<quadric> q_;
  std::vector<float> cost_;  // per edge: the cost of its current item, or dead
  double min_sin2_ = 0;      // sin^2(o.min_angle), 0: no floor
  double ratio2_ = 0;        // o.min_angle_ratio^2, 0: no relative test
};

// The parallel phase (docs/mesh.md "Decimation"), on the one shared mesh:
//
//   chunks    vertices sorted by the Morton code of their position, cut into
//             K contiguous chunks; owner[v] = its chunk
//   items     (cost, h, seed = from(h)) in the heap of owner(seed): a
//             collapse only ever deletes a vertex of the chunk that runs it.
//             An edge recomputed by a chunk that owns neither end goes to
//             that chunk's orphan list, handed to its owner between rounds
//   rounds    each round has a global cost cap: the k-th smallest cost of
//             the current items, k = a fraction of the collapses left; every
//             chunk collapses its items of cost <= cap, cheapest first (new
//             items under the cap too), so the order is the serial one up to
//             the spread below the cap: no chunk runs ahead of the others
//   locks     lock[v] (std::atomic_ref, 0 free): the seed, then its ring
//             (b among them), then b's ring; any failed try-lock releases
//             all and defers the item, retried once at the end of the
//             chunk's round, then left in its heap for the next round
//   pools     switched to concurrent use for the phase (set_concurrent,
//             detail/parallel_edit.hpp): m.collapse's deletions run from
//             every thread at once; everything else reads or writes only
//             locked vertices' rings, quadrics and positions. (The chunks
//             and lock words here are vectors by handle, as a collapse
//             creates nothing; parallel_edit.hpp's edit_session keeps
//             them as columns for edits that create vertices.)
//
// Rounds go on while more than a few percent of the collapses are left;
// then the serial finish rebuilds one heap of every edge and goes on to
// the exact target.
class parallel_phase {
 public:
  // A chunk's state across rounds, written only by the thread running it.
  struct chunk_state {
    chunk_heap heap;
    std::vector<std::uint32_t> orphans;  // edges recomputed here, owned elsewhere
    std::vector<chunk_item> deferred;
    std::vector<std::pair<std::uint32_t, chunk_item>> handed;  // orphans as (owner, item), between rounds
    std::vector<float> sampled;                                // the cap's sample, between rounds
    std::size_t parallel = 0, retried = 0, round_done = 0;
    double max_error = 0;
  };

  parallel_phase(triangle_mesh& m, decimator& d) : m_(m), d_(d) {}

  // Builds the chunks: K = 8 * threads of them. The bounding box and the
  // codes over ranges of vertices, the sort (sort_parallel) and the owners
  // over ranges of the order, on `threads` threads of how's backend.
  TRAVPOOL_NOINLINE void partition(std::size_t threads, execution how) {
    const auto parts = m_.vertices().partition(4 * threads);
    const std::vector<std::size_t> first = offsets(parts);
    std::vector<std::pair<vec3, vec3>> box(parts.size());
    for_each_chunk(how, parts.size(), threads, [&](std::size_t i) {
      vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
      parts[i].for_each([&](Vertex v) {
        const vec3& p = m_.position(v);
        lo = {(std::min)(lo.x, p.x), (std::min)(lo.y, p.y), (std::min)(lo.z, p.z)};
        hi = {(std::max)(hi.x, p.x), (std::max)(hi.y, p.y), (std::max)(hi.z, p.z)};
      });
      box[i] = {lo, hi};
    });
    vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
    for (const auto& [l, h] : box) {
      lo = {(std::min)(lo.x, l.x), (std::min)(lo.y, l.y), (std::min)(lo.z, l.z)};
      hi = {(std::max)(hi.x, h.x), (std::max)(hi.y, h.y), (std::max)(hi.z, h.z)};
    }
    const double ext = (std::max)({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1e-300});
    auto spread = [](std::uint64_t x) {  // 21 bits -> every third of 63
      x &= 0x1fffff;
      x = (x | x << 32) & 0x1f00000000ffffull;
      x = (x | x << 16) & 0x1f0000ff0000ffull;
      x = (x | x << 8) & 0x100f00f00f00f00full;
      x = (x | x << 4) & 0x10c30c30c30c30c3ull;
      x = (x | x << 2) & 0x1249249249249249ull;
      return x;
    };
    std::vector<std::pair<std::uint64_t, std::uint32_t>> code(first.back());
    for_each_chunk(how, parts.size(), threads, [&](std::size_t i) {
      std::size_t j = first[i];
      parts[i].for_each([&](Vertex v) {
        const vec3& p = m_.position(v);
        auto q = [&](double c, double l) { return static_cast<std::uint64_t>((c - l) / ext * 2097151.0); };
        code[j++] = {spread(q(p.x, lo.x)) | spread(q(p.y, lo.y)) << 1 | spread(q(p.z, lo.z)) << 2, v.idx()};
      });
    });
    sort_parallel(code, how, threads);
    const std::size_t n = code.size();
    chunks_ = std::max<std::size_t>(1, std::min<std::size_t>(8 * threads, n / 64 + 1));
    owner_.assign(d_.q_.size(), 0);
    lock_.assign(d_.q_.size(), 0);
    removed_.assign(d_.q_.size(), 0);
    // Chunk c: positions i with floor(i * chunks / n) == c, from
    // ceil(c * n / chunks) on; order_ sorted, so chunks are contiguous.
    first_.assign(chunks_ + 1, 0);
    for (std::size_t c = 0; c <= chunks_; ++c) first_[c] = static_cast<std::uint32_t>((c * n + chunks_ - 1) / chunks_);
    order_.resize(n);
    for_each_chunk(how, chunks_, threads, [&](std::size_t c) {
      for (std::size_t i = first_[c]; i < first_[c + 1]; ++i) {
        owner_[code[i].second] = static_cast<std::uint32_t>(c);
        order_[i] = code[i].second;
      }
    });
    state_.assign(chunks_, chunk_state{});
  }

  std::size_t chunks() const noexcept { return chunks_; }

  float load_cost(Edge e) const noexcept {
    return std::atomic_ref<float>(d_.cost_[e.idx()]).load(std::memory_order_relaxed);
  }
  void store_cost(Edge e, float c) noexcept {
    std::atomic_ref<float>(d_.cost_[e.idx()]).store(c, std::memory_order_relaxed);
  }

  // The set of vertices one operation holds.
  struct held {
    static constexpr std::size_t cap = 160;
    std::uint32_t v[cap];
    std::size_t n = 0;
  };
  bool try_lock(held& hs, Vertex v, std::uint32_t me) noexcept {
    for (std::size_t i = 0; i < hs.n; ++i)
      if (hs.v[i] == v.idx()) return true;
    if (hs.n == held::cap) return false;
    std::uint32_t expected = 0;
    if (!std::atomic_ref<std::uint32_t>(lock_[v.idx()])
             .compare_exchange_strong(expected, me + 1, std::memory_order_acquire, std::memory_order_relaxed))
      return false;
    hs.v[hs.n++] = v.idx();
    return true;
  }
  void release(held& hs) noexcept {
    for (std::size_t i = 0; i < hs.n; ++i)
      std::atomic_ref<std::uint32_t>(lock_[hs.v[i]]).store(0, std::memory_order_release);
    hs.n = 0;
  }

  // Chunk c's seeds: an item for each edge at its vertices that deletes
  // one of them. Run before any collapse, so it only reads the mesh (two
  // chunks may store the same cost of a shared edge: atomic, equal).
  void seed(std::size_t c) {
    chunk_heap& heap = state_[c].heap;
    heap.reserve(4 * (first_[c + 1] - first_[c]));
    for (std::size_t i = first_[c]; i < first_[c + 1]; ++i) {
      const Vertex a(order_[i]);
      for (const Halfedge g : m_.out_halfedges(a)) {
        Halfedge h;
        vec3 p;
        double cost;
        if (!d_.evaluate(g.edge(), h, p, cost) || m_.from(h) != a) continue;
        const float cf = static_cast<float>(cost);
        store_cost(g.edge(), cf);
        heap.append({cf, h.idx(), a.idx()});
      }
    }
    heap.heapify();
  }

  // The item of edge e, whose cost was just computed as c: deleting
  // from(h), or to(h) when both ends are interior and only to(h) is
  // chunk me's. False if neither end may be deleted by me.
  bool own(Halfedge& h, float c, std::uint32_t me, chunk_item& it) const noexcept {
    Vertex a = m_.from(h);
    if (owner_[a.idx()] != me) {
      const Vertex b = m_.to(h);
      if (owner_[b.idx()] != me || m_.is_boundary(a) || m_.is_boundary(b)) return false;
      h = h.opposite(), a = b;
    }
    it = {c, h.idx(), a.idx()};
    return true;
  }

  // Recomputes e's cost (so older items go stale) and pushes its collapse
  // into our heap if it deletes one of our vertices, else onto our orphan
  // list; requires e's ends locked.
  void push_owned(chunk_state& st, Edge e, std::uint32_t me) {
    Halfedge h;
    vec3 p;
    double cost;
    if (!d_.evaluate(e, h, p, cost)) {
      store_cost(e, decimator::dead);
      return;
    }
    const float c = static_cast<float>(cost);
    store_cost(e, c);
    if (chunk_item it; own(h, c, me, it))
      st.heap.push(it);
    else
      st.orphans.push_back(e.idx());
  }

  // One item: 1 collapsed, 0 skipped (stale or refused), -1 deferred.
  int attempt(const chunk_item& it, chunk_state& st, std::uint32_t me, const decimate_options& o,
              std::atomic<std::size_t>& faces, std::size_t target) {
    const Halfedge h(it.half);
    const Vertex a(it.seed);
    if (removed_[a.idx()]) return 0;  // ours: only we write it
    if (load_cost(h.edge()) != it.cost) return 0;
    held hs;
    if (!try_lock(hs, a, me)) return -1;
    bool found = false;
    for (const Halfedge g : m_.out_halfedges(a)) {
      if (!try_lock(hs, m_.to(g), me)) return release(hs), -1;
      found |= g == h;
    }
    if (!found) return release(hs), 0;
    const Vertex b = m_.to(h);
    for (const Halfedge g : m_.out_halfedges(b))
      if (!try_lock(hs, m_.to(g), me)) return release(hs), -1;
    // Everything read below is locked.
    if (load_cost(h.edge()) != it.cost) return release(hs), 0;
    Halfedge hh;
    vec3 p;
    double cost;
    if (!d_.evaluate(h.edge(), hh, p, cost)) return release(hs), 0;
    if (hh != h) {  // turned around: only when both ends are interior
      if (m_.is_boundary(a) || m_.is_boundary(b)) return release(hs), 0;
    }
    store_cost(h.edge(), decimator::dead);
    const double err = error_of(d_.q_[a.idx()] + d_.q_[b.idx()], cost);
    if (err > o.max_error || !d_.collapse_ok(h, p)) return release(hs), 0;
    // Reserve two faces of the global count first: never below the target.
    std::size_t f = faces.load(std::memory_order_relaxed);
    do {
      if (f <= target + 1) return release(hs), 0;
    } while (!faces.compare_exchange_weak(f, f - 2, std::memory_order_relaxed));
    const Edge gone[3] = {h.edge(), m_.is_boundary(h) ? Edge() : m_.next(m_.next(h)).edge(),
                          m_.is_boundary(h.opposite()) ? Edge() : m_.next(h.opposite()).edge()};
    d_.q_[b.idx()] += d_.q_[a.idx()];
    m_.collapse(h, p);  // the pools are concurrent during the phase (decimate())
    removed_[a.idx()] = 1;
    for (const Edge g : gone)
      if (g.is_valid()) store_cost(g, decimator::dead);
    st.max_error = (std::max)(st.max_error, err);
    for (const Halfedge g : m_.out_halfedges(b)) push_owned(st, g.edge(), me);
    release(hs);
    return 1;
  }

  // One round of chunk c: collapses its items of cost <= cap, cheapest
  // first, then retries the deferred ones once; those deferred again stay
  // in its heap. Drops the stale items at the end.
  void run_round(std::size_t c, float cap, const decimate_options& o, std::atomic<std::size_t>& faces,
                 std::size_t target) {
    const auto me = static_cast<std::uint32_t>(c);
    chunk_state& st = state_[c];
    st.deferred.clear();
    std::size_t done = 0, retried = 0;
    while (!st.heap.empty() && st.heap.top().cost <= cap) {
      const chunk_item it = st.heap.pop();
      const int res = attempt(it, st, me, o, faces, target);
      if (res > 0) ++done;
      if (res < 0) st.deferred.push_back(it);
    }
    for (const chunk_item& it : st.deferred) {
      const int res = attempt(it, st, me, o, faces, target);
      if (res > 0) ++done, ++retried;
      if (res < 0) st.heap.push(it);
    }
    st.heap.filter([&](const chunk_item& x) { return current(x, load_cost(Halfedge(x.half).edge())); });
    st.parallel += done - retried;
    st.retried += retried;
    st.round_done = done;
  }

  // Between rounds: hands each orphan edge to its owner's heap, and
  // returns the cap of the next round: the k-th smallest cost of the
  // current items (estimated from a sample of them on large meshes; the
  // largest float if there are fewer), or -1 if there is none. The
  // orphans and the sample run per chunk on `threads` threads of how's
  // backend (the heaps get the items in the serial order); the cap's
  // nth_element, O(sample), serially.
  TRAVPOOL_NOINLINE float next_cap(std::size_t k, execution how, std::size_t threads) {
    // On the threads only with enough orphans to pay for three forks and
    // joins (each costs a scheduler slice on a loaded machine).
    std::size_t orphans = 0;
    for (std::size_t c = 0; c < chunks_; ++c) orphans += state_[c].orphans.size();
    if (orphans < parallel_orphans) how = execution::serial;
    // Each chunk's orphans evaluated into (owner, item) pairs ...
    for_each_chunk(how, chunks_, threads, [&](std::size_t c) {
      chunk_state& st = state_[c];
      st.handed.clear();
      for (const std::uint32_t ei : st.orphans) {
        const Edge e(ei);
        const float c0 = d_.cost_[ei];
        if (c0 == decimator::dead) continue;  // deleted or not collapsible
        Halfedge h;
        vec3 p;
        double cost;
        if (!d_.evaluate(e, h, p, cost) || static_cast<float>(cost) != c0) continue;
        // The item deletes from(h), or to(h) turned around (own()).
        const std::uint32_t ca = owner_[m_.from(h).idx()], cb = owner_[m_.to(h).idx()];
        if (chunk_item it; own(h, c0, ca, it))
          st.handed.emplace_back(ca, it);
        else if (own(h, c0, cb, it))
          st.handed.emplace_back(cb, it);
      }
      st.orphans.clear();
    });
    // ... then each owner pushes its own, in the chunks' order.
    for_each_chunk(how, chunks_, threads, [&](std::size_t c) {
      for (std::size_t s = 0; s < chunks_; ++s)
        for (const auto& [to, it] : state_[s].handed)
          if (to == c) state_[c].heap.push(it);
    });
    // A sample of every stride-th item of the heaps in turn (all of them
    // up to `sample` items), the current ones' costs: O(sample + chunks).
    std::size_t items = 0;
    std::vector<std::size_t> before(chunks_ + 1, 0);  // items in the chunks before c
    for (std::size_t c = 0; c < chunks_; ++c) before[c + 1] = items += state_[c].heap.size();
    const std::size_t stride = (std::max)(std::size_t{1}, items / sample);
    for_each_chunk(how, chunks_, threads, [&](std::size_t c) {
      const auto& v = state_[c].heap.items();
      std::vector<float>& out = state_[c].sampled;
      out.clear();
      for (std::size_t i = (stride - before[c] % stride) % stride; i < v.size(); i += stride)
        if (current(v[i], d_.cost_[Halfedge(v[i].half).edge().idx()])) out.push_back(v[i].cost);
    });
    costs_.clear();
    for (std::size_t c = 0; c < chunks_; ++c)
      costs_.insert(costs_.end(), state_[c].sampled.begin(), state_[c].sampled.end());
    if (costs_.empty()) return -1;
    const std::size_t j = k / stride;
    if (j >= costs_.size()) return (std::numeric_limits<float>::max)();
    std::nth_element(costs_.begin(), costs_.begin() + static_cast<std::ptrdiff_t>(j), costs_.end());
    return costs_[j];
  }
  static constexpr std::size_t sample = 16384;
  static constexpr std::size_t parallel_orphans = 32768;

  // Whether item x is current, given its edge's cost c.
  bool current(const chunk_item& x, float c) const noexcept { return !removed_[x.seed] && c == x.cost; }

  triangle_mesh& m_;
  decimator& d_;
  std::size_t chunks_ = 1;
  std::vector<std::uint32_t> owner_, lock_, first_, order_;
  std::vector<std::uint8_t> removed_;
  std::vector<chunk_state> state_;
  std::vector<float> costs_;
};

inline void check(triangle_mesh& m, const decimate_options& o, execution how) {
  if (o.target_faces < 4)
    throw usage_error("travpool::mesh::decimate: target_faces must be at least 4 (got " +
                      std::to_string(o.target_faces) + ")");
  if (!(o.max_error >= 0)) throw usage_error("travpool::mesh::decimate: max_error must be >= 0 (and not NaN)");
  if (!(o.min_angle >= 0 && o.min_angle <= 60))
    throw usage_error("travpool::mesh::decimate: min_angle must be in [0, 60] degrees (got " +
                      std::to_string(o.min_angle) + ")");
  if (!(o.min_angle_ratio >= 0 && o.min_angle_ratio <= 1))
    throw usage_error("travpool::mesh::decimate: min_angle_ratio must be in [0, 1] (got " +
                      std::to_string(o.min_angle_ratio) + ")");
  if (!available(how))
    throw usage_error(std::string("travpool::mesh::decimate: execution::") + to_string(how) +
                      " is not in this build (OpenMP: -fopenmp, travpool::openmp; TBB: TRAVPOOL_MESH_TBB=1, "
                      "travpool::mesh_tbb)");
  m.settle();
  try {
    validate_input(m, how, how == execution::serial ? 1 : (o.threads != 0 ? o.threads : default_threads(how)));
  } catch (const std::logic_error& e) {
    throw usage_error(std::string("travpool::mesh::decimate: the input is not a valid manifold triangle mesh (") +
                      e.what() + ")");
  }
}

}  // namespace detail::decimation

inline namespace TRAVPOOL_MESH_BACKEND {

// Effects: collapses edges of m, cheapest quadric error first (design note
// above), until m has o.target_faces faces (one more when the parities of
// the face counts differ), no valid collapse is left, or every remaining
// collapse's error exceeds o.max_error. Boundary vertices neither move nor
// go; several components, boundaries and isolated vertices are fine.
// Vertex, edge and face handles of the elements left stay valid; normals
// are not updated. The smallest angle of m's triangles ends at least
// min(o.min_angle, its value before) (the quality guard).
// Returns: the counts (decimate_result).
// Throws: usage_error, with m unchanged, if o.target_faces < 4,
// o.max_error < 0 or NaN, o.min_angle outside [0, 60], o.min_angle_ratio
// outside [0, 1] (or either NaN),
// !available(how), or m is not a valid manifold
// triangle mesh (m.validate() fails: after low-level edits that left a
// non-manifold vertex, a non-triangle face, ...); std::bad_alloc (m may be
// partly decimated, still valid).
// Complexity: O((E + collapses * valence) log E) serially; in parallel
// the same work split over the threads (the input check, quadrics and
// partition included), plus O(16384 + orphans) serially per round (about
// log2(32) / log2(4 / 3), 12 rounds) and the serial tail.
// Thread safety: m must not be used by others meanwhile.
inline decimate_result decimate(triangle_mesh& m, const decimate_options& o, execution how = execution::serial) {
  detail::decimation::check(m, o, how);
  decimate_result r;
  r.faces_before = m.face_count();
  std::size_t faces = m.face_count();
  if (faces > o.target_faces + 1) {
    const std::size_t threads = o.threads != 0 ? o.threads : default_threads(how);
    const bool parallel = how != execution::serial && threads > 1;
    detail::decimation::decimator d(m, o);
    d.init(parallel ? how : execution::serial, threads);
    if (parallel) {
      // The mesh's pools take creates and destroys from many threads for
      // the phase (detail/parallel_edit.hpp), on a settled mesh.
      m.settle();
      struct concurrent_pools {
        triangle_mesh& m;
        explicit concurrent_pools(triangle_mesh& mm) noexcept : m(mm) {
          detail::mesh_internals::set_concurrent(m, true);
        }
        ~concurrent_pools() { detail::mesh_internals::set_concurrent(m, false); }
      } concurrent(m);
      detail::decimation::parallel_phase pp(m, d);
      pp.partition(threads, how);
      // Runs f(c) for every chunk c on `threads` threads.
      auto for_chunks = [&](auto&& f) { detail::for_each_chunk(how, pp.chunks(), threads, f); };
      for_chunks([&](std::size_t c) { pp.seed(c); });
      std::atomic<std::size_t> left(faces);
      const std::size_t total = (faces - o.target_faces) / 2;
      // Rounds while more than 1/32 of the collapses (and 16) are left;
      // each caps the cost at the (todo / 2)-th cheapest current item.
      // (Collapses raise their neighbours' costs: a round does about a
      // quarter of those left.)
      for (std::size_t round = 0; round < 64; ++round) {
        const std::size_t todo = (left.load() - o.target_faces) / 2;
        if (todo <= (std::max)(std::size_t{16}, total / 32)) break;
        const float cap = pp.next_cap(todo / 2, how, threads);
        if (cap < 0) break;
        for_chunks([&](std::size_t c) { pp.run_round(c, cap, o, left, o.target_faces); });
        std::size_t done = 0;
        for (const auto& st : pp.state_) done += st.round_done;
        if (done == 0) break;
      }
      faces = left.load();
      for (const auto& st : pp.state_) {
        r.parallel += st.parallel, r.retried += st.retried;
        r.max_error = (std::max)(r.max_error, st.max_error);
      }
      r.collapses = r.parallel + r.retried;
    }
    // The serial tail and finish: one heap of every edge, to the target.
    detail::decimation::edge_heap heap;
    d.push_all(heap, parallel ? how : execution::serial, threads);
    d.run(heap, faces, o.target_faces, r, r.serial, [](Halfedge) { return true; });
  }
  r.faces_after = m.face_count();
  return r;
}

}  // namespace TRAVPOOL_MESH_BACKEND
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
