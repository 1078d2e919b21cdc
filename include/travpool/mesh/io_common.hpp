// travpool/mesh/io_common.hpp: the pieces that the OFF, OBJ and PLY readers
// and writers share (io.hpp, io_ply.hpp).
//
// Design: a reader turns a whole file held in memory into a triangle soup
// (soup.hpp) plus, per triangle, the place it came from (a line, or a
// byte offset in a binary file). The soup is then built into a mesh by
// build_located(), which turns a topology_error of triangle t into an
// io_error at that triangle's place. Readers therefore know nothing about
// the mesh type; only build_located() and for_each_element() do.
// Invariant of every reader: at.size() == s.triangles.size().
// Error messages: "FILE:LINE: what" (text) or "FILE: byte OFFSET: what"
// (binary bodies).
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
#include <type_traits>
#include <vector>

#include "mesh.hpp"
#include "soup.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

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
  // Returns: the next token as a number; finite: reject NaN and infinities.
  double number(const char* what, bool finite = true) {
    const auto t = token();
    if (t.empty()) fail(std::string("truncated line: expected ") + what);
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec == std::errc::result_out_of_range) fail(std::string(what) + " " + quote(t) + " is out of range");
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) fail_expected(what, t);
    if (finite && !std::isfinite(v)) fail(std::string(what) + " is not finite: " + quote(t));
    return v;
  }
  std::int64_t integer(std::string_view t, const char* what) {
    if (t.empty()) fail(std::string("truncated line: expected ") + what);
    std::int64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) fail_expected(what, t);
    return v;
  }
  std::int64_t integer(const char* what) { return integer(token(), what); }

  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  // (Out of line: inlined into the parsers, GCC 12 warned -Warray-bounds
  // about std::string's operator+.)
  [[noreturn, gnu::noinline, gnu::cold]] void fail_expected(const char* what, std::string_view found) const {
    fail(std::string("expected ") + what + ", found " + quote(found));
  }
  [[noreturn]] void fail_at(std::size_t line, const std::string& what) const {
    throw io_error(path_ + ":" + std::to_string(line) + ": " + what);
  }
  std::size_t line_number() const noexcept { return line_no_; }
  std::size_t bytes_left() const noexcept { return data_.size() - (std::min)(pos_, data_.size()) + line_.size(); }
  const std::string& path() const noexcept { return path_; }
  // The whole file, and the offset of the first byte after the current line.
  std::string_view data() const noexcept { return data_; }
  std::size_t offset() const noexcept { return (std::min)(pos_, data_.size()); }

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

// Adds polygon `corners` (0-based) as a fan of triangles, each recorded at
// place `where` in `at`. `fail(what)` must throw; it is called for fewer
// than 3 corners or a repeated corner. Complexity O(n log n) for n corners (pairwise up to 16).
template <class Fail>
void add_polygon(const std::vector<std::int64_t>& corners, soup& s, std::vector<std::size_t>& at, std::size_t where,
                 Fail&& fail) {
  if (corners.size() < 3) fail("degenerate face: fewer than 3 vertices");
  auto twice = [&](std::int64_t v) { fail("degenerate face: vertex " + std::to_string(v) + " appears twice"); };
  if (corners.size() <= 16) {  // pairwise, without allocating
    for (std::size_t i = 0; i < corners.size(); ++i)
      for (std::size_t j = i + 1; j < corners.size(); ++j)
        if (corners[i] == corners[j]) twice(corners[i]);
  } else {
    std::vector<std::int64_t> sorted(corners);
    std::sort(sorted.begin(), sorted.end());
    const auto it = std::adjacent_find(sorted.begin(), sorted.end());
    if (it != sorted.end()) twice(*it);
  }
  for (std::size_t i = 1; i + 1 < corners.size(); ++i) {
    s.triangles.push_back({static_cast<std::uint32_t>(corners[0]), static_cast<std::uint32_t>(corners[i]),
                           static_cast<std::uint32_t>(corners[i + 1])});
    at.push_back(where);
  }
}

// "FILE:LINE" for a line, "FILE: byte OFFSET" for a byte offset.
inline std::string place(const std::string& path, std::size_t where, bool bytes) {
  return bytes ? path + ": byte " + std::to_string(where) : path + ":" + std::to_string(where);
}

// Builds the mesh of `s`. Throws io_error "PLACE: what" for a topology_error
// of triangle t, PLACE being at[t] (place(), or 0 where at is shorter).
inline triangle_mesh build_located(const std::string& path, const soup& s, const std::vector<std::size_t>& at,
                                   bool bytes) {
  try {
    return s.build();
  } catch (const topology_error& e) {
    const std::size_t where = e.face_index() < at.size() ? at[e.face_index()] : 0;
    throw io_error(place(path, where, bytes) + ": " + e.what());
  }
}

// A file written through a 1 MiB buffer; every failure throws io_error.
class output_file {
 public:
  explicit output_file(std::string path) : path_(std::move(path)), f_(std::fopen(path_.c_str(), "wb"), &std::fclose) {
    if (!f_) throw io_error(path_ + ": cannot open for writing");
    buf_.reserve(limit);
  }
  void text(std::string_view s) { buf_ += s, flush(false); }
  // Shortest round-trip decimal form (exact for double).
  template <class T>
  void number(T v) {
    char tmp[32];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
  }
  // `size` bytes of `bits`, least significant first (little-endian).
  void little_endian(std::uint64_t bits, int size) {
    for (int k = 0; k < size; ++k) buf_ += static_cast<char>((bits >> (8 * k)) & 0xff);
  }
  void flush(bool force) {
    if (buf_.size() < limit && !force) return;
    if (std::fwrite(buf_.data(), 1, buf_.size(), f_.get()) != buf_.size()) throw io_error(path_ + ": write error");
    buf_.clear();
  }
  // Writes what is buffered and closes the file.
  void close() {
    flush(true);
    if (std::fflush(f_.get()) != 0) throw io_error(path_ + ": write error");
    if (std::fclose(f_.release()) != 0) throw io_error(path_ + ": write error");
  }

 private:
  static constexpr std::size_t limit = std::size_t{1} << 20;
  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f_;
  std::string buf_;
};

// Calls on_vertex(position) (or on_vertex(v, position)) for every vertex in
// traversal order, then
// on_triangle(std::array<std::uint32_t, 3>) for every face, with vertices
// numbered 0, 1, ... in that order. Complexity O(V + F).
template <class OnVertex, class OnTriangle>
void for_each_element(const triangle_mesh& m, OnVertex&& on_vertex, OnTriangle&& on_triangle) {
  const auto number = vertex_numbers(m);
  m.vertices().for_each([&](Vertex v) {
    if constexpr (std::is_invocable_v<OnVertex&, const vec3&>)
      on_vertex(m.position(v));
    else
      on_vertex(v, m.position(v));
  });
  m.faces().for_each([&](Face f) {
    const auto c = m.corners(f);
    on_triangle(std::array<std::uint32_t, 3>{number.at(c[0]), number.at(c[1]), number.at(c[2])});
  });
}

}  // namespace detail
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
