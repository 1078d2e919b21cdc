// Replays the committed fuzz corpora and regression inputs (tests/fuzz/) in
// the ordinary test suites, so that every input a fuzzer once needed stays a
// test under Release, ASan+UBSan, and on machines without clang.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../fuzz/mesh_reader_fuzz.hpp"
#include "../fuzz/pool_ops_fuzz.hpp"

namespace {

std::vector<std::filesystem::path> inputs(const std::string& corpus) {
  const std::filesystem::path root = std::filesystem::path(TRAVPOOL_SOURCE_DIR) / "tests" / "fuzz";
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {root / "corpus" / corpus, root / "regressions" / corpus})
    if (std::filesystem::exists(dir))
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.is_regular_file()) files.push_back(e.path());
  return files;
}

std::string bytes_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("pool-operation fuzz inputs replay cleanly", "[fuzz]") {
  const auto files = inputs("pool_ops");
  REQUIRE(files.size() >= 10);
  for (const auto& f : files) {
    INFO(f);
    const std::string b = bytes_of(f);
    travpool::fuzz::pool_ops_one_input(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
  }
}

TEST_CASE("mesh-reader fuzz inputs replay cleanly", "[fuzz]") {
  const auto files = inputs("mesh_reader");
  REQUIRE(files.size() >= 5);
  for (const auto& f : files) {
    INFO(f);
    const std::string b = bytes_of(f);
    travpool::fuzz::mesh_reader_one_input(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
  }
}
