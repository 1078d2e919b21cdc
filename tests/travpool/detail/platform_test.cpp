// The platform layer (travpool/detail/platform.hpp) on its own: aligned
// mappings, dropping pages, reservations, the thread-exit hook. On Windows
// also: no travpool header includes <windows.h>, and travpool's own
// declarations of kernel32 (platform.hpp, namespace win32) agree with the
// SDK's and coexist with them in one translation unit (here travpool's
// headers come first; span_cache_test.cpp includes <windows.h> first).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include <travpool/allocator.hpp>
#include <travpool/pool.hpp>

#if defined(_WIN32)
#if defined(_WINDOWS_) || defined(WINAPI) || defined(min) || defined(max)
#error "a travpool header included <windows.h>"
#endif
#include <windows.h>

#include <cstddef>  // offsetof
namespace tw = travpool::detail::win32;
static_assert(tw::mem_commit == MEM_COMMIT && tw::mem_reserve == MEM_RESERVE && tw::mem_decommit == MEM_DECOMMIT &&
              tw::mem_release == MEM_RELEASE && tw::mem_reset == MEM_RESET);
static_assert(tw::page_noaccess == PAGE_NOACCESS && tw::page_readwrite == PAGE_READWRITE);
static_assert(tw::fls_out_of_indexes == FLS_OUT_OF_INDEXES);
static_assert(sizeof(tw::system_info) == sizeof(SYSTEM_INFO));
static_assert(offsetof(tw::system_info, page_size) == offsetof(SYSTEM_INFO, dwPageSize));
static_assert(offsetof(tw::system_info, allocation_granularity) == offsetof(SYSTEM_INFO, dwAllocationGranularity));
static_assert(offsetof(tw::system_info, processor_revision) == offsetof(SYSTEM_INFO, wProcessorRevision));
static_assert(sizeof(tw::srw_lock) == sizeof(SRWLOCK) && alignof(tw::srw_lock) == alignof(SRWLOCK));
#endif

#include <catch2/catch.hpp>

#include <travpool/detail/platform.hpp>

namespace td = travpool::detail;

namespace {
bool all_zero(const std::byte* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (p[i] != std::byte{0}) return false;
  return true;
}
}  // namespace

TEST_CASE("platform: the page size is a power of two of at least 4 KiB", "[platform]") {
  const std::size_t page = td::page_size();
  CHECK(page >= td::min_page_size);
  CHECK((page & (page - 1)) == 0);
#if defined(_WIN32)
  SYSTEM_INFO info;
  ::GetSystemInfo(&info);
  CHECK(page == info.dwPageSize);
  CHECK(td::allocation_granularity() == info.dwAllocationGranularity);
#endif
}

TEST_CASE("platform: huge page advice works where the kernel's transparent huge page is 2 MiB", "[platform]") {
#if TRAVPOOL_LINUX_KERNEL
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  std::size_t bytes = 0;
  if (f) {
    f >> bytes;
  } else if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    bytes = td::huge_page_bytes;  // a kernel before hpage_pmd_size: 2 MiB with 4 KiB pages
  }
  CAPTURE(bytes, td::page_size());
  CHECK(td::huge_page_advice_works() == (bytes == td::huge_page_bytes && td::page_size() == 4096));
#else
  CHECK_FALSE(td::huge_page_advice_works());  // no THP advice in this branch
#endif
}

TEST_CASE("platform: map_aligned gives zeroed, aligned, writable memory", "[platform]") {
  for (std::size_t align :
       {std::size_t{64} << 10, std::size_t{256} << 10, std::size_t{2} << 20, std::size_t{8} << 20}) {
    INFO("align " << align);
    for (int k = 0; k < 8; ++k) {
      auto* p = static_cast<std::byte*>(td::map_aligned(align));
      REQUIRE(reinterpret_cast<std::uintptr_t>(p) % align == 0);
      CHECK(all_zero(p, align));
      std::memset(p, 0x5a, align);
      td::unmap(p, align);
    }
  }
}

TEST_CASE("platform: advise_dontneed zeroes the range and leaves it usable, advise_free leaves it usable",
          "[platform]") {
  const std::size_t bytes = std::size_t{256} << 10;
  auto* p = static_cast<std::byte*>(td::map_aligned(bytes, std::size_t{64} << 10));
  std::memset(p, 1, bytes);
  const std::size_t page = td::page_size();
  REQUIRE(td::advise_dontneed(p + page, bytes - page));
  CHECK(p[0] == std::byte{1});  // the page before the range keeps its bytes
  CHECK(all_zero(p + page, bytes - page));
  std::memset(p, 2, bytes);
  (void)td::advise_free(p, bytes);  // may be refused (no MADV_FREE): then nothing changes
  p[bytes - 1] = std::byte{3};      // still mapped and writable
  CHECK(p[bytes - 1] == std::byte{3});
  td::unmap(p, bytes);
}

TEST_CASE("platform: a reservation's parts are committed, dropped and committed again as zero", "[platform]") {
  const std::size_t page = td::page_size(), bytes = 64 * page;
  auto* r = static_cast<std::byte*>(td::reserve_range(bytes));
  REQUIRE(td::commit_range(r + 4 * page, 8 * page));
  std::memset(r + 4 * page, 7, 8 * page);
  td::decommit_range(r + 4 * page, 4 * page);
  CHECK(r[8 * page] == std::byte{7});  // the rest stays committed
  REQUIRE(td::commit_range(r + 4 * page, 4 * page));
  CHECK(all_zero(r + 4 * page, 4 * page));
  td::release_range(r, bytes);
}

namespace {
std::atomic<int> exits{0};
void count_exit(void* p) noexcept {
  if (p == &exits) exits.fetch_add(1);
}
}  // namespace

// The first uses of a fresh lock race: 4 threads start together on it,
// each taking it exclusively (and checking that nobody else is inside) or
// shared (and checking that no writer is), 300 times over. mingw-w64's
// std::shared_mutex let two writers in together in about a quarter of
// such rounds under wine.
TEST_CASE("platform: rw_mutex excludes from its first use", "[platform][threads]") {
  static_assert(!std::is_copy_constructible_v<td::rw_mutex> && !std::is_move_constructible_v<td::rw_mutex>);
  constexpr int rounds = 300, threads = 4, ops = 200;
  int overlaps = 0;
  for (int round = 0; round < rounds; ++round) {
    auto m = std::make_unique<td::rw_mutex>();  // fresh, never locked
    std::atomic<int> inside{0};                 // writers: -1; readers: their count
    std::atomic<int> go{0}, overlap{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        while (go.load() == 0) std::this_thread::yield();
        for (int k = 0; k < ops; ++k) {
          if ((k + t) % 3 == 0) {
            std::shared_lock g(*m);
            if (inside.fetch_add(1) < 0) overlap.fetch_add(1);
            inside.fetch_sub(1);
          } else {
            std::unique_lock g(*m);
            if (inside.exchange(-1) != 0) overlap.fetch_add(1);
            for (int spin = 0; spin < 20; ++spin) td::cpu_relax();
            inside.store(0);
          }
        }
      });
    go.store(1);
    for (auto& th : pool) th.join();
    overlaps += overlap.load();
  }
  CHECK(overlaps == 0);
  // try_lock and try_lock_shared: a writer excludes both, readers share.
  // (Observed on the other thread, checked here.)
  td::rw_mutex m;
  REQUIRE(m.try_lock());
  bool excl = true, shared = true;
  std::thread([&] {
    excl = m.try_lock();
    if (excl) m.unlock();
    shared = m.try_lock_shared();
    if (shared) m.unlock_shared();
  }).join();
  CHECK_FALSE(excl);
  CHECK_FALSE(shared);
  m.unlock();
  REQUIRE(m.try_lock_shared());
  std::thread([&] {
    shared = m.try_lock_shared();
    if (shared) m.unlock_shared();
    excl = m.try_lock();
    if (excl) m.unlock();
  }).join();
  CHECK(shared);
  CHECK_FALSE(excl);
  m.unlock_shared();
  CHECK(m.try_lock());
  m.unlock();
}

TEST_CASE("platform: at_thread_exit runs the hook with its argument when the thread exits", "[platform]") {
  const int before = exits.load();
  bool registered = false;
  std::thread([&] { registered = td::at_thread_exit<&count_exit>(&exits); }).join();
  REQUIRE(registered);
  CHECK(exits.load() == before + 1);
  std::thread([&] { registered = td::at_thread_exit<&count_exit>(nullptr); }).join();  // nothing registered
  CHECK(registered);
  CHECK(exits.load() == before + 1);
}

#if !defined(_WIN32)
namespace {
// Made before the thread's first at_thread_exit, so destroyed after its hook.
struct late_registration {
  bool* registered = nullptr;
  ~late_registration() {
    if (registered != nullptr) *registered = td::at_thread_exit<&count_exit>(&exits);
  }
};
}  // namespace

TEST_CASE("platform: at_thread_exit refuses a hook asked for after the thread's hook ran", "[platform]") {
  const int before = exits.load();
  bool first = false, late = true;
  std::thread([&] {
    thread_local late_registration made_first;
    made_first.registered = &late;
    first = td::at_thread_exit<&count_exit>(&exits);
  }).join();
  CHECK(first);
  CHECK_FALSE(late);                  // nothing would run it
  CHECK(exits.load() == before + 1);  // the first ran, once
}
#endif
