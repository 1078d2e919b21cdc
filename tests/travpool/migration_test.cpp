// docs/migrating.md: every code block of the guide compiles here, each
// "before" and "after" runs the same operations with the same results, and
// the guide's blocks are verbatim copies of the code compiled here.
#include "travpool/migration/cases.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace migration {

// [doc:object-pool-parallel]
// TBB: pool.range() splits at bin boundaries by live count.
double parallel_sum_x(const travpool::pool<particle>& pool) {
  return tbb::parallel_reduce(
      pool.range(), 0.0,
      [](const auto& r, double s) {
        for (const particle& p : r) s += p.x;
        return s;
      },
      std::plus<>());
}

// OpenMP or std::thread: k balanced ranges, or travpool::parallel_for_each.
void scale_all(travpool::pool<particle>& pool, double f) {
  auto parts = pool.partition(4);
#pragma omp parallel for schedule(static, 1)
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (particle& p : parts[i]) p.x *= f;
}
// [/doc]

}  // namespace migration

namespace {

using namespace migration;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  INFO("reading " << p.string());
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// NAME -> block, from "// [doc:NAME]" ... "// [/doc]" in source files.
std::map<std::string, std::string> source_blocks(const std::string& text) {
  std::map<std::string, std::string> out;
  std::string name, body;
  for (const auto& line : lines_of(text)) {
    if (line.rfind("// [doc:", 0) == 0) {
      name = line.substr(8, line.find(']') - 8);
      body.clear();
    } else if (line == "// [/doc]") {
      out[name] = body;
      name.clear();
    } else if (!name.empty()) {
      body += line + "\n";
    }
  }
  return out;
}

// NAME -> block, from "<!-- doc:NAME -->" followed by a ```cpp fence.
std::map<std::string, std::string> markdown_blocks(const std::string& text) {
  std::map<std::string, std::string> out;
  std::string name, body;
  bool in_block = false;
  for (const auto& line : lines_of(text)) {
    if (line.rfind("<!-- doc:", 0) == 0) {
      name = line.substr(9, line.find(" -->") - 9);
    } else if (!name.empty() && !in_block && line == "```cpp") {
      in_block = true;
      body.clear();
    } else if (in_block && line == "```") {
      out[name] = body;
      in_block = false;
      name.clear();
    } else if (in_block) {
      body += line + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("migration guide: its code blocks are the code compiled here", "[migration]") {
  const std::filesystem::path here = std::filesystem::path(__FILE__).parent_path();
  auto src = source_blocks(read_file(here / "migration" / "cases.hpp"));
  const auto more = source_blocks(read_file(here / "migration_test.cpp"));
  src.insert(more.begin(), more.end());
  const auto doc = markdown_blocks(read_file(here / ".." / ".." / "docs" / "migrating.md"));
  REQUIRE(src.size() == 7);
  for (const auto& [name, body] : src) {
    INFO("block " << name);
    REQUIRE(doc.count(name) == 1);
    CHECK(doc.at(name) == body);
  }
  CHECK(doc.size() == src.size());
}

TEST_CASE("migration (1): object_pool + vector<T*> and travpool::pool agree", "[migration]") {
  particles_before before;
  particles_after after;
  std::vector<particle*> pb, pa;
  std::mt19937 rng(7);
  for (int step = 0; step < 3000; ++step) {
    if (pb.empty() || rng() % 3 != 0) {
      const double x = rng() % 1000, y = rng() % 100, z = step;
      pb.push_back(before.add(x, y, z));
      pa.push_back(after.add(x, y, z));
    } else {
      const std::size_t i = rng() % pb.size();
      before.remove(pb[i]);
      after.remove(pa[i]);
      pb.erase(pb.begin() + static_cast<long>(i));
      pa.erase(pa.begin() + static_cast<long>(i));
    }
  }
  CHECK(before.all.size() == after.pool.size());
  CHECK(before.sum_x() == after.sum_x());  // integers: exact in any order
  CHECK(parallel_sum_x(after.pool) == after.sum_x());
  for (std::size_t i = 0; i < pa.size(); ++i) CHECK(pa[i]->z == pb[i]->z);  // pointers stayed valid
  scale_all(after.pool, 2.0);
  CHECK(after.sum_x() == 2 * before.sum_x());
  CHECK_THROWS_AS(after.remove(pb.front()), travpool::usage_error);  // foreign pointer detected
}

TEST_CASE("migration (2): vector + free list + garbage_collection and travpool::pool agree", "[migration]") {
  vertex_store before;
  travpool::pool<vertex> after;
  std::vector<vertex_store::index> hb;
  std::vector<vertex*> ha;
  std::mt19937 rng(8);
  auto key = [](const vertex& v) { return std::make_tuple(v.x, v.y, v.z); };
  for (int step = 0; step < 4000; ++step) {
    if (hb.empty() || rng() % 2 != 0) {
      const vertex v{double(step), double(rng() % 7), 1.0};
      hb.push_back(before.add(v));
      ha.push_back(add(after, v));
    } else {
      const std::size_t i = rng() % hb.size();
      before.remove(hb[i]);
      remove(after, ha[i]);
      hb.erase(hb.begin() + static_cast<long>(i));
      ha.erase(ha.begin() + static_cast<long>(i));
    }
    if (step == 2000) {  // before: every index must be remapped; after: nothing to do
      const auto remap = before.garbage_collection();
      for (auto& h : hb) {
        REQUIRE(remap[h] != vertex_store::npos);
        h = remap[h];
      }
      after.shrink_to_fit();
    }
  }
  std::multiset<std::tuple<double, double, double>> sb, sa;
  before.for_each([&](const vertex& v) { sb.insert(key(v)); });
  for_each(after, [&](const vertex& v) { sa.insert(key(v)); });
  CHECK(sb == sa);
  CHECK(before.size() == after.size());
  for (std::size_t i = 0; i < ha.size(); ++i) CHECK(key(before[hb[i]]) == key(*ha[i]));
}

TEST_CASE("migration (3): fast_pool_allocator and travpool::allocator containers agree", "[migration]") {
  edge_list_before lb;
  edge_list_after la;
  edge_map_before mb;
  edge_map_after ma;
  std::mt19937 rng(9);
  for (int step = 0; step < 5000; ++step) {
    const edge e{static_cast<std::uint32_t>(rng() % 100), static_cast<std::uint32_t>(rng() % 100), double(step)};
    const std::uint64_t k = rng() % 500;
    switch (rng() % 4) {
      case 0:
        lb.push_back(e);
        la.push_back(e);
        mb[k] = e;
        ma[k] = e;
        break;
      case 1:
        if (!lb.empty()) {
          lb.pop_front();
          la.pop_front();
        }
        CHECK(mb.erase(k) == ma.erase(k));
        break;
      case 2:
        lb.remove_if([&](const edge& x) { return x.from == e.from; });
        la.remove_if([&](const edge& x) { return x.from == e.from; });
        break;
      case 3:
        lb.push_front(e);
        la.push_front(e);
        break;
    }
  }
  auto same_edge = [](const edge& a, const edge& b) {
    return a.from == b.from && a.to == b.to && a.weight == b.weight;
  };
  CHECK(std::equal(lb.begin(), lb.end(), la.begin(), la.end(), same_edge));
  CHECK(std::equal(mb.begin(), mb.end(), ma.begin(), ma.end(),
                   [&](const auto& a, const auto& b) { return a.first == b.first && same_edge(a.second, b.second); }));
  la.clear();
  ma.clear();
  travpool::allocator<edge>::shrink_to_fit();
}
