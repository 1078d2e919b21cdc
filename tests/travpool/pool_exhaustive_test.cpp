// Exhaustive check of the traversal repair: every reachable state of pools
// with 1-5 chunks per bin and up to 3 bins, to depth >= 10, deduplicated by
// the complete internal state. After every step validate() must pass and the
// forward and backward sweeps must equal the model in traversal order, and
// ++/-- from every element must reach the model's neighbours.
#include <algorithm>
#include <cstdint>
#include <map>
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

using occupancy = std::vector<std::vector<std::uintptr_t>>;

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

  // Which chunks are live, seen from the model's addresses alone (not the
  // pool's own lookup): per bin span holding a live element, the sorted
  // offsets of its live elements; the bins sorted. Bin identity and list
  // order are left out, so equal occupancies of different bins are equal.
  occupancy occupied() const {
    std::map<std::uintptr_t, std::vector<std::uintptr_t>> by_span;
    const std::uintptr_t mask = pool_.bin_span() - 1;
    for (const int* p : live_) {
      const auto a = reinterpret_cast<std::uintptr_t>(p);
      by_span[a & ~mask].push_back(a & mask);
    }
    occupancy o;
    for (auto& [span, offsets] : by_span) {
      std::sort(offsets.begin(), offsets.end());
      o.push_back(offsets);
    }
    std::sort(o.begin(), o.end());
    return o;
  }

 private:
  Pool pool_;
  std::vector<const int*> live_;
  int next_id_ = 0;
};

struct exploration {
  std::size_t states;
  bool closed;                      // no new state at the last depth: the whole space was seen
  std::set<occupancy> occupancies;  // of every state reached
};

template <class Pool>
exploration explore(std::uint32_t cap, std::size_t max_bins, std::size_t depth) {
  std::unordered_set<std::string> seen;
  std::set<occupancy> occupancies{occupancy{}};
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
        occupancies.insert(child.occupied());
        if (seen.insert(child.key()).second) {
          next.push_back(seq);
          next.back().push_back(a);
        }
      }
    }
    frontier = std::move(next);
  }
  return {seen.size(), frontier.empty(), std::move(occupancies)};
}

// Returns: the number of multisets of size j drawn from n kinds, C(n + j - 1, j).
std::size_t multisets(std::size_t n, std::size_t j) {
  std::size_t c = 1;
  for (std::size_t i = 1; i <= j; ++i) c = c * (n + i - 1) / i;
  return c;
}

}  // namespace

TEMPLATE_TEST_CASE("every reachable state of small pools is valid", "[pool][exhaustive]", TRAVPOOL_TEST_LAYOUTS) {
  using pool_type = travpool::test::pool_t<int, TestType>;
  for (std::uint32_t cap = 1; cap <= 5; ++cap) {
    for (std::size_t bins = 1; bins <= 3; ++bins) {
      // Deep enough to fill and drain every bin where that stays cheap;
      // at small_depth (a sanitizer, the stages after the first) at most 11
      // (Listing 7 as printed fails at depth 2).
      const std::size_t depth = std::clamp<std::size_t>(cap * bins + 6, 10, travpool::test::small_depth ? 11 : 14);
      const auto r = explore<pool_type>(cap, bins, depth);
      // Every state with up to min(depth, cap * bins) live elements is reached.
      CHECK(r.states > std::min<std::size_t>(depth, cap * bins));
      // Each occupancy reached holds at most `bins` non-empty bins of at
      // most `cap` live chunks each, and every element count up to
      // min(depth, cap * bins) occurs.
      std::set<std::size_t> counts;
      bool bounded = true;
      for (const occupancy& o : r.occupancies) {
        std::size_t n = 0;
        bounded = bounded && o.size() <= bins;
        for (const auto& chunks : o) bounded = bounded && !chunks.empty() && chunks.size() <= cap, n += chunks.size();
        counts.insert(n);
      }
      CHECK(bounded);
      CHECK(counts.size() == std::min<std::size_t>(depth, cap * bins) + 1);
      // Where the depth allows filling every bin and then destroying any
      // set of elements (2 cap bins - bins steps), every occupancy is
      // reached: every multiset of at most `bins` non-empty subsets of a
      // bin's cap chunks, sum over j <= bins of C(M + j - 1, j), M = 2^cap - 1.
      if (2 * cap * bins - bins <= depth) {
        const std::size_t subsets = (std::size_t{1} << cap) - 1;
        std::size_t expect = 0;
        for (std::size_t j = 0; j <= bins; ++j) expect += multisets(subsets, j);
        CHECK(r.occupancies.size() == expect);
      }
      WARN("capacity " << cap << " x " << bins << " bins, depth " << depth << ": " << r.states << " distinct states"
                       << (r.closed ? " (closed: every reachable state)" : ""));
    }
  }
}
