#!/usr/bin/env bash
# Cross-builds the core tests for 64-bit Windows (Debian's mingw-w64 GCC,
# POSIX threads model, static runtime: no DLL to copy) and runs them under
# wine64, so that the Windows branch of platform.hpp (VirtualAlloc,
# VirtualFree, FlushProcessWriteBuffers, FLS thread-exit callbacks) and the
# thread exit under mingw's emulated thread_locals run somewhere. Left out:
# the tests that fork, set rlimits, read /proc or use POSIX timers (they
# say "skipped" on Windows), the slow and TBB/OpenMP tests, and
# pool_ops_mt_test: its std::binary_semaphore hangs about every other run
# here (the worker waits in __atomic_semaphore::_M_acquire after the main
# thread released it: GCC 12's atomic wait without futexes). Wine's exit
# status is not trusted (a crashed test has exited 0): each test passes only
# if its output holds Catch2's "All tests passed"; it prints that summary
# (all of its output if it fails, which fails the script). A test that runs
# 2 minutes is stopped and fails. Wine 8 implements FlushProcessWriteBuffers
# as a no-op, so biased bin locks would run there without the barrier their
# handshake needs (a revoker and the owner could both enter): the tests run
# with TRAVPOOL_BIASED_LOCKS=0, the per-bin lock alone, as the paper has it.
# Idempotent; the wine prefix is build/windows/wineprefix.
# Usage: scripts/cross_windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh g++-mingw-w64-x86-64-posix wine64
out=build/windows
mkdir -p "$out/include" "$out/detail/bin_locks"
ln -sfn /usr/include/catch2 "$out/include/catch2" # Catch2 v2 is header-only
# TRAVPOOL_TEST_SMALL: the exhaustive and randomized tests at the depth of the
# stages after the first (docs/testing.md).
cxx=(x86_64-w64-mingw32-g++-posix -std=c++20 -Og -static -DTRAVPOOL_TEST_SMALL=1 -Iinclude -Itests/travpool -I"$out/include")
tests=(pool_test column_pool_test allocator_test pool_ops_test memory_test handle_test segments_test stats_test
  partition_test incomplete_type_test debug_checks_test hardened_checks_test
  thread_exit_mt_test concurrent_pool_mt_test allocator_mt_test column_pool_mt_test read_only_mt_test
  memory_mt_test detail/bin_locks/concurrent_bins_mt_test detail/bin_directory_test detail/bin_storage_test
  detail/acquire_local_test detail/span_cache_test detail/column_storage_test detail/platform_test hive_test
  detail/allocator_spans_test hive_mt_test macro_guard_test hive_conformance_test detail/pool_iterator_distance_test
  detail/pool_iterator_no_std_overloads_test)
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
export WINEPREFIX=$PWD/$out/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" TRAVPOOL_BIASED_LOCKS=0
# Build and test times go to $TRAVPOOL_PHASE_TIMES, when set (scripts/test.sh).
t0=$SECONDS
# Catch2's main, once per set of flags (an interrupted build leaves none).
main_o="$out/catch_main-$(printf '%s ' "${cxx[@]}" | md5sum | cut -c1-12).o"
if [[ ! -f $main_o ]]; then
  printf '#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n' >"$out/catch_main.cpp"
  "${cxx[@]}" -c "$out/catch_main.cpp" -o "$main_o.tmp"
  mv "$main_o.tmp" "$main_o"
fi
# catch.hpp (17,000 lines) precompiled once per set of flags and forced in
# first, as CMake's precompiled headers do in the other stages.
pch_dir="$out/pch-$(printf '%s ' "${cxx[@]}" | md5sum | cut -c1-12)"
if [[ ! -f $pch_dir/catch_pch.hpp.gch ]]; then
  mkdir -p "$pch_dir"
  printf '#include <catch2/catch.hpp>\n' >"$pch_dir/catch_pch.hpp"
  "${cxx[@]}" -x c++-header "$pch_dir/catch_pch.hpp" -o "$pch_dir/catch_pch.hpp.gch.tmp"
  mv "$pch_dir/catch_pch.hpp.gch.tmp" "$pch_dir/catch_pch.hpp.gch"
fi
# At most 2 compilers at once: each takes about 1 GiB.
printf '%s\n' "${tests[@]}" | xargs -P 2 -I{} "${cxx[@]}" -include "$pch_dir/catch_pch.hpp" -Winvalid-pch \
  tests/travpool/{}.cpp "$main_o" -o "$out/{}.exe"
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "build $((SECONDS - t0))" >>"$TRAVPOOL_PHASE_TIMES"
t0=$SECONDS
[[ -d $WINEPREFIX ]] || "$wine" wineboot --init >/dev/null 2>&1 || true
# Two programs at a time (one wineserver serves both), then each log in order.
export wine out
printf '%s\n' "${tests[@]}" | xargs -P 2 -I{} sh -c 'timeout 120 "$wine" "$out/{}.exe" >"$out/{}.log" 2>&1 || true'
failed=0
for t in "${tests[@]}"; do
  echo "== $t (Windows x64, wine)"
  if grep -q "All tests passed" "$out/$t.log"; then
    grep -E "skipped" "$out/$t.log" | sort -u || true
    grep "All tests passed" "$out/$t.log"
  else
    cat "$out/$t.log"
    echo "$t failed on Windows (wine)"
    failed=1
  fi
done
"$(dirname "$wine")/wineserver" -k 2>/dev/null || wineserver -k 2>/dev/null || true
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "test $((SECONDS - t0))" >>"$TRAVPOOL_PHASE_TIMES"
exit "$failed"
