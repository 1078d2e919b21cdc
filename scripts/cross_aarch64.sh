#!/usr/bin/env bash
# Cross-builds the core tests for AArch64 (Debian's g++-aarch64-linux-gnu)
# and runs them under qemu-aarch64 once per page size given: 64 KiB, as on
# many AArch64 Linux servers, so that the page-size-dependent code
# (platform.hpp, page_size()) runs where a page is not 4 KiB, and 4 KiB,
# the page of most AArch64 desktops and phones. Left out: the tests that
# fork, set rlimits or read the kernel's THP state (qemu-user applies those
# to the host process, or does not emulate them). Each test prints Catch2's
# summary (all of its output if it fails, which fails the script); a test
# that runs 10 minutes is stopped and fails. Idempotent.
# Usage: scripts/cross_aarch64.sh [PAGE_BYTES...]   (default 65536 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
pages=("$@")
((${#pages[@]})) || pages=(65536 4096)
scripts/deps.sh g++-aarch64-linux-gnu qemu-user
out=build/aarch64
mkdir -p "$out/include"
ln -sfn /usr/include/catch2 "$out/include/catch2" # Catch2 v2 is header-only
cxx=(aarch64-linux-gnu-g++ -std=c++20 -O1 -pthread -Iinclude -Itests/travpool -I"$out/include")
tests=(pool_test column_pool_test detail/column_storage_test detail/span_cache_test concurrent_pool_mt_test)
# Catch2's main, once per set of flags (an interrupted build leaves none).
main_o="$out/catch_main-$(printf '%s ' "${cxx[@]}" | md5sum | cut -c1-12).o"
if [[ ! -f $main_o ]]; then
  printf '#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n' >"$out/catch_main.cpp"
  "${cxx[@]}" -c "$out/catch_main.cpp" -o "$main_o.tmp"
  mv "$main_o.tmp" "$main_o"
fi
mkdir -p "$out/detail"
printf '%s\n' "${tests[@]}" | xargs -P "$(nproc)" -I{} "${cxx[@]}" tests/travpool/{}.cpp "$main_o" -o "$out/{}"
for page in "${pages[@]}"; do
  for t in "${tests[@]}"; do
    echo "== $t (AArch64, ${page}-byte pages)"
    if timeout 600 qemu-aarch64 -p "$page" -L /usr/aarch64-linux-gnu "$out/$t" --warn NoAssertions >"$out/$t.log" 2>&1; then
      tail -n 2 "$out/$t.log"
    else
      cat "$out/$t.log"
      echo "$t failed on AArch64 with ${page}-byte pages"
      exit 1
    fi
  done
done
