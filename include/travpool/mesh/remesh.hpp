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
// algorithms.hpp). Steps 1-3 are serial (the parallel editing scheme of
// issue 52 is to come).
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
};

struct remesh_result {
  std::size_t splits = 0;
  std::size_t collapses = 0;
  std::size_t flips = 0;
  std::size_t refused_collapses = 0;  // short edges left: link condition, length or fold-over
  // Topology edits (splits, collapses, flips) by where they ran: in the
  // parallel phase, retried after a failed lock, or serially. Every edit is
  // serial in this version.
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
      split_long_edges();
      collapse_short_edges();
      flip_edges();
      for (int s = 0; s < o_.relaxation_steps; ++s) relax_and_project();
      ++r_.iterations;
    }
    r_.serial_ops = r_.splits + r_.collapses + r_.flips;
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
// how: execution::openmp / tbb run the relaxation and projection sweeps in
// parallel (topology edits are serial); the result is the same in every mode.
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
