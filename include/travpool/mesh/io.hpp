// travpool/mesh/io.hpp: reading and writing OFF, OBJ and PLY triangle meshes.
//
// Reading is strict and bounded: every error throws io_error with the
// message "FILE:LINE: what" (no crash, no hang, and no allocation larger
// than the file justifies). Accepted:
// * OFF: an "OFF" header (counts on the same or the next line), one vertex
//   per line (x y z, extra values ignored), one face per line (n i1 .. in,
//   extra values such as colours ignored); '#' starts a comment.
// * OBJ: "v x y z [w ...]" and "f" with i, i/t, i//n or i/t/n corners;
//   negative indices count back from the last vertex read; vt, vn, vp, o,
//   g, s, l, p, usemtl and mtllib lines are ignored.
// * PLY: ASCII and binary, see io_ply.hpp (binary bodies report byte
//   offsets: "FILE: byte OFFSET: what").
// Polygons are triangulated as fans. Rejected, with file and line:
// truncated data, indices out of range (or 0 in OBJ), counts the file
// cannot hold, non-finite coordinates, degenerate faces (fewer than three
// corners, or a corner repeated), unparsable bytes, and non-manifold input
// (an edge of three or more faces, inconsistent orientation, a vertex whose
// faces form two fans).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io_common.hpp"
#include "io_ply.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

namespace detail {

inline soup read_off(line_reader& r, std::vector<std::size_t>& lines) {
  soup s;
  if (!r.next_content_line()) r.fail("empty file: expected an 'OFF' header");
  const auto head = r.token();
  if (head != "OFF") r.fail("expected an 'OFF' header, found " + quote(head));
  if (r.at_line_end() && !r.next_content_line()) r.fail("truncated header: expected vertex and face counts");
  const std::int64_t nv = r.integer("vertex count");
  const std::int64_t nf = r.integer("face count");
  if (!r.at_line_end()) r.integer("edge count");
  // Every vertex line takes at least 6 bytes ("0 0 0\n"), every face 8:
  // counts above half the bytes left are absurd; a count the file cannot
  // quite hold is found as truncation. Reservations never exceed what the
  // bytes left can hold.
  const auto left = static_cast<std::int64_t>(r.bytes_left());
  if (nv < 0 || nv > left / 2 || nv >= std::int64_t{1} << 32)
    r.fail("vertex count " + std::to_string(nv) + " is negative or more than the file can hold");
  if (nf < 0 || nf > left / 2)
    r.fail("face count " + std::to_string(nf) + " is negative or more than the file can hold");
  s.points.reserve(static_cast<std::size_t>((std::min)(nv, left / 6)));
  s.triangles.reserve(static_cast<std::size_t>((std::min)(nf, left / 8)));
  lines.reserve(static_cast<std::size_t>((std::min)(nf, left / 8)));
  for (std::int64_t i = 0; i < nv; ++i) {
    if (!r.next_content_line())
      r.fail("unexpected end of file: expected " + std::to_string(nv) + " vertices, found " + std::to_string(i));
    const double x = r.number("x coordinate");
    const double y = r.number("y coordinate");
    const double z = r.number("z coordinate");
    s.points.push_back({x, y, z});
  }
  std::vector<std::int64_t> corners;
  for (std::int64_t i = 0; i < nf; ++i) {
    if (!r.next_content_line())
      r.fail("unexpected end of file: expected " + std::to_string(nf) + " faces, found " + std::to_string(i));
    const std::int64_t n = r.integer("face vertex count");
    if (n < 3) r.fail("degenerate face: " + std::to_string(n) + " vertices");
    if (n > nv) r.fail("face has " + std::to_string(n) + " vertices, more than the file's " + std::to_string(nv));
    corners.clear();
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t v = r.integer("vertex index");
      if (v < 0 || v >= nv)
        r.fail("vertex index " + std::to_string(v) + " out of range [0, " + std::to_string(nv) + ")");
      corners.push_back(v);
    }
    add_polygon(corners, s, lines, r.line_number(), [&](const std::string& what) { r.fail(what); });
  }
  while (r.next_content_line()) {
    // Trailing content after the declared faces: tolerated only if blank.
    r.fail("unexpected data after the last face: " + quote(r.token()));
  }
  return s;
}

inline soup read_obj(line_reader& r, std::vector<std::size_t>& lines) {
  soup s;
  std::vector<std::int64_t> corners;
  struct pending {
    std::size_t line;
    std::int64_t index;
  };
  std::vector<pending> forward;  // positive indices beyond the vertices read so far
  while (r.next_content_line()) {
    const auto key = r.token();
    if (key == "v") {
      if (s.points.size() >= (std::numeric_limits<std::uint32_t>::max)() - 1) r.fail("too many vertices");
      const double x = r.number("x coordinate");
      const double y = r.number("y coordinate");
      const double z = r.number("z coordinate");
      s.points.push_back({x, y, z});
    } else if (key == "f") {
      corners.clear();
      const auto nv = static_cast<std::int64_t>(s.points.size());
      for (auto t = r.token(); !t.empty(); t = r.token()) {
        const auto slash = t.find('/');
        const auto head = t.substr(0, slash);
        std::int64_t v = r.integer(head, "vertex index");
        if (slash != std::string_view::npos) {
          // Texture and normal indices: integers or empty, at most two more.
          auto rest = t.substr(slash + 1);
          int parts = 0;
          while (true) {
            const auto sl = rest.find('/');
            const auto part = rest.substr(0, sl);
            if (!part.empty()) r.integer(part, "texture or normal index");
            if (++parts > 2) r.fail("malformed face corner " + quote(t));
            if (sl == std::string_view::npos) break;
            rest = rest.substr(sl + 1);
          }
        }
        if (v == 0) r.fail("vertex index 0 is invalid (OBJ indices start at 1)");
        if (v < 0) {
          if (-v > nv)
            r.fail("relative vertex index " + std::to_string(v) + " reaches before the first vertex (" +
                   std::to_string(nv) + " read so far)");
          v = nv + v;
        } else {
          v -= 1;
          if (v >= nv) forward.push_back({r.line_number(), v});
        }
        if (v >= std::int64_t{(std::numeric_limits<std::uint32_t>::max)()})
          r.fail("vertex index " + std::to_string(v + 1) + " out of range");
        corners.push_back(v);
      }
      add_polygon(corners, s, lines, r.line_number(), [&](const std::string& what) { r.fail(what); });
    } else if (key == "vt" || key == "vn" || key == "vp" || key == "o" || key == "g" || key == "s" || key == "l" ||
               key == "p" || key == "usemtl" || key == "mtllib") {
      continue;
    } else {
      r.fail("unknown OBJ statement " + quote(key));
    }
  }
  const auto nv = static_cast<std::int64_t>(s.points.size());
  for (const auto& f : forward)
    if (f.index >= nv)
      r.fail_at(f.line,
                "vertex index " + std::to_string(f.index + 1) + " out of range [1, " + std::to_string(nv) + "]");
  return s;
}

}  // namespace detail

// Reads an OFF, OBJ or PLY file (chosen by extension) into a triangle soup;
// `lines` receives, per triangle, its source line, or for a binary PLY
// body its record's byte offset. Throws io_error.
inline soup read_soup(const std::string& path, std::vector<std::size_t>* lines = nullptr,
                      bool* byte_offsets = nullptr) {
  const std::string ext = detail::lower_extension(path);
  if (ext != "off" && ext != "obj" && ext != "ply")
    throw io_error(path + ": unsupported file type (expected .off, .obj or .ply)");
  detail::line_reader r(path, detail::slurp(path));
  std::vector<std::size_t> own;
  std::vector<std::size_t>& l = lines != nullptr ? *lines : own;
  l.clear();
  bool bytes = false;
  soup s = ext == "off"   ? detail::read_off(r, l)
           : ext == "obj" ? detail::read_obj(r, l)
                          : detail::read_ply(r, l, bytes);
  if (byte_offsets != nullptr) *byte_offsets = bytes;
  return s;
}

// Reads an OFF, OBJ or PLY file into a mesh. Throws io_error "FILE:LINE:
// what" (or "FILE: byte OFFSET: what" in a binary PLY body) for malformed
// or non-manifold input.
inline triangle_mesh read_mesh(const std::string& path) {
  std::vector<std::size_t> at;
  bool bytes = false;
  const soup s = read_soup(path, &at, &bytes);
  return detail::build_located(path, s, at, bytes);
}

// Writes the mesh as OFF, OBJ or PLY (chosen by extension): OFF and OBJ
// with coordinates in shortest round-trip form, PLY as binary
// little-endian with double coordinates (write_ply() chooses ASCII). Every
// format round-trips the positions exactly. Throws io_error.
inline void write_mesh(const triangle_mesh& m, const std::string& path) {
  const std::string ext = detail::lower_extension(path);
  if (ext == "ply") return write_ply(m, path, ply_format::binary_little_endian);
  if (ext != "off" && ext != "obj") throw io_error(path + ": unsupported file type (expected .off, .obj or .ply)");
  const bool off = ext == "off";
  detail::output_file out(path);
  if (off) {
    out.text("OFF\n");
    out.number(m.vertex_count()), out.text(" "), out.number(m.face_count()), out.text(" 0\n");
  }
  const std::uint64_t base = off ? 0 : 1;
  detail::for_each_element(
      m,
      [&](const vec3& p) {
        if (!off) out.text("v ");
        out.number(p.x), out.text(" "), out.number(p.y), out.text(" "), out.number(p.z), out.text("\n");
      },
      [&](const std::array<std::uint32_t, 3>& t) {
        out.text(off ? "3" : "f");
        for (const std::uint32_t v : t) out.text(" "), out.number(v + base);
        out.text("\n");
      });
  out.close();
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
