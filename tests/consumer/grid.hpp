// An open n x n grid in the plane z = 0, two triangles per square, as a
// triangle soup: the consumer programs' mesh.
#pragma once

#include <cstdint>

#include <travpool/mesh/soup.hpp>

inline travpool::mesh::soup grid_soup(std::uint32_t n) {
  travpool::mesh::soup s;
  for (std::uint32_t j = 0; j <= n; ++j)
    for (std::uint32_t i = 0; i <= n; ++i) s.points.push_back({double(i), double(j), 0.0});
  for (std::uint32_t j = 0; j < n; ++j)
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t a = j * (n + 1) + i;
      s.triangles.push_back({a, a + 1, a + n + 2});
      s.triangles.push_back({a, a + n + 2, a + n + 1});
    }
  return s;
}
