// Builds against the installed travpool::mesh with CGAL's Polygon Mesh
// Processing (<travpool/mesh/cgal.hpp>): fills the hole of an open grid,
// remeshes it, and checks the result with CGAL and with the mesh itself.
#include <cmath>
#include <cstdio>
#include <iterator>
#include <vector>

#include <travpool/mesh.hpp>
#include <travpool/mesh/cgal.hpp>

#include <CGAL/Polygon_mesh_processing/border.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Polygon_mesh_processing/triangulate_hole.h>

#include "grid.hpp"

namespace mesh = travpool::mesh;
namespace PMP = CGAL::Polygon_mesh_processing;

int main() {
  // An open 6 x 6 grid in the plane z = 0: one border cycle.
  mesh::triangle_mesh m = grid_soup(6).build();
  const double area = PMP::area(m);
  PMP::isotropic_remeshing(faces(m), 0.5, m);
  std::vector<mesh::Halfedge> border;
  PMP::extract_boundary_cycles(m, std::back_inserter(border));
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) std::printf("FAILED: %s\n", what), ++failures;
  };
  check(border.size() == 1, "one border cycle");
  check(std::abs(PMP::area(m) - area) < 1e-9 * area, "remeshing keeps the area of a plane");
  std::vector<mesh::Face> patch;
  PMP::triangulate_hole(m, border.front(), std::back_inserter(patch));
  check(CGAL::is_closed(m) && CGAL::is_valid_polygon_mesh(m), "closed and valid after triangulate_hole");
  m.settle();  // out() on the boundary again, then every invariant of the mesh
  m.validate();
  std::printf("%zu vertices, %zu faces; %s\n", m.vertex_count(), m.face_count(), failures ? "FAILED" : "ok");
  return failures == 0 ? 0 : 1;
}
