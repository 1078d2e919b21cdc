#!/usr/bin/env bash
# Cross-builds the core tests for AArch64 (Debian's g++-aarch64-linux-gnu,
# the CMake preset "aarch64") and runs them under qemu-aarch64 once per
# page size given: 64 KiB, as on many AArch64 Linux servers, so that the
# page-size-dependent code (platform.hpp, page_size()) runs where a page is
# not 4 KiB, and 4 KiB, the page of most AArch64 desktops and phones. The
# programs are those tests/CMakeLists.txt labels "emulated" (target
# travpool_emulated_tests); ctest runs each of their Catch2 cases but those
# labelled "host_kernel" (rlimits, /proc/self/smaps, re-executing
# /proc/self/exe: qemu-user applies or shows them for the host's emulator
# process), which are skipped by that label. A case that runs 10 minutes is
# stopped and fails. Idempotent.
# Usage: scripts/cross_aarch64.sh [PAGE_BYTES...]   (default 65536 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
pages=("$@")
((${#pages[@]})) || pages=(65536 4096)
scripts/deps.sh g++-aarch64-linux-gnu qemu-user
# Build and test times go to $TRAVPOOL_PHASE_TIMES, when set (scripts/test.sh).
t=$SECONDS
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64 -j "$(nproc)" --target travpool_emulated_tests
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "build $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
t=$SECONDS
for page in "${pages[@]}"; do
  echo "== AArch64, ${page}-byte pages"
  # qemu-user reads its page size from QEMU_PAGESIZE (as from -p).
  log=build/aarch64/ctest-$page.log
  if ! QEMU_PAGESIZE=$page ctest --preset aarch64 -j "$(nproc)" >"$log" 2>&1; then
    cat "$log"
    echo "the AArch64 tests failed with ${page}-byte pages"
    exit 1
  fi
  grep -E "tests passed|Total Test time" "$log"
done
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "test $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
