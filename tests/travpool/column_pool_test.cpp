// The column pool: differential tests against a model (a map from handle to
// column values) over the policy combinations, and misuse under checks.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <ranges>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/detail/slot_index.hpp>

namespace {

using namespace travpool;

static_assert(std::bidirectional_iterator<column_pool::iterator>);
static_assert(std::ranges::bidirectional_range<const column_pool>);
static_assert(std::forward_iterator<decltype(std::declval<column_pool&>().runs().begin())>);

template <class Tag, class... Options>
struct opts {
  using pool = basic_column_pool<Tag, Options...>;
};

// Typed handles: a strong handle type with a member of its own, and a tag.
struct node : basic_handle<node> {
  using basic_handle::basic_handle;
  constexpr node next() const noexcept { return node(idx() + 1); }
};
struct item_tag {};

using plain = opts<std::uint32_t>;
using locked = opts<std::uint32_t, sync::bin_locks>;
using serial = opts<std::uint32_t, sync::global_mutex, stats::counters>;
using checked = opts<std::uint32_t, checks::on>;
using locked_checked = opts<std::uint32_t, sync::bin_locks, checks::on, stats::counters>;
using typed = opts<node>;
using typed_locked_checked = opts<item_tag, sync::bin_locks, checks::on>;

constexpr std::uint32_t small_bins = 4096;
// Long enough to live on the heap: a leak shows under ASan.
const std::string long_init = "a string long enough to be allocated on the heap";

struct values {
  float x;
  std::string name;
};

// What a pool shows: its sequences, collected by observe().
struct observed {
  std::size_t size = 0;
  std::uint32_t bin_slots = 0;
  std::vector<std::uint32_t> seen, back, each;
  std::vector<handle_run> runs;
  struct part {
    std::vector<std::uint32_t> handles;
    std::vector<handle_run> runs;
    std::size_t size;
  };
  std::vector<part> parts;
  std::function<bool(std::uint32_t)> is_live;
};

// Checks everything observed against `model` (not a template: the
// assertions are compiled once for every policy).
void verify(const observed& o, const std::map<std::uint32_t, values>& model, column<const float> x,
            column<const std::string> name) {
  REQUIRE(o.size == model.size());
  // Iteration: exactly the live set; ascending within a bin; each bin once.
  REQUIRE(o.seen.size() == model.size());
  std::set<std::uint32_t> bins_done;
  bool in_model = true, live = true, ascending = true, bins_once = true;
  for (std::size_t k = 0; k < o.seen.size(); ++k) {
    in_model = in_model && model.count(o.seen[k]) == 1;
    live = live && o.is_live(o.seen[k]);
    const std::uint32_t q = o.seen[k] / o.bin_slots;
    if (k > 0 && o.seen[k - 1] / o.bin_slots == q)
      ascending = ascending && o.seen[k - 1] < o.seen[k];
    else
      bins_once = bins_once && bins_done.insert(q).second;
  }
  REQUIRE(in_model);
  REQUIRE(live);
  REQUIRE(ascending);
  REQUIRE(bins_once);
  // Backwards: the same sequence reversed.
  REQUIRE(o.back == o.seen);
  // Values.
  bool values_equal = true;
  for (auto& [h, v] : model) values_equal = values_equal && x[h] == v.x && name[h] == v.name;
  REQUIRE(values_equal);
  // Segments: maximal runs within one bin whose union is exactly the live
  // set, in order.
  auto flatten = [](const std::vector<handle_run>& runs) {
    std::vector<std::uint32_t> hs;
    for (handle_run r : runs)
      for (std::uint32_t h = r.first; h < r.last; ++h) hs.push_back(h);
    return hs;
  };
  bool runs_ok = true;
  for (handle_run r : o.runs) {
    runs_ok = runs_ok && r.first < r.last && r.first / o.bin_slots == (r.last - 1) / o.bin_slots;
    if (r.first % o.bin_slots != 0) runs_ok = runs_ok && !o.is_live(r.first - 1);
    if (r.last % o.bin_slots != 0) runs_ok = runs_ok && !o.is_live(r.last);
  }
  REQUIRE(runs_ok);
  REQUIRE(flatten(o.runs) == o.seen);
  // for_each: the same sequence.
  REQUIRE(o.each == o.seen);
  // Partitions: the parts in order are the sequence; their runs too.
  std::vector<std::uint32_t> joined, joined_runs;
  std::size_t total = 0;
  for (auto& part : o.parts) {
    REQUIRE(part.handles.size() == part.size);
    total += part.size;
    joined.insert(joined.end(), part.handles.begin(), part.handles.end());
    const auto hs = flatten(part.runs);
    joined_runs.insert(joined_runs.end(), hs.begin(), hs.end());
  }
  REQUIRE(total == model.size());
  REQUIRE(joined == o.seen);
  REQUIRE(joined_runs == o.seen);
}

// Requires: x and name are columns of pool. (Everything observed is in
// indices, handle_index(h), whatever the pool's handle type.)
template <class Pool>
void check_against(const Pool& pool, const std::map<std::uint32_t, values>& model,
                   typename Pool::template column_type<const float> x,
                   typename Pool::template column_type<const std::string> name, std::size_t parts) {
  using handle = typename Pool::handle;
  pool.validate();
  observed o;
  o.size = pool.size();
  o.bin_slots = pool.bin_slots();
  for (handle h : pool) o.seen.push_back(handle_index(h));
  for (auto it = pool.end(); it != pool.begin();) o.back.push_back(handle_index(*--it));
  std::reverse(o.back.begin(), o.back.end());
  for (handle_run r : pool.runs()) o.runs.push_back(r);
  pool.for_each([&](handle h) { o.each.push_back(handle_index(h)); });
  for (auto& part : pool.partition(parts)) {
    observed::part p{{}, {}, part.size()};
    for (handle h : part) p.handles.push_back(handle_index(h));
    for (handle_run r : part.runs()) p.runs.push_back(r);
    o.parts.push_back(std::move(p));
  }
  o.is_live = [&pool](std::uint32_t h) { return pool.is_live(handle(h)); };
  verify(o, model, column<const float>(x.data(), x.id()), column<const std::string>(name.data(), name.id()));
}

}  // namespace

// (checks::on alone changes only get(): the misuse test covers it.)
TEMPLATE_TEST_CASE("column pool matches a model under random operations", "[column_pool]", plain, locked, serial,
                   locked_checked, typed, typed_locked_checked) {
  using pool_type = typename TestType::pool;
  using handle = typename pool_type::handle;
  pool_type pool(std::uint64_t{small_bins} * 16, small_bins);
  std::map<std::uint32_t, values> model;  // by index
  auto x = pool.template add_column<float>("x", 1.5f);
  auto name = pool.template add_column<std::string>("name", long_init);
  std::mt19937 rng(42);
  std::vector<handle> live;
  const int steps = 30000;
  for (int step = 0; step < steps; ++step) {
    const int phase = (step / 5000) % 2;  // grow, then shrink
    const unsigned r = rng() % 100;
    if (live.empty() || r < (phase == 0 ? 65u : 35u)) {
      const handle h = pool.create();
      REQUIRE(model.count(handle_index(h)) == 0);
      REQUIRE(x[h] == 1.5f);  // a reused slot shows the initial value
      REQUIRE(name[h] == long_init);
      const float v = static_cast<float>(step);
      x[h] = v;
      name[h] = long_init + std::to_string(step);
      model[handle_index(h)] = {v, name[h]};
      live.push_back(h);
    } else {
      const std::size_t k = rng() % live.size();
      const handle h = live[k];
      live[k] = live.back();
      live.pop_back();
      pool.destroy(h);
      model.erase(handle_index(h));
      REQUIRE_FALSE(pool.is_live(h));
    }
    if (step % 2500 == 0) check_against(pool, model, x, name, static_cast<std::size_t>(1 + (step / 2500) % 5));
    if (step % 7000 == 6999) {
      // A column added and removed while elements are live.
      auto extra = pool.template add_column<std::vector<int>>("extra", std::vector<int>(3, 7));
      for (auto& [i, v] : model) REQUIRE(extra[handle(i)] == std::vector<int>(3, 7));
      const handle h = pool.create();
      REQUIRE(extra[h].size() == 3);
      pool.destroy(h);
      pool.remove_column(extra);
      REQUIRE_FALSE(pool.has_column("extra"));
    }
    if (step % 9000 == 8999) {
      const std::size_t bins = pool.bin_count();
      pool.shrink_to_fit();
      REQUIRE(pool.bin_count() <= bins);
      check_against(pool, model, x, name, 3);
      // Room reserved after shrinking (which bins' indices it takes: the
      // reserve test below).
      const std::size_t want = pool.size() + 2 * small_bins, before = pool.capacity();
      pool.reserve(want);
      REQUIRE(pool.capacity() >= want);
      REQUIRE(pool.capacity() == (before >= want ? before : (want + small_bins - 1) / small_bins * small_bins));
      check_against(pool, model, x, name, 2);
    }
  }
  check_against(pool, model, x, name, 4);
  // compact: every live handle moves to its bin's lowest free slots.
  const auto remap = pool.compact();
  std::map<std::uint32_t, values> moved;
  for (auto& [i, v] : model) {
    REQUIRE(handle_index(remap(handle(i))) == remap(i));  // a typed pool's handles map as their indices
    moved[remap(i)] = v;
  }
  REQUIRE(moved.size() == model.size());
  check_against(pool, moved, x, name, 2);
  std::size_t runs = 0;
  for ([[maybe_unused]] handle_run r : pool.runs()) ++runs;
  REQUIRE(runs <= pool.bin_count());
  // Destroy everything, give everything back.
  for (auto& [i, v] : moved) pool.destroy(handle(i));
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 0);
  REQUIRE(pool.begin() == pool.end());
  pool.validate();
  const handle h = pool.create();
  REQUIRE(handle_index(h) < pool.bin_slots());  // the lowest index is reused
  REQUIRE(name[h] == long_init);
}

TEMPLATE_TEST_CASE("column pool columns are found by name and type", "[column_pool]", plain, checked) {
  using pool_type = typename TestType::pool;
  pool_type pool(1u << 16, small_bins);
  auto a = pool.template add_column<double>("a", 2.0);
  const std::uint32_t h = pool.create();
  REQUIRE(pool.template get_column<double>("a") == a);
  REQUIRE(pool.template get_column<double>("a")[h] == 2.0);
  REQUIRE_THROWS_AS(pool.template get_column<float>("a"), usage_error);
  REQUIRE_THROWS_AS(pool.template get_column<double>("b"), usage_error);
  REQUIRE_THROWS_AS(pool.template add_column<int>("a"), usage_error);
  // get-or-add: the existing column (its init is not applied again), else a new one.
  REQUIRE(pool.template get_or_add_column<double>("a", 9.0) == a);
  REQUIRE(a[h] == 2.0);
  REQUIRE_THROWS_AS(pool.template get_or_add_column<float>("a"), usage_error);
  auto g = pool.template get_or_add_column<short>("g", short{3});
  REQUIRE(pool.column_count() == 2);
  REQUIRE(g[h] == 3);
  pool.remove_column(g);
  const pool_type& cp = pool;
  column<const double> ca = cp.template get_column<double>("a");
  REQUIRE(ca[h] == 2.0);
  pool.remove_column("a");
  REQUIRE(pool.column_count() == 0);
  REQUIRE_THROWS_AS(pool.remove_column("a"), usage_error);
  REQUIRE_THROWS_AS(pool.remove_column(a), usage_error);
  auto b = pool.template add_column<int>("a", 5);  // the name is free again
  REQUIRE(b[h] == 5);
  REQUIRE(pool.template get_column<int>("a").data() == b.data());
}

TEMPLATE_TEST_CASE("column pool rejects stale and foreign handles", "[column_pool]", plain, locked, serial, checked,
                   locked_checked, typed, typed_locked_checked) {
  using pool_type = typename TestType::pool;
  using handle = typename pool_type::handle;
  pool_type pool(std::uint64_t{small_bins} * 4, small_bins);
  auto name = pool.template add_column<std::string>("name", long_init);
  const handle a = pool.create(), b = pool.create();
  pool.destroy(a);
  const std::uint32_t ib = handle_index(b);
  // Stale, double destroy, never issued, out of range, another bin index.
  for (std::uint32_t i : {handle_index(a), ib + 1, ib + 100, std::uint32_t{small_bins} * 4,
                          std::uint32_t{small_bins} * 2 + 1, 0xffff'ffffu, 0x8000'0000u}) {
    const handle bad(i);
    REQUIRE_FALSE(pool.is_live(bad));
    REQUIRE_THROWS_AS(pool.destroy(bad), usage_error);
    REQUIRE_THROWS_AS(pool.at(name, bad), usage_error);
    if constexpr (std::is_same_v<typename pool_type::checks_type, checks::on>)
      REQUIRE_THROWS_AS(pool.get(name, bad), usage_error);
  }
  REQUIRE(pool.size() == 1);
  REQUIRE(pool.at(name, b) == long_init);
  REQUIRE(pool.get(name, b) == long_init);
  pool.validate();
  // Exhaustion: every handle of max_slots live, then bad_alloc.
  std::vector<handle> all;
  while (pool.size() < pool.max_slots()) all.push_back(pool.create());
  REQUIRE_THROWS_AS(pool.create(), std::bad_alloc);
  REQUIRE(pool.size() == pool.max_slots());
  pool.validate();
}

TEST_CASE("a column pool's index table comes with its first bin and grows with the indices", "[column_pool]") {
  // max_slots 2^28 in bins of 4096: 65,536 possible bins.
  detail::slot_index<true> growing(std::uint64_t{1} << 28, small_bins);
  detail::slot_index<false> whole(std::uint64_t{1} << 28, small_bins);
  REQUIRE(growing.table_size() == 0);  // nothing allocated
  REQUIRE(whole.table_size() == 0);
  REQUIRE(growing.bin_of(0) == nullptr);
  REQUIRE(growing.bin_of(0xffff'ffffu) == nullptr);
  REQUIRE(growing.lowest_free() == 0);
  REQUIRE(growing.make_room(0));
  REQUIRE(growing.table_size() == 16);
  REQUIRE(growing.make_room(15));
  REQUIRE(growing.table_size() == 16);
  REQUIRE(growing.make_room(16));
  REQUIRE(growing.table_size() == 32);
  REQUIRE(growing.make_room(1000));
  REQUIRE(growing.table_size() == 1024);
  REQUIRE(growing.lowest_free(5000) == 5000);  // free, beyond the table
  REQUIRE(whole.make_room(0));
  REQUIRE(whole.table_size() == whole.max_bins());  // sync::bin_locks: allocated whole
}

TEMPLATE_TEST_CASE("column pool handles stay valid while its index table grows", "[column_pool]", plain, locked, serial,
                   checked) {
  using pool_type = typename TestType::pool;
  using handle = typename pool_type::handle;
  pool_type pool(std::uint64_t{small_bins} * 100, small_bins);
  REQUIRE(pool.bin_count() == 0);
  auto x = pool.template add_column<std::uint32_t>("x", 0u);
  std::vector<handle> all;
  const std::uint32_t n = small_bins * 40 + 7;  // 41 bins: the table grows 16, 32, 64
  for (std::uint32_t i = 0; i < n; ++i) {
    const handle h = pool.create();
    pool.at(x, h) = i;
    all.push_back(h);
  }
  REQUIRE(pool.bin_count() == 41);
  pool.validate();
  for (std::uint32_t i = 0; i < n; ++i) {
    REQUIRE(pool.is_live(all[i]));
    REQUIRE(pool.at(x, all[i]) == i);
  }
  // Empty the first 20 bins: shrink_to_fit frees their indices, and new
  // bins take them again.
  for (std::uint32_t i = 0; i < small_bins * 20; ++i) pool.destroy(all[i]);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 21);
  pool.validate();
  for (std::uint32_t i = 0; i < small_bins * 20; ++i) REQUIRE_FALSE(pool.is_live(all[i]));
  for (std::uint32_t i = small_bins * 20; i < n; ++i) REQUIRE(pool.at(x, all[i]) == i);
  pool.reserve(pool.size() + small_bins * 30);
  REQUIRE(pool.bin_count() == 51);
  pool.validate();
  for (std::uint32_t i = 0; i < small_bins * 30; ++i) REQUIRE(handle_index(pool.create()) < small_bins * 100);
  pool.validate();
}

TEST_CASE("column pool TBB ranges split by live counts and give runs", "[column_pool]") {
  struct split {};
  column_pool pool(std::uint64_t{small_bins} * 8, small_bins);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 5 * 4096; ++i) hs.push_back(pool.create());
  for (std::size_t i = 0; i < hs.size(); i += 3) pool.destroy(hs[i]);
  auto r = pool.range();
  REQUIRE(r.is_divisible());
  decltype(r) right(r, split{});
  REQUIRE(r.size() + right.size() == pool.size());
  std::vector<std::uint32_t> joined, all(pool.begin(), pool.end());
  for (auto* part : {&r, &right})
    for (handle_run s : column_pool::runs(*part))
      for (std::uint32_t h = s.first; h < s.last; ++h) joined.push_back(h);
  REQUIRE(joined == all);
}

TEMPLATE_TEST_CASE("column pool clear destroys every element and keeps the bins", "[column_pool]", plain, locked,
                   serial) {
  using pool_type = typename TestType::pool;
  pool_type pool(std::uint64_t{small_bins} * 4, small_bins);
  auto name = pool.template add_column<std::string>("name", long_init);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 6000; ++i) hs.push_back(pool.create());
  for (std::uint32_t h : hs) name[h] += "!";
  const std::size_t bins = pool.bin_count();
  pool.clear();
  REQUIRE(pool.size() == 0);
  REQUIRE(pool.bin_count() == bins);
  REQUIRE(pool.begin() == pool.end());
  for (std::uint32_t h : hs) REQUIRE_FALSE(pool.is_live(h));
  pool.validate();
  const std::uint32_t h = pool.create();
  REQUIRE(name[h] == long_init);
}

TEMPLATE_TEST_CASE("column pool reserve adds indexed bins that creates fill", "[column_pool]", plain, locked, serial,
                   checked) {
  using pool_type = typename TestType::pool;
  pool_type pool(std::uint64_t{small_bins} * 8, small_bins);
  auto name = pool.template add_column<std::string>("name", long_init);
  REQUIRE_THROWS_AS(pool.reserve(pool.max_slots() + 1), std::length_error);
  REQUIRE(pool.bin_count() == 0);
  pool.reserve(0);
  REQUIRE(pool.bin_count() == 0);
  pool.reserve(2 * small_bins + 1);
  REQUIRE(pool.bin_count() == 3);
  REQUIRE(pool.capacity() == 3 * small_bins);
  REQUIRE(pool.size() == 0);
  REQUIRE(pool.begin() == pool.end());
  pool.validate();
  // A column added now has its blocks committed for the reserved bins too.
  auto x = pool.template add_column<float>("x", 2.5f);
  std::vector<std::uint32_t> hs;
  for (std::uint32_t i = 0; i < 3 * small_bins; ++i) {
    const std::uint32_t h = pool.create();
    REQUIRE(name[h] == long_init);
    REQUIRE(x[h] == 2.5f);
    x[h] = static_cast<float>(i);
    hs.push_back(h);
  }
  REQUIRE(pool.bin_count() == 3);  // no growth while the reserved room lasts
  std::sort(hs.begin(), hs.end());
  for (std::uint32_t i = 0; i < hs.size(); ++i) REQUIRE(hs[i] == i);  // indices 0, 1, 2
  pool.reserve(pool.size());                                          // already there: nothing added
  REQUIRE(pool.bin_count() == 3);
  // A hole in the indices (bin 1 emptied and given back) is filled first.
  for (std::uint32_t h = small_bins; h < 2 * small_bins; ++h) pool.destroy(h);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 2);
  pool.reserve(pool.size() + 1);
  REQUIRE(pool.bin_count() == 3);
  pool.validate();
  const std::uint32_t h = pool.create();
  REQUIRE(h / small_bins == 1);
  REQUIRE(x[h] == 2.5f);
  for (std::uint32_t k = 0; k < small_bins; ++k) REQUIRE(x[k] == static_cast<float>(k));  // untouched
  REQUIRE(pool.size() == 2 * small_bins + 1);
  // Up to max_slots exactly.
  pool.reserve(pool.max_slots());
  REQUIRE(pool.capacity() == pool.max_slots());
  REQUIRE(pool.bin_count() == 8);
  pool.validate();
}

// shrink_to_fit gives back exactly the bins with no live handle: a bin with
// one live handle (the boundary) keeps its index, blocks and values.
TEMPLATE_TEST_CASE("column pool shrink_to_fit keeps a bin with exactly one live handle", "[column_pool]", plain, locked,
                   serial, checked) {
  using pool_type = typename TestType::pool;
  pool_type pool(std::uint64_t{small_bins} * 4, small_bins);
  REQUIRE(pool.empty());
  auto x = pool.template add_column<float>("x", -1.0f);
  auto name = pool.template add_column<std::string>("name", long_init);
  // Bins 0 and 1 full, bin 2 with one handle.
  std::vector<std::uint32_t> hs;
  for (std::uint32_t i = 0; i < 2 * small_bins + 1; ++i) {
    const std::uint32_t h = pool.create();
    x[h] = static_cast<float>(h);
    name[h] = long_init + std::to_string(h);
    hs.push_back(h);
  }
  REQUIRE_FALSE(pool.empty());
  REQUIRE(pool.bin_count() == 3);
  std::sort(hs.begin(), hs.end());
  for (std::uint32_t i = 0; i < hs.size(); ++i) REQUIRE(hs[i] == i);  // bins 0, 1, 2 in index order
  // Bin 0 keeps one handle (not its first slot), bin 1 none, bin 2 its one.
  const std::uint32_t kept0 = 17, kept2 = 2 * small_bins;
  for (std::uint32_t h : hs)
    if (h != kept0 && h != kept2) pool.destroy(h);
  REQUIRE(pool.size() == 2);
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == 2);
  REQUIRE(pool.capacity() == 2 * small_bins);
  pool.validate();
  for (std::uint32_t h : {kept0, kept2}) {
    REQUIRE(pool.is_live(h));
    REQUIRE(x[h] == static_cast<float>(h));
    REQUIRE(name[h] == long_init + std::to_string(h));
    REQUIRE(pool.at(x, h) == static_cast<float>(h));
  }
  REQUIRE(std::vector<std::uint32_t>(pool.begin(), pool.end()).size() == 2);
  REQUIRE_FALSE(pool.is_live(small_bins));  // bin 1 is gone
  // New handles fill the two kept bins' free slots (no new bin) and show
  // the initial value; the kept handles stay.
  for (std::uint32_t i = 0; i < small_bins; ++i) {
    const std::uint32_t h = pool.create();
    REQUIRE(x[h] == -1.0f);
    REQUIRE(h / small_bins != 1);
  }
  REQUIRE(pool.bin_count() == 2);
  REQUIRE(x[kept0] == static_cast<float>(kept0));
  // Shrinking again with the same bins (each at least one live) changes nothing.
  const std::size_t bins = pool.bin_count();
  pool.shrink_to_fit();
  REQUIRE(pool.bin_count() == bins);
  pool.validate();
  REQUIRE(name[kept2] == long_init + std::to_string(kept2));
  pool.destroy(kept0);
  pool.destroy(kept2);
  REQUIRE_FALSE(pool.is_live(kept0));
  REQUIRE_FALSE(pool.is_live(pool_type::null_handle));
  REQUIRE_THROWS_AS(pool.destroy(pool_type::null_handle), travpool::usage_error);
}

TEST_CASE("column pool null_handle is never issued and never live", "[column_pool]") {
  // The largest pool the geometry allows: every handle it can issue is
  // below max_slots(), so null_handle (all ones) is not one of them.
  column_pool pool(std::uint64_t{0xffff'ffffu} - small_bins + 1, small_bins);
  STATIC_REQUIRE(column_pool::null_handle == std::numeric_limits<std::uint32_t>::max());
  REQUIRE(pool.max_slots() <= column_pool::null_handle);
  REQUIRE(pool.empty());
  REQUIRE_FALSE(pool.is_live(column_pool::null_handle));
  auto x = pool.add_column<int>("x", 3);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 5000; ++i) {
    hs.push_back(pool.create());
    REQUIRE(hs.back() != column_pool::null_handle);
  }
  REQUIRE_FALSE(pool.empty());
  REQUIRE_FALSE(pool.is_live(column_pool::null_handle));
  REQUIRE_THROWS_AS(pool.at(x, column_pool::null_handle), travpool::usage_error);
  for (std::uint32_t h : hs) pool.destroy(h);
  REQUIRE(pool.empty());
  REQUIRE(pool.size() == 0);
}

namespace {
// Copying throws once the budget is spent (moving never throws).
struct thrower {
  static inline int budget = 1000000;
  std::string payload = long_init;
  thrower() = default;
  thrower(const thrower& o) : payload(o.payload) {
    if (--budget < 0) throw std::runtime_error("copy refused");
  }
  thrower(thrower&&) noexcept = default;
  thrower& operator=(const thrower&) = default;
  ~thrower() = default;
};
}  // namespace

TEMPLATE_TEST_CASE("column pool: a throwing initial value leaves the pool unchanged", "[column_pool]", plain, locked,
                   serial) {
  using pool_type = typename TestType::pool;
  pool_type pool(std::uint64_t{small_bins} * 4, small_bins);
  auto name = pool.template add_column<std::string>("name", long_init);
  std::vector<std::uint32_t> hs;
  for (std::uint32_t i = 0; i < small_bins; ++i) hs.push_back(pool.create());  // one full bin
  // add_column: the 101st copy throws; the 100 made are destroyed.
  thrower::budget = 100;
  REQUIRE_THROWS_AS(pool.template add_column<thrower>("t", thrower{}), std::runtime_error);
  REQUIRE(pool.column_count() == 1);
  REQUIRE_FALSE(pool.has_column("t"));
  thrower::budget = 1000000;
  auto t = pool.template add_column<thrower>("t", thrower{});
  REQUIRE(t[hs[7]].payload == long_init);
  // create into a new bin: the copy throws, the new bin and its index go.
  thrower::budget = 0;
  REQUIRE_THROWS_AS(pool.create(), std::runtime_error);
  REQUIRE(pool.size() == small_bins);
  REQUIRE(pool.bin_count() == 1);
  pool.validate();
  // create into a bin with room: the copy throws, the slot goes back.
  pool.destroy(hs[3]);
  REQUIRE_THROWS_AS(pool.create(), std::runtime_error);
  REQUIRE(pool.size() == small_bins - 1);
  pool.validate();
  thrower::budget = 1000000;
  const std::uint32_t h = pool.create();
  REQUIRE(h == hs[3]);
  REQUIRE(t[h].payload == long_init);
  REQUIRE(name[h] == long_init);
}

TEMPLATE_TEST_CASE("column pool moves keep handles and keys", "[column_pool]", plain, locked) {
  using pool_type = typename TestType::pool;
  pool_type a(std::uint64_t{small_bins} * 4, small_bins);
  auto name = a.template add_column<std::string>("name", long_init);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 5000; ++i) hs.push_back(a.create());
  for (std::uint32_t h : hs) name[h] = std::to_string(h) + long_init;
  pool_type b(std::move(a));
  REQUIRE(a.size() == 0);
  REQUIRE(a.column_count() == 0);
  REQUIRE_FALSE(a.is_live(hs[0]));
  REQUIRE_THROWS_AS(a.create(), std::bad_alloc);
  REQUIRE(b.size() == hs.size());
  for (std::uint32_t h : hs) REQUIRE(name[h] == std::to_string(h) + long_init);
  REQUIRE(b.template get_column<std::string>("name") == name);
  b.validate();
  pool_type c(std::uint64_t{small_bins} * 2, small_bins);
  c.template add_column<std::string>("other", long_init);
  c.create();
  c = std::move(b);
  REQUIRE(c.size() == hs.size());
  REQUIRE_FALSE(c.has_column("other"));
  for (std::uint32_t h : hs) REQUIRE(name[h] == std::to_string(h) + long_init);
  c.destroy(hs[10]);
  c.validate();
  a = std::move(c);  // a moved-from pool takes a pool again
  REQUIRE(a.size() == hs.size() - 1);
  a.validate();
}

TEST_CASE("column pool stats count creates and destroys", "[column_pool]") {
  basic_column_pool<std::uint32_t, stats::counters> pool(1u << 16, small_bins);
  const std::uint32_t a = pool.create();
  pool.create();
  pool.destroy(a);
  const pool_stats s = pool.stats();
  REQUIRE(s.creates == 2);
  REQUIRE(s.destroys == 1);
  REQUIRE(s.live == 1);
}

TEST_CASE("column pool rejects bad geometry", "[column_pool]") {
  REQUIRE_THROWS_AS(column_pool(1u << 16, 1000), std::invalid_argument);
  REQUIRE_THROWS_AS(column_pool(1u << 16, 2048), std::invalid_argument);
  REQUIRE_THROWS_AS(column_pool(1u << 20, 1u << 16), std::invalid_argument);  // 16-bit links
  REQUIRE_NOTHROW(column_pool(1u << 20, 1u << 15));
  REQUIRE_THROWS_AS(column_pool(0, 4096), std::invalid_argument);
  REQUIRE_THROWS_AS(column_pool(std::uint64_t{1} << 32, 4096), std::invalid_argument);
  column_pool big((std::uint64_t{1} << 32) - 4096, 4096);
  REQUIRE(big.max_slots() == (std::uint64_t{1} << 32) - 4096);
}

namespace {
// Whether p.destroy(h), c[h] and p.at(c, h) compile (template context, so a
// failure is false, not an error).
template <class Pool, class H>
concept destroys = requires(Pool& p, H h) {
  p.destroy(h);
};
template <class Column, class H>
concept indexes = requires(const Column& c, H h) {
  c[h];
};
template <class Pool, class Column, class H>
concept reads = requires(const Pool& p, Column c, H h) {
  p.at(c, h);
};
}  // namespace

TEST_CASE("a typed column pool takes and yields its own handle type only", "[column_pool]") {
  using nodes = basic_column_pool<node>;
  using items = basic_column_pool<item_tag, sync::bin_locks>;
  STATIC_REQUIRE(std::is_same_v<nodes::handle, node>);
  STATIC_REQUIRE(std::is_same_v<items::handle, handle<item_tag>>);
  STATIC_REQUIRE(std::is_same_v<column_pool::handle, std::uint32_t>);
  STATIC_REQUIRE(std::is_same_v<std::iter_value_t<nodes::iterator>, node>);
  STATIC_REQUIRE(std::bidirectional_iterator<nodes::iterator>);
  STATIC_REQUIRE(std::ranges::bidirectional_range<const items>);
  STATIC_REQUIRE(sizeof(nodes) == sizeof(column_pool));  // the handle type costs nothing
  using node_column = nodes::column_type<int>;
  using item_column = items::column_type<int>;
  STATIC_REQUIRE(destroys<nodes, node>);
  STATIC_REQUIRE_FALSE(destroys<nodes, handle<item_tag>>);  // another kind
  STATIC_REQUIRE_FALSE(destroys<nodes, std::uint32_t>);     // a raw index
  STATIC_REQUIRE(destroys<column_pool, std::uint32_t>);
  STATIC_REQUIRE(indexes<node_column, node>);
  STATIC_REQUIRE_FALSE(indexes<node_column, handle<item_tag>>);
  STATIC_REQUIRE_FALSE(indexes<node_column, std::uint32_t>);
  STATIC_REQUIRE_FALSE(reads<nodes, item_column, node>);  // another pool kind's column
  STATIC_REQUIRE(reads<nodes, node_column, node>);

  nodes pool(std::uint64_t{small_bins} * 4, small_bins);
  auto next = pool.add_column<node>("next");  // a column of handles: invalid by default
  auto weight = pool.add_column<double>("weight", 0.5);
  REQUIRE_FALSE(nodes::null_handle.is_valid());
  std::vector<node> hs;
  for (int i = 0; i < 5000; ++i) hs.push_back(pool.create());
  for (std::size_t i = 0; i + 1 < hs.size(); ++i) next[hs[i]] = hs[i + 1];
  REQUIRE_FALSE(next[hs.back()].is_valid());
  REQUIRE(hs[0].next() == hs[1]);  // the kind's own member
  // Iteration, for_each, partitions and a TBB range yield nodes: the same
  // sequence, each live node once.
  std::vector<node> seen(pool.begin(), pool.end()), each, parts, ranged;
  pool.for_each([&](node h) { each.push_back(h); });
  for (auto& part : pool.partition(3))
    for (node h : part) parts.push_back(h);
  for (node h : pool.range()) ranged.push_back(h);
  REQUIRE(seen == hs);  // one thread, fresh bins: creation order
  REQUIRE(each == hs);
  REQUIRE(parts == hs);
  REQUIRE(ranged == hs);
  std::unordered_set<node> set(hs.begin(), hs.end());  // std::hash<node>
  REQUIRE(set.size() == hs.size());
  // Columns found by name come back typed; at/get check liveness.
  nodes::column_type<const double> w = std::as_const(pool).get_column<double>("weight");
  REQUIRE(w[hs[7]] == 0.5);
  pool.destroy(hs[7]);
  REQUIRE_FALSE(pool.is_live(hs[7]));
  REQUIRE_THROWS_AS(pool.at(weight, hs[7]), usage_error);
  REQUIRE_THROWS_AS(pool.destroy(hs[7]), usage_error);
  REQUIRE_THROWS_AS(pool.destroy(nodes::null_handle), usage_error);
  REQUIRE(pool.at(weight, hs[8]) == 0.5);
  // compact() maps nodes to nodes: links mapped through it reach the same
  // nodes (told apart by their weights).
  for (std::size_t i = 0; i < hs.size(); ++i) weight[hs[i]] = static_cast<double>(i);
  for (std::size_t i = 0; i < 4000; i += 2) pool.destroy(hs[i]);
  std::map<double, double> successor;
  for (node h : pool) {
    if (next[h].is_valid() && !pool.is_live(next[h])) next[h] = node{};
    if (next[h].is_valid()) successor[weight[h]] = weight[next[h]];
  }
  REQUIRE(successor.size() == 1000);  // hs[3999] -> hs[4000] -> ... -> hs[4999]
  const auto remap = pool.compact();
  REQUIRE(remap.size() > 0);
  std::size_t linked = 0;
  for (node h : pool)
    if (next[h].is_valid()) next[h] = remap(next[h]);
  for (node h : pool) {
    if (!next[h].is_valid()) continue;
    REQUIRE(pool.is_live(next[h]));
    REQUIRE(weight[next[h]] == successor.at(weight[h]));
    ++linked;
  }
  REQUIRE(linked == successor.size());
  pool.validate();
  // A pool of plain tagged handles, thread-safe variant.
  items it(std::uint64_t{small_bins} * 2, small_bins);
  auto v = it.add_column<int>("v", 3);
  const handle<item_tag> a = it.create();
  REQUIRE(v[a] == 3);
  REQUIRE(it.is_live(a));
  REQUIRE(*it.begin() == a);
  it.destroy(a);
  REQUIRE(it.empty());
}

TEMPLATE_TEST_CASE("a column pool iterator stays valid while other handles are destroyed and created",
                   "[column_pool][iterator]", plain, checked, typed) {
  using pool_type = typename TestType::pool;
  using handle = typename pool_type::handle;
  for (unsigned seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    pool_type pool(std::uint64_t{small_bins} * 8, small_bins);
    std::mt19937 rng(seed);
    std::vector<handle> all;
    for (std::uint32_t i = 0; i < 3 * small_bins + 17; ++i) all.push_back(pool.create());
    const unsigned percent = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 20 : 70;
    for (handle h : all)
      if (rng() % 100 < percent) pool.destroy(h);
    // Destroying: a walk from a random start matches the remaining
    // sequence, whichever other handles go, near the iterator or far.
    std::vector<handle> order(pool.begin(), pool.end());
    if (order.size() < 2) continue;
    std::size_t k = rng() % order.size();
    auto it = pool.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(k));
    for (int step = 0; step < 3000 && order.size() > 1; ++step) {
      for (int d = static_cast<int>(rng() % 3); d > 0 && order.size() > 1; --d) {
        const std::size_t span = rng() % 2 == 0 ? 4 : 200;
        const std::size_t lo = k > span ? k - span : 0, hi = std::min(order.size() - 1, k + span);
        const std::size_t victim = lo + rng() % (hi - lo + 1);
        if (victim == k) continue;
        pool.destroy(order[victim]);
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(victim));
        if (victim < k) --k;
      }
      if (k + 1 < order.size() && (k == 0 || rng() % 2 == 0)) {
        ++it, ++k;
      } else if (k > 0) {
        --it, --k;
      }
      REQUIRE(*it == order[k]);
    }
    pool.validate();
    // Creating during a sweep: every handle live throughout is visited
    // exactly once, every visited handle is live, and the sweep ends; a
    // new handle may or may not be visited. The current handle is
    // destroyed after advancing past it (pool.destroy(*it++)).
    const std::vector<handle> before(pool.begin(), pool.end());
    std::map<handle, int> visits;
    std::set<handle> destroyed;  // handles destroyed during the sweep (a slot may be reused)
    std::size_t creates = 0, destroys = 0;
    bool live_when_seen = true;
    for (auto i = pool.begin(); i != pool.end();) {
      const handle h = *i;
      ++visits[h];
      live_when_seen = live_when_seen && pool.is_live(h);
      if (rng() % 4 == 0) pool.create(), ++creates;
      if (rng() % 5 == 0) {
        pool.destroy(*i++);
        destroyed.insert(h), ++destroys;
      } else {
        ++i;
      }
    }
    REQUIRE(live_when_seen);
    // Each handle live before the sweep and never destroyed during it is
    // visited exactly once.
    bool once = true;
    for (handle h : before)
      if (destroyed.count(h) == 0) once = once && visits[h] == 1;
    REQUIRE(once);
    REQUIRE(pool.size() == before.size() + creates - destroys);
    pool.validate();
  }
}
