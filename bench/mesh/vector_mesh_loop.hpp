// bench/mesh/vector_mesh_loop.hpp: one level of Loop subdivision on
// basic_vector_mesh (vector_mesh.hpp), in place as PMP's
// loop_subdivision: new positions of the old vertices into a buffer, an
// edge point per old edge, insert_vertex on every old edge, then
// insert_edge cuts the three corners of every old face (a hexagon by
// then). Same rules, weights and order of operations as travpool::mesh's
// loop_subdivide (Loop 1987, boundary rules of Hoppe et al.), so both
// produce the same positions.
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>

#include "vector_mesh.hpp"

namespace travpool::mesh::bench {

// Effects: every live triangle becomes four; V' = V + E, E' = 2E + 3F,
// F' = 4F. Requires no deleted elements (call garbage_collection() first).
// Reserves the final sizes first. O(V + E + F).
template <template <class> class Alloc>
void loop_subdivide(basic_vector_mesh<Alloc>& m) {
  using mesh = basic_vector_mesh<Alloc>;
  using index = typename mesh::index;
  const auto nv = static_cast<index>(m.vertex_slots());
  const auto ne = static_cast<index>(m.edge_slots());
  const auto nf = static_cast<index>(m.face_slots());
  auto& p = m.points();
  // 1. New positions of the old vertices.
  typename mesh::template array<vec3> vpoint(nv);
  for (index v = 0; v < nv; ++v) {
    const index b = m.out(v);
    if (b == mesh::invalid) {
      vpoint[v] = p[v];
    } else if (m.is_boundary_h(b)) {  // b: v -> next on the boundary
      vpoint[v] = 0.75 * p[v] + 0.125 * (p[m.to(b)] + p[m.from(m.prev(b))]);
    } else {
      vec3 s;
      std::size_t n = 0;
      m.for_out(v, [&](index h) { s += p[m.to(h)], ++n; });
      const double dn = static_cast<double>(n);
      const double t = 0.375 + 0.25 * std::cos(2 * std::numbers::pi / dn);
      const double beta = (0.625 - t * t) / dn;
      vpoint[v] = (1.0 - dn * beta) * p[v] + beta * s;
    }
  }
  // 2. Edge points of the old edges.
  typename mesh::template array<vec3> epoint(ne);
  for (index e = 0; e < ne; ++e) {
    const index h0 = 2 * e, h1 = h0 + 1;
    const vec3 a = p[m.to(h0)], b = p[m.to(h1)];
    if (m.is_boundary_h(h0) || m.is_boundary_h(h1))
      epoint[e] = 0.5 * (a + b);
    else
      epoint[e] = 0.375 * (a + b) + 0.125 * (p[m.to(m.next(h0))] + p[m.to(m.next(h1))]);
  }
  m.reserve(std::size_t{nv} + ne, 2 * std::size_t{ne} + 3 * std::size_t{nf}, 4 * std::size_t{nf});
  // 3. Split every old edge (its new vertex takes the edge point).
  for (index e = 0; e < ne; ++e) m.insert_vertex(2 * e, m.add_vertex(epoint[e]));
  epoint = {};
  // 4. Cut the corners of every old face: face_half(f) ends at a new vertex.
  for (index f = 0; f < nf; ++f) {
    index h = m.face_half(f);
    for (int i = 0; i < 3; ++i) h = m.insert_edge(h, m.next(m.next(h)));
  }
  // 5. Move the old vertices.
  for (index v = 0; v < nv; ++v) p[v] = vpoint[v];
}

}  // namespace travpool::mesh::bench
