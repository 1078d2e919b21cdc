// bench/mesh/vector_mesh.hpp: the comparison's contender (b), a halfedge
// triangle mesh in std::vectors with 32-bit indices (halfedge h and h ^ 1
// form edge h / 2), deleted flags, and a PMP-style garbage_collection() that
// compacts the arrays and remaps every index. Parallel loops are plain
// `omp parallel for` over the index range.
//
// basic_vector_mesh<Alloc> takes the allocator template of every array
// (scratch buffers included): vector_mesh runs on std::allocator (4 KiB
// pages with THP in "madvise" mode), vector_mesh_huge on
// huge_page_allocator (2 MiB pages), which separates page size from layout.
//
// Invariants (as PMP's SurfaceMesh): for a live halfedge h,
// prev[next[h]] == h, to[h ^ 1] == from(h), face[h] == invalid iff h is a
// boundary halfedge; vout[v] is a boundary halfedge whenever v has one,
// invalid iff v is isolated or deleted. Deleted elements keep their slots
// (flag = 1) until garbage_collection(); n_* counts the live ones.
// The edits (split, collapse, delete_face, insert_vertex, insert_edge,
// garbage_collection) are in vector_mesh_edit.hpp, Loop subdivision in
// vector_mesh_loop.hpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <travpool/mesh/mesh.hpp>  // vec3 and its helpers only
#include "huge_page_allocator.hpp"

namespace travpool::mesh::bench {

template <template <class> class Alloc>
class basic_vector_mesh {
 public:
  using index = std::uint32_t;
  static constexpr index invalid = ~index{0};
  template <class T>
  using array = std::vector<T, Alloc<T>>;

  // Builds the mesh of a triangle soup: vertex i is points[i], face f is
  // tris[f]. Throws std::runtime_error for a non-manifold vertex.
  static basic_vector_mesh from_triangles(const std::vector<vec3>& points,
                                          const std::vector<std::array<std::uint32_t, 3>>& tris) {
    basic_vector_mesh m;
    const std::size_t nv = points.size(), nf = tris.size();
    m.points_.assign(points.begin(), points.end());
    m.vout_.assign(nv, invalid);
    m.vdel_.assign(nv, 0);
    // Outgoing face halfedges per vertex (CSR), to pair twins.
    array<std::uint32_t> first(nv + 1, 0);
    for (const auto& t : tris)
      for (int c = 0; c < 3; ++c) ++first[t[c] + 1];
    for (std::size_t i = 0; i < nv; ++i) first[i + 1] += first[i];
    array<std::uint32_t> fill(first.begin(), first.end() - 1), slots(3 * nf);
    for (std::size_t f = 0; f < nf; ++f)
      for (std::uint32_t c = 0; c < 3; ++c) slots[fill[tris[f][c]]++] = static_cast<std::uint32_t>(3 * f + c);
    auto target = [&](std::uint32_t s) { return tris[s / 3][(s % 3 + 1) % 3]; };
    auto source = [&](std::uint32_t s) { return tris[s / 3][s % 3]; };
    array<index> hs(3 * nf, invalid);
    for (std::uint32_t s = 0; s < 3 * nf; ++s) {
      if (hs[s] != invalid) continue;
      const auto a = source(s), b = target(s);
      index twin = invalid;
      for (auto k = first[b]; k < first[b + 1]; ++k)
        if (target(slots[k]) == a) twin = slots[k];
      const index h = m.new_edge(a, b);
      hs[s] = h;
      if (twin != invalid) hs[twin] = h ^ 1;
    }
    m.fhalf_.resize(nf);
    m.fdel_.assign(nf, 0);
    for (std::size_t f = 0; f < nf; ++f) {
      const index h0 = hs[3 * f], h1 = hs[3 * f + 1], h2 = hs[3 * f + 2];
      m.fhalf_[f] = h0;
      m.hface_[h0] = m.hface_[h1] = m.hface_[h2] = static_cast<index>(f);
      m.link(h0, h1), m.link(h1, h2), m.link(h2, h0);
      m.vout_[tris[f][0]] = h0, m.vout_[tris[f][1]] = h1, m.vout_[tris[f][2]] = h2;
    }
    array<index> bout(nv, invalid);
    for (index h = 0; h < m.hto_.size(); ++h)
      if (m.hface_[h] == invalid) bout[m.from(h)] = h;
    for (index h = 0; h < m.hto_.size(); ++h)
      if (m.hface_[h] == invalid) {
        if (bout[m.hto_[h]] == invalid) throw std::runtime_error("vector_mesh: non-manifold input");
        m.link(h, bout[m.hto_[h]]);
      }
    for (std::size_t v = 0; v < nv; ++v)
      if (bout[v] != invalid) m.vout_[v] = bout[v];
    m.vnormal_.resize(nv);
    m.fnormal_.resize(nf);
    return m;
  }

  std::size_t n_vertices() const noexcept { return points_.size() - deleted_v_; }
  std::size_t n_edges() const noexcept { return hto_.size() / 2 - deleted_e_; }
  std::size_t n_faces() const noexcept { return fhalf_.size() - deleted_f_; }
  bool has_garbage() const noexcept { return deleted_v_ + deleted_e_ + deleted_f_ != 0; }

  index to(index h) const noexcept { return hto_[h]; }
  index from(index h) const noexcept { return hto_[h ^ 1]; }
  index next(index h) const noexcept { return hnext_[h]; }
  index prev(index h) const noexcept { return hprev_[h]; }
  static index opposite(index h) noexcept { return h ^ 1; }
  index face(index h) const noexcept { return hface_[h]; }
  index face_half(index f) const noexcept { return fhalf_[f]; }
  bool is_boundary_h(index h) const noexcept { return hface_[h] == invalid; }
  bool is_boundary_v(index v) const noexcept { return vout_[v] == invalid || is_boundary_h(vout_[v]); }
  // Calls f(h) for every outgoing halfedge of v.
  template <class F>
  void for_out(index v, F&& f) const {
    const index s = vout_[v];
    if (s == invalid) return;
    index h = s;
    do {
      f(h);
      h = hnext_[h ^ 1];
    } while (h != s);
  }
  index find_halfedge(index a, index b) const noexcept {
    index r = invalid;
    const index s = vout_[a];
    if (s == invalid) return r;
    index h = s;
    do {
      if (hto_[h] == b) return h;
      h = hnext_[h ^ 1];
    } while (h != s);
    return r;
  }

  index out(index v) const noexcept { return vout_[v]; }
  array<vec3>& points() noexcept { return points_; }
  const array<vec3>& points() const noexcept { return points_; }
  const array<vec3>& vertex_normals() const noexcept { return vnormal_; }
  bool vertex_deleted(index v) const noexcept { return vdel_[v] != 0; }
  bool face_deleted(index f) const noexcept { return fdel_[f] != 0; }
  bool edge_deleted(index e) const noexcept { return edel_[e] != 0; }
  // Slots, deleted ones included (the index ranges of the loops).
  std::size_t vertex_slots() const noexcept { return points_.size(); }
  std::size_t edge_slots() const noexcept { return hto_.size() / 2; }
  std::size_t face_slots() const noexcept { return fhalf_.size(); }

  void compute_normals(bool parallel) {
    const auto nf = static_cast<std::int64_t>(fhalf_.size());
    const auto nv = static_cast<std::int64_t>(points_.size());
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t f = 0; f < nf; ++f) {
      if (fdel_[f]) continue;
      const index h = fhalf_[f];
      const vec3& a = points_[hto_[h]];
      const vec3& b = points_[hto_[hnext_[h]]];
      const vec3& c = points_[hto_[hnext_[hnext_[h]]]];
      fnormal_[f] = normalized(cross(b - a, c - a));
    }
#pragma omp parallel for schedule(static) if (parallel)
    for (std::int64_t v = 0; v < nv; ++v) {
      if (vdel_[v]) continue;
      vec3 n;
      for_out(static_cast<index>(v), [&](index h) {
        if (hface_[h] != invalid) n += fnormal_[hface_[h]];
      });
      vnormal_[v] = normalized(n);
    }
  }

  void smooth(int iterations, bool parallel) {
    const auto nv = static_cast<std::int64_t>(points_.size());
    array<vec3> buf(points_.size());
    for (int it = 0; it < iterations; ++it) {
#pragma omp parallel for schedule(static) if (parallel)
      for (std::int64_t v = 0; v < nv; ++v) {
        if (vdel_[v]) continue;
        if (is_boundary_v(static_cast<index>(v))) {
          buf[v] = points_[v];
          continue;
        }
        vec3 s;
        std::size_t n = 0;
        for_out(static_cast<index>(v), [&](index h) { s += points_[hto_[h]], ++n; });
        buf[v] = s * (1.0 / static_cast<double>(n));
      }
#pragma omp parallel for schedule(static) if (parallel)
      for (std::int64_t v = 0; v < nv; ++v)
        if (!vdel_[v]) points_[v] = buf[v];
    }
  }

  // --- edits (vector_mesh_edit.hpp) ---
  // Splits face f at p into three; returns the new vertex. O(1).
  index split(index f, const vec3& p);
  // The link condition for collapsing v0v1 (from(v0v1) into to(v0v1)).
  bool is_collapse_ok(index v0v1) const;
  // Collapses h (from(h) merges into to(h)); marks the removed elements
  // deleted. Requires is_collapse_ok(h).
  void collapse(index h);
  // As PMP's delete_face: f's halfedges become boundary ones, its edges
  // left without a face and vertices left without an edge are marked
  // deleted, the corners' out halfedges are adjusted. O(valence).
  void delete_face(index f);
  // Splits the edge of h0 (v0 -> v2) at the isolated vertex v; h0 then
  // ends at v. Returns the new halfedge v2 -> v. O(valence).
  index insert_vertex(index h0, index v);
  // Splits the face of h0 and h1 by a new edge to(h0) -> to(h1); returns it.
  index insert_edge(index h0, index h1);
  // Removes deleted elements: compacts every array and remaps every index
  // (invalidates every index held outside).
  void garbage_collection();
  // Capacity for nv vertices, ne edges and nf faces (no reallocation up to).
  void reserve(std::size_t nv, std::size_t ne, std::size_t nf);
  index add_vertex(const vec3& p) { return new_vertex(p); }

 private:
  index new_vertex(const vec3& p) {
    points_.push_back(p);
    vnormal_.push_back({});
    vout_.push_back(invalid);
    vdel_.push_back(0);
    return static_cast<index>(points_.size() - 1);
  }
  // Returns the halfedge a -> b; its opposite is b -> a.
  index new_edge(index a, index b) {
    const auto h = static_cast<index>(hto_.size());
    hto_.push_back(b), hto_.push_back(a);
    hnext_.push_back(invalid), hnext_.push_back(invalid);
    hprev_.push_back(invalid), hprev_.push_back(invalid);
    hface_.push_back(invalid), hface_.push_back(invalid);
    edel_.push_back(0);
    return h;
  }
  index new_face(index h) {
    fhalf_.push_back(h);
    fnormal_.push_back({});
    fdel_.push_back(0);
    return static_cast<index>(fhalf_.size() - 1);
  }
  void link(index a, index b) noexcept { hnext_[a] = b, hprev_[b] = a; }
  // As PMP's adjust_outgoing_halfedge: the first boundary halfedge around
  // v from vout[v] (the only one unless v is on two boundary loops).
  void adjust_out(index v) {
    const index s = vout_[v];
    if (s == invalid) return;
    index h = s;
    do {
      if (is_boundary_h(h)) {
        vout_[v] = h;
        return;
      }
      h = hnext_[h ^ 1];
    } while (h != s);
  }
  void remove_edge_helper(index h);
  void remove_loop_helper(index h0);

  array<vec3> points_, vnormal_, fnormal_;
  array<index> vout_, hto_, hnext_, hprev_, hface_, fhalf_;
  array<std::uint8_t> vdel_, edel_, fdel_;
  std::size_t deleted_v_ = 0, deleted_e_ = 0, deleted_f_ = 0;
};

using vector_mesh = basic_vector_mesh<std::allocator>;
using vector_mesh_huge = basic_vector_mesh<travpool::bench::huge_page_allocator>;

}  // namespace travpool::mesh::bench

#include "vector_mesh_edit.hpp"
