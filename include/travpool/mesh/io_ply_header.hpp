// travpool/mesh/io_ply_header.hpp: the PLY header (io_ply.hpp reads the
// body).
//
// Design: the header becomes a list of elements in file order, each with
// its name, count, header line and properties; each property gets a role
// (x, y, z, the face index list, or skip), so that the body reader needs no
// names. Invariants after read_ply_header(): exactly one element "vertex",
// with scalar x, y, z; at most one "face", whose index list has an integer
// item type; every list count type is an integer type; and
//   sum over elements of count * ply_min_record(element) <= bytes after the
//   header,
// so that the body reader may reserve `count` entries without allocating
// more than the file justifies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io_common.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {
namespace detail {

// A PLY scalar type: size in bytes; integer or floating; signed.
struct ply_type {
  int size = 0;
  bool integer = false;
  bool is_signed = false;
};

inline std::optional<ply_type> ply_type_named(std::string_view n) {
  if (n == "char" || n == "int8") return ply_type{1, true, true};
  if (n == "uchar" || n == "uint8") return ply_type{1, true, false};
  if (n == "short" || n == "int16") return ply_type{2, true, true};
  if (n == "ushort" || n == "uint16") return ply_type{2, true, false};
  if (n == "int" || n == "int32") return ply_type{4, true, true};
  if (n == "uint" || n == "uint32") return ply_type{4, true, false};
  if (n == "float" || n == "float32") return ply_type{4, false, true};
  if (n == "double" || n == "float64") return ply_type{8, false, true};
  return std::nullopt;
}

// What the reader does with a property.
// normal_x..z: nx, ny, nz of "vertex", all three present and floating;
// vertex_value: any other floating scalar of "vertex" (a point column).
enum class ply_role { skip, x, y, z, indices, normal_x, normal_y, normal_z, vertex_value };

struct ply_property {
  std::string name;
  ply_type type;                  // the item type of a list
  std::optional<ply_type> count;  // a list's count type
  ply_role role = ply_role::skip;
};

struct ply_element {
  std::string name;
  std::int64_t count = 0;
  std::size_t line = 0;
  std::vector<ply_property> properties;
};

enum class ply_encoding { ascii, little_endian, big_endian };

// Fewest bytes one record of `e` can take: 2 per value in ASCII (a digit
// and a separator), the scalar sizes in binary; a face index list holds at
// least 3 items.
inline std::int64_t ply_min_record(const ply_element& e, bool binary) {
  std::int64_t n = 0;
  for (const auto& p : e.properties) {
    const std::int64_t items = p.role == ply_role::indices ? 3 : 0;
    if (!binary)
      n += 2 * (1 + items);
    else
      n += p.count ? p.count->size + items * p.type.size : p.type.size;
  }
  return n;
}

// Parses the header up to and including "end_header", assigns the roles and
// checks the counts against the bytes left. Throws io_error "FILE:LINE".
inline ply_encoding read_ply_header(line_reader& r, std::vector<ply_element>& elements) {
  if (!r.next_line()) r.fail("empty file: expected 'ply'");
  const auto magic = r.token();
  if (magic != "ply" || !r.at_line_end()) r.fail("bad magic: expected 'ply', found " + quote(magic));
  std::optional<ply_encoding> enc;
  while (true) {
    if (!r.next_content_line()) r.fail("truncated header: no 'end_header'");
    const auto key = r.token();
    if (key == "comment" || key == "obj_info") continue;
    if (key == "end_header") break;
    if (key == "format") {
      if (enc) r.fail("second 'format' line");
      const auto f = r.token();
      if (f == "ascii")
        enc = ply_encoding::ascii;
      else if (f == "binary_little_endian")
        enc = ply_encoding::little_endian;
      else if (f == "binary_big_endian")
        enc = ply_encoding::big_endian;
      else
        r.fail("unknown format " + quote(f));
      const auto v = r.token();
      if (v != "1.0") r.fail("unsupported PLY version " + quote(v));
    } else if (key == "element") {
      if (!enc) r.fail("'element' before the 'format' line");
      ply_element e;
      e.name = std::string(r.token());
      if (e.name.empty()) r.fail("element without a name");
      e.count = r.integer("element count");
      e.line = r.line_number();
      if (e.count < 0) r.fail("element count " + std::to_string(e.count) + " is negative");
      for (const auto& o : elements)
        if (o.name == e.name) r.fail("second element " + quote(e.name));
      elements.push_back(std::move(e));
    } else if (key == "property") {
      if (elements.empty()) r.fail("'property' before any 'element'");
      ply_property p;
      auto type_of = [&](std::string_view t) {
        const auto ty = ply_type_named(t);
        if (!ty) r.fail("unknown property type " + quote(t));
        return *ty;
      };
      auto t = r.token();
      if (t == "list") {
        p.count = type_of(r.token());
        if (!p.count->integer) r.fail("list count type must be an integer type");
        t = r.token();
      }
      p.type = type_of(t);
      p.name = std::string(r.token());
      if (p.name.empty()) r.fail("property without a name");
      for (const auto& o : elements.back().properties)
        if (o.name == p.name) r.fail("second property " + quote(p.name));
      elements.back().properties.push_back(std::move(p));
    } else {
      r.fail("unknown header keyword " + quote(key));
    }
    if (!r.at_line_end()) r.fail("unexpected " + quote(r.token()) + " at the end of the header line");
  }
  if (!enc) r.fail("no 'format' line");
  const std::size_t end_line = r.line_number();
  bool have_vertex = false;
  for (auto& e : elements) {
    if (e.properties.empty() && e.count > 0) r.fail_at(e.line, "element " + quote(e.name) + " has no properties");
    auto role = [&](ply_role ro, const char* name) {
      for (auto& p : e.properties)
        if (p.name == name) {
          if (p.count) r.fail_at(e.line, "property " + quote(p.name) + " of " + quote(e.name) + " is a list");
          p.role = ro;
          return;
        }
      r.fail_at(e.line, "element 'vertex' has no property '" + std::string(name) + "'");
    };
    if (e.name == "vertex") {
      role(ply_role::x, "x"), role(ply_role::y, "y"), role(ply_role::z, "z");
      have_vertex = true;
      const auto floating = [&](std::string_view n) {
        return std::find_if(e.properties.begin(), e.properties.end(),
                            [&](const ply_property& p) { return p.name == n && !p.count && !p.type.integer; });
      };
      if (floating("nx") != e.properties.end() && floating("ny") != e.properties.end() &&
          floating("nz") != e.properties.end())
        floating("nx")->role = ply_role::normal_x, floating("ny")->role = ply_role::normal_y,
        floating("nz")->role = ply_role::normal_z;
      for (auto& p : e.properties) {  // (names are distinct: checked per property line)
        if (p.role != ply_role::skip || p.count || p.type.integer) continue;
        if (p.name.starts_with("tp:"))
          r.fail_at(e.line, "property name " + quote(p.name) + " is reserved (prefix tp:)");
        p.role = ply_role::vertex_value;
      }
    } else if (e.name == "face") {
      auto it = std::find_if(e.properties.begin(), e.properties.end(), [](const ply_property& p) {
        return p.name == "vertex_indices" || p.name == "vertex_index";
      });
      if (it == e.properties.end() || !it->count) r.fail_at(e.line, "element 'face' has no list 'vertex_indices'");
      if (!it->type.integer) r.fail_at(e.line, "face vertex indices must have an integer type");
      it->role = ply_role::indices;
    }
  }
  if (!have_vertex) r.fail_at(end_line, "no element 'vertex'");
  const bool binary = *enc != ply_encoding::ascii;
  std::int64_t left = static_cast<std::int64_t>(r.data().size() - r.offset());
  for (const auto& e : elements) {
    const std::int64_t min = ply_min_record(e, binary);
    if (min > 0 && e.count > left / min)
      r.fail_at(e.line, "element " + quote(e.name) + " count " + std::to_string(e.count) +
                            " is more than the file can hold (" + std::to_string(left) + " bytes left for it)");
    left -= min * e.count;
    if (e.name == "vertex" && e.count >= std::int64_t{1} << 32) r.fail_at(e.line, "too many vertices");
  }
  return *enc;
}

}  // namespace detail
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
