// Scratch files for the mesh I/O tests (mesh_io_test.cpp, mesh_ply_test.cpp):
// a private temporary directory, writing a file into it, comparing a mesh
// read back with the original, and the check that reading a file fails with
// an io_error at an exact place.
#pragma once

#include <unistd.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/io.hpp>

namespace mesh_io_test {

namespace fs = std::filesystem;

// A private scratch directory, removed at exit.
struct temp_dir {
  fs::path path;
  temp_dir() {
    path = fs::temp_directory_path() / ("travpool_mesh_io_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline const fs::path& dir() {
  static temp_dir d;
  return d.path;
}

inline std::string write_file(const std::string& name, const std::string& content) {
  const auto p = (dir() / name).string();
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

// Checks that `r` (read back) is a valid copy of `m`: same counts, the same
// positions in the same order, the same triangles up to rotation (a face
// may start at another corner).
inline void check_same_mesh(const travpool::mesh::triangle_mesh& m, travpool::mesh::triangle_mesh& r) {
  r.validate();
  CHECK(r.vertex_count() == m.vertex_count());
  CHECK(r.edge_count() == m.edge_count());
  CHECK(r.face_count() == m.face_count());
  std::vector<travpool::mesh::vec3> pa, pb;
  std::vector<std::array<std::uint32_t, 3>> ta, tb;
  travpool::mesh::to_triangles(m, pa, ta);
  travpool::mesh::to_triangles(r, pb, tb);
  CHECK(pa == pb);
  for (auto* t : {&ta, &tb})
    for (auto& x : *t) std::rotate(x.begin(), std::min_element(x.begin(), x.end()), x.end());
  CHECK(ta == tb);
}

// Reading `content` as `name` must fail with a message that starts with the
// file's path followed by `place` (":LINE:" or ": byte OFFSET:") and
// contains `what`.
inline void expect_error_at(const std::string& name, const std::string& content, const std::string& place,
                            const std::string& what) {
  const auto p = write_file(name, content);
  INFO(name);
  try {
    travpool::mesh::read_mesh(p);
    FAIL("no error for " << name);
  } catch (const travpool::mesh::io_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find(p + place) == 0);
    CHECK(msg.find(what) != std::string::npos);
  }
}

}  // namespace mesh_io_test
