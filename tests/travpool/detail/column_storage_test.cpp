// The reserved columns of a column pool (detail/column_storage.hpp) without
// a pool: what commit and decommit make writable, asked of the kernel
// through /proc/self/maps (Linux; on Windows VirtualQuery; elsewhere the test is skipped).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX  // not <windows.h>'s min and max macros: std::min and std::max
#endif
#include <windows.h>
#endif

#include <catch2/catch.hpp>

#include <travpool/detail/column_storage.hpp>
#include <travpool/detail/platform.hpp>

namespace {

namespace td = travpool::detail;
using addr = std::uintptr_t;
constexpr addr huge = td::huge_page_bytes;

// Returns: the mapping of /proc/self/maps that holds a: {start, end, perms},
// or {0, 0, ""} if none (or no /proc). On Windows: VirtualQuery's region
// (pages of one reservation with the same state), perms "rw-p" if
// committed read-write, else "---p".
struct mapping {
  addr start = 0, end = 0;
  std::string perms;
};
mapping mapping_of(addr a) {
#if defined(_WIN32)
  // VirtualQuery's region starts at the page asked about: walk the
  // reservation's regions from its base, merging runs of one kind.
  MEMORY_BASIC_INFORMATION info{};
  if (::VirtualQuery(reinterpret_cast<const void*>(a), &info, sizeof info) != sizeof info) return {};
  const auto kind = [](const MEMORY_BASIC_INFORMATION& i) {
    return i.State == MEM_COMMIT && i.Protect == PAGE_READWRITE ? "rw-p" : "---p";
  };
  const std::string perms = kind(info);
  addr start = reinterpret_cast<addr>(info.AllocationBase), end = 0;
  for (addr p = start;;) {
    MEMORY_BASIC_INFORMATION r{};
    if (::VirtualQuery(reinterpret_cast<const void*>(p), &r, sizeof r) != sizeof r ||
        r.AllocationBase != info.AllocationBase)
      break;
    const addr next = reinterpret_cast<addr>(r.BaseAddress) + r.RegionSize;
    if (kind(r) != perms) {
      if (p > a) break;  // the run holding a ends here
      start = next;      // a run of the other kind, before a
    } else if (next > a) {
      end = next;  // the region holding a, or one of the same kind after it
    }
    p = next;
  }
  return {start, end, perms};
#endif
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms;
    in >> range >> perms;
    const auto dash = range.find('-');
    const addr s = std::stoull(range.substr(0, dash), nullptr, 16),
               e = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (s <= a && a < e) return {s, e, perms};
  }
  return {};
}
bool writable(addr a) { return mapping_of(a).perms.rfind("rw", 0) == 0; }

}  // namespace

TEST_CASE("column_storage: commit makes every 2 MiB granule of the block writable, decommit its own pages only",
          "[column_storage]") {
  if (mapping_of(reinterpret_cast<addr>(&huge)).end == 0) {
    WARN("skipped: no /proc/self/maps");
    return;
  }
  // Blocks of 16384 x 24 B = 384 KiB: several pages of their own, with the
  // system's pages of 4 to 64 KiB.
  constexpr std::uint32_t slots = 16384, bins = 64;
  td::typed_column<std::array<double, 3>> c("xyz", {1, 2, 3}, slots, bins, 5);
  const addr page = td::page_size();
  const addr base = reinterpret_cast<addr>(c.base());
  const addr block = slots * 24;
  auto at = [&](std::uint32_t q) { return base + q * block; };
  // The reservation: bins blocks and 4 KiB for the offset, from base minus
  // its offset.
  const addr lo = base / page * page, hi = lo + bins * block + td::min_page_size;
  CHECK(base % page == (5 * 7 % 64) * 64);  // staggered
  CHECK_FALSE(writable(at(20)));

  const std::uint32_t q = 20;
  REQUIRE(c.commit(q));
  const addr first = std::max(lo, at(q) / huge * huge), last = std::min(hi, (at(q + 1) + huge - 1) / huge * huge);
  INFO("block " << std::hex << at(q) << " - " << at(q + 1) << ", granules " << first << " - " << last);
  const mapping m = mapping_of(at(q));
  CHECK(m.perms.rfind("rw", 0) == 0);
  CHECK(m.start <= first);  // the whole granule range is one writable mapping
  CHECK(m.end >= last);
  const std::uint32_t mid = q * slots + slots / 2;  // an element on a page of block q only
  c.data()[q * slots][0] = 42;
  c.data()[mid][0] = 43;

  // A neighbour in the same granule commits and decommits: q's pages stay
  // writable and keep their contents.
  const std::uint32_t n = q + 1;
  REQUIRE(c.commit(n));
  c.decommit(n);
  CHECK(writable(at(q)));
  CHECK(writable(at(q + 1) - 1));  // q's last byte (its page may be shared with n)
  CHECK(c.data()[q * slots][0] == 42);
  CHECK(c.data()[mid][0] == 43);
  // n's own pages (those not shared with q) are inaccessible again.
  const addr own = (at(n) + page - 1) / page * page;
  CHECK_FALSE(writable(own));

  // Decommitting q drops its own pages: committed again, they read zero.
  c.decommit(q);
  CHECK_FALSE(writable((at(q) + page - 1) / page * page));
  REQUIRE(c.commit(q));
  CHECK(c.data()[mid][0] == 0);
}
