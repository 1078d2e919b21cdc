// examples/mesh/generate.hpp: small generated meshes (as triangle soups and
// as meshes) for the tests and the demo.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/mesh.hpp>
#include <travpool/mesh/soup.hpp>

namespace travpool::mesh {

inline soup tetrahedron_soup() {
  soup s;
  s.points = {{1, 1, 1}, {-1, -1, 1}, {-1, 1, -1}, {1, -1, -1}};
  s.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  return s;
}

// The unit cube, two triangles per side, outward orientation.
inline soup cube_soup() {
  soup s;
  for (int i = 0; i < 8; ++i) s.points.push_back({double(i & 1), double((i >> 1) & 1), double((i >> 2) & 1)});
  const std::uint32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                     {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    s.triangles.push_back({q[0], q[1], q[2]});
    s.triangles.push_back({q[0], q[2], q[3]});
  }
  return s;
}

// An open n x n grid of squares in the plane z = 0, two triangles each.
inline soup grid_soup(std::uint32_t n) {
  soup s;
  for (std::uint32_t j = 0; j <= n; ++j)
    for (std::uint32_t i = 0; i <= n; ++i) s.points.push_back({double(i), double(j), 0.0});
  auto at = [n](std::uint32_t i, std::uint32_t j) { return j * (n + 1) + i; };
  for (std::uint32_t j = 0; j < n; ++j)
    for (std::uint32_t i = 0; i < n; ++i) {
      s.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      s.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  return s;
}

// A regular icosahedron (20 faces) inscribed in the unit sphere.
// A torus of nu x nv quadrilaterals (two triangles each): R = 1, r = 0.4.
// nu = 120, nv = 6 gives thin triangles (aspect about 8).
inline soup torus_soup(std::uint32_t nu, std::uint32_t nv) {
  soup s;
  for (std::uint32_t i = 0; i < nu; ++i)
    for (std::uint32_t j = 0; j < nv; ++j) {
      const double u = 2 * std::numbers::pi * i / nu, v = 2 * std::numbers::pi * j / nv;
      s.points.push_back(
          {(1 + 0.4 * std::cos(v)) * std::cos(u), (1 + 0.4 * std::cos(v)) * std::sin(u), 0.4 * std::sin(v)});
    }
  auto at = [&](std::uint32_t i, std::uint32_t j) { return (i % nu) * nv + (j % nv); };
  for (std::uint32_t i = 0; i < nu; ++i)
    for (std::uint32_t j = 0; j < nv; ++j) {
      s.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      s.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  return s;
}

inline soup icosahedron_soup() {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  soup s;
  s.points = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
              {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
  for (auto& p : s.points) p = normalized(p);
  s.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  return s;
}

// A sphere: an icosahedron after `levels` Loop subdivisions, projected onto
// the unit sphere (20 * 4^levels faces).
inline triangle_mesh sphere(int levels) {
  triangle_mesh m = icosahedron_soup().build();
  for (int i = 0; i < levels; ++i) loop_subdivide(m);
  m.vertices().for_each([&](Vertex v) { m.position(v) = normalized(m.position(v)); });
  return m;
}

}  // namespace travpool::mesh
