// The bin directory on its own: registrations of real, naturally aligned
// spans (map_aligned), lookups from every granule, owners, erasure, and
// addresses that belong to no span. Owner ids here are far above any pool's
// (pools count from 1), and every test erases what it registers.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/detail/bin_directory.hpp>
#include <travpool/detail/platform.hpp>

namespace {

namespace td = travpool::detail;
using dir = td::bin_directory;
constexpr std::size_t granule = dir::granule;
constexpr std::uint64_t owner_a = 0xD1'0000'0001, owner_b = 0xD1'0000'0002;

std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }

// A naturally aligned span from the OS, unmapped at scope exit.
struct mapped_span {
  explicit mapped_span(std::size_t n, std::size_t align) : size(n), base(bytes(td::map_aligned(n, align))) {}
  explicit mapped_span(std::size_t n) : mapped_span(n, n) {}
  mapped_span(const mapped_span&) = delete;
  mapped_span& operator=(const mapped_span&) = delete;
  ~mapped_span() { td::unmap(base, size); }
  std::size_t size;
  std::byte* base;
};

// Returns: the addresses the directory must map like `base`: the first and
// last byte of every granule, and the middle of the span.
std::vector<const void*> probes(std::byte* base, std::size_t span) {
  std::vector<const void*> v;
  for (std::size_t g = 0; g < span; g += granule) v.push_back(base + g), v.push_back(base + g + granule - 1);
  v.push_back(base + span / 2 + 8);
  return v;
}

}  // namespace

TEST_CASE("insert maps every granule of a span to its header, erase unmaps every one", "[directory]") {
  for (std::size_t span : {granule, 2 * granule, std::size_t{1} << 20, std::size_t{2} << 20, std::size_t{4} << 20}) {
    INFO("span " << span);
    // Room for the span and one unregistered neighbour on each side.
    mapped_span room(4 * span, span);
    std::byte* base = room.base + span;
    REQUIRE(reinterpret_cast<std::uintptr_t>(base) % span == 0);
    for (const void* p : probes(base, span)) REQUIRE(dir::find(p, owner_a) == nullptr);

    void* header = base;  // what a bin registers: its own start
    dir::insert(base, span, header, owner_a);
    for (const void* p : probes(base, span)) {
      REQUIRE(dir::find(p, owner_a) == header);   // interior addresses map to the header
      REQUIRE(dir::find(p, owner_b) == nullptr);  // another pool never sees it
      REQUIRE(dir::find(p, 0) == nullptr);
    }
    // The neighbours are not part of the span.
    CHECK(dir::find(base - 1, owner_a) == nullptr);
    CHECK(dir::find(base - granule, owner_a) == nullptr);
    CHECK(dir::find(base + span, owner_a) == nullptr);
    CHECK(dir::find(base + 2 * span - 1, owner_a) == nullptr);

    dir::erase(base, span);
    for (const void* p : probes(base, span)) {
      REQUIRE(dir::find(p, owner_a) == nullptr);
      REQUIRE(dir::find(p, 0) == nullptr);  // the slot is empty, not owned by "0"
    }
  }
}

TEST_CASE("a header need not be the span's start, and re-inserting changes header and owner", "[directory]") {
  mapped_span s(2 * granule);
  int tag_a = 0, tag_b = 0;
  dir::insert(s.base, s.size, &tag_a, owner_a);
  CHECK(dir::find(s.base + granule + 5, owner_a) == &tag_a);
  // A retired bin registered again (bin_storage::reregister), here by a
  // different owner: the old owner's lookups fail at once.
  dir::insert(s.base, s.size, &tag_b, owner_b);
  for (const void* p : probes(s.base, s.size)) {
    REQUIRE(dir::find(p, owner_b) == &tag_b);
    REQUIRE(dir::find(p, owner_a) == nullptr);
  }
  dir::erase(s.base, s.size);
  CHECK(dir::find(s.base, owner_b) == nullptr);
}

TEST_CASE("two adjacent spans of different owners do not see each other", "[directory]") {
  const std::size_t span = 2 * granule;
  mapped_span both(2 * span);
  std::byte* left = both.base;
  std::byte* right = both.base + span;
  dir::insert(left, span, left, owner_a);
  dir::insert(right, span, right, owner_b);

  for (const void* p : probes(left, span)) {
    REQUIRE(dir::find(p, owner_a) == left);
    REQUIRE(dir::find(p, owner_b) == nullptr);
  }
  for (const void* p : probes(right, span)) {
    REQUIRE(dir::find(p, owner_b) == right);
    REQUIRE(dir::find(p, owner_a) == nullptr);
  }
  // The boundary byte pair.
  CHECK(dir::find(right - 1, owner_a) == left);
  CHECK(dir::find(right, owner_a) == nullptr);
  CHECK(dir::find(right, owner_b) == right);

  // Erasing one leaves the other intact.
  dir::erase(left, span);
  for (const void* p : probes(left, span)) REQUIRE(dir::find(p, owner_a) == nullptr);
  for (const void* p : probes(right, span)) REQUIRE(dir::find(p, owner_b) == right);
  dir::erase(right, span);
  for (const void* p : probes(right, span)) REQUIRE(dir::find(p, owner_b) == nullptr);
}

TEST_CASE("addresses in no span: null, the stack, the heap, above 48 bits", "[directory]") {
  int on_stack = 0;
  std::vector<int> on_heap(16);
  CHECK(dir::find(nullptr, owner_a) == nullptr);
  CHECK(dir::find(nullptr, 0) == nullptr);
  CHECK(dir::find(&on_stack, owner_a) == nullptr);
  CHECK(dir::find(on_heap.data(), owner_a) == nullptr);
  // Never dereferenced, so any bit pattern is a valid question.
  for (std::uintptr_t a : {std::uintptr_t{1} << 48, (std::uintptr_t{1} << 48) + granule, ~std::uintptr_t{0},
                           std::uintptr_t{0x8000'0000'0000'0000}, std::uintptr_t{0xffff'8000'0000'0000}}) {
    INFO("address " << std::hex << a);
    CHECK(dir::find(reinterpret_cast<const void*>(a), owner_a) == nullptr);
    CHECK(dir::find(reinterpret_cast<const void*>(a), 0) == nullptr);
  }
}

TEST_CASE("a span reaching above 48 bits is refused and maps nothing", "[directory]") {
  // The directory checks the range before touching any leaf, so the span
  // need not exist: nothing is read or written at these addresses.
  const std::uintptr_t top = std::uintptr_t{1} << 48;
  auto* below = reinterpret_cast<void*>(top - granule);
  CHECK_THROWS_AS(dir::insert(below, 2 * granule, below, owner_a), std::bad_alloc);
  CHECK(dir::find(below, owner_a) == nullptr);
  auto* above = reinterpret_cast<void*>(top);
  CHECK_THROWS_AS(dir::insert(above, granule, above, owner_a), std::bad_alloc);
  CHECK(dir::find(above, owner_a) == nullptr);
}

TEST_CASE("a span across a leaf boundary (4 GiB of address space) is mapped in both leaves", "[directory]") {
  // Reserve 8 GiB of address space without memory (PROT_NONE), so that a
  // 4 GiB boundary lies inside it, and register the two granules on either
  // side of it as one span.
  const std::size_t leaf_span = std::size_t{1} << (dir::granule_shift + dir::leaf_bits);
  REQUIRE(leaf_span == std::size_t{4} << 30);
  const std::size_t reserve = 2 * leaf_span;
  void* r = nullptr;
  try {
    r = td::reserve_range(reserve);
  } catch (const std::bad_alloc&) {
    WARN("skipped: cannot reserve 8 GiB of address space");
    return;
  }
  const std::uintptr_t boundary = (reinterpret_cast<std::uintptr_t>(r) + leaf_span) & ~(leaf_span - 1);
  auto* base = reinterpret_cast<std::byte*>(boundary - granule);
  dir::insert(base, 2 * granule, base, owner_a);
  for (const void* p : probes(base, 2 * granule)) REQUIRE(dir::find(p, owner_a) == base);
  CHECK(dir::find(base - 1, owner_a) == nullptr);
  CHECK(dir::find(base + 2 * granule, owner_a) == nullptr);
  dir::erase(base, 2 * granule);
  for (const void* p : probes(base, 2 * granule)) REQUIRE(dir::find(p, owner_a) == nullptr);
  td::release_range(r, reserve);
}
