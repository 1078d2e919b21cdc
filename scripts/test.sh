#!/usr/bin/env bash
# Builds and runs every test: Release (the default compiler, c++ or $CXX),
# Release with clang++-14 (tests and examples), the core tests with
# clang++-14 and libc++ on the POSIX branch as for macOS, ASan+UBSan, TSan
# (threaded tests), the fuzzers for a bounded time, the core tests
# cross-built for AArch64 and run under qemu with 64 KiB and 4 KiB pages,
# the core tests cross-built for 64-bit Windows and run under wine, and a
# consumer project built against the installed package. Prints each
# stage's wall time. Idempotent.
# Usage: scripts/test.sh [--quick]   (--quick: the first Release stage only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev libc++-14-dev libc++abi-14-dev \
  libplf-colony-dev libcgal-dev libopenmesh-dev
# CGAL's sample meshes for the CGAL tests (from Debian's libcgal-demo), once.
scripts/fetch_meshes.sh >/dev/null
jobs=$(nproc)
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

stage_name=""
stage_start=$SECONDS
stage_done() {
  [[ -z $stage_name ]] || printf '==== %s: %ds ====\n' "$stage_name" $((SECONDS - stage_start))
}
stage() {
  stage_done
  stage_name=$1 stage_start=$SECONDS
  printf '\n==== %s ====\n' "$*"
}

stage "1/9 Release build and tests"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"
# The CGAL tests are built only where CGAL is found: fail rather than skip them unnoticed.
count_tests() {
  local n
  n=$(ctest "$@" -N | sed -n 's/^Total Tests: //p')
  echo "${n:-0}"
}
if (($(count_tests --preset release -R '^cgal: ') == 0)); then
  echo "test.sh: build/release has no mesh_cgal_test cases (CGAL not found, or TRAVPOOL_CGAL_TESTS off)" >&2
  exit 1
fi

if ((quick)); then
  stage_done
  exit 0
fi

stage "2/9 Release build and tests with clang++-14 (no benchmarks)"
cmake --preset release-clang >/dev/null
cmake --build --preset release-clang -j "$jobs"
ctest --preset release-clang -j "$jobs"

stage "3/9 the core tests with clang++-14 and libc++, on the POSIX branch without Linux's extensions"
# Only tests that link no TBB, OpenMP, OpenMesh or CGAL (Debian builds those
# against libstdc++). Built with TRAVPOOL_PLATFORM_GENERIC_POSIX=1, so the
# platform layer runs as on macOS and the BSDs (no membarrier, no THP
# advice): the cases that need those say "skipped". ctest runs the cases of
# the programs built here (the preset takes only labelled tests, which a
# program not built has none of).
libcxx_tests=(pool_test pool_ops_test column_pool_test handle_test allocator_test segments_test partition_test
  debug_checks_test hardened_checks_test concurrent_pool_mt_test platform_test huge_pages_test span_cache_test
  column_storage_test hive_test hive_mt_test)
cmake --preset libcxx >/dev/null
cmake --build --preset libcxx -j "$jobs" --target "${libcxx_tests[@]}"
ctest --preset libcxx -j "$jobs"

stage "4/9 ASan + UBSan build and tests"
# Everything but the CGAL test, whose translation unit alone takes 2.5 min
# to compile here under ASan; it runs in stage 1 (the CI's 40 minutes).
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

stage "5/9 TSan build and threaded tests"
cmake --preset tsan >/dev/null
# Only the threaded tests (*_mt_test.cpp, ctest label "threads") run here.
mapfile -t mt_targets < <(find tests -name '*_mt_test.cpp' -exec basename {} .cpp \;)
cmake --build --preset tsan -j "$jobs" --target "${mt_targets[@]}"
# TSan needs a non-randomised high address layout on some kernels.
setarch "$(uname -m)" -R ctest --preset tsan -j "$jobs"

stage "6/9 fuzzers, ${TRAVPOOL_FUZZ_SECONDS:-30}s each, from the committed corpora"
scripts/fuzz.sh "${TRAVPOOL_FUZZ_SECONDS:-30}"

stage "7/9 the core tests cross-built for AArch64, under qemu with 64 KiB and 4 KiB pages"
scripts/cross_aarch64.sh 65536 4096

stage "8/9 the core tests cross-built for 64-bit Windows (mingw-w64), under wine"
scripts/cross_windows.sh

stage "9/9 install, then build tests/consumer against the installed package"
prefix=$PWD/build/install
rm -rf "$prefix" build/consumer
cmake --install build/release --prefix "$prefix" >/dev/null
cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/consumer -j "$jobs"
ctest --test-dir build/consumer --output-on-failure
if (($(count_tests --test-dir build/consumer -R '^consumer_cgal$') == 0)); then
  echo "test.sh: tests/consumer has no consumer_cgal test (CGAL not found by the consumer)" >&2
  exit 1
fi
stage_done
echo "all test stages passed in $SECONDS s"
