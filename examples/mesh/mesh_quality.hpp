// examples/mesh/mesh_quality.hpp: quality measures of a triangle mesh given
// as a soup, points and triangles (any mesh library's output converts to
// that; a travpool mesh by to_triangles), for mesh_demo's edit rows and the
// remeshing benchmark (bench/mesh/remesh_compare):
//
//   min_angle           the smallest corner angle of all triangles, degrees
//   mean_min_angle      the mean over triangles of their smallest angle
//   in_range            the fraction of edges with length in [0.8 L, 4/3 L]
//   valence6            the fraction of interior vertices of valence 6
//   hausdorff           the symmetric Hausdorff distance to a reference
//                       surface, estimated from both sides by sampling
//                       (every vertex plus area-weighted random points on
//                       the triangles, fixed seed; vertices only with 0
//                       samples), each sample's distance to the other
//                       surface exact (triangle_bvh)
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include <travpool/mesh/bvh.hpp>
#include <travpool/mesh/mesh.hpp>
#include <travpool/mesh/soup.hpp>

namespace travpool::mesh::quality {

struct mesh_quality {
  std::size_t vertices = 0, faces = 0;
  double min_angle = 0, mean_min_angle = 0;
  double in_range = 0, valence6 = 0;
  double hausdorff = 0;  // absolute; divide by the reference's bounding-box diagonal for a relative one
};

inline double bbox_diagonal(const std::vector<vec3>& p) {
  if (p.empty()) return 0;
  vec3 lo = p[0], hi = p[0];
  for (const vec3& q : p) {
    lo = {std::min(lo.x, q.x), std::min(lo.y, q.y), std::min(lo.z, q.z)};
    hi = {std::max(hi.x, q.x), std::max(hi.y, q.y), std::max(hi.z, q.z)};
  }
  return norm(hi - lo);
}

// The largest distance from samples of `from` (its vertices and `samples`
// area-weighted random points) to the surface of `to`.
inline double one_sided_hausdorff(const soup& from, const triangle_bvh& to, std::size_t samples, unsigned seed = 1) {
  double d2 = 0;
  std::uint32_t hint = triangle_bvh::no_hint;
  for (const vec3& p : from.points) {
    const auto r = to.closest_point(p, hint);
    hint = r.triangle;
    d2 = std::max(d2, r.squared_distance);
  }
  if (from.triangles.empty() || samples == 0) return std::sqrt(d2);
  std::vector<double> cumulative(from.triangles.size());
  double total = 0;
  for (std::size_t i = 0; i < from.triangles.size(); ++i) {
    const auto& t = from.triangles[i];
    total += norm(cross(from.points[t[1]] - from.points[t[0]], from.points[t[2]] - from.points[t[0]]));
    cumulative[i] = total;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t s = 0; s < samples; ++s) {
    const double x = u(rng) * total;
    const std::size_t i = std::min<std::size_t>(
        static_cast<std::size_t>(std::lower_bound(cumulative.begin(), cumulative.end(), x) - cumulative.begin()),
        cumulative.size() - 1);
    const auto& t = from.triangles[i];
    double a = u(rng), b = u(rng);
    if (a + b > 1) a = 1 - a, b = 1 - b;
    const vec3 p = from.points[t[0]] * (1 - a - b) + from.points[t[1]] * a + from.points[t[2]] * b;
    d2 = std::max(d2, to.closest_point(p).squared_distance);
  }
  return std::sqrt(d2);
}

// Measures `m` against target length l and the reference surface (its
// triangles and their tree).
inline mesh_quality measure(const soup& m, double l, const soup& reference, const triangle_bvh& reference_tree,
                            std::size_t samples = 200000) {
  mesh_quality q;
  q.vertices = m.points.size();
  q.faces = m.triangles.size();
  q.min_angle = 180;
  double sum_min = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(3 * m.triangles.size());
  for (const auto& t : m.triangles) {
    double tmin = 180;
    for (int i = 0; i < 3; ++i) {
      const vec3 a = m.points[t[(i + 1) % 3]] - m.points[t[i]];
      const vec3 b = m.points[t[(i + 2) % 3]] - m.points[t[i]];
      const double c = dot(a, b) / (norm(a) * norm(b));
      tmin = std::min(tmin, std::acos(std::clamp(c, -1.0, 1.0)) * 180 / std::numbers::pi);
      edges.emplace_back(std::min(t[i], t[(i + 1) % 3]), std::max(t[i], t[(i + 1) % 3]));
    }
    q.min_angle = std::min(q.min_angle, tmin);
    sum_min += tmin;
  }
  q.mean_min_angle = m.triangles.empty() ? 0 : sum_min / static_cast<double>(m.triangles.size());
  std::sort(edges.begin(), edges.end());
  std::vector<std::uint32_t> valence(m.points.size(), 0);
  std::vector<bool> on_boundary(m.points.size(), false);
  std::size_t n_edges = 0, in = 0;
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    const auto [a, b] = edges[i];
    ++n_edges;
    ++valence[a], ++valence[b];
    if (j - i == 1) on_boundary[a] = on_boundary[b] = true;
    const double len = norm(m.points[a] - m.points[b]);
    in += len >= 0.8 * l && len <= 4.0 / 3.0 * l;
    i = j;
  }
  q.in_range = n_edges == 0 ? 0 : double(in) / double(n_edges);
  std::size_t interior = 0, six = 0;
  for (std::size_t v = 0; v < m.points.size(); ++v)
    if (valence[v] > 0 && !on_boundary[v]) ++interior, six += valence[v] == 6;
  q.valence6 = interior == 0 ? 0 : double(six) / double(interior);
  if (!m.triangles.empty()) {
    const triangle_bvh tree(m.points, m.triangles);
    q.hausdorff =
        std::max(one_sided_hausdorff(m, reference_tree, samples, 1), one_sided_hausdorff(reference, tree, samples, 2));
  }
  return q;
}

}  // namespace travpool::mesh::quality
