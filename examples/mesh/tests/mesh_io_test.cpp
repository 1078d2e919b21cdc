// Tests of OFF/OBJ reading and writing: round trips, the accepted OBJ forms,
// and one malformed-file test per error class (the message names the file
// and the line).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/io.hpp>
#include "generate.hpp"
#include "io_test_files.hpp"

using namespace travpool::mesh;
namespace {

using mesh_io_test::dir;
using mesh_io_test::write_file;

// Reading `content` as `name` must fail at `line` with `what`.
void expect_error(const std::string& name, const std::string& content, int line, const std::string& what) {
  mesh_io_test::expect_error_at(name, content, ":" + std::to_string(line) + ":", what);
}

}  // namespace

TEST_CASE("OFF and OBJ round trips are exact", "[mesh][io]") {
  for (const char* ext : {"off", "obj"}) {
    INFO(ext);
    auto m = sphere(2);
    smooth(m, 1);  // coordinates with full mantissas
    const auto p = (dir() / (std::string("round.") + ext)).string();
    write_mesh(std::as_const(m), p);  // writing only reads the mesh
    auto r = read_mesh(p);
    mesh_io_test::check_same_mesh(m, r);
  }
}

TEST_CASE("OBJ: relative indices, v/vt/vn corners, polygons", "[mesh][io]") {
  const auto p = write_file("forms.obj",
                            "# a square pyramid, written in every corner form\n"
                            "mtllib x.mtl\no pyramid\n"
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 1 1.0\n"
                            "vt 0 0\nvn 0 0 1\ng base\ns off\nusemtl m\n"
                            "f 1/1/1 4/1/1 3/1/1 2/1/1\n"  // quad, triangulated
                            "f -5//1 -4//1 -1//1\n"        // relative
                            "f 2/1 3/1 5/1\n"
                            "f 3 4 5\r\n"  // CRLF
                            "f 4 -5 5\n");
  auto m = read_mesh(p);
  m.validate();
  CHECK(m.vertex_count() == 5);
  CHECK(m.face_count() == 6);
  CHECK(m.edge_count() == 9);
  std::vector<std::size_t> lines;
  const soup s = read_soup(p, &lines);
  REQUIRE(s.triangles.size() == 6);
  CHECK(s.triangles[2] == std::array<std::uint32_t, 3>{0, 1, 4});  // -5 -4 -1
  CHECK(lines[0] == 14);
  CHECK(lines[1] == 14);
  CHECK(lines[2] == 15);
}

TEST_CASE("OFF: header forms, comments, colours", "[mesh][io]") {
  auto m = read_mesh(write_file("tet.off",
                                "OFF 4 4 6\n# comment\n1 1 1\n-1 -1 1\n-1 1 -1\n\n1 -1 -1\n"
                                "3 0 2 1 255 0 0\n3 0 1 3\n3 0 3 2 # c\n3 1 2 3\n"));
  m.validate();
  CHECK(m.face_count() == 4);
  auto q = read_mesh(write_file("quad.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"));
  q.validate();
  CHECK(q.face_count() == 2);
}

TEST_CASE("malformed files: the error names file and line", "[mesh][io]") {
  const std::string tet_v = "1 1 1\n-1 -1 1\n-1 1 -1\n1 -1 -1\n";
  SECTION("truncated data") {
    expect_error("trunc_v.off", "OFF\n4 4 0\n1 1 1\n-1 -1 1\n", 4, "unexpected end of file: expected 4 vertices");
    expect_error("trunc_f.off", "OFF\n4 4 0\n" + tet_v + "3 0 2 1\n3 0 1", 8, "truncated line");
    expect_error("trunc_line.off", "OFF\n4 1 0\n1 1 1\n-1 -1\n", 4, "truncated line: expected z coordinate");
    expect_error("trunc_head.off", "OFF\n", 1, "truncated header");
    expect_error("empty.off", "", 0, "empty file");
    expect_error("trunc.obj", "v 1 2\n", 1, "truncated line");
  }
  SECTION("indices out of range") {
    expect_error("range.off", "OFF\n4 1 0\n" + tet_v + "3 0 1 4\n", 7, "vertex index 4 out of range");
    expect_error("negative.off", "OFF\n4 1 0\n" + tet_v + "3 0 -1 2\n", 7, "vertex index -1 out of range");
    expect_error("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 7\n", 5, "vertex index 7 out of range");
    expect_error("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4, "vertex index 0 is invalid");
    expect_error("relative.obj", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\n", 3, "reaches before the first vertex");
    expect_error("huge.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", 4, "expected vertex index");
  }
  SECTION("absurd counts do not allocate") {
    expect_error("counts.off", "OFF\n1000000000000 1 0\n0 0 0\n", 2, "vertex count 1000000000000");
    expect_error("counts_f.off", "OFF\n3 4000000000 0\n0 0 0\n1 0 0\n0 1 0\n", 2, "face count 4000000000");
    expect_error("counts_neg.off", "OFF\n-3 1 0\n", 2, "vertex count -3");
    expect_error("poly.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2000000000 0 1 2\n", 6, "face has 2000000000");
  }
  SECTION("non-finite coordinates") {
    expect_error("nan.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", 4, "y coordinate is not finite");
    expect_error("inf.obj", "v 0 0 0\nv 1 0 inf\nv 0 1 0\nf 1 2 3\n", 2, "z coordinate is not finite");
    expect_error("big.off", "OFF\n3 1 0\n0 0 0\n1e999 0 0\n0 1 0\n3 0 1 2\n", 4, "out of range");
  }
  SECTION("degenerate faces") {
    expect_error("repeat.off", "OFF\n4 1 0\n" + tet_v + "3 0 1 1\n", 7, "vertex 1 appears twice");
    expect_error("two.off", "OFF\n4 1 0\n" + tet_v + "2 0 1\n", 7, "degenerate face");
    expect_error("two.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", 3, "fewer than 3 vertices");
    expect_error("repeat.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -3\n", 4, "appears twice");
  }
  SECTION("garbage bytes") {
    expect_error("garbage_head.off",
                 std::string("\x7f"
                             "ELF\x02\x01\x00\x00",
                             8),
                 1, "expected an 'OFF' header");
    expect_error("garbage_mid.off", "OFF\n3 1 0\n0 0 0\n1 \xff\xfe 0\n0 1 0\n3 0 1 2\n", 4,
                 "expected y coordinate, found '\\xff\\xfe'");
    expect_error("garbage.obj", std::string("v 0 0 0\n\x00\x01\x02 1 2\n", 16), 2, "unknown OBJ statement");
    expect_error("garbage_idx.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", 4, "expected vertex index, found '3x'");
    expect_error("trailing.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\nxyz\n", 7, "unexpected data");
  }
  SECTION("non-manifold input") {
    // Three triangles on the edge 0-1.
    expect_error("fin.off", "OFF\n5 3 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n0 -1 0\n3 0 1 2\n3 1 0 3\n3 0 1 4\n", 10,
                 "non-manifold edge (0, 1)");
    // Two triangles meeting only at vertex 0.
    expect_error("bowtie.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv -1 0 0\nv 0 -1 0\nf 1 2 3\n\nf 1 4 5\n", 8,
                 "non-manifold vertex 0");
  }
  SECTION("unsupported or missing files") {
    CHECK_THROWS_WITH(read_mesh((dir() / "missing.off").string()), Catch::Contains("cannot open"));
    CHECK_THROWS_WITH(read_mesh(write_file("mesh.stl", "solid\n")), Catch::Contains("unsupported file type"));
    auto m = cube_soup().build();
    CHECK_THROWS_AS(write_mesh(m, (dir() / "no" / "such" / "dir.off").string()), io_error);
  }
}
