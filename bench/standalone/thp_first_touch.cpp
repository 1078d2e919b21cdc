// bench/standalone/thp_first_touch.cpp: what a first touch of fresh
// anonymous memory costs, on transparent huge pages (madvise
// MADV_HUGEPAGE) and on 4 KiB pages (MADV_NOHUGEPAGE). Maps SIZE_MIB,
// writes one byte per cache line, unmaps; three times in one process, so
// the second and third runs can reuse what the first gave back. Prints
// seconds and GB/s per run and the thp_fault_alloc count of the run. On a
// KVM guest that reports free memory to its host (virtio-balloon free page
// reporting), the huge-page first touch of a fresh process is far slower
// than a reused one. Built by hand:
//   g++ -std=c++20 -O2 bench/standalone/thp_first_touch.cpp -o /tmp/thp
//   /tmp/thp 1024 huge; /tmp/thp 1024 small
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

static long thp_faults() {
  std::ifstream f("/proc/vmstat");
  std::string k;
  long v = 0;
  while (f >> k >> v)
    if (k == "thp_fault_alloc") return v;
  return -1;
}

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[2], "huge") != 0 && std::strcmp(argv[2], "small") != 0)) {
    std::fprintf(stderr, "usage: thp_first_touch SIZE_MIB huge|small\n");
    return 2;
  }
  const std::size_t bytes = std::size_t(std::atol(argv[1])) << 20, huge = std::size_t{2} << 20;
  const bool want_huge = std::strcmp(argv[2], "huge") == 0;
  for (int run = 0; run < 3; ++run) {
    void* map = mmap(nullptr, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    auto* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(map) + huge - 1) & ~(huge - 1));
    madvise(p, bytes, want_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const long f0 = thp_faults();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < bytes; i += 64) p[i] = 1;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s pages, %zu MiB, run %d: %.3f s, %.2f GB/s, %ld huge-page faults\n", argv[2], bytes >> 20, run, s,
                double(bytes) / s / 1e9, thp_faults() - f0);
    munmap(map, bytes + huge);
  }
}
