// Bin spans from a user's allocator: the storage layer over
// allocator_spans, with allocators that honour the granule's alignment,
// one that ignores it, one that runs out, and a memory resource.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <vector>

// libc++ before 16 has no <memory_resource>.
#if __has_include(<memory_resource>)
#include <memory_resource>
#define TRAVPOOL_TEST_HAS_PMR 1
#endif

#include <catch2/catch.hpp>

#include <travpool/detail/allocator_spans.hpp>
#include <travpool/detail/bin_algorithms.hpp>
#include <travpool/detail/bin_directory.hpp>
#include <travpool/detail/bin_storage.hpp>
#include <travpool/detail/layout_compact.hpp>
#include <travpool/detail/layout_interleaved.hpp>
#include <travpool/detail/stats_hooks.hpp>
#include <travpool/detail/validate.hpp>

namespace {

namespace td = travpool::detail;
constexpr std::size_t granule = td::bin_directory::granule;

// What every allocator below has handed out and not got back: address ->
// bytes, shared by the copies of one allocator (and its rebinds).
struct ledger {
  std::map<std::uintptr_t, std::size_t> out;
  std::size_t allocations = 0;
  // Returns: the allocations of at least a granule (spans) not given back.
  std::size_t spans_out() const {
    std::size_t n = 0;
    for (const auto& [where, bytes] : out) n += bytes >= granule;
    return n;
  }
  std::size_t bad_deallocations = 0;  // of memory not handed out, or of another size
  int fail_after = -1;                // allocations that succeed before one throws; -1: all
};

// An allocator that records its allocations in a ledger. Ignoring
// alignment, it returns memory 16 bytes past a granule boundary (never
// aligned to more than 16), as an allocator may that does not support
// extended alignment.
template <class T, bool IgnoreAlignment = false>
struct recording_allocator {
  using value_type = T;
  ledger* book;
  explicit recording_allocator(ledger* l) noexcept : book(l) {}
  template <class U>
  recording_allocator(const recording_allocator<U, IgnoreAlignment>& o) noexcept : book(o.book) {}
  template <class U>
  struct rebind {
    using other = recording_allocator<U, IgnoreAlignment>;
  };

  T* allocate(std::size_t n) {
    if (book->fail_after == 0) throw std::bad_alloc();
    if (book->fail_after > 0) --book->fail_after;
    const std::size_t bytes = n * sizeof(T);
    void* p = nullptr;
    if constexpr (IgnoreAlignment) {
      p = static_cast<std::byte*>(::operator new (bytes + 16, std::align_val_t{granule})) + 16;
    } else {
      p = ::operator new (bytes, std::align_val_t{alignof(T)});
    }
    book->out.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
    ++book->allocations;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const auto it = book->out.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == book->out.end() || it->second != n * sizeof(T)) {
      ++book->bad_deallocations;  // kept, not freed: the test fails below
      return;
    }
    book->out.erase(it);
    if constexpr (IgnoreAlignment)
      ::operator delete (reinterpret_cast<std::byte*>(p) - 16, std::align_val_t{granule});
    else
      ::operator delete (p, std::align_val_t{alignof(T)});
  }
  template <class U>
  bool operator==(const recording_allocator<U, IgnoreAlignment>& o) const noexcept {
    return book == o.book;
  }
};

template <class Ops, class Alloc>
using storage_of = td::bin_storage<Ops, td::no_stats, false, td::allocator_spans<Alloc>>;

// validate_bins also checks the acquisition layer's lists; the storage
// alone has none.
template <class Storage>
struct checked : Storage {
  using Storage::Storage;
  const char* check_lists() const noexcept { return nullptr; }
};

template <class Storage>
void validate(const Storage& s) {
  std::size_t live = 0;
  for (const td::bin_base* b = s.first(); !b->is_root(); b = b->next_) live += b->live_;
  td::validate_bins<typename Storage::ops>(s, live);
}

std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }

// Makes `count` bins of capacities caps[k % caps.size()] in s, with
// creates in each, checks what the directory and the allocator say.
template <class Storage>
std::vector<td::bin_base*> fill(Storage& s, const std::vector<std::uint32_t>& caps, int count) {
  std::vector<td::bin_base*> made;
  for (int k = 0; k < count; ++k) {
    s.set_capacity(caps[static_cast<std::size_t>(k) % caps.size()]);
    td::bin_base* b = s.make_bin();
    s.link(b);
    made.push_back(b);
    for (int j = 0; j <= k % 5; ++j) Storage::algo::create(*b);
  }
  return made;
}

template <class Storage>
void check_spans(const Storage& s, const std::vector<td::bin_base*>& made) {
  for (td::bin_base* b : made) {
    const std::size_t span = s.span_of(*b);
    REQUIRE(reinterpret_cast<std::uintptr_t>(b) % granule == 0);
    for (std::size_t g = 0; g < span; g += granule) REQUIRE(s.find(bytes(b) + g) == b);
    REQUIRE(s.find(bytes(b) + span - 1) == b);
    for (std::uint32_t i = td::first_user_chunk; i < b->fresh_; ++i) REQUIRE(s.find(Storage::ops::payload(*b, i)) == b);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("allocator_spans: bins come from the allocator, aligned to the granule, and all go back",
                   "[allocator_spans][storage]", (td::compact_layout<16, 8>), (td::interleaved_layout<24, 8>)) {
  ledger book;
  using alloc = recording_allocator<std::byte>;
  {
    checked<storage_of<TestType, alloc>> s(100, alloc(&book));
    CHECK(s.spans().allocator() == alloc(&book));
    CHECK(book.allocations == 0);  // nothing ahead of need
    // Capacities of one granule, and of 2 and 8 granules.
    const std::uint32_t two = [&] {
      std::uint32_t c = 100;
      while (decltype(s)::span_for(c) < 2 * granule) c *= 2;
      return c;
    }();
    const auto made = fill(s, {100, two, 4 * two}, 12);
    CHECK(book.allocations == 12);
    CHECK(book.out.size() == 12);
    std::size_t held = 0;
    for (const auto& [where, n] : book.out) held += n;
    CHECK(held == s.span_bytes());  // exactly the spans: the allocator honoured the alignment
    check_spans(s, made);
    validate(s);
    // A bin given back goes back to the allocator at once.
    s.unlink(made[4]);
    s.unmap_bin(made[4]);
    CHECK(book.out.size() == 11);
    CHECK(s.find(made[4]) == nullptr);
    validate(s);
    s.release_all([](td::bin_base&) {});
    CHECK(book.out.empty());
    CHECK(book.bad_deallocations == 0);
  }
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("allocator_spans: an allocator that ignores the alignment: the aligned span inside one granule more",
          "[allocator_spans][storage]") {
  ledger book;
  using alloc = recording_allocator<std::byte, true>;
  checked<storage_of<td::compact_layout<16, 8>, alloc>> s(100, alloc(&book));
  const auto made = fill(s, {100, 20000, 5000}, 9);
  // Each bin: one misaligned allocation given back at once, then one of a
  // granule more, kept.
  CHECK(book.allocations == 18);
  CHECK(book.spans_out() == 9);
  CHECK(book.out.size() == 9);
  for (td::bin_base* b : made) {
    const auto it = book.out.upper_bound(reinterpret_cast<std::uintptr_t>(b));
    REQUIRE(it != book.out.begin());
    const auto& [start, n] = *std::prev(it);
    CHECK(start < reinterpret_cast<std::uintptr_t>(b));
    CHECK(n == s.span_of(*b) + granule);
    CHECK(reinterpret_cast<std::uintptr_t>(b) + s.span_of(*b) <= start + n);  // the span lies inside
  }
  check_spans(s, made);
  validate(s);
  s.unlink(made[0]);
  s.unmap_bin(made[0]);
  CHECK(book.spans_out() == 8);
  CHECK(book.out.size() == 8);
  s.release_all([](td::bin_base&) {});
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("allocator_spans: small bins: exact allocations outside the directory, 16 at most, then granule spans",
          "[allocator_spans][storage]") {
  ledger book;
  using alloc = recording_allocator<std::byte>;
  using S = td::bin_storage<td::compact_layout<16, 8>, td::no_stats, false, td::allocator_spans<alloc, true>>;
  STATIC_REQUIRE(S::small_bins);
  STATIC_REQUIRE(S::small_capacity(100));
  STATIC_REQUIRE(!S::small_capacity(5000));  // above 32 KiB: a granule span
  {
    checked<S> s(100, alloc(&book));
    const auto made = fill(s, {100, 40}, 20);
    CHECK(s.small_bin_count() == S::max_small_bins);
    std::size_t small = 0;
    for (td::bin_base* b : made) {
      if (S::is_small(*b)) {
        ++small;
        CHECK(s.span_of(*b) == S::small_bytes(b->capacity_));
        CHECK(s.span_of(*b) < granule);
        CHECK(td::bin_directory::find(b, s.id()) == nullptr);  // not registered
      } else {
        CHECK(reinterpret_cast<std::uintptr_t>(b) % granule == 0);
        CHECK(s.span_of(*b) == granule);
      }
      for (std::uint32_t i = td::first_user_chunk; i < b->fresh_; ++i) REQUIRE(s.find(S::ops::payload(*b, i)) == b);
    }
    CHECK(small == S::max_small_bins);
    for (std::size_t k = 0; k < S::max_small_bins; ++k) CHECK(S::is_small(*made[k]));  // the first ones
    std::size_t held = 0;
    for (const auto& [where, n] : book.out) held += n;
    CHECK(held == s.span_bytes());
    validate(s);
    // A small bin given back: off the list, its memory back; the next bin
    // made is small again.
    s.unlink(made[3]);
    s.unmap_bin(made[3]);
    CHECK(s.find(S::ops::payload(*made[4], td::first_user_chunk)) == made[4]);
    CHECK(s.small_bin_count() == S::max_small_bins - 1);
    s.set_capacity(100);
    td::bin_base* again = s.make_bin();
    s.link(again);
    CHECK(S::is_small(*again));
    validate(s);
    // Another storage takes them all (steal), then gives them back.
    checked<S> t(100, alloc(&book));
    t.steal(s);
    CHECK(t.small_bin_count() == S::max_small_bins);
    CHECK(s.small_bin_count() == 0);
    validate(t);
    t.release_all([](td::bin_base&) {});
    CHECK(book.out.empty());
  }
  CHECK(book.bad_deallocations == 0);
}

TEST_CASE("allocator_spans: an allocator that throws: make_bin throws, nothing is held", "[allocator_spans][storage]") {
  ledger book;
  using alloc = recording_allocator<std::byte>;
  checked<storage_of<td::compact_layout<16, 8>, alloc>> s(100, alloc(&book));
  book.fail_after = 2;
  const auto made = fill(s, {100}, 2);
  CHECK_THROWS_AS(s.make_bin(), std::bad_alloc);
  CHECK(s.bin_count() == 2);
  CHECK(book.out.size() == 2);
  validate(s);
  // The misaligned path's second allocation may fail too.
  ledger other;
  using loose = recording_allocator<std::byte, true>;
  checked<storage_of<td::compact_layout<16, 8>, loose>> t(100, loose(&other));
  other.fail_after = 1;
  CHECK_THROWS_AS(t.make_bin(), std::bad_alloc);
  CHECK(other.out.empty());
  CHECK(other.bad_deallocations == 0);
  CHECK(t.bin_count() == 0);
  s.release_all([](td::bin_base&) {});
  CHECK(book.out.empty());
  CHECK(book.bad_deallocations == 0);
}

#if defined(TRAVPOOL_TEST_HAS_PMR)
TEST_CASE("allocator_spans: a polymorphic allocator passes the alignment to its memory resource",
          "[allocator_spans][storage]") {
  struct counting_resource : std::pmr::memory_resource {
    std::size_t bytes = 0, calls = 0;
    std::size_t max_align = 0;
    void* do_allocate(std::size_t n, std::size_t align) override {
      bytes += n, ++calls, max_align = std::max(max_align, align);
      return std::pmr::new_delete_resource()->allocate(n, align);
    }
    void do_deallocate(void* p, std::size_t n, std::size_t align) override {
      bytes -= n;
      std::pmr::new_delete_resource()->deallocate(p, n, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
  } resource;
  using alloc = std::pmr::polymorphic_allocator<std::byte>;
  {
    checked<storage_of<td::compact_layout<16, 8>, alloc>> s(3000, alloc(&resource));
    CHECK(s.spans().allocator().resource() == &resource);
    const auto made = fill(s, {3000}, 5);
    CHECK(resource.calls == 5);
    CHECK(resource.bytes == 5 * s.span());
    CHECK(resource.max_align == granule);
    check_spans(s, made);
    validate(s);
    s.release_all([](td::bin_base&) {});
  }
  CHECK(resource.bytes == 0);
}
#endif
