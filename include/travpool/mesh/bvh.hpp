// travpool/mesh/bvh.hpp: a bounding-volume hierarchy over triangles for
// closest-point queries (the projection step of remeshing, distances in
// the tests and benchmarks).
//
// DESIGN NOTE
// ===========
// A binary tree of axis-aligned boxes in depth-first order: an inner node's
// first child is the next node, its second child is node.second; a leaf
// holds node.count > 0 triangles starting at node.first in the leaf order.
// Built top-down, splitting each node's triangles at the median of their
// centroids along the longest axis of the centroids' box (nth_element),
// until at most leaf_size (4) are left: O(n log n) time, 2n / leaf_size
// nodes at most.
//
// Invariants:
//   box(node) contains every triangle below node (boxes are floats rounded
//     outwards from the doubles, so the box distance is a lower bound)
//   leaf triangles of node = [first, first + count) of the leaf order
//   order_[k] = the input index of the k-th triangle of the leaf order
//
// closest_point(p) walks the tree with an explicit stack, visiting the
// nearer child first and skipping a node whose box is not nearer than the
// best triangle found: exact (up to rounding), O(log n) for a query near the
// surface, O(n) at worst. A hint (the triangle a nearby query found) starts
// the search with that triangle's distance, which prunes most of the tree.
// The tree is immutable after construction: const queries are safe from
// any number of threads at once.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <travpool/usage_error.hpp>

#include "mesh.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// The point of a triangle nearest to a query.
struct closest_point_result {
  vec3 point;                           // on the triangle
  double squared_distance = 0;          // |query - point|^2
  std::uint32_t triangle = 0;           // its index in the input triangles
  std::array<double, 3> barycentric{};  // point = sum of barycentric[i] * corner i
};

// Returns: the point of triangle (a, b, c) nearest to p, as barycentric
// weights of a, b, c (Ericson, Real-Time Collision Detection, 5.1.5:
// Voronoi regions of the corners, edges and inside). Degenerate triangles
// give a nearest point of their edges. O(1).
inline std::array<double, 3> closest_point_on_triangle(const vec3& p, const vec3& a, const vec3& b,
                                                       const vec3& c) noexcept {
  const vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const vec3 bp = p - b;
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const vec3 cp = p - c;
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const double sum = va + vb + vc;
  if (!(sum > 0)) {  // degenerate (collinear corners): the nearest of the three edges
    std::array<double, 3> best{1, 0, 0};
    double best_d = std::numeric_limits<double>::infinity();
    const vec3* q[3] = {&a, &b, &c};
    for (int i = 0; i < 3; ++i) {
      const vec3 &s = *q[i], &t = *q[(i + 1) % 3];
      const vec3 st = t - s;
      const double l = dot(st, st);
      const double u = l > 0 ? std::clamp(dot(p - s, st) / l, 0.0, 1.0) : 0.0;
      const vec3 x = s + st * u - p;
      if (const double d = dot(x, x); d < best_d) {
        best_d = d;
        best = {0, 0, 0};
        best[i] = 1 - u;
        best[(i + 1) % 3] = u;
      }
    }
    return best;
  }
  const double denom = 1 / sum;
  const double v = vb * denom, w = vc * denom;
  return {1 - v - w, v, w};
}

class triangle_bvh {
 public:
  static constexpr std::uint32_t leaf_size = 4;
  static constexpr std::uint32_t no_hint = 0xffff'ffffu;

  // An empty tree (closest_point needs a non-empty one).
  triangle_bvh() = default;
  // Builds the tree of triangles[i] = corners (points[t[0]], points[t[1]],
  // points[t[2]]), i being the triangle index queries return. The tree
  // keeps a copy of the corners. Throws: usage_error for an index out of
  // range; std::bad_alloc. O(n log n).
  triangle_bvh(std::span<const vec3> points, std::span<const std::array<std::uint32_t, 3>> triangles) {
    build(points, triangles);
  }
  // A snapshot of m's triangles: triangle i is the i-th face of m.faces()
  // (face(i) names it; the tree does not follow later edits).
  explicit triangle_bvh(const triangle_mesh& m) {
    std::vector<vec3> points;
    std::vector<std::array<std::uint32_t, 3>> tris;
    points.reserve(3 * m.face_count());
    tris.reserve(m.face_count());
    faces_.reserve(m.face_count());
    for (const Face f : m.faces()) {
      const auto c = m.corners(f);
      const auto k = static_cast<std::uint32_t>(points.size());
      for (const Vertex v : c) points.push_back(m.position(v));
      tris.push_back({k, k + 1, k + 2});
      faces_.push_back(f);
    }
    build(points, tris);
  }

  bool empty() const noexcept { return order_.empty(); }
  // The number of triangles.
  std::size_t size() const noexcept { return order_.size(); }
  std::size_t node_count() const noexcept { return nodes_.size(); }
  // The corners of triangle i (input index).
  std::array<vec3, 3> triangle(std::uint32_t i) const noexcept { return corners_[rank_[i]]; }
  // For a tree built from a mesh: the face of triangle i.
  Face face(std::uint32_t i) const noexcept { return faces_[i]; }

  // Returns: the point of the triangles nearest to p (of those at the same
  // distance, any). Requires: !empty(). hint: a triangle index (say, the
  // one a nearby query returned) whose distance bounds the search, or
  // no_hint. Thread-safe (const). O(log n) near the surface, O(n) at worst.
  closest_point_result closest_point(const vec3& p, std::uint32_t hint = no_hint) const noexcept {
    closest_point_result best;
    best.squared_distance = std::numeric_limits<double>::infinity();
    std::uint32_t best_rank = 0;
    auto test = [&](std::uint32_t k) {
      const auto& t = corners_[k];
      // The distance to the triangle's plane bounds the distance to it.
      if (const double h = dot(p - t[0], unit_normal_[k]); h * h >= best.squared_distance) return;
      const auto w = closest_point_on_triangle(p, t[0], t[1], t[2]);
      const vec3 q = t[0] * w[0] + t[1] * w[1] + t[2] * w[2];
      const vec3 d = q - p;
      if (const double d2 = dot(d, d); d2 < best.squared_distance) {
        best.squared_distance = d2;
        best.point = q;
        best.barycentric = w;
        best_rank = k;
      }
    };
    if (hint < rank_.size()) test(rank_[hint]);
    auto axis_gap = [](double x, float lo, float hi) {
      const double l = lo, h = hi;
      return x < l ? l - x : x > h ? x - h : 0.0;
    };
    auto box_distance = [&](const node& n) {
      // In double, from boxes rounded outwards: a lower bound.
      const double dx = axis_gap(p.x, n.lo[0], n.hi[0]);
      const double dy = axis_gap(p.y, n.lo[1], n.hi[1]);
      const double dz = axis_gap(p.z, n.lo[2], n.hi[2]);
      return dx * dx + dy * dy + dz * dz;
    };
    struct entry {
      std::uint32_t node;
      double distance;
    };
    entry stack[96];  // the depth is at most log2(n) + 1 (median splits)
    int top = 0;
    stack[top++] = {0, box_distance(nodes_[0])};
    while (top > 0) {
      const entry e = stack[--top];
      if (e.distance >= best.squared_distance) continue;
      const node& n = nodes_[e.node];
      if (n.count > 0) {
        for (std::uint32_t k = n.first; k < n.first + n.count; ++k) test(k);
        continue;
      }
      const std::uint32_t l = e.node + 1, r = n.first;
      const double dl = box_distance(nodes_[l]), dr = box_distance(nodes_[r]);
      // The nearer child is popped first.
      if (dl <= dr) {
        if (dr < best.squared_distance) stack[top++] = {r, dr};
        if (dl < best.squared_distance) stack[top++] = {l, dl};
      } else {
        if (dl < best.squared_distance) stack[top++] = {l, dl};
        if (dr < best.squared_distance) stack[top++] = {r, dr};
      }
    }
    best.triangle = order_[best_rank];
    return best;
  }

 private:
  struct node {
    float lo[3], hi[3];
    std::uint32_t first;  // inner: the second child; leaf: the first triangle
    std::uint32_t count;  // 0: inner
  };

  static float down(double x) noexcept {
    float f = static_cast<float>(x);
    if (double(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
  }
  static float up(double x) noexcept {
    float f = static_cast<float>(x);
    if (double(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
  }

  void build(std::span<const vec3> points, std::span<const std::array<std::uint32_t, 3>> triangles) {
    const std::size_t n = triangles.size();
    if (n >= std::size_t{0xffff'ffffu}) throw usage_error("triangle_bvh: too many triangles");
    for (const auto& t : triangles)
      for (const std::uint32_t i : t)
        if (i >= points.size()) throw usage_error("triangle_bvh: a corner index is out of range");
    order_.resize(n);
    std::vector<vec3> centroid(n);
    std::vector<std::array<vec3, 2>> box(n);
    for (std::size_t i = 0; i < n; ++i) {
      order_[i] = static_cast<std::uint32_t>(i);
      const vec3 &a = points[triangles[i][0]], &b = points[triangles[i][1]], &c = points[triangles[i][2]];
      centroid[i] = (a + b + c) * (1.0 / 3.0);
      box[i][0] = {(std::min)({a.x, b.x, c.x}), (std::min)({a.y, b.y, c.y}), (std::min)({a.z, b.z, c.z})};
      box[i][1] = {(std::max)({a.x, b.x, c.x}), (std::max)({a.y, b.y, c.y}), (std::max)({a.z, b.z, c.z})};
    }
    nodes_.clear();
    if (n == 0) return;
    nodes_.reserve(2 * (n / leaf_size + 1));
    // Depth-first: (node index, range) on an explicit stack; the second
    // child's index is known once the first subtree is complete, so the
    // build recurses on the first child and defers the second.
    struct task {
      std::uint32_t parent;  // node whose `first` gets this one's index, or none
      std::uint32_t begin, end;
    };
    std::vector<task> todo{{0xffff'ffffu, 0, static_cast<std::uint32_t>(n)}};
    auto coord = [](const vec3& v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; };
    while (!todo.empty()) {
      const task t = todo.back();
      todo.pop_back();
      const auto index = static_cast<std::uint32_t>(nodes_.size());
      if (t.parent != 0xffff'ffffu) nodes_[t.parent].first = index;
      vec3 lo = box[order_[t.begin]][0], hi = box[order_[t.begin]][1];
      vec3 clo = centroid[order_[t.begin]], chi = clo;
      for (std::uint32_t k = t.begin; k < t.end; ++k) {
        const auto& b = box[order_[k]];
        const vec3& c = centroid[order_[k]];
        lo = {(std::min)(lo.x, b[0].x), (std::min)(lo.y, b[0].y), (std::min)(lo.z, b[0].z)};
        hi = {(std::max)(hi.x, b[1].x), (std::max)(hi.y, b[1].y), (std::max)(hi.z, b[1].z)};
        clo = {(std::min)(clo.x, c.x), (std::min)(clo.y, c.y), (std::min)(clo.z, c.z)};
        chi = {(std::max)(chi.x, c.x), (std::max)(chi.y, c.y), (std::max)(chi.z, c.z)};
      }
      node nd{{down(lo.x), down(lo.y), down(lo.z)}, {up(hi.x), up(hi.y), up(hi.z)}, t.begin, t.end - t.begin};
      if (t.end - t.begin <= leaf_size) {
        nodes_.push_back(nd);
        continue;
      }
      const vec3 ext = chi - clo;
      const int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : ext.y >= ext.z ? 1 : 2;
      const std::uint32_t mid = t.begin + (t.end - t.begin) / 2;
      std::nth_element(
          order_.begin() + t.begin, order_.begin() + mid, order_.begin() + t.end,
          [&](std::uint32_t x, std::uint32_t y) { return coord(centroid[x], axis) < coord(centroid[y], axis); });
      nd.count = 0;
      nodes_.push_back(nd);
      todo.push_back({index, mid, t.end});           // second child, after the first's subtree
      todo.push_back({0xffff'ffffu, t.begin, mid});  // first child: the next node
    }
    corners_.resize(n);
    unit_normal_.resize(n);
    rank_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto& t = triangles[order_[k]];
      corners_[k] = {points[t[0]], points[t[1]], points[t[2]]};
      // Zero for a degenerate triangle (no bound then).
      unit_normal_[k] = normalized(cross(corners_[k][1] - corners_[k][0], corners_[k][2] - corners_[k][0]));
      rank_[order_[k]] = static_cast<std::uint32_t>(k);
    }
  }

  std::vector<node> nodes_;
  std::vector<std::array<vec3, 3>> corners_;  // in leaf order
  std::vector<vec3> unit_normal_;             // in leaf order: of each triangle's plane (zero if degenerate)
  std::vector<std::uint32_t> order_;          // leaf order -> input index
  std::vector<std::uint32_t> rank_;           // input index -> leaf order
  std::vector<Face> faces_;                   // input index -> face (built from a mesh)
};

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
