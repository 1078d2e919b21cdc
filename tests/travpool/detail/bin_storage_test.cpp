// The bin storage layer without a payload type and without an acquisition
// layer: making, listing, finding, unlinking and giving back bins, moving
// them to another storage, and the statistics hooks it calls.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/detail/bin_algorithms.hpp>
#include <travpool/detail/bin_directory.hpp>
#include <travpool/detail/bin_storage.hpp>
#include <travpool/detail/layout_compact.hpp>
#include <travpool/detail/layout_interleaved.hpp>
#include <travpool/detail/stats_hooks.hpp>
#include <travpool/detail/validate.hpp>

namespace {

namespace td = travpool::detail;

// validate_bins also checks the acquisition layer's lists; the storage
// alone has none.
template <class Storage>
struct checked : Storage {
  using Storage::Storage;
  const char* check_lists() const noexcept { return nullptr; }
};

template <class Storage>
std::size_t live_total(const Storage& s) {
  std::size_t n = 0;
  for (const td::bin_base* b = s.first(); !b->is_root(); b = b->next_) n += b->live_;
  return n;
}

template <class Storage>
void validate(const Storage& s) {
  td::validate_bins<typename Storage::ops>(s, live_total(s));
}

template <class Storage>
std::vector<td::bin_base*> listed(const Storage& s) {
  std::vector<td::bin_base*> v;
  for (td::bin_base* b = s.first(); !b->is_root(); b = b->next_) v.push_back(b);
  return v;
}

std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }

}  // namespace

using compact_storage = checked<td::bin_storage<td::compact_layout<16, 8>, td::no_stats, false>>;

#define STORAGE_TYPES                                                                   \
  (checked<td::bin_storage<td::compact_layout<16, 8>, td::no_stats, false>>),           \
      (checked<td::bin_storage<td::compact_layout<24, 8>, td::counting_stats, false>>), \
      (checked<td::bin_storage<td::interleaved_layout<16, 8>, td::no_stats, true>>)

TEST_CASE("bin_storage: capacity limits and span size", "[storage]") {
  CHECK_THROWS_AS(compact_storage(0), std::invalid_argument);
  CHECK_THROWS_AS(compact_storage(td::max_bin_capacity + 1), std::invalid_argument);
  CHECK_NOTHROW(compact_storage(td::max_bin_capacity));  // nothing is mapped until make_bin

  using traits = td::layout_traits<td::compact_layout<16, 8>>;
  for (std::uint32_t cap : {1u, 100u, 4000u, 5000u, traits::default_capacity()}) {
    INFO("capacity " << cap);
    compact_storage s(cap);
    CHECK(s.capacity() == cap);
    CHECK(s.span() == std::max(std::bit_ceil(traits::bin_bytes(cap)), td::bin_directory::granule));
    CHECK(s.span() >= traits::bin_bytes(cap));
    CHECK(std::has_single_bit(s.span()));
    CHECK(s.bin_count() == 0);
    CHECK(s.first() == s.root());
    CHECK(s.root()->is_root());
  }
  CHECK(compact_storage(100).span() == td::bin_directory::granule);
  CHECK(compact_storage(traits::default_capacity()).span() == td::default_bin_span);
  compact_storage a(8), b(8);
  CHECK(a.id() != 0);
  CHECK(a.id() != b.id());
}

TEMPLATE_TEST_CASE("bin_storage: make_bin maps an empty, registered, unlinked bin, link appends", "[storage]",
                   STORAGE_TYPES) {
  using ops = typename TestType::ops;
  using traits = td::layout_traits<ops>;
  TestType s(100);
  td::bin_base* b = s.make_bin();
  REQUIRE(b != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % s.span() == 0);
  CHECK(b->capacity_ == 100);
  CHECK(b->owner_ == s.id());
  CHECK(b->chunks_ == bytes(b) + traits::chunks_offset(100));
  CHECK(b->live_ == 0);
  CHECK(b->free_head_ == td::first_user_chunk);
  CHECK(b->fresh_ == td::first_user_chunk);
  CHECK(traits::first_assigned(*b) == b->last());
  CHECK(s.find(b) == b);      // registered at once
  CHECK(s.bin_count() == 0);  // but not listed
  CHECK(s.first() == s.root());

  s.link(b);
  td::bin_base* c = s.make_bin();
  s.link(c);
  td::bin_base* d = s.make_bin();
  s.link(d);
  CHECK(s.bin_count() == 3);
  CHECK(listed(s) == std::vector<td::bin_base*>{b, c, d});
  CHECK(s.root()->prev_ == d);
  CHECK(b->prev_ == s.root());
  CHECK(d->next_ == s.root());
  validate(s);

  // Chunks assigned with the algorithms are what validate counts.
  for (int k = 0; k < 10; ++k) TestType::algo::create(*c);
  CHECK(live_total(s) == 10);
  validate(s);
  s.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: find maps every address of a bin's span, and only this storage's bins", "[storage]",
                   STORAGE_TYPES) {
  using ops = typename TestType::ops;
  TestType s(300), other(300);
  td::bin_base* b = s.make_bin();
  s.link(b);
  td::bin_base* c = s.make_bin();
  s.link(c);
  td::bin_base* x = other.make_bin();
  other.link(x);

  for (td::bin_base* bin : {b, c}) {
    CHECK(s.find(bin) == bin);
    CHECK(s.find(bytes(bin) + 1) == bin);
    CHECK(s.find(bytes(bin) + s.span() - 1) == bin);
    CHECK(s.find(bytes(bin) + s.span()) != bin);
    CHECK(s.find(bytes(bin) - 1) != bin);
    for (std::uint32_t i = 0; i <= bin->last(); ++i) {
      REQUIRE(s.find(ops::payload(*bin, i)) == bin);
      REQUIRE(s.find(bytes(ops::payload(*bin, i)) + ops::stride - 1) == bin);
    }
    CHECK(other.find(bin) == nullptr);
  }
  CHECK(other.find(x) == x);
  CHECK(s.find(x) == nullptr);
  int on_stack = 0;
  CHECK(s.find(&on_stack) == nullptr);
  CHECK(s.find(nullptr) == nullptr);
  s.release_all([](td::bin_base&) {});
  other.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: chunk_index names user chunk starts only", "[storage]", STORAGE_TYPES) {
  using ops = typename TestType::ops;
  TestType s(70);
  td::bin_base* b = s.make_bin();
  const std::uint32_t cap = b->capacity_;
  for (std::uint32_t i = td::first_user_chunk; i <= cap + 1; ++i) {
    REQUIRE(TestType::chunk_index(*b, ops::payload(*b, i)) == i);
    for (std::size_t r = 1; r < ops::stride; ++r)  // every address inside the chunk
      REQUIRE(TestType::chunk_index(*b, bytes(ops::payload(*b, i)) + r) == 0);
  }
  // Pseudo chunks A0, F0, F1, A1 and everything outside the chunk array.
  for (std::uint32_t i : {0u, 1u, cap + 2, cap + 3, cap + 4})
    CHECK(TestType::chunk_index(*b, ops::payload(*b, i)) == 0);
  CHECK(TestType::chunk_index(*b, b) == 0);
  CHECK(TestType::chunk_index(*b, b->chunks_ - ops::stride) == 0);
  CHECK(TestType::chunk_index(*b, nullptr) == 0);
  // Addresses past the chunk array and below it, at chunk starts and
  // between them, up to offsets whose quotient by the stride no longer
  // fits in 32 bits (chunk_index divides by the stride exactly, with a
  // multiply and a rotate: a remainder must never pass as an index).
  const auto at_offset = [&](std::uintptr_t d) {
    return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(b->chunks_) + d);
  };
  for (std::uintptr_t k : {std::uintptr_t{cap} + 4, std::uintptr_t{1} << 20, std::uintptr_t{1} << 31,
                           std::uintptr_t{1} << 32, (std::uintptr_t{1} << 32) + 2, ~std::uintptr_t{0} / ops::stride})
    for (std::uintptr_t r : {std::uintptr_t{0}, std::uintptr_t{1}, std::uintptr_t{ops::stride - 1}}) {
      CHECK(TestType::chunk_index(*b, at_offset(k * ops::stride + r)) == 0);
      CHECK(TestType::chunk_index(*b, at_offset(0 - k * ops::stride - r)) == 0);
    }
  for (std::uintptr_t d = 1; d < 64 * ops::stride; ++d)  // just below chunks_
    CHECK(TestType::chunk_index(*b, at_offset(0 - d)) == 0);
  s.link(b);
  s.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: unlink takes a bin off the list and the directory, unmap_bin gives its span back",
                   "[storage]", STORAGE_TYPES) {
  TestType s(100);
  td::bin_base* b[3];
  for (auto& p : b) s.link(p = s.make_bin());
  td::bin_base* mid = b[1];
  s.unlink(mid);
  CHECK(s.bin_count() == 2);
  CHECK(listed(s) == std::vector<td::bin_base*>{b[0], b[2]});
  CHECK(b[0]->next_ == b[2]);
  CHECK(b[2]->prev_ == b[0]);
  CHECK(s.find(mid) == nullptr);
  CHECK(s.find(bytes(mid) + s.span() - 1) == nullptr);
  CHECK(s.find(b[0]) == b[0]);
  CHECK(s.find(b[2]) == b[2]);
  validate(s);

  // The span goes to the process's span cache (or back on top of this
  // storage's source): the next bin is made in it, initialised afresh.
  for (int k = 0; k < 5; ++k) TestType::algo::create(*mid);  // dirty it
  s.unmap_bin(mid);
  td::bin_base* again = s.make_bin();
  CHECK(again == mid);
  CHECK(again->live_ == 0);
  CHECK(again->fresh_ == td::first_user_chunk);
  CHECK(s.find(again) == again);
  s.link(again);
  CHECK(listed(s) == std::vector<td::bin_base*>{b[0], b[2], again});  // appended at the end
  validate(s);
  s.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: release_all visits every listed bin once, in order, then gives all back", "[storage]",
                   STORAGE_TYPES) {
  TestType s(50);
  std::vector<td::bin_base*> made;
  for (int k = 0; k < 4; ++k) {
    made.push_back(s.make_bin());
    s.link(made.back());
    for (int j = 0; j < k; ++j) TestType::algo::create(*made.back());
  }
  std::vector<td::bin_base*> visited;
  bool registered_while_visited = true;
  s.release_all([&](td::bin_base& b) {
    visited.push_back(&b);
    registered_while_visited &= s.find(&b) == &b;
  });
  CHECK(visited == made);
  CHECK(registered_while_visited);
  CHECK(s.bin_count() == 0);
  CHECK(s.first() == s.root());
  CHECK(s.root()->prev_ == s.root());
  for (td::bin_base* b : made) CHECK(s.find(b) == nullptr);
  validate(s);
  // The storage stays usable.
  td::bin_base* b = s.make_bin();
  s.link(b);
  CHECK(s.bin_count() == 1);
  validate(s);
  s.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: steal moves the bins and the identity, the victim is empty with a new id", "[storage]",
                   STORAGE_TYPES) {
  TestType a(40), b(40);
  std::vector<td::bin_base*> made;
  for (int k = 0; k < 3; ++k) {
    made.push_back(a.make_bin());
    a.link(made.back());
    TestType::algo::create(*made.back());
  }
  const std::uint64_t a_id = a.id(), b_id = b.id();
  b.steal(a);
  CHECK(b.id() == a_id);  // the bins' owner_ and directory entries stay valid
  CHECK(a.id() != a_id);
  CHECK(a.id() != b_id);
  CHECK(a.id() != 0);
  CHECK(b.bin_count() == 3);
  CHECK(a.bin_count() == 0);
  CHECK(a.first() == a.root());
  CHECK(a.root()->prev_ == a.root());
  CHECK(listed(b) == made);
  CHECK(made.front()->prev_ == b.root());
  CHECK(made.back()->next_ == b.root());
  for (td::bin_base* bin : made) {
    CHECK(b.find(bin) == bin);
    CHECK(a.find(bin) == nullptr);
  }
  validate(a);
  validate(b);

  // Stealing an empty storage leaves an empty list, not a dangling one.
  TestType c(40);
  c.steal(a);
  CHECK(c.bin_count() == 0);
  CHECK(c.first() == c.root());
  CHECK(c.root()->prev_ == c.root());
  validate(c);

  // The victim can make bins again, under its new id.
  td::bin_base* fresh = a.make_bin();
  a.link(fresh);
  CHECK(fresh->owner_ == a.id());
  CHECK(a.find(fresh) == fresh);
  CHECK(b.find(fresh) == nullptr);
  validate(a);
  a.release_all([](td::bin_base&) {});
  b.release_all([](td::bin_base&) {});
}

TEMPLATE_TEST_CASE("bin_storage: splice brings bins of other capacities which keep their spans and the totals add up",
                   "[storage]", STORAGE_TYPES) {
  using ops = typename TestType::ops;
  using traits = td::layout_traits<ops>;
  // 60 chunks: one granule; the big capacity: a span of 4 granules.
  const std::uint32_t big = [] {
    std::uint32_t c = 60;
    while (TestType::span_for(c) < 4 * td::bin_directory::granule) c *= 2;
    return c;
  }();
  TestType s(60), o(big);
  CHECK(TestType::span_for(60) == s.span());
  CHECK(TestType::span_for(big) == o.span());
  CHECK(TestType::span_for(big) == std::bit_ceil(traits::bin_bytes(big)));
  td::bin_base* small_bin = s.make_bin();
  s.link(small_bin);
  td::bin_base* large[2];
  for (auto& p : large) {
    o.link(p = o.make_bin());
    TestType::algo::create(*p);
  }
  CHECK(o.chunk_count() == 2 * std::size_t{big});
  CHECK(o.span_bytes() == 2 * o.span());
  CHECK(s.splice(o) == 2);
  CHECK(o.bin_count() == 0);
  CHECK(o.chunk_count() == 0);
  CHECK(o.span_bytes() == 0);
  CHECK(s.capacity() == 60);  // of the bins s makes
  CHECK(s.bin_count() == 3);
  CHECK(s.chunk_count() == 60 + 2 * std::size_t{big});
  CHECK(s.span_bytes() == s.span() + 2 * o.span());
  CHECK(listed(s) == std::vector<td::bin_base*>{small_bin, large[0], large[1]});
  validate(s);
  for (td::bin_base* b : large) {
    CHECK(b->capacity_ == big);
    CHECK(s.span_of(*b) == o.span());
    CHECK(reinterpret_cast<std::uintptr_t>(b) % s.span_of(*b) == 0);
    for (std::size_t g = 0; g < s.span_of(*b); g += td::bin_directory::granule) {
      CHECK(s.find(bytes(b) + g) == b);
      CHECK(o.find(bytes(b) + g) == nullptr);
    }
    CHECK(s.find(bytes(b) + s.span_of(*b)) != b);
  }
  CHECK(s.span_of(*small_bin) == s.span());
  // Unlinking a large bin unregisters its whole span, and its span goes
  // back as a span of its own size: o's next bin may be made in it.
  s.unlink(large[0]);
  for (std::size_t g = 0; g < o.span(); g += td::bin_directory::granule) CHECK(s.find(bytes(large[0]) + g) == nullptr);
  CHECK(s.chunk_count() == 60 + std::size_t{big});
  CHECK(s.span_bytes() == s.span() + o.span());
  validate(s);
  s.unmap_bin(large[0]);
  td::bin_base* again = o.make_bin();
  CHECK(again->capacity_ == big);
  o.link(again);
  validate(o);
  // New bins of s have s's capacity.
  td::bin_base* fresh = s.make_bin();
  s.link(fresh);
  CHECK(fresh->capacity_ == 60);
  validate(s);
  s.release_all([](td::bin_base&) {});
  o.release_all([](td::bin_base&) {});
  CHECK(s.chunk_count() == 0);
  CHECK(s.span_bytes() == 0);
}

TEST_CASE("bin_storage with counting_stats: bins added and removed, counters merged when a bin goes",
          "[storage][stats]") {
  using storage = checked<td::bin_storage<td::compact_layout<16, 8>, td::counting_stats, false>>;
  storage s(10);
  td::bin_base* b[3];
  for (auto& p : b) s.link(p = s.make_bin());
  // What the acquisition layer reports: 4 creates in b[0], 2 in b[1], one
  // destroy in b[1]; the pool's live count peaks at 6.
  std::size_t live = 0;
  for (int k = 0; k < 4; ++k) storage::algo::create(*b[0]), s.stats_hooks().on_create(*b[0], ++live);
  for (int k = 0; k < 2; ++k) storage::algo::create(*b[1]), s.stats_hooks().on_create(*b[1], ++live);
  storage::algo::release(*b[1], td::first_user_chunk);
  s.stats_hooks().on_destroy(*b[1]);
  --live;
  CHECK(b[0]->counters_.creates == 4);
  CHECK(b[0]->counters_.peak_live == 4);
  CHECK(b[1]->counters_.creates == 2);
  CHECK(b[1]->counters_.destroys == 1);
  CHECK(b[1]->counters_.remote_destroys == 0);  // unclaimed bin

  auto snapshot = [&](bool exact) {
    td::bin_base::counters listed_counters;
    for (td::bin_base* p = s.first(); !p->is_root(); p = p->next_) listed_counters += p->counters_;
    travpool::pool_stats st;
    s.stats_hooks().merge(st, listed_counters, exact);
    return st;
  };
  travpool::pool_stats st = snapshot(true);
  CHECK(st.creates == 6);
  CHECK(st.destroys == 1);
  CHECK(st.bins_allocated == 3);
  CHECK(st.bins_released == 0);
  CHECK(st.peak_live == 6);

  // Removing b[1] folds its counters into the totals and zeroes them.
  s.unlink(b[1]);
  CHECK(b[1]->counters_.creates == 0);
  CHECK(b[1]->counters_.destroys == 0);
  s.unmap_bin(b[1]);
  st = snapshot(true);
  CHECK(st.creates == 6);  // nothing lost with the bin
  CHECK(st.destroys == 1);
  CHECK(st.bins_allocated == 3);
  CHECK(st.bins_released == 1);
  CHECK(st.peak_live == 6);
  // Without an exact count, the peak is the sum of the per-bin peaks.
  CHECK(snapshot(false).peak_live == 4 + 2);

  // steal hands the totals over and leaves fresh ones behind.
  storage t(10);
  t.steal(s);
  travpool::pool_stats moved;
  td::bin_base::counters listed_counters;
  for (td::bin_base* p = t.first(); !p->is_root(); p = p->next_) listed_counters += p->counters_;
  t.stats_hooks().merge(moved, listed_counters, true);
  CHECK(moved.creates == 6);
  CHECK(moved.bins_allocated == 3);
  CHECK(moved.bins_released == 1);
  CHECK(snapshot(true).creates == 0);
  CHECK(snapshot(true).bins_allocated == 0);
  t.release_all([](td::bin_base&) {});
}
