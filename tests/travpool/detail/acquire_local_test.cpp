// The local acquisition layer (sync::none) and its mutex wrapper
// (sync::global_mutex) without a payload type: take/untake/free_chunk, the
// available list (b listed <=> b on the bin list and not full), reserve,
// shrink, clear and release_all, against a model of the assigned chunks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/detail/acquire_local.hpp>

#include "bins_test_util.hpp"

namespace {

using namespace travpool::test;  // td, chunk, algo_of, listed
template <class Bins>
std::vector<td::bin_base*> available(const Bins& s) {
  std::vector<td::bin_base*> v;
  for (td::bin_base* b = s.avail_head(); b != nullptr; b = b->avail_next_) v.push_back(b);
  return v;
}

// check_lists(), validate_bins (which calls it too) and the model.
template <class Bins>
void check(const Bins& s, const std::set<chunk>& model) {
  REQUIRE(s.check_lists() == nullptr);
  REQUIRE_NOTHROW(td::validate_bins<typename Bins::ops>(s, s.size()));
  REQUIRE(s.size() == model.size());
  for (const auto& [b, i] : model) REQUIRE(algo_of<Bins>::is_live(*b, i));
  // b on the available list <=> b listed and not full.
  const auto avail = available(s);
  for (td::bin_base* b : listed(s)) REQUIRE((std::find(avail.begin(), avail.end(), b) != avail.end()) == !b->full());
}

template <class Bins>
void free_chunk(Bins& s, const chunk& c) {
  const int r = s.locked(*c.first, [&] {
    s.free_chunk(*c.first, c.second);
    return 42;
  });
  REQUIRE(r == 42);  // locked returns what f returns
}

}  // namespace

#define LOCAL_TYPES                                                                            \
  (td::local_bins<td::bin_storage<td::compact_layout<16, 8>, td::no_stats, false>>),           \
      (td::local_bins<td::bin_storage<td::compact_layout<24, 8>, td::counting_stats, false>>), \
      (td::mutex_bins<td::local_bins<td::bin_storage<td::interleaved_layout<16, 8>, td::no_stats, true>>>)

TEMPLATE_TEST_CASE("local_bins: take fills one bin at a time, a free in a full bin moves it to the front",
                   "[acquire][local]", LOCAL_TYPES) {
  TestType s(4);
  std::set<chunk> model;
  CHECK(s.size() == 0);
  CHECK(s.avail_head() == nullptr);
  const td::taken first = s.take();
  CHECK(first.new_bin);
  CHECK(first.index == td::first_user_chunk);
  td::bin_base* b0 = first.bin;
  model.insert({b0, first.index});
  for (std::uint32_t k = 1; k < 4; ++k) {
    const td::taken t = s.take();
    CHECK_FALSE(t.new_bin);
    CHECK(t.bin == b0);
    CHECK(t.index == td::first_user_chunk + k);  // fresh chunks, in address order
    model.insert({t.bin, t.index});
  }
  CHECK(b0->full());
  CHECK(s.avail_head() == nullptr);  // full: off the list
  check(s, model);

  const td::taken second = s.take();
  CHECK(second.new_bin);
  td::bin_base* b1 = second.bin;
  CHECK(b1 != b0);
  CHECK(listed(s) == std::vector<td::bin_base*>{b0, b1});
  model.insert({b1, second.index});
  for (int k = 0; k < 3; ++k) {
    const td::taken t = s.take();
    CHECK(t.bin == b1);
    model.insert({t.bin, t.index});
  }
  CHECK(s.size() == 8);
  CHECK(available(s).empty());
  check(s, model);

  free_chunk(s, {b1, 3});
  model.erase({b1, 3});
  CHECK(available(s) == std::vector<td::bin_base*>{b1});
  free_chunk(s, {b0, 4});
  model.erase({b0, 4});
  CHECK(available(s) == std::vector<td::bin_base*>{b0, b1});  // pushed to the front
  check(s, model);

  const td::taken t = s.take();  // the head: b0, its chunk freed last
  CHECK(t.bin == b0);
  CHECK(t.index == 4);
  CHECK_FALSE(t.new_bin);
  model.insert({t.bin, t.index});
  CHECK(available(s) == std::vector<td::bin_base*>{b1});
  check(s, model);
  s.release_all(nullptr);
}

TEMPLATE_TEST_CASE("local_bins: untake undoes a take, giving back a bin it added", "[acquire][local]", LOCAL_TYPES) {
  TestType s(3);
  const td::taken t = s.take();
  REQUIRE(t.new_bin);
  s.untake(t);
  CHECK(s.size() == 0);
  CHECK(s.bin_count() == 0);
  CHECK(s.find(t.bin) == nullptr);
  check(s, {});

  const td::taken a = s.take();
  const td::taken b = s.take();
  CHECK_FALSE(b.new_bin);
  s.untake(b);  // not a new bin: the bin stays
  CHECK(s.size() == 1);
  CHECK(s.bin_count() == 1);
  check(s, {{a.bin, a.index}});
  const td::taken c = s.take();  // the chunk given back is the next one
  CHECK(c.bin == b.bin);
  CHECK(c.index == b.index);

  // Untaking the last chunk of a full bin puts it back on the available list.
  const td::taken d = s.take();
  CHECK(d.bin->full());
  s.untake(d);
  CHECK(s.avail_head() == d.bin);
  check(s, {{a.bin, a.index}, {c.bin, c.index}});
  s.release_all(nullptr);
}

TEMPLATE_TEST_CASE("local_bins: reserve adds empty bins at the back, shrink gives back the empty ones",
                   "[acquire][local]", LOCAL_TYPES) {
  TestType s(4);
  s.reserve(10);
  CHECK(s.bin_count() == 3);  // the fewest bins for 10 chunks
  CHECK(s.size() == 0);
  CHECK(available(s) == listed(s));
  check(s, {});
  s.reserve(12);
  CHECK(s.bin_count() == 3);
  s.reserve(0);
  CHECK(s.bin_count() == 3);

  // Takes fill the reserved bins in list order.
  const auto bins = listed(s);
  std::set<chunk> model;
  for (int k = 0; k < 6; ++k) {
    const td::taken t = s.take();
    CHECK_FALSE(t.new_bin);
    CHECK(t.bin == bins[static_cast<std::size_t>(k / 4)]);
    model.insert({t.bin, t.index});
  }
  check(s, model);

  // Empty the first bin: shrink gives back it and the third, keeps the second.
  for (std::uint32_t i = 2; i < 6; ++i) free_chunk(s, {bins[0], i}), model.erase({bins[0], i});
  s.shrink();
  CHECK(listed(s) == std::vector<td::bin_base*>{bins[1]});
  CHECK(s.find(bins[0]) == nullptr);
  CHECK(s.find(bins[2]) == nullptr);
  check(s, model);
  for (const chunk& c : model) free_chunk(s, c);
  model.clear();
  s.shrink();
  CHECK(s.bin_count() == 0);
  CHECK(s.avail_head() == nullptr);
  check(s, model);
  // Usable again.
  const td::taken t = s.take();
  CHECK(t.new_bin);
  check(s, {{t.bin, t.index}});
  s.release_all(nullptr);
}

TEMPLATE_TEST_CASE("local_bins: clear empties every bin and keeps them, release_all gives them back",
                   "[acquire][local]", LOCAL_TYPES) {
  TestType s(5);
  std::set<chunk> model;
  for (int k = 0; k < 12; ++k) {
    const td::taken t = s.take();
    model.insert({t.bin, t.index});
  }
  free_chunk(s, {listed(s)[0], 3});
  model.erase({listed(s)[0], 3});
  const auto bins = listed(s);
  REQUIRE(bins.size() == 3);

  SECTION("clear(nullptr): trivial payloads, nothing called") {
    s.clear(nullptr);
    CHECK(listed(s) == bins);
    CHECK(s.size() == 0);
    for (td::bin_base* b : bins) CHECK(b->live_ == 0);
    CHECK(available(s) == bins);  // all of them, in list order again
    check(s, {});
    CHECK(s.take().bin == bins[0]);
  }
  SECTION("clear(d): d once per live chunk, in address order per bin") {
    std::vector<chunk> destroyed;
    s.clear([&](td::bin_base& b, std::uint32_t i) {
      REQUIRE(algo_of<TestType>::is_live(b, i));  // its chunk is still assigned
      destroyed.push_back({&b, i});
    });
    CHECK(std::set<chunk>(destroyed.begin(), destroyed.end()) == model);
    CHECK(destroyed.size() == model.size());
    CHECK(std::is_sorted(destroyed.begin(), destroyed.end(), [&](const chunk& x, const chunk& y) {
      if (x.first != y.first)
        return std::find(bins.begin(), bins.end(), x.first) < std::find(bins.begin(), bins.end(), y.first);
      return x.second < y.second;
    }));
    CHECK(listed(s) == bins);
    check(s, {});
  }
  SECTION("release_all(d): d once per live chunk, then no bins") {
    std::set<chunk> destroyed;
    s.release_all([&](td::bin_base& b, std::uint32_t i) {
      CHECK(destroyed.insert({&b, i}).second);
      // The frees so far put full bins on the available list: it must name
      // only bins not given back yet (a given-back span may be unmapped).
      for (td::bin_base* a : available(s)) CHECK(s.find(a) != nullptr);
    });
    CHECK(destroyed == model);
    CHECK(s.bin_count() == 0);
    CHECK(s.size() == 0);
    CHECK(s.avail_head() == nullptr);
    for (td::bin_base* b : bins) CHECK(s.find(b) == nullptr);
    check(s, {});
    CHECK(s.take().new_bin);
  }
  SECTION("release_all(nullptr)") {
    s.release_all(nullptr);
    CHECK(s.bin_count() == 0);
    CHECK(s.size() == 0);
    check(s, {});
  }
  s.release_all(nullptr);
}

TEMPLATE_TEST_CASE("local_bins: steal moves bins, size and available list", "[acquire][local]", LOCAL_TYPES) {
  TestType a(4), b(4);
  std::set<chunk> model;
  for (int k = 0; k < 6; ++k) {
    const td::taken t = a.take();
    model.insert({t.bin, t.index});
  }
  const auto bins = listed(a);
  b.steal(a);
  CHECK(listed(b) == bins);
  CHECK(b.size() == 6);
  CHECK(a.size() == 0);
  CHECK(a.bin_count() == 0);
  CHECK(a.avail_head() == nullptr);
  check(a, {});
  check(b, model);
  const td::taken t = b.take();  // continues in the partly filled bin
  CHECK(t.bin == bins[1]);
  b.release_all(nullptr);
}

TEMPLATE_TEST_CASE("local_bins: random operations keep every invariant and match a model", "[acquire][local][random]",
                   LOCAL_TYPES) {
  for (std::uint32_t cap : {1u, 3u, 70u}) {
    INFO("capacity " << cap);
    TestType s(cap);
    std::set<chunk> model;
    std::mt19937 rng(cap);
    std::size_t takes = 0, new_bins = 0, shrunk = 0;
    for (int step = 0; step < 3000; ++step) {
      const unsigned r = rng() % 1000;
      // Drift between filling up and draining, so bins fill and empty.
      const bool filling = (step / 500) % 2 == 0;
      if (r < (filling ? 600u : 350u) || model.empty()) {
        td::bin_base* head = s.avail_head();
        const td::taken t = s.take();
        ++takes;
        new_bins += t.new_bin;
        CHECK(t.new_bin == (head == nullptr));
        if (head != nullptr) REQUIRE(t.bin == head);     // always the head of the available list
        REQUIRE(model.insert({t.bin, t.index}).second);  // never handed out twice
        REQUIRE(s.find(t.bin) == t.bin);
        REQUIRE(TestType::chunk_index(*t.bin, TestType::ops::payload(*t.bin, t.index)) == t.index);
        if (rng() % 20 == 0) {
          s.untake(t);
          model.erase({t.bin, t.index});
        }
      } else if (r < 975) {
        auto it = std::next(model.begin(), static_cast<std::ptrdiff_t>(rng() % model.size()));
        free_chunk(s, *it);
        model.erase(it);
      } else if (r < 985) {
        const std::size_t before = s.bin_count();
        std::set<td::bin_base*> used;
        for (const chunk& c : model) used.insert(c.first);
        s.shrink();
        shrunk += before - s.bin_count();
        REQUIRE(s.bin_count() == used.size());
      } else if (r < 995) {
        const std::size_t n = model.size() + rng() % (3 * cap);
        s.reserve(n);
        REQUIRE(s.bin_count() * cap >= n);
      } else if (r < 998) {
        const std::size_t bins = s.bin_count();
        s.clear(nullptr);
        model.clear();
        REQUIRE(s.bin_count() == bins);
      } else {
        std::set<chunk> destroyed;
        s.release_all([&](td::bin_base& b, std::uint32_t i) { destroyed.insert({&b, i}); });
        REQUIRE(destroyed == model);
        model.clear();
        REQUIRE(s.bin_count() == 0);
      }
      check(s, model);
    }
    CHECK(takes > 1000);
    CHECK(new_bins > 1);
    CHECK(shrunk > 0);
    s.release_all(nullptr);
  }
}
