// Tests of PLY reading and writing: ASCII and binary round trips, files
// with extra properties and elements in every encoding, and one malformed
// file per error class (the message names the file and the line, or the
// byte offset in a binary body).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/io.hpp>
#include "generate.hpp"
#include "io_test_files.hpp"

using namespace travpool::mesh;
using mesh_io_test::dir;
using mesh_io_test::expect_error_at;
using mesh_io_test::write_file;

namespace {

void expect_line_error(const std::string& name, const std::string& content, int line, const std::string& what) {
  expect_error_at(name, content, ":" + std::to_string(line) + ":", what);
}

void expect_byte_error(const std::string& name, const std::string& content, std::size_t offset,
                       const std::string& what) {
  expect_error_at(name, content, ": byte " + std::to_string(offset) + ":", what);
}

enum class enc { ascii, little, big };

// The classic name of a PLY type name.
std::string alias(const std::string& t) {
  const char* names[][2] = {{"int8", "char"}, {"uint8", "uchar"}, {"int16", "short"},   {"uint16", "ushort"},
                            {"int32", "int"}, {"uint32", "uint"}, {"float32", "float"}, {"float64", "double"}};
  for (const auto& n : names)
    if (t == n[0]) return n[1];
  return t;
}

// A PLY file under construction: header text, then records whose values
// are written as text or as bytes. offset() is the absolute file offset of
// the next value (binary).
class ply_file {
 public:
  ply_file(enc e, const std::string& header_body) : e_(e) {
    s_ = "ply\nformat ";
    s_ += e == enc::ascii ? "ascii" : e == enc::little ? "binary_little_endian" : "binary_big_endian";
    s_ += " 1.0\n" + header_body + "end_header\n";
  }
  // Appends `v` as PLY type `type`.
  template <class T>
  ply_file& put(const std::string& type, T v) {
    if (e_ == enc::ascii) {
      std::ostringstream o;
      o.precision(17);
      o << +v;
      s_ += o.str() + ' ';
      return *this;
    }
    std::uint64_t bits = 0;
    int size = 0;
    const std::string t = alias(type);
    if (t == "float")
      bits = std::bit_cast<std::uint32_t>(static_cast<float>(v)), size = 4;
    else if (t == "double")
      bits = std::bit_cast<std::uint64_t>(static_cast<double>(v)), size = 8;
    else if (t == "uchar" || t == "char")
      bits = static_cast<std::uint8_t>(static_cast<std::int64_t>(v)), size = 1;
    else if (t == "short" || t == "ushort")
      bits = static_cast<std::uint16_t>(static_cast<std::int64_t>(v)), size = 2;
    else
      bits = static_cast<std::uint32_t>(static_cast<std::int64_t>(v)), size = 4;
    for (int k = 0; k < size; ++k) s_ += static_cast<char>((bits >> (8 * (e_ == enc::big ? size - 1 - k : k))) & 0xff);
    return *this;
  }
  // Ends a record; ASCII records are padded with blanks, so that a file
  // cut short still passes the header's count check (2 bytes per value).
  ply_file& end_record() {
    if (e_ == enc::ascii) s_ += std::string(16, ' '), s_.back() = '\n';
    return *this;
  }
  std::size_t offset() const { return s_.size(); }
  const std::string& str() const { return s_; }

 private:
  enc e_;
  std::string s_;
};

const char* ext_name(enc e) { return e == enc::ascii ? "ascii" : e == enc::little ? "le" : "be"; }

// A square pyramid (quad base, four sides) with extra vertex properties
// (normal, colour, a list), an extra element between vertices and faces,
// extra face properties, and an extra element at the end.
std::string pyramid(enc e) {
  ply_file f(e,
             "comment a pyramid with extras\nobj_info scanner 7\n"
             "element vertex 5\nproperty float nx\nproperty short x\nproperty double y\nproperty float z\n"
             "property uchar red\nproperty list uchar int junk\nproperty ushort confidence\n"
             "element edge 2\nproperty int vertex1\nproperty int vertex2\n"
             "element face 5\nproperty uchar flags\nproperty list uchar uint vertex_indices\n"
             "property float quality\n"
             "element material 1\nproperty list ushort double weights\nproperty char id\n");
  const double pts[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0.5, 1}};
  for (int i = 0; i < 5; ++i) {
    f.put("float", 0.25).put("short", pts[i][0]).put("double", pts[i][1]).put("float", pts[i][2]);
    f.put("uchar", 200 + i).put("uchar", i % 3);
    for (int k = 0; k < i % 3; ++k) f.put("int", -k);
    f.put("ushort", 60000).end_record();
  }
  f.put("int", 0).put("int", 1).end_record().put("int", 1).put("int", 2).end_record();
  const std::vector<std::vector<unsigned>> faces = {{0, 3, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}};
  for (const auto& fc : faces) {
    f.put("uchar", 7).put("uchar", fc.size());
    for (unsigned v : fc) f.put("uint", v);
    f.put("float", 0.5).end_record();
  }
  f.put("ushort", 2).put("double", 1.5).put("double", -2.5).put("char", -3).end_record();
  return f.str();
}

// The tetrahedron as a minimal PLY: x, y, z of type `coord`, faces as list
// uchar `index`.
ply_file tetrahedron(enc e, const std::string& coord = "float", const std::string& index = "int", std::int64_t nv = 4,
                     std::int64_t nf = 4) {
  ply_file f(e, "element vertex " + std::to_string(nv) + "\nproperty " + coord + " x\nproperty " + coord +
                    " y\nproperty " + coord + " z\nelement face " + std::to_string(nf) + "\nproperty list uchar " +
                    index + " vertex_indices\n");
  const auto s = tetrahedron_soup();
  for (const auto& p : s.points) f.put(coord, p.x).put(coord, p.y).put(coord, p.z).end_record();
  return f;
}

void put_triangle(ply_file& f, std::uint32_t a, std::uint32_t b, std::uint32_t c, const std::string& index = "int") {
  f.put("uchar", 3).put(index, a).put(index, b).put(index, c).end_record();
}

}  // namespace

TEST_CASE("PLY round trips are exact in ASCII and binary", "[mesh][io][ply]") {
  auto m = sphere(2);
  smooth(m, 1);  // coordinates with full mantissas
  for (const auto format : {ply_format::ascii, ply_format::binary_little_endian}) {
    const bool ascii = format == ply_format::ascii;
    INFO(ascii);
    const auto p = (dir() / (ascii ? "round_a.ply" : "round_b.ply")).string();
    write_ply(m, p, format);
    std::vector<std::size_t> at;
    bool bytes = !ascii;
    const soup s = read_soup(p, &at, &bytes);
    CHECK(bytes == !ascii);
    CHECK(at.size() == s.triangles.size());
    auto r = read_mesh(p);
    mesh_io_test::check_same_mesh(m, r);
  }
  // write_mesh picks binary little-endian for .ply.
  const auto p = (dir() / "round.PLY").string();
  write_mesh(m, p);
  auto r = read_mesh(p);
  mesh_io_test::check_same_mesh(m, r);
  std::vector<std::size_t> at;
  bool bytes = false;
  read_soup(p, &at, &bytes);
  CHECK(bytes);
}

TEST_CASE("PLY: normals and float or double vertex properties round-trip exactly", "[mesh][io][ply]") {
  auto m = sphere(2);
  smooth(m, 1);
  compute_normals(m);
  auto quality = m.add_property<Vertex, double>("quality", 0.0);
  auto confidence = m.add_property<Vertex, float>("confidence", 0.f);
  m.add_property<Vertex, int>("label", 7);
  int i = 0;
  for (const Vertex v : m.vertices()) {
    quality[v] = 1.0 / 3.0 + i;                      // a full mantissa
    confidence[v] = std::nextafter(0.1f * i, 1.0f);  // not a short decimal
    ++i;
  }
  const Vertex first = *m.vertices().begin();
  quality[first] = std::numeric_limits<double>::quiet_NaN();  // kept, as stored
  confidence[first] = -std::numeric_limits<float>::infinity();
  for (const auto format : {ply_format::ascii, ply_format::binary_little_endian}) {
    INFO((format == ply_format::ascii ? "ascii" : "binary"));
    const auto p = (dir() / "values.ply").string();
    write_ply(m, p, format, {true, {"quality", "confidence"}});
    auto r = read_mesh(p);
    mesh_io_test::check_same_mesh(m, r);
    REQUIRE(r.has_property<Vertex>("quality"));
    REQUIRE(r.has_property<Vertex>("confidence"));
    CHECK_FALSE(r.has_property<Vertex>("label"));  // not asked for
    const auto rq = r.get_property<Vertex, double>("quality");
    const auto rc = r.get_property<Vertex, float>("confidence");  // float in, float out
    std::size_t same = 0;
    auto a = m.vertices().begin();
    for (const Vertex v : r.vertices()) {
      const Vertex w = *a++;
      const bool q = std::bit_cast<std::uint64_t>(rq[v]) == std::bit_cast<std::uint64_t>(quality[w]);
      same += q && rc[v] == confidence[w] && r.normal(v) == m.normal(w);
    }
    CHECK(same == m.vertex_count());
    CHECK(std::isnan(rq[*r.vertices().begin()]));
  }
  // Without the normals asked for, none are read back (zero vectors).
  const auto p = (dir() / "nonormals.ply").string();
  write_ply(m, p, ply_format::binary_little_endian);
  const auto plain = read_mesh(p);
  CHECK(plain.normal(*plain.vertices().begin()) == vec3{});
  CHECK_FALSE(plain.has_property<Vertex>("quality"));
  // What cannot be written is refused before the file is opened.
  const auto refused = (dir() / "refused.ply").string();
  std::remove(refused.c_str());
  CHECK_THROWS_WITH(write_ply(m, refused, ply_format::ascii, {false, {"label"}}), Catch::Contains("neither float"));
  CHECK_THROWS_WITH(write_ply(m, refused, ply_format::ascii, {false, {"nothing"}}), Catch::Contains("no vertex"));
  CHECK_THROWS_WITH(write_ply(m, refused, ply_format::ascii, {false, {"a b"}}), Catch::Contains("white space"));
  CHECK_THROWS_WITH(write_ply(m, refused, ply_format::ascii, {false, {"x"}}), Catch::Contains("repeat"));
  CHECK_THROWS_WITH(write_ply(m, refused, ply_format::ascii, {true, {"nx"}}), Catch::Contains("repeat"));
  CHECK_FALSE(std::ifstream(refused).good());
  // A file's vertex property that a mesh cannot take is refused at its line.
  expect_line_error("reserved.ply",
                    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                    "property float tp:normal\nend_header\n0 0 0 1\n1 0 0 1\n0 1 0 1\n",
                    3, "reserved");
}

TEST_CASE("PLY: extra properties and elements are skipped and quads triangulated", "[mesh][io][ply]") {
  for (const enc e : {enc::ascii, enc::little, enc::big}) {
    INFO(ext_name(e));
    const auto p = write_file(std::string("pyramid_") + ext_name(e) + ".ply", pyramid(e));
    auto m = read_mesh(p);
    m.validate();
    CHECK(m.vertex_count() == 5);
    CHECK(m.face_count() == 6);
    CHECK(m.edge_count() == 9);
    const soup s = read_soup(p);
    REQUIRE(s.points.size() == 5);
    CHECK(s.points[4].x == 0);
    CHECK(s.points[4].y == 0.5);
    CHECK(s.points[4].z == 1);
    REQUIRE(s.triangles.size() == 6);
    CHECK(s.triangles[0] == std::array<std::uint32_t, 3>{0, 3, 2});  // the quad, as a fan
    CHECK(s.triangles[1] == std::array<std::uint32_t, 3>{0, 2, 1});
    CHECK(s.triangles[5] == std::array<std::uint32_t, 3>{3, 0, 4});
  }
  // Every scalar type name and alias for the coordinates, every integer
  // type for the indices.
  for (const char* coord : {"char", "uchar", "short", "ushort", "int", "uint", "float", "double", "int8", "uint8",
                            "int16", "uint16", "int32", "uint32", "float32", "float64"}) {
    for (const char* index : {"uchar", "int", "uint32", "ushort"}) {
      INFO(coord << " " << index);
      auto f = tetrahedron(enc::little, coord, index);
      const std::string c = coord;
      if (c.find('u') == 0) continue;  // unsigned coordinates cannot hold -1
      put_triangle(f, 0, 2, 1, index), put_triangle(f, 0, 1, 3, index), put_triangle(f, 0, 3, 2, index),
          put_triangle(f, 1, 2, 3, index);
      auto m = read_mesh(write_file("types.ply", f.str()));
      m.validate();
      CHECK(m.face_count() == 4);
      CHECK(read_soup(write_file("types.ply", f.str())).points[1].y == -1);
    }
  }
}

TEST_CASE("PLY: malformed headers name the line", "[mesh][io][ply]") {
  const std::string v = "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n";
  expect_line_error("empty.ply", "", 0, "empty file");
  expect_line_error("magic.ply", "plx\nformat ascii 1.0\nend_header\n", 1, "bad magic: expected 'ply', found 'plx'");
  expect_line_error("magic2.ply", "OFF\n", 1, "bad magic");
  expect_line_error("format.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n", 2,
                    "unknown format 'binary_middle_endian'");
  expect_line_error("version.ply", "ply\nformat ascii 2.0\nend_header\n", 2, "unsupported PLY version '2.0'");
  expect_line_error("noformat.ply", "ply\n" + v + "end_header\n", 2, "'element' before the 'format' line");
  expect_line_error("noformat2.ply", "ply\nend_header\n", 2, "no 'format' line");
  expect_line_error("twoformats.ply", "ply\nformat ascii 1.0\nformat ascii 1.0\n", 3, "second 'format' line");
  expect_line_error("keyword.ply", "ply\nformat ascii 1.0\nelemnt vertex 1\n", 3, "unknown header keyword 'elemnt'");
  expect_line_error("type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flaot x\n", 4,
                    "unknown property type 'flaot'");
  expect_line_error("listtype.ply", "ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\n",
                    4, "list count type must be an integer type");
  expect_line_error("orphan.ply", "ply\nformat ascii 1.0\nproperty float x\n", 3, "'property' before any 'element'");
  expect_line_error("noname.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float\n", 4,
                    "property without a name");
  expect_line_error("dupprop.ply", "ply\nformat ascii 1.0\n" + v + "property float x\n", 7, "second property 'x'");
  expect_line_error("dupelem.ply", "ply\nformat ascii 1.0\n" + v + v + "end_header\n", 7, "second element 'vertex'");
  expect_line_error("extra.ply", "ply\nformat ascii 1.0\nelement vertex 1 2\n", 3, "unexpected '2'");
  expect_line_error("count.ply", "ply\nformat ascii 1.0\nelement vertex many\n", 3, "expected element count");
  expect_line_error("negcount.ply", "ply\nformat ascii 1.0\nelement vertex -1\n", 3, "element count -1 is negative");
  expect_line_error("noend.ply", "ply\nformat ascii 1.0\n" + v, 6, "truncated header: no 'end_header'");
  expect_line_error("noz.ply",
                    "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n", 3,
                    "element 'vertex' has no property 'z'");
  expect_line_error("listx.ply",
                    "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\nproperty float y\n"
                    "property float z\nend_header\n",
                    3, "property 'x' of 'vertex' is a list");
  expect_line_error("novertex.ply", "ply\nformat ascii 1.0\ncomment nothing\nend_header\n", 4, "no element 'vertex'");
  expect_line_error("noindices.ply",
                    "ply\nformat ascii 1.0\n" + v +
                        "element face 0\nproperty int vertex_indices\n"
                        "end_header\n",
                    7, "element 'face' has no list 'vertex_indices'");
  expect_line_error(
      "floatindices.ply",
      "ply\nformat ascii 1.0\n" + v + "element face 0\nproperty list uchar float vertex_indices\nend_header\n", 7,
      "face vertex indices must have an integer type");
  expect_line_error("noprops.ply", "ply\nformat ascii 1.0\n" + v + "element edge 5\nend_header\n", 7,
                    "element 'edge' has no properties");
}

TEST_CASE("PLY: counts the file cannot hold fail before allocating", "[mesh][io][ply]") {
  // 10^12 vertices in a file of a few bytes: refused at the element line,
  // in both encodings (an allocation would exceed any memory).
  for (const enc e : {enc::ascii, enc::little}) {
    auto f = tetrahedron(e, "float", "int", 1000000000000, 4);
    expect_line_error(std::string("vcount_") + ext_name(e) + ".ply", f.str(), 3,
                      "element 'vertex' count 1000000000000 is more than the file can hold");
  }
  // The vertices fit, the faces do not: 4 binary faces take at least
  // 4 * 13 bytes, and none is there.
  expect_line_error("fcount.ply", tetrahedron(enc::little).str(), 7,
                    "element 'face' count 4 is more than the file can hold (0 bytes left for it)");
  // 4000000000 faces on top of valid vertices (ASCII: 8 bytes each at least).
  expect_line_error("fcount_a.ply", tetrahedron(enc::ascii, "float", "int", 4, 4000000000).str(), 7,
                    "element 'face' count 4000000000");
  // A list count larger than the vertex count is refused before reading it.
  auto f = tetrahedron(enc::little);
  const std::size_t at = f.offset();
  f.put("uchar", 200);
  for (int k = 0; k < 60; ++k) f.put("int", 0);
  expect_byte_error("bigface.ply", f.str(), at, "face has 200 vertices, more than the file's 4");
}

TEST_CASE("PLY: malformed ASCII bodies name the line", "[mesh][io][ply]") {
  // Header lines 1 .. 9; vertices on lines 10 .. 13, faces from line 14.
  auto good = [] {
    auto f = tetrahedron(enc::ascii);
    put_triangle(f, 0, 2, 1), put_triangle(f, 0, 1, 3), put_triangle(f, 0, 3, 2);
    return f;
  };
  auto f = good();
  put_triangle(f, 1, 2, 3);
  read_mesh(write_file("good.ply", f.str())).validate();
  expect_line_error("trunc.ply", good().str(), 16, "unexpected end of file: expected 4 'face' records, found 3");
  auto t = tetrahedron(enc::ascii, "float", "int", 5, 4);
  expect_line_error("trunc_v.ply", t.str(), 13, "expected 5 'vertex' records, found 4");
  f = good(), f.put("uchar", 3).put("int", 1).put("int", 2).end_record();
  expect_line_error("trunc_line.ply", f.str(), 17, "truncated line: expected vertex index");
  f = good(), put_triangle(f, 1, 2, 4);
  expect_line_error("range.ply", f.str(), 17, "vertex index 4 out of range [0, 4)");
  f = good(), f.put("uchar", 3).put("int", 1).put("int", -1).put("int", 3).end_record();
  expect_line_error("negative.ply", f.str(), 17, "vertex index -1 out of range");
  f = good(), f.put("uchar", 2).put("int", 1).put("int", 2).end_record();
  expect_line_error("two.ply", f.str(), 17, "degenerate face: 2 vertices");
  f = good(), put_triangle(f, 1, 2, 2);
  expect_line_error("repeat.ply", f.str(), 17, "degenerate face: vertex 2 appears twice");
  f = good(), f.put("uchar", 300);
  expect_line_error("listcount.ply", f.str(), 17, "face vertex count 300 does not fit its type");
  f = good(), put_triangle(f, 1, 2, 3), f.put("int", 9).end_record();
  expect_line_error("trailing.ply", f.str(), 18, "unexpected data after the last element: '9'");
  std::string s = good().str() + "3 1 2 3 7\n";
  expect_line_error("extravalue.ply", s, 17, "unexpected '7' after the 'face' record");
  s = tetrahedron(enc::ascii).str();
  s.replace(s.find("-1 1 -1"), 7, "-1 nan -1");
  expect_line_error("nan.ply", s + "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n", 12, "y coordinate is not finite");
  s = tetrahedron(enc::ascii).str();
  s.replace(s.find("-1 1 -1"), 7, "-1 1 \xff");
  expect_line_error("garbage.ply", s + "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n", 12,
                    "expected z coordinate, found '\\xff'");
  // Three faces on the edge 0-1: the third names its line.
  f = tetrahedron(enc::ascii, "float", "int", 4, 3);
  put_triangle(f, 0, 1, 2), put_triangle(f, 1, 0, 3), put_triangle(f, 0, 1, 3);
  expect_line_error("fin.ply", f.str(), 16, "non-manifold edge (0, 1)");
}

TEST_CASE("PLY: malformed binary bodies name the byte offset", "[mesh][io][ply]") {
  for (const enc e : {enc::little, enc::big}) {
    INFO(ext_name(e));
    const std::string x = ext_name(e);
    auto good = [&] {
      auto f = tetrahedron(e);
      put_triangle(f, 0, 2, 1), put_triangle(f, 0, 1, 3), put_triangle(f, 0, 3, 2);
      return f;
    };
    auto f = good();
    put_triangle(f, 1, 2, 3);
    read_mesh(write_file("good_" + x + ".ply", f.str())).validate();
    // Truncated: the last face, a quad, stops after its third index (the
    // count check passes: 4 faces take at least 4 * 13 bytes).
    f = good();
    f.put("uchar", 4).put("int", 1).put("int", 2).put("int", 3);
    const std::size_t end = f.offset();
    expect_byte_error("trunc_" + x + ".ply", f.str(), end, "truncated data: expected vertex index");
    // Truncated inside a skipped list: 200 floats announced, none there.
    ply_file j(e,
               "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
               "property list uchar float junk\n");
    j.put("float", 0).put("float", 0).put("float", 0).put("uchar", 200);
    expect_byte_error("trunc_list_" + x + ".ply", j.str(), j.offset(),
                      "truncated data: 200 values of 4 bytes, 0 bytes left");
    // The whole last record missing: the count check already refuses it
    // (4 faces need 52 bytes), so cut inside a coordinate instead.
    auto v = tetrahedron(e);
    const std::string cut = v.str().substr(0, v.offset() - 2);
    expect_line_error("trunc_v_" + x + ".ply", cut, 3, "element 'vertex' count 4 is more than the file can hold");
    f = good();
    std::size_t at = f.offset();
    put_triangle(f, 1, 2, 4);
    expect_byte_error("range_" + x + ".ply", f.str(), at + 9, "vertex index 4 out of range [0, 4)");
    f = good(), at = f.offset();
    f.put("uchar", 2).put("int", 1).put("int", 2).put("int", 3);
    expect_byte_error("two_" + x + ".ply", f.str(), at, "degenerate face: 2 vertices");
    f = good(), at = f.offset();
    put_triangle(f, 3, 3, 1);
    expect_byte_error("repeat_" + x + ".ply", f.str(), at + 9, "degenerate face: vertex 3 appears twice");
    f = good(), put_triangle(f, 1, 2, 3), at = f.offset();
    f.put("uchar", 0);
    expect_byte_error("trailing_" + x + ".ply", f.str(), at, "1 bytes of unexpected data after the last element");
    // A NaN y coordinate in the third vertex (x, y, z floats after the
    // header).
    ply_file n(e, "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n");
    n.put("float", 0).put("float", 0).put("float", 0).put("float", 1).put("float", 0).put("float", 0);
    at = n.offset() + 4;
    n.put("float", 0).put("float", std::numeric_limits<float>::quiet_NaN()).put("float", 1);
    expect_byte_error("nan_" + x + ".ply", n.str(), at, "y coordinate is not finite");
    // Three faces on the edge 0-1: the third face record's offset.
    f = tetrahedron(e, "float", "int", 4, 3);
    put_triangle(f, 0, 1, 2), put_triangle(f, 1, 0, 3), at = f.offset(), put_triangle(f, 0, 1, 3);
    expect_byte_error("fin_" + x + ".ply", f.str(), at, "non-manifold edge (0, 1)");
  }
}

namespace {

// A file as a scanner writes it: binary little-endian, float coordinates
// with normals, colour and confidence per vertex, and triangles as
// `list uchar int`. The surface is an n x n grid of vertices (i, j, 0.5 i)
// split into 2 (n - 1)^2 triangles.
std::string scanner_grid(int n) {
  ply_file f(enc::little, "comment generated by mesh_ply_test\nelement vertex " + std::to_string(n * n) +
                              "\nproperty float x\nproperty float y\nproperty float z\n"
                              "property float nx\nproperty float ny\nproperty float nz\n"
                              "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                              "property float confidence\nelement face " +
                              std::to_string(2 * (n - 1) * (n - 1)) + "\nproperty list uchar int vertex_indices\n");
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      f.put("float", i).put("float", j).put("float", 0.5 * i);
      f.put("float", -0.4472).put("float", 0).put("float", 0.8944);
      f.put("uchar", i % 256).put("uchar", j % 256).put("uchar", 7).put("float", 0.75).end_record();
    }
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      const int a = j * n + i, b = a + 1, c = a + n, d = c + 1;
      f.put("uchar", 3).put("int", a).put("int", b).put("int", d).end_record();
      f.put("uchar", 3).put("int", a).put("int", d).put("int", c).end_record();
    }
  return f.str();
}

// A file must read and validate, and round-trip through write_ply.
triangle_mesh check_real_file(const std::string& p) {
  INFO(p);
  auto m = read_mesh(p);
  m.validate();
  const auto q = (dir() / "real.ply").string();
  write_ply(m, q, ply_format::binary_little_endian);
  auto r = read_mesh(q);
  mesh_io_test::check_same_mesh(m, r);
  return m;
}

}  // namespace

TEST_CASE("PLY: a scanner-style file, and the real files TRAVPOOL_PLY_FILES names", "[mesh][io][ply]") {
  // Always: a generated file in the layout of scanned meshes, checked
  // against the grid it was written from.
  const int n = 40;
  const auto m = check_real_file(write_file("scanner_grid.ply", scanner_grid(n)));
  CHECK(m.vertex_count() == std::size_t(n * n));
  CHECK(m.face_count() == std::size_t(2 * (n - 1) * (n - 1)));
  CHECK(m.edge_count() == std::size_t(3 * (n - 1) * (n - 1) + 2 * (n - 1)));
  std::vector<std::array<double, 3>> got, want;
  for (const Vertex v : m.vertices()) got.push_back({m.position(v).x, m.position(v).y, m.position(v).z});
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) want.push_back({double(i), double(j), 0.5 * i});
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  // Its normals become the mesh's, its float confidence a float property;
  // the colour (uchar) is skipped.
  bool normals = true, confident = true;
  const auto conf = m.get_property<Vertex, float>("confidence");
  for (const Vertex v : m.vertices()) {
    normals = normals && m.normal(v) == vec3{double(-0.4472f), 0.0, double(0.8944f)};
    confident = confident && conf[v] == 0.75f;
  }
  CHECK(normals);
  CHECK(confident);
  CHECK_FALSE(m.has_property<Vertex>("red"));
  // Optional: a colon-separated list of PLY files (for example scanned
  // meshes) to check the same way.
  const char* list = std::getenv("TRAVPOOL_PLY_FILES");
  if (list == nullptr) return;
  std::stringstream ss(list);
  for (std::string p; std::getline(ss, p, ':');)
    if (!p.empty()) check_real_file(p);
}

TEST_CASE("PLY: a large polygon becomes a fan and a repeated corner is refused", "[mesh][io][ply]") {
  // 20 vertices on a circle, one 20-gon (the sorted check of add_polygon).
  for (const bool repeat : {false, true}) {
    ply_file f(enc::ascii,
               "element vertex 20\nproperty double x\nproperty double y\nproperty double z\n"
               "element face 1\nproperty list uchar uint vertex_indices\n");
    for (int i = 0; i < 20; ++i)
      f.put("double", std::cos(i * 0.1 * std::numbers::pi))
          .put("double", std::sin(i * 0.1 * std::numbers::pi))
          .put("double", 0)
          .end_record();
    f.put("uchar", 20);
    for (int i = 0; i < 20; ++i) f.put("uint", repeat && i == 13 ? 5 : i);
    f.end_record();
    if (repeat) {
      expect_line_error("ngon_repeat.ply", f.str(), 30, "degenerate face: vertex 5 appears twice");
      continue;
    }
    const auto p = write_file("ngon.ply", f.str());
    const soup s = read_soup(p);
    REQUIRE(s.triangles.size() == 18);
    CHECK(s.triangles[17] == std::array<std::uint32_t, 3>{0, 18, 19});
    read_mesh(p).validate();
  }
}
