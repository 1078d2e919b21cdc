// Exhaustive check of the traversal repair: every reachable state of pools
// with 1-5 chunks per bin and up to 3 bins, to depth >= 10, deduplicated by
// the complete internal state. After every step validate() must pass and the
// forward and backward sweeps must equal the model in traversal order, and
// ++/-- from every element must reach the model's neighbours.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "pool_types.hpp"
#include "test_access.hpp"

namespace {

using travpool::detail::test_access;

// An action: create (bin == npos) or destroy the element at (bin, chunk).
struct action {
  std::size_t bin;
  std::uint32_t chunk;
};
constexpr std::size_t create_op = SIZE_MAX;

template <class Pool>
class replayer {
 public:
  explicit replayer(std::uint32_t cap) : pool_(travpool::bin_capacity{cap}) {}

  void apply(const action& a) {
    if (a.bin == create_op) {
      live_.push_back(pool_.create(next_id_++));
    } else {
      auto it = std::find_if(live_.begin(), live_.end(), [&](const int* p) {
        return test_access::position(pool_, p) == std::make_pair(a.bin, a.chunk);
      });
      REQUIRE(it != live_.end());
      pool_.destroy(*it);
      live_.erase(it);
    }
  }

  // validate(), then both sweeps against the model in traversal order.
  void check() const {
    pool_.validate();
    std::vector<std::pair<std::pair<std::size_t, std::uint32_t>, int>> model;
    for (const int* p : live_) model.push_back({test_access::position(pool_, p), *p});
    std::sort(model.begin(), model.end());
    std::vector<int> expect;
    for (auto& m : model) expect.push_back(m.second);
    std::vector<int> fwd(pool_.begin(), pool_.end());
    std::vector<int> bwd(pool_.rbegin(), pool_.rend());
    std::reverse(bwd.begin(), bwd.end());
    REQUIRE(fwd == expect);
    REQUIRE(bwd == expect);
    REQUIRE(pool_.size() == live_.size());
    // Mixed steps from every element: ++ then -- and -- then ++ come back;
    // each neighbour is the model's.
    for (std::size_t k = 0; k < model.size(); ++k) {
      const auto it = pool_.get_iterator(&*std::next(pool_.begin(), static_cast<long>(k)));
      REQUIRE(*it == expect[k]);
      auto fwd_it = std::next(it);
      REQUIRE((k + 1 < expect.size() ? *fwd_it == expect[k + 1] : fwd_it == pool_.end()));
      REQUIRE(std::prev(fwd_it) == it);
      if (k > 0) {
        auto back = std::prev(it);
        REQUIRE(*back == expect[k - 1]);
        REQUIRE(std::next(back) == it);
      } else {
        REQUIRE(it == pool_.begin());
      }
    }
  }

  std::vector<action> actions(std::size_t max_bins) const {
    std::vector<action> acts;
    if (pool_.size() < max_bins * pool_.bin_capacity()) acts.push_back({create_op, 0});
    for (const int* p : live_) {
      auto pos = test_access::position(pool_, p);
      acts.push_back({pos.first, pos.second});
    }
    return acts;
  }

  std::string key() const { return test_access::state_key(pool_); }

 private:
  Pool pool_;
  std::vector<const int*> live_;
  int next_id_ = 0;
};

struct exploration {
  std::size_t states;
  bool closed;  // no new state at the last depth: the whole space was seen
};

template <class Pool>
exploration explore(std::uint32_t cap, std::size_t max_bins, std::size_t depth) {
  std::unordered_set<std::string> seen;
  std::vector<std::vector<action>> frontier{{}};
  seen.insert(replayer<Pool>(cap).key());
  for (std::size_t d = 0; d < depth && !frontier.empty(); ++d) {
    std::vector<std::vector<action>> next;
    for (const auto& seq : frontier) {
      replayer<Pool> parent(cap);
      for (const auto& a : seq) parent.apply(a);
      for (const action& a : parent.actions(max_bins)) {
        replayer<Pool> child(cap);
        for (const auto& s : seq) child.apply(s);
        child.apply(a);
        child.check();
        if (seen.insert(child.key()).second) {
          next.push_back(seq);
          next.back().push_back(a);
        }
      }
    }
    frontier = std::move(next);
  }
  return {seen.size(), frontier.empty()};
}

}  // namespace

TEMPLATE_TEST_CASE("every reachable state of small pools is valid", "[pool][exhaustive]", TRAVPOOL_TEST_LAYOUTS) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  for (std::uint32_t cap = 1; cap <= 5; ++cap) {
    for (std::size_t bins = 1; bins <= 3; ++bins) {
      // Deep enough to fill and drain every bin where that stays cheap.
      const std::size_t depth = std::clamp<std::size_t>(cap * bins + 6, 10, 14);
      const auto r = explore<pool_type>(cap, bins, depth);
      // Every state with up to min(depth, cap * bins) live elements is reached.
      CHECK(r.states > std::min<std::size_t>(depth, cap * bins));
      WARN("capacity " << cap << " x " << bins << " bins, depth " << depth << ": " << r.states << " distinct states"
                       << (r.closed ? " (closed: every reachable state)" : ""));
    }
  }
}
