// The column pool over every sequence of up to 9 operations (create, or
// destroy of any live handle) from an empty pool: after each, iteration,
// reverse iteration, runs and is_live equal the model's live set, a
// reused slot holds the initial value, and (at each leaf) validate() holds.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>

namespace {

using travpool::column;
using travpool::column_pool;
using travpool::handle_run;

struct explorer {
  column_pool pool{std::uint64_t{4096} * 2, 4096};
  column<std::string> text = pool.add_column<std::string>("text", std::string(40, '-'));
  std::vector<std::uint32_t> live;  // sorted
  std::size_t leaves = 0;

  void check() {
    std::vector<std::uint32_t> seen(pool.begin(), pool.end());
    REQUIRE(seen == live);  // one bin: iteration is ascending handle order
    std::vector<std::uint32_t> back;
    for (auto it = pool.end(); it != pool.begin();) back.push_back(*--it);
    std::reverse(back.begin(), back.end());
    REQUIRE(back == live);
    std::vector<std::uint32_t> runs;
    for (handle_run r : pool.runs())
      for (std::uint32_t h = r.first; h < r.last; ++h) runs.push_back(h);
    REQUIRE(runs == live);
    for (std::uint32_t h = 0; h < 12; ++h) REQUIRE(pool.is_live(h) == std::binary_search(live.begin(), live.end(), h));
  }

  void explore(int depth) {
    check();
    if (depth == 0) {
      pool.validate();
      ++leaves;
      return;
    }
    {
      const std::uint32_t h = pool.create();
      REQUIRE(text[h] == std::string(40, '-'));
      text[h] = std::string(40, 'x');
      live.insert(std::lower_bound(live.begin(), live.end(), h), h);
      explore(depth - 1);
      live.erase(std::lower_bound(live.begin(), live.end(), h));
      pool.destroy(h);
    }
    for (std::size_t k = 0; k < live.size(); ++k) {
      const std::uint32_t h = live[k];
      pool.destroy(h);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      explore(depth - 1);
      // Recreate: LIFO reuse hands h back (it was the last slot freed).
      const std::uint32_t again = pool.create();
      REQUIRE(again == h);
      text[h] = std::string(40, 'x');
      live.insert(live.begin() + static_cast<std::ptrdiff_t>(k), h);
    }
  }
};

}  // namespace

TEST_CASE("column pool: every sequence of up to 9 operations", "[column_pool][exhaustive]") {
  explorer e;
  e.explore(9);
  REQUIRE(e.leaves > 2000);
  REQUIRE(e.pool.size() == 0);
}
