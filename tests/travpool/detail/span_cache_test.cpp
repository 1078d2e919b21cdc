// The process-wide span cache and a pool's span source, without pools.
// The cache is a singleton: every test starts from an empty cache at the
// default limit and restores both (cache_guard). Whether a span is still
// mapped is asked of the kernel with mincore(2) (on Windows, VirtualQuery).
// Where a mapping cannot be released in part (Windows), a source's batches
// are one span each, and the tests of batches say they are skipped.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/mman.h>
#endif

#include <catch2/catch.hpp>

#include <travpool/config.hpp>
#include <travpool/detail/platform.hpp>
#include <travpool/detail/span_cache.hpp>

namespace {

namespace td = travpool::detail;
constexpr std::size_t k64 = std::size_t{64} << 10;

td::span_cache& cache() { return td::span_cache::instance(); }

// Returns: whether the page holding p is mapped.
bool is_mapped(const void* p) {
#if defined(_WIN32)
  MEMORY_BASIC_INFORMATION info{};
  return ::VirtualQuery(p, &info, sizeof info) == sizeof info && info.State == MEM_COMMIT;
#else
  unsigned char vec;
  auto a = reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{td::page_size()} - 1);
  // Length 1: one status byte for the page, whatever the page size (an
  // emulator with larger pages than its host's would write several).
  return ::mincore(reinterpret_cast<void*>(a), 1, &vec) == 0;
#endif
}

bool aligned(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

std::byte* map(std::size_t span) { return static_cast<std::byte*>(td::map_aligned(span)); }

// Empties the cache and checks the limit is the default (so every earlier
// test restored it); at exit, empties it again and restores the limit.
struct cache_guard {
  cache_guard() {
    CHECK(cache().limit() == TRAVPOOL_SPAN_CACHE_BYTES);
    cache().trim(0);
    REQUIRE(cache().bytes() == 0);
  }
  ~cache_guard() {
    cache().set_limit(TRAVPOOL_SPAN_CACHE_BYTES);
    cache().trim(0);
  }
  cache_guard(const cache_guard&) = delete;
  cache_guard& operator=(const cache_guard&) = delete;
};

}  // namespace

TEST_CASE("span_cache: put and take round trip, by size, last cached first", "[span_cache]") {
  cache_guard guard;
  CHECK(cache().take(k64) == nullptr);

  std::byte* a = map(k64);
  std::byte* b = map(2 * k64);
  std::byte* c = map(k64);
  REQUIRE(cache().put(a, k64));
  CHECK(cache().bytes() == k64);
  REQUIRE(cache().put(b, 2 * k64));
  REQUIRE(cache().put(c, k64));
  CHECK(cache().bytes() == 4 * k64);

  CHECK(cache().take(4 * k64) == nullptr);  // no span of that size
  CHECK(cache().take(k64) == c);            // the one cached last
  CHECK(cache().take(k64) == a);
  CHECK(cache().take(k64) == nullptr);
  CHECK(cache().bytes() == 2 * k64);
  CHECK(cache().take(2 * k64) == b);
  CHECK(cache().bytes() == 0);

  // Cached spans stay mapped and writable (their old bytes are unspecified).
  for (std::byte* p : {a, b, c}) {
    REQUIRE(is_mapped(p));
    p[0] = std::byte{7};
    CHECK(p[0] == std::byte{7});
  }
  td::unmap(a, k64);
  td::unmap(b, 2 * k64);
  td::unmap(c, k64);
}

TEST_CASE("span_cache: a span that does not fit under the limit is refused and stays the caller's", "[span_cache]") {
  cache_guard guard;
  CHECK(cache().set_limit(2 * k64) == TRAVPOOL_SPAN_CACHE_BYTES);  // returns the previous limit
  CHECK(cache().limit() == 2 * k64);

  std::byte* big = map(4 * k64);
  CHECK_FALSE(cache().put(big, 4 * k64));  // larger than the limit
  REQUIRE(is_mapped(big));                 // not unmapped: still the caller's
  big[0] = std::byte{1};
  td::unmap(big, 4 * k64);

  std::byte* a = map(k64);
  std::byte* b = map(k64);
  std::byte* c = map(k64);
  CHECK(cache().put(a, k64));
  CHECK(cache().put(b, k64));
  CHECK_FALSE(cache().put(c, k64));  // the cache is full: 2 x 64 KiB
  CHECK(cache().bytes() == 2 * k64);
  REQUIRE(is_mapped(c));
  td::unmap(c, k64);

  // Lowering the limit trims, oldest first.
  CHECK(cache().set_limit(k64) == 2 * k64);
  CHECK(cache().bytes() == k64);
  CHECK_FALSE(is_mapped(a));
  CHECK(is_mapped(b));
  CHECK(cache().take(k64) == b);
  td::unmap(b, k64);

  // A limit of 0 turns the cache off.
  cache().set_limit(0);
  std::byte* d = map(k64);
  CHECK_FALSE(cache().put(d, k64));
  CHECK(cache().bytes() == 0);
  td::unmap(d, k64);
}

TEST_CASE("span_cache: trim unmaps the oldest spans until at most `keep` bytes remain", "[span_cache]") {
  cache_guard guard;
  CHECK(cache().trim() == 0);  // empty
  std::byte* a = map(k64);
  std::byte* b = map(2 * k64);
  std::byte* c = map(k64);
  REQUIRE(cache().put(a, k64));
  REQUIRE(cache().put(b, 2 * k64));
  REQUIRE(cache().put(c, k64));

  CHECK(cache().trim(4 * k64) == 0);        // already within
  CHECK(cache().trim(3 * k64 + 1) == k64);  // 256 KiB > keep: a goes, 192 KiB remain
  CHECK_FALSE(is_mapped(a));
  CHECK(is_mapped(b));
  CHECK(is_mapped(c));
  CHECK(cache().bytes() == 3 * k64);
  CHECK(cache().trim(2 * k64) == 2 * k64);  // b goes; 64 KiB <= keep
  CHECK_FALSE(is_mapped(b));
  CHECK(is_mapped(c));
  CHECK(cache().trim() == k64);
  CHECK_FALSE(is_mapped(c));
  CHECK(cache().bytes() == 0);
  CHECK(cache().take(k64) == nullptr);
}

TEST_CASE("span_cache: at most max_spans spans are cached", "[span_cache]") {
  cache_guard guard;
  constexpr std::size_t n = td::span_cache::max_spans;
  REQUIRE((n + 1) * k64 <= cache().limit());  // the count binds, not the bytes
  // n + 1 separate 64 KiB spans: one mapping cut in n + 1 where a mapping
  // can be released in part, else n + 1 mappings.
  std::vector<std::byte*> spans(n + 1);
  if constexpr (td::can_unmap_part) {
    auto* region = static_cast<std::byte*>(td::map_aligned((n + 1) * k64, k64));
    for (std::size_t i = 0; i <= n; ++i) spans[i] = region + i * k64;
  } else {
    for (std::byte*& p : spans) p = map(k64);
  }
  for (std::size_t i = 0; i < n; ++i) REQUIRE(cache().put(spans[i], k64));
  std::byte* last = spans[n];
  CHECK_FALSE(cache().put(last, k64));
  CHECK(cache().bytes() == n * k64);
  CHECK(cache().take(k64) == spans[n - 1]);  // one out: one fits again
  CHECK(cache().put(last, k64));
  CHECK(cache().trim() == n * k64);
  CHECK(cache().bytes() == 0);
  CHECK_FALSE(is_mapped(spans[0]));
  CHECK_FALSE(is_mapped(last));
  td::unmap(spans[n - 1], k64);  // the one taken back
}

TEST_CASE("span_source: batches double and spans come out aligned, in address order", "[span_cache][span_source]") {
  cache_guard guard;
  cache().set_limit(0);  // nothing cached: every span comes from the source
  if constexpr (td::span_source::max_batch == 1) {
    // Batches of one span each: each its own mapping, aligned, zero.
    WARN("batches skipped: a mapping cannot be released in part here, so every batch is one span");
    for (std::size_t span : {k64, std::size_t{2} << 20}) {
      td::span_source src;
      for (int k = 0; k < 8; ++k) {
        auto* p = static_cast<std::byte*>(src.take(span));
        REQUIRE(aligned(p, span));
        CHECK(is_mapped(p));
        CHECK(p[span - 1] == std::byte{0});
        td::unmap(p, span);
        CHECK_FALSE(is_mapped(p));
      }
    }
    return;
  }
  for (std::size_t span : {k64, std::size_t{2} << 20}) {
    INFO("span " << span);
    td::span_source src;
    std::vector<std::byte*> got;
    // Batches of 1, 2, 4, 8, 16 spans: 31 takes.
    std::size_t first = 0;
    for (std::size_t batch = 1; batch <= 16; first += batch, batch *= 2) {
      for (std::size_t k = 0; k < batch; ++k) {
        got.push_back(static_cast<std::byte*>(src.take(span)));
        REQUIRE(aligned(got.back(), span));
        if (k == 0) {
          // The whole batch is mapped at its first take.
          for (std::size_t j = 0; j < batch; ++j) REQUIRE(is_mapped(got.back() + j * span));
        } else {
          REQUIRE(got.back() == got[first + k - 1] + span);  // address order within a batch
        }
      }
    }
    for (std::byte* p : got) CHECK(*p == std::byte{0});  // freshly mapped: zero
    for (std::byte* p : got) td::unmap(p, span);
  }
}

TEST_CASE("span_source: give_back of the last span re-uses it, zeroed, other spans are unmapped",
          "[span_cache][span_source]") {
  cache_guard guard;
  cache().set_limit(0);
  td::span_source src;
  auto* a = static_cast<std::byte*>(src.take(k64));  // batch of 1
  a[100] = std::byte{42};
  src.give_back(a, k64);
  REQUIRE(is_mapped(a));  // kept on top of the source
  auto* again = static_cast<std::byte*>(src.take(k64));
  CHECK(again == a);
  CHECK(again[100] == std::byte{0});  // MADV_DONTNEED: zero again
  if constexpr (td::span_source::max_batch == 1) {
    WARN("batches skipped: a mapping cannot be released in part here, so every batch is one span");
    auto* b = static_cast<std::byte*>(src.take(k64));  // its own mapping
    src.give_back(b, k64);                             // the last one taken: kept
    CHECK(is_mapped(b));
    src.release();
    CHECK_FALSE(is_mapped(b));
    td::unmap(a, k64);
    return;
  }

  auto* b = static_cast<std::byte*>(src.take(k64));  // batch of 2: b, b + 64 KiB
  auto* c = static_cast<std::byte*>(src.take(k64));
  REQUIRE(c == b + k64);
  src.give_back(b, k64);  // not the last one taken
  CHECK_FALSE(is_mapped(b));
  src.give_back(c, k64);  // the last one
  CHECK(is_mapped(c));
  CHECK(src.take(k64) == c);

  // release() unmaps what was mapped but not handed out.
  auto* d = static_cast<std::byte*>(src.take(k64));  // first of a batch of 4
  REQUIRE(is_mapped(d + 3 * k64));
  src.release();
  CHECK(is_mapped(d));
  for (std::size_t j = 1; j < 4; ++j) CHECK_FALSE(is_mapped(d + j * k64));
  for (std::byte* p : {a, c, d}) td::unmap(p, k64);
}

TEST_CASE("span_source: spans given back go to the process's cache, where any source takes them first",
          "[span_cache][span_source]") {
  cache_guard guard;
  td::span_source one, other;
  void* p = one.take(k64);
  one.give_back(p, k64);
  CHECK(cache().bytes() == k64);
  CHECK(is_mapped(p));
  CHECK(other.take(k64) == p);  // from the cache, not from a new mapping
  CHECK(cache().bytes() == 0);
  other.give_back(p, k64);  // back to the cache
  CHECK(cache().bytes() == k64);
  CHECK(cache().trim() == k64);
  CHECK_FALSE(is_mapped(p));
}

TEST_CASE("span_source: a different span size starts a new reservation", "[span_cache][span_source]") {
  cache_guard guard;
  cache().set_limit(0);
  if constexpr (td::span_source::max_batch == 1) {
    WARN("skipped: a mapping cannot be released in part here, so every batch is one span (no reservation is kept)");
    return;
  }
  td::span_source src;
  auto* a = static_cast<std::byte*>(src.take(k64));
  auto* b = static_cast<std::byte*>(src.take(k64));  // batch of 2: b + 64 KiB is reserved
  REQUIRE(is_mapped(b + k64));
  auto* big = static_cast<std::byte*>(src.take(4 * k64));
  CHECK(aligned(big, 4 * k64));
  // The old reservation is gone, unless the new batch took its place.
  if (b + k64 < big || b + k64 >= big + 4 * k64) CHECK_FALSE(is_mapped(b + k64));
  // The new size's batches start again at 1: the next take maps a batch of 2.
  auto* big2 = static_cast<std::byte*>(src.take(4 * k64));
  CHECK(aligned(big2, 4 * k64));
  CHECK(big2 != big);
  CHECK(is_mapped(big2 + 4 * k64));
  td::unmap(a, k64);
  td::unmap(b, k64);
  td::unmap(big, 4 * k64);
  td::unmap(big2, 4 * k64);
}
