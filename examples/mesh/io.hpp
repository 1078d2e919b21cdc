// examples/mesh/io.hpp: reading and writing OFF and OBJ triangle meshes.
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
// Polygons are triangulated as fans. Rejected, with file and line:
// truncated data, indices out of range (or 0 in OBJ), counts the file
// cannot hold, non-finite coordinates, degenerate faces (fewer than three
// corners, or a corner repeated), unparsable bytes, and non-manifold input
// (an edge of three or more faces, inconsistent orientation, a vertex whose
// faces form two fans).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mesh.hpp"
#include "soup.hpp"

namespace travpool::mesh {

class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline std::string lower_extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return e;
}

// Printable excerpt of a token for error messages.
inline std::string quote(std::string_view t) {
  std::string s = "'";
  for (std::size_t i = 0; i < t.size() && i < 24; ++i) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (c >= 32 && c < 127) {
      s += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      s += buf;
    }
  }
  if (t.size() > 24) s += "...";
  return s + "'";
}

// Line-by-line reader over a whole file held in memory.
class line_reader {
 public:
  line_reader(std::string path, std::string data) : path_(std::move(path)), data_(std::move(data)) {}

  // Advances to the next line; false at the end of the file.
  bool next_line() {
    if (pos_ >= data_.size()) return false;
    const auto nl = data_.find('\n', pos_);
    const auto end = nl == std::string::npos ? data_.size() : nl;
    line_ = std::string_view(data_).substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_no_;
    if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    return true;
  }
  // Advances to the next line with a token (skipping blank and '#' lines).
  bool next_content_line() {
    while (next_line()) {
      strip_comment();
      skip_space();
      if (!line_.empty()) return true;
    }
    return false;
  }
  // The next whitespace-separated token on the current line ("" at its end).
  std::string_view token() {
    skip_space();
    std::size_t n = 0;
    while (n < line_.size() && !is_space(line_[n])) ++n;
    auto t = line_.substr(0, n);
    line_.remove_prefix(n);
    return t;
  }
  bool at_line_end() {
    skip_space();
    return line_.empty();
  }
  double number(const char* what) {
    const auto t = token();
    if (t.empty()) fail(std::string("truncated line: expected ") + what);
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec == std::errc::result_out_of_range) fail(std::string(what) + " " + quote(t) + " is out of range");
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
      fail(std::string("expected ") + what + ", found " + quote(t));
    if (!std::isfinite(v)) fail(std::string(what) + " is not finite: " + quote(t));
    return v;
  }
  std::int64_t integer(std::string_view t, const char* what) {
    if (t.empty()) fail(std::string("truncated line: expected ") + what);
    std::int64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
      fail(std::string("expected ") + what + ", found " + quote(t));
    return v;
  }
  std::int64_t integer(const char* what) { return integer(token(), what); }

  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  [[noreturn]] void fail_at(std::size_t line, const std::string& what) const {
    throw io_error(path_ + ":" + std::to_string(line) + ": " + what);
  }
  std::size_t line_number() const noexcept { return line_no_; }
  std::size_t bytes_left() const noexcept { return data_.size() - std::min(pos_, data_.size()) + line_.size(); }
  const std::string& path() const noexcept { return path_; }

 private:
  static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
  void skip_space() {
    while (!line_.empty() && is_space(line_.front())) line_.remove_prefix(1);
  }
  void strip_comment() {
    const auto h = line_.find('#');
    if (h != std::string_view::npos) line_ = line_.substr(0, h);
  }

  std::string path_;
  std::string data_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
  std::string_view line_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path + ": cannot open for reading");
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw io_error(path + ": cannot determine the file size");
  in.seekg(0);
  std::string data(static_cast<std::size_t>(size), '\0');
  if (!in.read(data.data(), size)) throw io_error(path + ": read error");
  return data;
}

// Adds polygon `corners` (0-based) as a fan of triangles.
inline void add_polygon(line_reader& r, const std::vector<std::int64_t>& corners, soup& s,
                        std::vector<std::size_t>& lines) {
  if (corners.size() < 3) r.fail("degenerate face: fewer than 3 vertices");
  for (std::size_t i = 0; i < corners.size(); ++i)
    for (std::size_t j = i + 1; j < corners.size(); ++j)
      if (corners[i] == corners[j]) r.fail("degenerate face: vertex " + std::to_string(corners[i]) + " appears twice");
  for (std::size_t i = 1; i + 1 < corners.size(); ++i) {
    s.triangles.push_back({static_cast<std::uint32_t>(corners[0]), static_cast<std::uint32_t>(corners[i]),
                           static_cast<std::uint32_t>(corners[i + 1])});
    lines.push_back(r.line_number());
  }
}

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
  s.points.reserve(static_cast<std::size_t>(std::min(nv, left / 6)));
  s.triangles.reserve(static_cast<std::size_t>(std::min(nf, left / 8)));
  lines.reserve(static_cast<std::size_t>(std::min(nf, left / 8)));
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
    add_polygon(r, corners, s, lines);
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
      if (s.points.size() >= std::numeric_limits<std::uint32_t>::max() - 1) r.fail("too many vertices");
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
        if (v >= std::int64_t{std::numeric_limits<std::uint32_t>::max()})
          r.fail("vertex index " + std::to_string(v + 1) + " out of range");
        corners.push_back(v);
      }
      add_polygon(r, corners, s, lines);
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

// Reads an OFF or OBJ file (chosen by extension) into a triangle soup;
// `lines` receives the source line of each triangle. Throws io_error.
inline soup read_soup(const std::string& path, std::vector<std::size_t>* lines = nullptr) {
  const std::string ext = detail::lower_extension(path);
  if (ext != "off" && ext != "obj") throw io_error(path + ": unsupported file type (expected .off or .obj)");
  detail::line_reader r(path, detail::slurp(path));
  std::vector<std::size_t> own;
  std::vector<std::size_t>& l = lines != nullptr ? *lines : own;
  l.clear();
  return ext == "off" ? detail::read_off(r, l) : detail::read_obj(r, l);
}

// Reads an OFF or OBJ file into a mesh. Throws io_error "FILE:LINE: what"
// for malformed or non-manifold input.
inline triangle_mesh read_mesh(const std::string& path) {
  std::vector<std::size_t> lines;
  const soup s = read_soup(path, &lines);
  try {
    return s.build();
  } catch (const topology_error& e) {
    const std::size_t line = e.face_index() < lines.size() ? lines[e.face_index()] : 0;
    throw io_error(path + ":" + std::to_string(line) + ": " + e.what());
  }
}

// Writes the mesh as OFF or OBJ (chosen by extension), coordinates in
// shortest round-trip form. Throws io_error.
inline void write_mesh(triangle_mesh& m, const std::string& path) {
  const std::string ext = detail::lower_extension(path);
  if (ext != "off" && ext != "obj") throw io_error(path + ": unsupported file type (expected .off or .obj)");
  const bool off = ext == "off";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw io_error(path + ": cannot open for writing");
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&](bool force) {
    if (buf.size() < (1u << 20) && !force) return;
    if (std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size()) throw io_error(path + ": write error");
    buf.clear();
  };
  auto num = [&](auto v) {
    char tmp[32];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf.append(tmp, r.ptr);
  };
  if (off) {
    buf += "OFF\n";
    num(m.vertex_count()), buf += ' ', num(m.face_count()), buf += " 0\n";
  }
  const auto number = vertex_numbers(m);
  m.vertices().for_each([&](Vertex v) {
    const vec3& p = m.position(v);
    if (!off) buf += "v ";
    num(p.x), buf += ' ', num(p.y), buf += ' ', num(p.z), buf += '\n';
    flush(false);
  });
  const std::uint64_t base = off ? 0 : 1;
  m.faces().for_each([&](Face fc) {
    buf += off ? "3" : "f";
    for (const Vertex v : m.vertices_of(fc)) buf += ' ', num(number.at(v) + base);
    buf += '\n';
    flush(false);
  });
  flush(true);
  if (std::fflush(f.get()) != 0) throw io_error(path + ": write error");
  if (std::fclose(f.release()) != 0) throw io_error(path + ": write error");
}

}  // namespace travpool::mesh
