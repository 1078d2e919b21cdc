// PLY against an independent implementation: files that OpenMesh 9 writes
// (ASCII, binary little- and big-endian, with vertex normals, vertex
// colours and face colours) read back with the same positions and
// triangles, and files that write_ply() writes read back in OpenMesh.
// Built only when OpenMesh is found (examples/mesh/CMakeLists.txt).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <OpenMesh/Core/IO/MeshIO.hh>
#include <OpenMesh/Core/Mesh/TriMesh_ArrayKernelT.hh>
#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/io.hpp>
#include "generate.hpp"
#include "io_test_files.hpp"

using namespace travpool::mesh;
using mesh_io_test::dir;

namespace {

struct om_traits : OpenMesh::DefaultTraits {
  using Point = OpenMesh::Vec3d;
  using Normal = OpenMesh::Vec3d;
  VertexAttributes(OpenMesh::Attributes::Normal | OpenMesh::Attributes::Color);
  FaceAttributes(OpenMesh::Attributes::Color);
};
using om_mesh = OpenMesh::TriMesh_ArrayKernelT<om_traits>;

using triangles = std::vector<std::array<std::uint32_t, 3>>;

void rotate_each(triangles& t) {
  for (auto& x : t) std::rotate(x.begin(), std::min_element(x.begin(), x.end()), x.end());
}

// Positions rounded to float (OpenMesh may store them as float) and
// triangles rotated to start at their smallest vertex.
void contents(const om_mesh& m, std::vector<std::array<float, 3>>& p, triangles& t) {
  for (const auto v : m.vertices()) {
    const auto q = m.point(v);
    p.push_back({static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2])});
  }
  for (const auto f : m.faces()) {
    std::array<std::uint32_t, 3> x{};
    std::size_t k = 0;
    for (const auto v : m.fv_range(f)) x[k++] = static_cast<std::uint32_t>(v.idx());
    t.push_back(x);
  }
  rotate_each(t);
}

void contents(const triangle_mesh& m, std::vector<std::array<float, 3>>& p, triangles& t) {
  std::vector<vec3> pts;
  to_triangles(m, pts, t);
  for (const auto& q : pts) p.push_back({static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z)});
  rotate_each(t);
}

}  // namespace

TEST_CASE("PLY files written by OpenMesh read back", "[mesh][io][ply]") {
  auto ours = sphere(2);
  smooth(ours, 1);
  std::vector<vec3> pts;
  triangles tris;
  to_triangles(ours, pts, tris);
  om_mesh om;
  std::vector<om_mesh::VertexHandle> vh;
  for (const auto& p : pts) vh.push_back(om.add_vertex({p.x, p.y, p.z}));
  for (const auto& t : tris) om.add_face(vh[t[0]], vh[t[1]], vh[t[2]]);
  om.update_normals();
  for (const auto v : om.vertices()) om.set_color(v, {10, 20, 30});
  for (const auto f : om.faces()) om.set_color(f, {40, 50, 60});
  std::vector<std::array<float, 3>> pa;
  triangles ta;
  contents(om, pa, ta);

  struct variant {
    const char* name;
    OpenMesh::IO::Options::Flag flags;
  };
  using O = OpenMesh::IO::Options;
  for (const variant v : {variant{"om_ascii.ply", O::Default}, variant{"om_le.ply", O::Flag(O::Binary | O::LSB)},
                          variant{"om_be.ply", O::Flag(O::Binary | O::MSB)}}) {
    INFO(v.name);
    const auto path = (dir() / v.name).string();
    O opt(v.flags);
    opt += O::VertexNormal, opt += O::VertexColor, opt += O::FaceColor;
    REQUIRE(OpenMesh::IO::write_mesh(om, path, opt, 17));  // ASCII: 17 digits
    auto r = read_mesh(path);
    r.validate();
    std::vector<std::array<float, 3>> pb;
    triangles tb;
    contents(r, pb, tb);
    CHECK(pa == pb);
    CHECK(ta == tb);
  }
}

TEST_CASE("PLY files written by write_ply read back in OpenMesh", "[mesh][io][ply]") {
  auto ours = sphere(2);
  smooth(ours, 1);
  std::vector<std::array<float, 3>> pa;
  triangles ta;
  contents(ours, pa, ta);
  for (const auto format : {ply_format::ascii, ply_format::binary_little_endian}) {
    const auto path = (dir() / (format == ply_format::ascii ? "ours_a.ply" : "ours_b.ply")).string();
    INFO(path);
    write_ply(ours, path, format);
    om_mesh om;
    OpenMesh::IO::Options opt;
    REQUIRE(OpenMesh::IO::read_mesh(om, path, opt));
    std::vector<std::array<float, 3>> pb;
    triangles tb;
    contents(om, pb, tb);
    CHECK(pa == pb);
    CHECK(ta == tb);
  }
}

TEST_CASE("vertex normals written by write_ply are OpenMesh's vertex normals", "[mesh][io][ply]") {
  auto ours = sphere(2);
  smooth(ours, 1);
  compute_normals(ours);
  std::vector<std::array<float, 3>> want;  // in the file's vertex order (traversal order)
  for (const Vertex v : ours.vertices()) {
    const vec3& n = ours.normal(v);
    want.push_back({static_cast<float>(n.x), static_cast<float>(n.y), static_cast<float>(n.z)});
  }
  for (const auto format : {ply_format::ascii, ply_format::binary_little_endian}) {
    const auto path = (dir() / (format == ply_format::ascii ? "normals_a.ply" : "normals_b.ply")).string();
    INFO(path);
    write_ply(ours, path, format, {true, {}});
    om_mesh om;
    OpenMesh::IO::Options opt = OpenMesh::IO::Options::VertexNormal;
    REQUIRE(OpenMesh::IO::read_mesh(om, path, opt));
    REQUIRE(opt.check(OpenMesh::IO::Options::VertexNormal));  // OpenMesh found them
    std::vector<std::array<float, 3>> got;
    for (const auto v : om.vertices()) {
      const auto n = om.normal(v);
      got.push_back({static_cast<float>(n[0]), static_cast<float>(n[1]), static_cast<float>(n[2])});
    }
    CHECK(got == want);
  }
}
