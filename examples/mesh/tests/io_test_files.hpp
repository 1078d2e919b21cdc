// Scratch files for the mesh I/O tests (mesh_io_test.cpp, mesh_ply_test.cpp):
// a private temporary directory, writing a file into it, and the check that
// reading a file fails with an io_error at an exact place.
#pragma once

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "io.hpp"

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
