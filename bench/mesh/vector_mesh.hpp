// bench/mesh/vector_mesh.hpp: the comparison's contender (b), a halfedge
// triangle mesh in std::vectors with 32-bit indices (halfedge h and h ^ 1
// form edge h / 2), deleted flags, and a PMP-style garbage_collection() that
// compacts the arrays and remaps every index. Parallel loops are plain
// `omp parallel for` over the index range.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "mesh.hpp"  // vec3 and its helpers only

namespace travpool::mesh::bench {

class vector_mesh {
 public:
  using index = std::uint32_t;
  static constexpr index invalid = ~index{0};

  static vector_mesh from_triangles(const std::vector<vec3>& points,
                                    const std::vector<std::array<std::uint32_t, 3>>& tris) {
    vector_mesh m;
    const std::size_t nv = points.size(), nf = tris.size();
    m.points_ = points;
    m.vout_.assign(nv, invalid);
    m.vdel_.assign(nv, 0);
    // Outgoing face halfedges per vertex (CSR), to pair twins.
    std::vector<std::uint32_t> first(nv + 1, 0);
    for (const auto& t : tris)
      for (int c = 0; c < 3; ++c) ++first[t[c] + 1];
    for (std::size_t i = 0; i < nv; ++i) first[i + 1] += first[i];
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1), slots(3 * nf);
    for (std::size_t f = 0; f < nf; ++f)
      for (std::uint32_t c = 0; c < 3; ++c) slots[fill[tris[f][c]]++] = static_cast<std::uint32_t>(3 * f + c);
    auto target = [&](std::uint32_t s) { return tris[s / 3][(s % 3 + 1) % 3]; };
    auto source = [&](std::uint32_t s) { return tris[s / 3][s % 3]; };
    std::vector<index> hs(3 * nf, invalid);
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
    std::vector<index> bout(nv, invalid);
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

  std::vector<vec3>& points() noexcept { return points_; }
  const std::vector<vec3>& vertex_normals() const noexcept { return vnormal_; }
  bool vertex_deleted(index v) const noexcept { return vdel_[v] != 0; }

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
    std::vector<vec3> buf(points_.size());
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

  // Splits face f at p into three; returns the new vertex.
  index split(index f, const vec3& p) {
    const index h0 = fhalf_[f], h1 = hnext_[h0], h2 = hnext_[h1];
    const index a = hto_[h2], b = hto_[h0], c = hto_[h1];
    const index v = new_vertex(p);
    const index va = new_edge(v, a), av = va ^ 1;
    const index vb = new_edge(v, b), bv = vb ^ 1;
    const index vc = new_edge(v, c), cv = vc ^ 1;
    const index f1 = new_face(h1), f2 = new_face(h2);
    link(h0, bv), link(bv, va), link(va, h0);
    link(h1, cv), link(cv, vb), link(vb, h1);
    link(h2, av), link(av, vc), link(vc, h2);
    hface_[bv] = hface_[va] = f;
    hface_[h1] = hface_[cv] = hface_[vb] = f1;
    hface_[h2] = hface_[av] = hface_[vc] = f2;
    vout_[v] = va;
    return v;
  }

  bool is_collapse_ok(index v0v1) const {
    const index v1v0 = v0v1 ^ 1;
    const index v0 = hto_[v1v0], v1 = hto_[v0v1];
    index vl = invalid, vr = invalid;
    if (!is_boundary_h(v0v1)) {
      const index h1 = hnext_[v0v1], h2 = hnext_[h1];
      vl = hto_[h1];
      if (is_boundary_h(h1 ^ 1) && is_boundary_h(h2 ^ 1)) return false;
    }
    if (!is_boundary_h(v1v0)) {
      const index h1 = hnext_[v1v0], h2 = hnext_[h1];
      vr = hto_[h1];
      if (is_boundary_h(h1 ^ 1) && is_boundary_h(h2 ^ 1)) return false;
    }
    if (vl == vr) return false;
    if (is_boundary_v(v0) && is_boundary_v(v1) && !is_boundary_h(v0v1) && !is_boundary_h(v1v0)) return false;
    bool ok = true;
    for_out(v0, [&](index h) {
      const index w = hto_[h];
      if (ok && w != v1 && w != vl && w != vr && find_halfedge(w, v1) != invalid) ok = false;
    });
    if (!ok) return false;
    if (vl != invalid && vr != invalid) {
      const index h = find_halfedge(vl, vr);
      if (h != invalid) {
        const index a = is_boundary_h(h) ? invalid : hto_[hnext_[h]];
        const index b = is_boundary_h(h ^ 1) ? invalid : hto_[hnext_[h ^ 1]];
        if ((a == v0 && b == v1) || (a == v1 && b == v0)) return false;
      }
    }
    return true;
  }

  // Collapses h (from(h) merges into to(h)); marks the removed elements deleted.
  void collapse(index h0) {
    const index h1 = hprev_[h0], o0 = h0 ^ 1, o1 = hnext_[o0];
    remove_edge_helper(h0);
    if (hnext_[hnext_[h1]] == h1) remove_loop_helper(h1);
    if (hnext_[hnext_[o1]] == o1) remove_loop_helper(o1);
  }

  // Removes deleted elements: compacts every array and remaps every index.
  void garbage_collection() {
    if (!has_garbage()) return;
    auto compact_map = [](const std::vector<std::uint8_t>& del, std::vector<index>& map, std::size_t per) {
      map.assign(del.size() * per, invalid);
      index n = 0;
      for (std::size_t i = 0; i < del.size(); ++i)
        if (!del[i])
          for (std::size_t k = 0; k < per; ++k) map[i * per + k] = n++;
      return n;
    };
    std::vector<index> vmap, hmap, fmap;
    const index nv = compact_map(vdel_, vmap, 1);
    const index nh = compact_map(edel_, hmap, 2);
    const index nf = compact_map(fdel_, fmap, 1);
    auto remap = [](index i, const std::vector<index>& map) { return i == invalid ? invalid : map[i]; };
    // Vertices.
    for (std::size_t v = 0; v < vdel_.size(); ++v)
      if (!vdel_[v]) {
        const index t = vmap[v];
        points_[t] = points_[v];
        vnormal_[t] = vnormal_[v];
        vout_[t] = remap(vout_[v], hmap);
      }
    // Halfedges.
    for (std::size_t h = 0; h < hto_.size(); ++h)
      if (!edel_[h / 2]) {
        const index t = hmap[h];
        hto_[t] = vmap[hto_[h]];
        hnext_[t] = hmap[hnext_[h]];
        hprev_[t] = hmap[hprev_[h]];
        hface_[t] = remap(hface_[h], fmap);
      }
    // Faces.
    for (std::size_t f = 0; f < fdel_.size(); ++f)
      if (!fdel_[f]) {
        const index t = fmap[f];
        fhalf_[t] = hmap[fhalf_[f]];
        fnormal_[t] = fnormal_[f];
      }
    points_.resize(nv), vnormal_.resize(nv), vout_.resize(nv), vdel_.assign(nv, 0);
    hto_.resize(nh), hnext_.resize(nh), hprev_.resize(nh), hface_.resize(nh), edel_.assign(nh / 2, 0);
    fhalf_.resize(nf), fnormal_.resize(nf), fdel_.assign(nf, 0);
    deleted_v_ = deleted_e_ = deleted_f_ = 0;
  }

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
  void adjust_out(index v) {
    for_out(v, [&](index h) {
      if (is_boundary_h(h)) vout_[v] = h;
    });
  }
  void remove_edge_helper(index h) {
    const index hn = hnext_[h], hp = hprev_[h], o = h ^ 1, on = hnext_[o], op = hprev_[o];
    const index fh = hface_[h], fo = hface_[o], vh = hto_[h], vo = hto_[o];
    const bool on_boundary = is_boundary_h(vout_[vh]) || is_boundary_h(vout_[vo]);
    for_out(vo, [&](index hc) { hto_[hc ^ 1] = vh; });
    link(hp, hn), link(op, on);
    if (fh != invalid) fhalf_[fh] = hn;
    if (fo != invalid) fhalf_[fo] = on;
    if (vout_[vh] == o) vout_[vh] = hn;
    if (on_boundary) adjust_out(vh);
    vout_[vo] = invalid;
    vdel_[vo] = 1, ++deleted_v_;
    edel_[h / 2] = 1, ++deleted_e_;
  }
  void remove_loop_helper(index h0) {
    const index h1 = hnext_[h0], o0 = h0 ^ 1, o1 = h1 ^ 1, v0 = hto_[h0], v1 = hto_[h1];
    const index fh = hface_[h0], fo = hface_[o0];
    link(hprev_[o0], h1);
    link(h1, hnext_[o0]);
    hface_[h1] = fo;
    if (vout_[v0] == o0) vout_[v0] = h1;
    if (vout_[v1] == h0) vout_[v1] = o1;
    if (fo != invalid && fhalf_[fo] == o0) fhalf_[fo] = h1;
    if (fh != invalid) fdel_[fh] = 1, ++deleted_f_;
    edel_[h0 / 2] = 1, ++deleted_e_;
  }

  std::vector<vec3> points_, vnormal_, fnormal_;
  std::vector<index> vout_, hto_, hnext_, hprev_, hface_, fhalf_;
  std::vector<std::uint8_t> vdel_, edel_, fdel_;
  std::size_t deleted_v_ = 0, deleted_e_ = 0, deleted_f_ = 0;
};

}  // namespace travpool::mesh::bench
