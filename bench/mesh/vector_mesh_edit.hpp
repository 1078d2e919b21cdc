// bench/mesh/vector_mesh_edit.hpp: the local edits of basic_vector_mesh
// (vector_mesh.hpp), written as PMP's SurfaceMesh has them (after
// OpenMesh): split of a face, the link condition and collapse,
// delete_face, insert_vertex and insert_edge (the steps of Loop
// subdivision), and the compacting garbage_collection().
//
// Each edit keeps the invariants of vector_mesh.hpp. Removed elements are
// only flagged deleted, so every index stays valid until
// garbage_collection(), which renumbers everything.
#pragma once

#include <array>
#include <cstdint>

#include "vector_mesh.hpp"

namespace travpool::mesh::bench {

template <template <class> class Alloc>
auto basic_vector_mesh<Alloc>::split(index f, const vec3& p) -> index {
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

template <template <class> class Alloc>
bool basic_vector_mesh<Alloc>::is_collapse_ok(index v0v1) const {
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

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::collapse(index h0) {
  const index h1 = hprev_[h0], o0 = h0 ^ 1, o1 = hnext_[o0];
  remove_edge_helper(h0);
  if (hnext_[hnext_[h1]] == h1) remove_loop_helper(h1);
  if (hnext_[hnext_[o1]] == o1) remove_loop_helper(o1);
}

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::delete_face(index f) {
  if (fdel_[f]) return;
  fdel_[f] = 1, ++deleted_f_;
  std::array<index, 3> dead_edges{}, corners{};
  int n_dead = 0, k = 0;
  const index h0 = fhalf_[f];
  index h = h0;
  do {
    hface_[h] = invalid;
    if (is_boundary_h(h ^ 1)) dead_edges[n_dead++] = h / 2;
    corners[k++] = hto_[h];
    h = hnext_[h];
  } while (h != h0 && k < 3);
  for (int i = 0; i < n_dead; ++i) {
    const index a = 2 * dead_edges[i], b = a + 1;
    const index va = hto_[a], vb = hto_[b];
    const index next_a = hnext_[a], prev_a = hprev_[a], next_b = hnext_[b], prev_b = hprev_[b];
    link(prev_a, next_b);
    link(prev_b, next_a);
    edel_[dead_edges[i]] = 1, ++deleted_e_;
    if (vout_[va] == b) {
      if (next_a == b)
        vout_[va] = invalid, vdel_[va] = 1, ++deleted_v_;
      else
        vout_[va] = next_a;
    }
    if (vout_[vb] == a) {
      if (next_b == a)
        vout_[vb] = invalid, vdel_[vb] = 1, ++deleted_v_;
      else
        vout_[vb] = next_b;
    }
  }
  for (const index v : corners) adjust_out(v);  // no-op on a deleted (out: invalid) vertex
}

template <template <class> class Alloc>
auto basic_vector_mesh<Alloc>::insert_vertex(index h0, index v) -> index {
  // before: v0 --h0--> v2, v2 --o0--> v0; after: v0 --h0--> v --h1--> v2,
  // v2 --o1--> v --o0--> v0.
  const index h2 = hnext_[h0], o0 = h0 ^ 1, o2 = hprev_[o0];
  const index v2 = hto_[h0], fh = hface_[h0], fo = hface_[o0];
  const index h1 = new_edge(v, v2), o1 = h1 ^ 1;
  link(h1, h2);
  link(h0, h1);
  hto_[h0] = v;
  hface_[h1] = fh;
  link(o1, o0);
  link(o2, o1);
  hface_[o1] = fo;
  vout_[v2] = o1;
  adjust_out(v2);
  vout_[v] = h1;
  adjust_out(v);
  if (fh != invalid) fhalf_[fh] = h0;
  if (fo != invalid) fhalf_[fo] = o1;
  return o1;
}

template <template <class> class Alloc>
auto basic_vector_mesh<Alloc>::insert_edge(index h0, index h1) -> index {
  const index h2 = hnext_[h0], h3 = hnext_[h1];
  const index h4 = new_edge(hto_[h0], hto_[h1]), h5 = h4 ^ 1;
  const index f0 = hface_[h0];
  fhalf_[f0] = h0;
  const index f1 = new_face(h1);
  link(h0, h4);
  link(h4, h3);
  hface_[h4] = f0;
  link(h1, h5);
  link(h5, h2);
  index h = h2;
  do {
    hface_[h] = f1;
    h = hnext_[h];
  } while (h != h2);
  return h4;
}

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::reserve(std::size_t nv, std::size_t ne, std::size_t nf) {
  points_.reserve(nv), vnormal_.reserve(nv), vout_.reserve(nv), vdel_.reserve(nv);
  hto_.reserve(2 * ne), hnext_.reserve(2 * ne), hprev_.reserve(2 * ne), hface_.reserve(2 * ne), edel_.reserve(ne);
  fhalf_.reserve(nf), fnormal_.reserve(nf), fdel_.reserve(nf);
}

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::garbage_collection() {
  if (!has_garbage()) return;
  auto compact_map = [](const array<std::uint8_t>& del, array<index>& map, std::size_t per) {
    map.assign(del.size() * per, invalid);
    index n = 0;
    for (std::size_t i = 0; i < del.size(); ++i)
      if (!del[i])
        for (std::size_t k = 0; k < per; ++k) map[i * per + k] = n++;
    return n;
  };
  array<index> vmap, hmap, fmap;
  const index nv = compact_map(vdel_, vmap, 1);
  const index nh = compact_map(edel_, hmap, 2);
  const index nf = compact_map(fdel_, fmap, 1);
  auto remap = [](index i, const array<index>& map) { return i == invalid ? invalid : map[i]; };
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

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::remove_edge_helper(index h) {
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

template <template <class> class Alloc>
void basic_vector_mesh<Alloc>::remove_loop_helper(index h0) {
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

}  // namespace travpool::mesh::bench
