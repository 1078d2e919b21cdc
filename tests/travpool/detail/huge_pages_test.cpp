// The page policy of fresh spans (detail/huge_pages.hpp, memory.hpp): the
// decision from measured fault costs, the environment variable, the setter,
// the advice that spans and column blocks get (read back from the kernel's
// VmFlags in /proc/self/smaps: hg = MADV_HUGEPAGE, nh = MADV_NOHUGEPAGE),
// and the automatic policy's measurements. No test asserts a time. The
// cases that read the kernel's state back (smaps, mincore) or re-execute
// /proc/self/exe are tagged [host_kernel]: qemu-user shows the emulator's.
#if !defined(_WIN32)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <malloc.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/hive.hpp>
#include <travpool/memory.hpp>
#include <travpool/pool.hpp>

#include "../pool_types.hpp"  // TRAVPOOL_TEST_ASAN

namespace {

namespace td = travpool::detail;
using travpool::huge_pages;
using choice = td::huge_page_choice;

// Restores the policy, the automatic policy's measurements and the span
// cache's limit that a test changed.
struct policy_guard {
  huge_pages policy = travpool::huge_page_policy();
  bool huge = choice::state().huge.load();
  std::uint64_t small = choice::state().small_ns.load();
  std::size_t limit = travpool::span_cache_limit();
  ~policy_guard() {
    travpool::set_huge_page_policy(policy);
    choice::state().huge = huge;
    choice::state().small_ns = small;
    travpool::set_span_cache_limit(limit);
  }
};

// Returns: the VmFlags of the mapping that holds p ("" if none is found).
std::string vm_flags(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}
bool advised_huge(const void* p) { return vm_flags(p).find(" hg ") != std::string::npos; }
bool advised_small(const void* p) { return vm_flags(p).find(" nh ") != std::string::npos; }

// Returns: whether the page holding p is resident.
bool resident(const void* p) {
  unsigned char vec = 0;
  const auto a = reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{td::page_size()} - 1);
  // Length 1: one status byte for the page, whatever the page size (an
  // emulator with larger pages than its host's would write several).
  return ::mincore(reinterpret_cast<void*>(a), 1, &vec) == 0 && (vec & 1) != 0;
}

struct p3 {
  std::uint64_t x, y, z;
};
// Bins of the default capacity from the first one (a pool made without a
// bin capacity starts with small bins that grow: pool.hpp, "Growth").
const travpool::bin_capacity default_bins{travpool::default_bin_capacity<p3>};

// Returns: whether the advice can give spans huge pages here; if not, says
// the case is skipped (before any assertion).
bool thp_here() {
  if (td::huge_page_advice_works()) return true;
  WARN("skipped: no transparent huge pages of 2 MiB here (huge_page_advice_works())");
  return false;
}

// Effects: the automatic policy, with the verdict "small" (three slow huge
// faults against 1 ms for 2 MiB of small ones) and no resample for the
// next 1000 fresh spans (policy_guard restores the policy and verdict).
void force_small_verdict() {
  auto& s = choice::state();
  s.small_ns = 1'000'000;
  travpool::set_huge_page_policy(huge_pages::automatic);
  for (int i = 0; i < 3; ++i) choice::record_fault(3'500'000);
  REQUIRE_FALSE(travpool::huge_pages_in_use());
  s.next_resample = s.small_spans.load() + 1000;
}

}  // namespace

TEST_CASE("a block from an allocator is populated unless advised huge or a user's under never", "[huge_pages]") {
  policy_guard guard;
  using action = choice::first_touch::action_t;
  for (const huge_pages p : {huge_pages::never, huge_pages::always, huge_pages::automatic}) {
    travpool::set_huge_page_policy(p);
    INFO("policy " << static_cast<int>(p));
    for (const bool users : {false, true}) {
      INFO("user's allocator: " << users);
      // Advised huge and timed: sampled; advised huge: faulted whole at its
      // first touch, nothing before.
      CHECK(choice::touch_for_allocator_memory(users, {true, true}).action == action::sample);
      CHECK(choice::touch_for_allocator_memory(users, {true, false}).action == action::none);
      // Small or not advised: populated, except a user's memory under never.
      const action expected = users && p == huge_pages::never ? action::none : action::populate;
      CHECK(choice::touch_for_allocator_memory(users, {false, false}).action == expected);
      CHECK(choice::touch_for_allocator_memory(users).action == expected);
    }
  }
}

TEST_CASE("without transparent huge pages of 2 MiB, every policy advises small and times nothing", "[huge_pages]") {
  if (td::huge_page_advice_works()) {
    WARN("skipped: this system has transparent huge pages of 2 MiB");
    return;
  }
  policy_guard guard;
  for (const huge_pages p : {huge_pages::never, huge_pages::always, huge_pages::automatic}) {
    travpool::set_huge_page_policy(p);
    CHECK_FALSE(travpool::huge_pages_in_use());
    const choice::span_advice a = choice::for_fresh_span();
    CHECK_FALSE(a.huge);
    CHECK_FALSE(a.sample);
    // automatic populates as under a "small" verdict; the others do not.
    CHECK((choice::touch_for(a).action == choice::first_touch::populate) == (p == huge_pages::automatic));
  }
  const std::uint64_t before = choice::state().count.load();
  {
    travpool::set_span_cache_limit(0);
    travpool::pool<p3> pool(default_bins);
    for (std::uint64_t i = 0; i < 2 * pool.bin_span() / sizeof(p3); ++i) pool.create(p3{i, i, i});
    pool.validate();
    std::uint64_t i = 0;
    for (const p3& e : pool) CHECK(e.x == i++);
  }
  CHECK(choice::state().count.load() == before);  // no fresh span was timed
}

TEST_CASE("huge_page_choice::pay keeps huge pages until enough slow faults are measured", "[huge_pages]") {
  const std::uint64_t small = 1'000'000;  // 1 ms for 2 MiB in 4 KiB pages
  const std::uint64_t cheap[] = {200'000, 250'000, 210'000}, slow[] = {3'300'000, 3'500'000, 4'000'000};
  const std::uint64_t mixed[] = {3'300'000, 1'900'000, 4'000'000};
  CHECK(choice::pay(cheap, 3, small));       // a host where huge pages are cheap
  CHECK_FALSE(choice::pay(slow, 3, small));  // the KVM guest with free page reporting
  CHECK(choice::pay(mixed, 3, small));       // one fault within 2x decides for huge pages
  CHECK(choice::pay(slow, 2, small));        // too few samples: huge pages
  CHECK(choice::pay(slow, 3, 0));            // small-page cost unknown: huge pages
  const std::uint64_t at_factor[] = {2 * small, 2 * small, 2 * small};
  CHECK(choice::pay(at_factor, 3, small));
}

TEST_CASE("huge_page_choice::parse reads always, never, auto and ignores the rest", "[huge_pages]") {
  CHECK(choice::parse("always", huge_pages::never) == huge_pages::always);
  CHECK(choice::parse("never", huge_pages::always) == huge_pages::never);
  CHECK(choice::parse("auto", huge_pages::never) == huge_pages::automatic);
  CHECK(choice::parse(nullptr, huge_pages::never) == huge_pages::never);
  CHECK(choice::parse("", huge_pages::always) == huge_pages::always);
  CHECK(choice::parse("yes", huge_pages::automatic) == huge_pages::automatic);
}

TEST_CASE("the default policy is automatic", "[huge_pages]") {
  if (std::getenv("TRAVPOOL_HUGE_PAGES") == nullptr) CHECK(travpool::huge_page_policy() == huge_pages::automatic);
  CHECK(TRAVPOOL_HUGE_PAGES_DEFAULT == 2);
}

// Run by the next test in a child process, with TRAVPOOL_HUGE_PAGES set:
// exits with the policy it reads.
TEST_CASE("huge pages: env child", "[.huge_pages_env_child]") {
  std::_Exit(10 + static_cast<int>(travpool::huge_page_policy()));
}

TEST_CASE("TRAVPOOL_HUGE_PAGES chooses the policy of a process", "[huge_pages][host_kernel]") {
  for (const auto& [value, expected] : std::vector<std::pair<const char*, huge_pages>>{
           {"never", huge_pages::never}, {"always", huge_pages::always}, {"auto", huge_pages::automatic}}) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setenv("TRAVPOOL_HUGE_PAGES", value, 1);
      ::execl("/proc/self/exe", "huge_pages_test", "[.huge_pages_env_child]", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 10 + static_cast<int>(expected));
  }
}

TEST_CASE("set_huge_page_policy overrides and advises fresh spans accordingly", "[huge_pages][host_kernel]") {
  if (!thp_here()) return;
  policy_guard guard;
  travpool::set_span_cache_limit(0);  // every bin is a fresh span
  for (const huge_pages p : {huge_pages::never, huge_pages::always, huge_pages::never}) {
    travpool::set_huge_page_policy(p);
    CHECK(travpool::huge_page_policy() == p);
    CHECK(travpool::huge_pages_in_use() == (p == huge_pages::always));
    travpool::pool<p3> pool(default_bins);
    REQUIRE(pool.bin_span() % td::huge_page_bytes == 0);
    std::vector<p3*> elements;
    for (std::uint64_t i = 0; i < 3 * pool.bin_span() / sizeof(p3); ++i) elements.push_back(pool.create(p3{i, i, i}));
    std::set<std::uintptr_t> spans;
    for (p3* e : elements) spans.insert(reinterpret_cast<std::uintptr_t>(e) & ~(pool.bin_span() - 1));
    CHECK(spans.size() >= 3);
    for (std::uintptr_t span : spans) {  // every span, of a fresh batch or not
      const void* e = reinterpret_cast<const void*>(span);
      CAPTURE(vm_flags(e));
      CHECK(advised_huge(e) == (p == huge_pages::always));
      CHECK(advised_small(e) == (p == huge_pages::never));
    }
    pool.validate();
    std::uint64_t i = 0;
    for (const p3& e : pool) CHECK(e.x == i++);
  }
  CHECK(travpool::set_huge_page_policy(huge_pages::automatic) == huge_pages::never);
}

TEST_CASE("a policy change advises the rest of a span batch", "[huge_pages][host_kernel]") {
  if (!thp_here()) return;
  policy_guard guard;
  travpool::set_span_cache_limit(0);
  travpool::set_huge_page_policy(huge_pages::always);
  td::span_source source;
  const std::size_t span = td::huge_page_bytes;
  void* a = source.take(span);
  void* b = source.take(span);  // the second batch: 2 spans
  CHECK(advised_huge(b));
  travpool::set_huge_page_policy(huge_pages::never);
  void* c = source.take(span);
  CHECK(advised_small(c));
  CHECK(advised_huge(b));  // taken before: unchanged
  for (void* p : {a, b, c}) source.give_back(p, span);
}

TEST_CASE("the automatic policy times fresh spans and decides from both kinds of cost", "[huge_pages]") {
  if (!thp_here()) return;
  policy_guard guard;
  travpool::set_span_cache_limit(0);
  travpool::set_huge_page_policy(huge_pages::automatic);
  choice::state_t& s = choice::state();
  s.huge = true;
  const std::uint64_t before = s.count.load();
  {
    travpool::pool<p3> pool(default_bins);
    for (std::uint64_t i = 0; i < 2 * pool.bin_span() / sizeof(p3); ++i) pool.create(p3{i, 0, 0});
    pool.validate();
    CHECK(pool.size() == 2 * pool.bin_span() / sizeof(p3));
  }
  CHECK(s.count.load() > before);  // the first fresh span was timed
  CHECK(s.small_ns.load() > 0);    // and the cost of 4 KiB pages measured

  // The verdict from given costs (no timing): cheap huge faults keep huge
  // pages, three slow ones turn them off, one cheap one turns them on.
  s.small_ns = 1'000'000;
  for (int i = 0; i < 3; ++i) choice::record_fault(200'000);
  CHECK(travpool::huge_pages_in_use());
  CHECK(choice::for_fresh_span().huge);
  CHECK(choice::for_fresh_span().sample);
  choice::record_fault(3'500'000);
  choice::record_fault(3'500'000);
  CHECK(travpool::huge_pages_in_use());  // one cheap fault in the window
  choice::record_fault(3'500'000);
  CHECK_FALSE(travpool::huge_pages_in_use());
  // While small: a fresh span after 64 more is advised huge and timed, then
  // after 128, 256, ..., 1024, 1024.
  const auto resamples_at = [] {
    std::vector<std::uint64_t> at;
    for (std::uint64_t i = 1; i <= 4096; ++i) {
      const choice::span_advice a = choice::for_fresh_span();
      CHECK(a.huge == a.sample);
      if (a.sample) at.push_back(i);
    }
    return at;
  };
  CHECK(resamples_at() == std::vector<std::uint64_t>{64, 192, 448, 960, 1984, 3008, 4032});
  choice::record_fault(3'500'000);  // a slow resample: still small, intervals go on
  CHECK_FALSE(travpool::huge_pages_in_use());
  choice::record_fault(300'000);  // a cheap one: huge pages again
  CHECK(travpool::huge_pages_in_use());
  for (int i = 0; i < 3; ++i) choice::record_fault(3'500'000);
  CHECK_FALSE(travpool::huge_pages_in_use());
  CHECK(resamples_at().front() == 64);  // back to the first interval
  choice::record_fault(300'000);
  CHECK(travpool::huge_pages_in_use());

  // The policies that measure nothing.
  travpool::set_huge_page_policy(huge_pages::never);
  CHECK_FALSE(choice::for_fresh_span().sample);
  travpool::set_huge_page_policy(huge_pages::always);
  CHECK_FALSE(choice::for_fresh_span().sample);
}

TEST_CASE("column blocks are advised as the policy says when committed", "[huge_pages][host_kernel]") {
  if (!thp_here()) return;
  policy_guard guard;
  for (const huge_pages p : {huge_pages::never, huge_pages::always}) {
    travpool::set_huge_page_policy(p);
    td::typed_column<std::uint64_t> col("x", 7, 1u << 18, 8, 0);  // blocks of 2 MiB
    REQUIRE(col.commit(1));
    auto* q1 = col.data() + (1u << 18);
    CHECK(advised_huge(q1) == (p == huge_pages::always));
    CHECK(advised_small(q1) == (p == huge_pages::never));
    col.construct(1u << 18);
    CHECK(*q1 == 7);
    col.decommit(1);
  }
}

TEST_CASE("a fresh bin span is populated on 4 KiB pages chosen by the automatic policy, not under never",
          "[huge_pages][host_kernel]") {
  if (!thp_here()) return;
  policy_guard guard;
  travpool::set_span_cache_limit(0);
  // cap 0: the default bin capacity
  const auto resident_probes = [](huge_pages p, std::uint32_t cap) {
    travpool::set_huge_page_policy(p);
    travpool::pool<p3> pool =
        cap == 0 ? travpool::pool<p3>(default_bins) : travpool::pool<p3>(travpool::bin_capacity{cap});
    p3* e = pool.create(p3{1, 2, 3});
    CHECK(e->x == 1);
    pool.validate();
    const auto* span = reinterpret_cast<const std::byte*>(reinterpret_cast<std::uintptr_t>(e) & ~(pool.bin_span() - 1));
    // the middle of the span's first 2 MiB, and a page 1 MiB before the
    // span's end (a bin writes only its first and last page when made)
    const std::size_t mid = std::min(pool.bin_span(), td::huge_page_bytes) / 2;
    return std::pair{resident(span + mid), resident(span + pool.bin_span() - td::huge_page_bytes / 2)};
  };
  // Under never: faulted as written.
  CHECK(resident_probes(huge_pages::never, 0) == std::pair{false, false});
  // Automatic with the verdict "small" (three slow faults): the first 2 MiB
  // of each fresh span, however large the span.
  force_small_verdict();
  CHECK(resident_probes(huge_pages::automatic, 0).first);
  const auto big = static_cast<std::uint32_t>(3 * td::huge_page_bytes / sizeof(p3));
  REQUIRE(big > 0);
  CHECK(resident_probes(huge_pages::automatic, big) == std::pair{true, false});
  choice::record_fault(200'000);  // back to huge pages for the tests after this one
}

// An allocator that is not std::allocator, whose memory the hive must not
// advise.
template <class T>
struct user_allocator {
  using value_type = T;
  user_allocator() = default;
  template <class U>
  user_allocator(const user_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  friend bool operator==(const user_allocator&, const user_allocator&) noexcept { return true; }
};

TEST_CASE("a hive's blocks follow the page policy and are populated as touch_for_allocator_memory says",
          "[huge_pages][host_kernel]") {
  if (!thp_here()) return;
  policy_guard guard;
  // Returns, for the first block of a hive whose blocks span 2 MiB: whether
  // it is advised huge, whether its middle is resident, whether it is
  // aligned to a huge page.
  // The block of a hive's first element: it lies in its block's first
  // granule (after the header), and blocks are granule-aligned.
  const auto block_of = [](const p3& e) {
    return reinterpret_cast<const std::byte*>(reinterpret_cast<std::uintptr_t>(&e) &
                                              ~(std::uintptr_t{td::bin_directory::granule} - 1));
  };
  const auto probe = [&](auto hive_of_p3) {
    auto& h = hive_of_p3;
    const std::byte* b = block_of(*h.insert(p3{1, 2, 3}));
    CHECK_NOTHROW(h.validate());
    CAPTURE(vm_flags(b));
    return std::tuple{advised_huge(b), resident(b + td::huge_page_bytes / 2),
                      reinterpret_cast<std::uintptr_t>(b) % td::huge_page_bytes == 0};
  };
  using std_hive = travpool::hive<p3>;
  using user_hive = travpool::hive<p3, user_allocator<p3>>;
  const travpool::hive_limits two_mib{std_hive::block_capacity_default_limits().max,
                                      std_hive::block_capacity_default_limits().max};
  // Another allocator's memory is never advised, only populated (first:
  // no memory this test advised can be reused yet).
  travpool::set_huge_page_policy(huge_pages::always);
  const travpool::hive_limits user_two_mib{user_hive::block_capacity_default_limits().max,
                                           user_hive::block_capacity_default_limits().max};
  const auto [user_huge, user_populated, user_aligned] = probe(user_hive(user_two_mib));
  CHECK_FALSE(user_huge);
  CHECK(user_populated);
  (void)user_aligned;
  // never: not advised huge, but populated (std::allocator's blocks are
  // populated under every policy); a user's allocator's block is not.
  travpool::set_huge_page_policy(huge_pages::never);
  CHECK(probe(std_hive(two_mib)) == std::tuple{false, true, true});
#if defined(__GLIBC__) && !TRAVPOOL_TEST_ASAN
  // Only on memory known fresh: the heap's free pages handed back first
  // (AddressSanitizer's allocator keeps what it got).
  ::malloc_trim(0);
  CHECK_FALSE(std::get<1>(probe(user_hive(user_two_mib))));
#endif
  // Automatic, verdict "small": populated, not advised huge.
  force_small_verdict();
  CHECK(probe(std_hive(two_mib)) == std::tuple{false, true, true});
  // A block of one granule (64 KiB: a default hive's first block after
  // its small ones, which are below 32 KiB) is faulted as written, not
  // populated (allocator_spans.hpp): checked on memory known fresh only,
  // as above (the heap trimmed before each new block). The first block of
  // more than one granule is populated.
  {
    std_hive h;
    // The chunks that fill one granule: concurrent_hive's default min.
    const std::size_t one_granule = travpool::concurrent_hive<p3>::block_capacity_default_limits().min;
    const std::byte* first = nullptr;
    const std::byte* next = nullptr;
    for (int blocks = 0; next == nullptr && blocks < 64;) {
      const std::size_t before = h.capacity();
#if defined(__GLIBC__) && !TRAVPOOL_TEST_ASAN
      if (h.size() == before) ::malloc_trim(0);  // this insertion makes a block
#endif
      const std::byte* b = block_of(*h.insert(p3{}));
      if (h.capacity() == before) continue;
      ++blocks;
      if (first == nullptr && h.capacity() - before == one_granule) {
        first = b;
#if defined(__GLIBC__) && !TRAVPOOL_TEST_ASAN
        CHECK_FALSE(resident(first + td::bin_directory::granule / 2));
#endif
      }
      if (h.capacity() - before > one_granule) next = b;  // a new block, of more than one granule
    }
    CHECK(first != nullptr);
    REQUIRE(next != nullptr);
    CHECK(resident(next + td::bin_directory::granule + td::bin_directory::granule / 2));
  }
  // always, on fresh memory (the heap's free pages handed back first, so
  // that operator new's reused memory is untouched again): advised huge,
  // and aligned so that the advice gives a huge page. (Whether the kernel
  // then finds one is its business.)
  travpool::set_huge_page_policy(huge_pages::always);
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
  const auto [advised, populated_always, aligned_always] = probe(std_hive(two_mib));
  CHECK(aligned_always);
  (void)populated_always;
#if TRAVPOOL_TEST_ASAN
  // AddressSanitizer's operator new writes the first 4 KiB of what it hands
  // out (max_malloc_fill_size), so no block of it is fresh memory.
  WARN("advice not checked: operator new's memory is never untouched under AddressSanitizer");
  (void)advised;
#else
  CHECK(advised);
#endif
  choice::record_fault(200'000);  // back to huge pages for the tests after this one
}

TEST_CASE("untouched_range tells fresh memory from memory with a resident page", "[huge_pages][host_kernel]") {
  if (!TRAVPOOL_LINUX_KERNEL) {
    WARN("skipped: untouched_range answers false without Linux's mincore");
    CHECK_FALSE(td::untouched_range(nullptr, 0));
    return;
  }
  const std::size_t page = td::page_size(), bytes = 8 * page;
  void* m = td::map_aligned(bytes, page);
  CHECK(td::untouched_range(m, bytes));
  static_cast<volatile unsigned char*>(m)[5 * page] = 1;
  CHECK_FALSE(td::untouched_range(m, bytes));
  CHECK(td::untouched_range(m, 5 * page));
  CHECK_FALSE(td::untouched_range(m, 0));
  td::unmap(m, bytes);
}

TEST_CASE("the policy setter and the environment variable take only the three policies", "[huge_pages]") {
  policy_guard guard;
  CHECK(choice::parse("automatic", huge_pages::never) == huge_pages::automatic);
  travpool::set_huge_page_policy(static_cast<huge_pages>(7));
  CHECK(travpool::huge_page_policy() == huge_pages::automatic);
  travpool::set_huge_page_policy(huge_pages::never);
  CHECK(travpool::huge_page_policy() == huge_pages::never);
}

#else  // Windows: needs /proc/self/smaps, mincore(2) and fork(); skipped with a visible message.
#include <catch2/catch.hpp>

TEST_CASE("huge_pages_test: skipped on Windows", "[huge_pages]") {
  WARN("skipped: needs /proc/self/smaps, mincore(2) and fork()");
}
#endif
