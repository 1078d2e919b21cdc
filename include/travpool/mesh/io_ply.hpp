// travpool/mesh/io_ply.hpp: reading and writing PLY triangle meshes.
//
// Design: the header is parsed into a list of elements (name, count,
// properties; io_ply_header.hpp); then one body loop, written once over a
// value source (ply_ascii_source or ply_binary_source), reads every element
// in file order into the soup that the OFF/OBJ readers also produce (io_common.hpp),
// with each triangle's place: its line (ASCII) or its record's byte offset
// (binary). The mesh is built by build_located(), like OFF/OBJ.
//
// Reading accepts "format ascii 1.0", "binary_little_endian 1.0" and
// "binary_big_endian 1.0"; comment and obj_info lines; scalar types char,
// uchar, short, ushort, int, uint, float, double and their int8 .. float64
// aliases. Required: an element "vertex" with scalar properties x, y, z;
// an element "face", if present, needs a list "vertex_indices" (or
// "vertex_index") of an integer type. Every other property and element is
// skipped by its size. Polygons become triangle fans. An ASCII record is one
// line. Errors throw io_error "FILE:LINE: what" in the header and an ASCII
// body, "FILE: byte OFFSET: what" in a binary body. Rejected: bad magic,
// unknown format or version, unknown types or keywords, missing or list x,
// y, z, a face element without its index list, element counts that the
// bytes after the header cannot hold (checked before any allocation:
// count * minimum record size <= bytes left, summed over the elements),
// truncated data, extra data, indices out of range, non-finite coordinates,
// face lists shorter than 3, and what build_located() rejects.
//
// Writing: write_ply() writes "vertex" (double x, y, z; on request double
// nx, ny, nz and float or double vertex properties under their names) and
// "face" (list uchar uint vertex_indices), in ASCII or binary
// little-endian; every value round-trips exactly.
//
// Reading back: vertex normals nx, ny, nz (all three, float or double)
// become the mesh's normals, and every other float or double scalar of
// "vertex" becomes a vertex property of its name and type (the soup's
// point_columns); NaN and infinities are kept there, as stored.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <travpool/usage_error.hpp>

#include "io_common.hpp"
#include "io_ply_header.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

enum class ply_format { ascii, binary_little_endian };

namespace detail {

// Values of an ASCII body: one record per line.
class ply_ascii_source {
 public:
  explicit ply_ascii_source(line_reader& r) : r_(r) {}
  void begin(const ply_element& e, std::int64_t i) {
    if (!r_.next_content_line())
      fail("unexpected end of file: expected " + std::to_string(e.count) + " " + quote(e.name) + " records, found " +
           std::to_string(i));
  }
  void end(const ply_element& e) {
    if (!r_.at_line_end()) fail("unexpected " + quote(r_.token()) + " after the " + quote(e.name) + " record");
  }
  std::size_t place() const { return r_.line_number(); }
  double real(const ply_type&, const char* what, bool finite = true) { return r_.number(what, finite); }
  std::int64_t integer(const ply_type& t, const char* what) {
    const auto v = r_.integer(what);
    const int bits = 8 * t.size - (t.is_signed ? 1 : 0);
    const std::int64_t lo = t.is_signed ? -(std::int64_t{1} << bits) : 0, hi = (std::int64_t{1} << bits) - 1;
    if (v < lo || v > hi) fail(std::string(what) + " " + std::to_string(v) + " does not fit its type");
    return v;
  }
  void skip(const ply_type& t, std::int64_t n) {
    for (std::int64_t k = 0; k < n; ++k) {
      if (t.integer) {
        integer(t, "integer value");
        continue;
      }
      const auto tok = r_.token();
      if (tok.empty()) fail("truncated line: expected a value");
      double v = 0;
      const auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if ((res.ec != std::errc() && res.ec != std::errc::result_out_of_range) || res.ptr != tok.data() + tok.size())
        fail("expected a number, found " + quote(tok));
    }
  }
  void finish() {
    if (r_.next_content_line()) fail("unexpected data after the last element: " + quote(r_.token()));
  }
  [[noreturn]] void fail(const std::string& what) const { r_.fail(what); }

 private:
  line_reader& r_;
};

// Values of a binary body, little- or big-endian.
class ply_binary_source {
 public:
  ply_binary_source(const line_reader& r, bool big)
      : path_(r.path()), data_(r.data()), pos_(r.offset()), at_(pos_), big_(big) {}
  void begin(const ply_element&, std::int64_t) { record_ = pos_; }
  void end(const ply_element&) {}
  std::size_t place() const { return record_; }
  double real(const ply_type& t, const char* what, bool finite = true) {
    const auto bits = take(t, what);
    double v = 0;
    if (t.integer)
      v = static_cast<double>(extend(t, bits));
    else if (t.size == 4)
      v = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    else
      v = std::bit_cast<double>(bits);
    if (finite && !std::isfinite(v)) fail(std::string(what) + " is not finite");
    return v;
  }
  std::int64_t integer(const ply_type& t, const char* what) { return extend(t, take(t, what)); }
  void skip(const ply_type& t, std::int64_t n) {
    at_ = pos_;
    if (n > static_cast<std::int64_t>((data_.size() - pos_) / static_cast<std::size_t>(t.size)))
      fail("truncated data: " + std::to_string(n) + " values of " + std::to_string(t.size) + " bytes, " +
           std::to_string(data_.size() - pos_) + " bytes left");
    pos_ += static_cast<std::size_t>(n) * static_cast<std::size_t>(t.size);
  }
  void finish() {
    at_ = pos_;
    if (pos_ != data_.size())
      fail(std::to_string(data_.size() - pos_) + " bytes of unexpected data after the last element");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw io_error(detail::place(path_, at_, true) + ": " + what);
  }

 private:
  std::uint64_t take(const ply_type& t, const char* what) {
    at_ = pos_;
    const auto n = static_cast<std::size_t>(t.size);
    if (data_.size() - pos_ < n) fail(std::string("truncated data: expected ") + what);
    std::uint64_t bits = 0;
    for (std::size_t k = 0; k < n; ++k)
      bits |= std::uint64_t{static_cast<unsigned char>(data_[pos_ + k])} << (8 * (big_ ? n - 1 - k : k));
    pos_ += n;
    return bits;
  }
  static std::int64_t extend(const ply_type& t, std::uint64_t bits) {
    const int shift = 64 - 8 * t.size;
    return t.is_signed ? static_cast<std::int64_t>(bits << shift) >> shift : static_cast<std::int64_t>(bits);
  }

  std::string path_;
  std::string_view data_;
  std::size_t pos_, at_, record_ = 0;
  bool big_;
};

// Reads every element's records from `src` into `s` (see the design note).
template <class Source>
void read_ply_body(Source& src, const std::vector<ply_element>& elements, soup& s, std::vector<std::size_t>& at) {
  std::int64_t nv = 0, nf = 0;
  for (const auto& e : elements) {
    if (e.name == "vertex") nv = e.count;
    if (e.name == "face") nf = e.count;
  }
  // Bounded by the header's count check (a face gives at least 1 triangle).
  s.points.reserve(static_cast<std::size_t>(nv));
  s.triangles.reserve(static_cast<std::size_t>(nf));
  at.reserve(static_cast<std::size_t>(nf));
  std::vector<std::int64_t> corners;
  // The vertex element's normals and point columns, in property order.
  bool has_normals = false;
  for (const auto& e : elements)
    for (const auto& p : e.properties) {
      if (p.role == ply_role::normal_x) has_normals = true, s.normals.reserve(static_cast<std::size_t>(nv));
      if (p.role == ply_role::vertex_value) {
        s.point_columns.push_back({p.name, p.type.size == 4, {}});
        s.point_columns.back().values.reserve(static_cast<std::size_t>(nv));
      }
    }
  for (const auto& e : elements) {
    for (std::int64_t i = 0; i < e.count; ++i) {
      src.begin(e, i);
      double c[3] = {0, 0, 0}, normal[3] = {0, 0, 0};
      std::size_t column = 0;
      for (const auto& p : e.properties) {
        if (p.role == ply_role::x || p.role == ply_role::y || p.role == ply_role::z) {
          const int k = static_cast<int>(p.role) - static_cast<int>(ply_role::x);
          c[k] = src.real(p.type, k == 0 ? "x coordinate" : k == 1 ? "y coordinate" : "z coordinate");
        } else if (p.role == ply_role::normal_x || p.role == ply_role::normal_y || p.role == ply_role::normal_z) {
          const int k = static_cast<int>(p.role) - static_cast<int>(ply_role::normal_x);
          normal[k] = src.real(p.type, "normal", false);  // as stored, NaN included
        } else if (p.role == ply_role::vertex_value) {
          s.point_columns[column++].values.push_back(src.real(p.type, "value", false));
        } else if (p.role == ply_role::indices) {
          const std::int64_t n = src.integer(*p.count, "face vertex count");
          if (n < 3) src.fail("degenerate face: " + std::to_string(n) + " vertices");
          if (n > nv)
            src.fail("face has " + std::to_string(n) + " vertices, more than the file's " + std::to_string(nv));
          corners.clear();
          for (std::int64_t k = 0; k < n; ++k) {
            const std::int64_t v = src.integer(p.type, "vertex index");
            if (v < 0 || v >= nv)
              src.fail("vertex index " + std::to_string(v) + " out of range [0, " + std::to_string(nv) + ")");
            corners.push_back(v);
          }
          add_polygon(corners, s, at, src.place(), [&](const std::string& what) { src.fail(what); });
        } else if (p.count) {
          const std::int64_t n = src.integer(*p.count, "list count");
          if (n < 0) src.fail("list count " + std::to_string(n) + " is negative");
          src.skip(p.type, n);
        } else {
          src.skip(p.type, 1);
        }
      }
      if (e.name == "vertex") {
        s.points.push_back({c[0], c[1], c[2]});
        if (has_normals) s.normals.push_back({normal[0], normal[1], normal[2]});
      }
      src.end(e);
    }
  }
  src.finish();
}

// Reads a PLY file held by `r` into a soup; at[t] is triangle t's line, or
// with `bytes` set its face record's byte offset. Throws io_error.
inline soup read_ply(line_reader& r, std::vector<std::size_t>& at, bool& bytes) {
  std::vector<ply_element> elements;
  const ply_encoding enc = read_ply_header(r, elements);
  soup s;
  bytes = enc != ply_encoding::ascii;
  if (bytes) {
    ply_binary_source src(r, enc == ply_encoding::big_endian);
    read_ply_body(src, elements, s, at);
  } else {
    ply_ascii_source src(r);
    read_ply_body(src, elements, s, at);
  }
  return s;
}

}  // namespace detail

// What write_ply() writes for each vertex besides its position.
struct ply_vertex_data {
  bool normals = false;             // normal(v) as double nx, ny, nz
  std::vector<std::string> values;  // vertex properties of float or double, by name
};

// Writes the mesh as PLY: vertices (double x, y, z, then what `data` asks
// for) in traversal order, then triangles (list uchar uint vertex_indices).
// Every value round-trips exactly in both formats. Throws io_error;
// usage_error if a name in data.values is not a float or double vertex
// property (then no file is written). Complexity O(V x values + F).
inline void write_ply(const triangle_mesh& m, const std::string& path, ply_format format,
                      const ply_vertex_data& data = {}) {
  // Each value column: float or double, resolved before the file is opened.
  struct value_column {
    property<Vertex, const float> single;
    property<Vertex, const double> twice;
  };
  std::vector<value_column> columns;
  for (const std::string& name : data.values) {
    if (name == "x" || name == "y" || name == "z" || (data.normals && (name == "nx" || name == "ny" || name == "nz")))
      throw usage_error("write_ply: vertex property '" + name + "' would repeat a PLY property");
    if (name.empty() || name.find_first_of(" \t\r\n") != std::string::npos)
      throw usage_error("write_ply: '" + name + "' is not a PLY property name (empty or with white space)");
    if (!m.has_property<Vertex>(name)) throw usage_error("write_ply: no vertex property named '" + name + "'");
    try {
      columns.push_back({{}, m.get_property<Vertex, double>(name)});
    } catch (const usage_error&) {
      try {
        columns.push_back({m.get_property<Vertex, float>(name), {}});
      } catch (const usage_error&) {
        throw usage_error("write_ply: vertex property '" + name + "' is neither float nor double");
      }
    }
  }
  const bool ascii = format == ply_format::ascii;
  detail::output_file out(path);
  out.text(ascii ? "ply\nformat ascii 1.0\n" : "ply\nformat binary_little_endian 1.0\n");
  out.text("comment travpool mesh\nelement vertex ");
  out.number(m.vertex_count());
  out.text("\nproperty double x\nproperty double y\nproperty double z\n");
  if (data.normals) out.text("property double nx\nproperty double ny\nproperty double nz\n");
  for (std::size_t k = 0; k < columns.size(); ++k)
    out.text(columns[k].single ? "property float " : "property double "), out.text(data.values[k]), out.text("\n");
  out.text("element face ");
  out.number(m.face_count());
  out.text("\nproperty list uchar uint vertex_indices\nend_header\n");
  detail::for_each_element(
      m,
      [&](Vertex v, const vec3& p) {
        const vec3& n = m.normal(v);
        if (!ascii) {
          for (const double c : {p.x, p.y, p.z}) out.little_endian(std::bit_cast<std::uint64_t>(c), 8);
          if (data.normals)
            for (const double c : {n.x, n.y, n.z}) out.little_endian(std::bit_cast<std::uint64_t>(c), 8);
          for (const value_column& c : columns)
            if (c.single)
              out.little_endian(std::bit_cast<std::uint32_t>(c.single[v]), 4);
            else
              out.little_endian(std::bit_cast<std::uint64_t>(c.twice[v]), 8);
          return out.flush(false);
        }
        out.number(p.x), out.text(" "), out.number(p.y), out.text(" "), out.number(p.z);
        if (data.normals)
          out.text(" "), out.number(n.x), out.text(" "), out.number(n.y), out.text(" "), out.number(n.z);
        for (const value_column& c : columns) {
          out.text(" ");
          if (c.single)
            out.number(c.single[v]);
          else
            out.number(c.twice[v]);
        }
        out.text("\n");
      },
      [&](const std::array<std::uint32_t, 3>& t) {
        if (!ascii) {
          out.little_endian(3, 1);
          for (const std::uint32_t v : t) out.little_endian(v, 4);
          return out.flush(false);
        }
        out.text("3");
        for (const std::uint32_t v : t) out.text(" "), out.number(v);
        out.text("\n");
      });
  out.close();
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
