#!/usr/bin/env bash
# Builds and runs every test: Release (the default compiler, c++ or $CXX),
# Release with clang++-14 (the programs that need only the standard library
# with libc++ on the POSIX branch as for macOS, the others with libstdc++
# on Linux's), ASan+UBSan, TSan
# (threaded tests), the fuzzers for a bounded time, the core tests
# cross-built for AArch64 and run under qemu with 64 KiB and 4 KiB pages,
# the core tests cross-built for 64-bit Windows and run under wine, and a
# consumer project built against the installed package. Prints each
# stage's build and test time. Idempotent. docs/testing.md says what each
# stage builds and runs, and how long it takes.
# Usage: scripts/test.sh [--quick | --component NAME]
#   --quick            the Release stage only
#   --component NAME   the Release stage's programs and cases of one
#                      component: pool, bins, hive, column_pool, allocator, mesh
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0 component=""
case "$#:${1:-}" in
  0:) ;;
  1:--quick) quick=1 ;;
  2:--component) component=$2 ;;
  *)
    echo "usage: scripts/test.sh [--quick | --component pool|bins|hive|column_pool|allocator|mesh]" >&2
    exit 2
    ;;
esac
scripts/deps.sh clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev libc++-14-dev libc++abi-14-dev \
  libplf-colony-dev libcgal-dev libopenmesh-dev
# CGAL's sample meshes for the CGAL tests (from Debian's libcgal-demo), once.
scripts/fetch_meshes.sh >/dev/null
jobs=$(nproc)

# Each stage's time, split into building and running its tests, is
# printed when the stage ends and in a table at the end (docs/testing.md
# records them). The stages that run a script (fuzz.sh, cross_*.sh) get the
# split from it through the file $TRAVPOOL_PHASE_TIMES.
export TRAVPOOL_PHASE_TIMES=$PWD/build/phase-times.txt
mkdir -p build
stage_name="" stage_start=$SECONDS build_s=0 test_s=0 summary=()
: >"$TRAVPOOL_PHASE_TIMES"
# phase build|test COMMAND...: runs COMMAND, counting its time as the stage's build or tests.
phase() {
  local kind=$1 t=$SECONDS
  shift
  "$@"
  if [[ $kind == build ]]; then build_s=$((build_s + SECONDS - t)); else test_s=$((test_s + SECONDS - t)); fi
}
stage_done() {
  [[ -z $stage_name ]] && return
  local kind n
  while read -r kind n; do
    if [[ $kind == build ]]; then build_s=$((build_s + n)); else test_s=$((test_s + n)); fi
  done <"$TRAVPOOL_PHASE_TIMES"
  : >"$TRAVPOOL_PHASE_TIMES"
  local total=$((SECONDS - stage_start))
  printf '==== %s: %ds (build %ds, tests %ds) ====\n' "$stage_name" $total $build_s $test_s
  summary+=("$(printf '| %s | %d | %d | %d |' "$stage_name" $build_s $test_s $total)")
  stage_name=""
}
stage() {
  stage_done
  stage_name=$1 stage_start=$SECONDS build_s=0 test_s=0
  printf '\n==== %s ====\n' "$*"
}
print_summary() {
  stage_done
  printf '\n| stage | build s | tests s | total s |\n|---|---|---|---|\n'
  printf '%s\n' "${summary[@]}"
}

# The CGAL tests are built only where CGAL is found: fail rather than skip them unnoticed.
count_tests() {
  local n
  n=$(ctest "$@" -N | sed -n 's/^Total Tests: //p')
  echo "${n:-0}"
}

if [[ -n $component ]]; then
  # One component's programs in the Release build, and its cases (label COMPONENT).
  stage "Release build and tests of component $component"
  cmake --preset release >/dev/null
  phase build cmake --build --preset release -j "$jobs" --target "travpool_tests_$component"
  phase test ctest --preset release -j "$jobs" -L "^$component\$" --no-tests=error
  print_summary
  exit 0
fi

stage "1/8 Release build and tests"
# travpool_tests: every program ctest runs; the benchmarks are built by
# their own scripts (bench/README.md), but for mesh_compare, whose
# agreement check is a test.
cmake --preset release >/dev/null
phase build cmake --build --preset release -j "$jobs" --target travpool_tests
phase test ctest --preset release -j "$jobs"
if (($(count_tests --preset release -R '^cgal: ') == 0)); then
  echo "test.sh: build/release has no mesh_cgal_test cases (CGAL not found, or TRAVPOOL_CGAL_TESTS off)" >&2
  exit 1
fi

if ((quick)); then
  print_summary
  exit 0
fi

stage "2/8 Release with clang++-14, on libc++ (POSIX branch) and libstdc++"
# One Clang Release (-O3) build of every program, in two trees: the
# programs that link nothing but the standard library (travpool_tests_std_only)
# against libc++, with TRAVPOOL_PLATFORM_GENERIC_POSIX=1, so the platform
# layer runs as on macOS and the BSDs (no membarrier, no THP advice: the
# cases that need those say "skipped"; they run in the other stages);
# those that link TBB, OpenMP, OpenMesh or CGAL, which Debian builds
# against libstdc++, and the examples (travpool_tests_with_libs), against
# libstdc++ on the Linux branch. No benchmarks. Each ctest preset takes
# only labelled tests, which a program not built in its tree has none of.
cmake --preset libcxx >/dev/null
cmake --preset release-clang >/dev/null
# The two trees build at once: each alone ends in a tail of one or two
# long compiles (the mesh's unity programs, pool_test) that leaves a core
# idle; one after the other took 550 s, against 393 s for the one tree and
# the -O0 libc++ tree before.
build_clang_trees() {
  local pid status=0
  cmake --build --preset libcxx -j "$jobs" --target travpool_tests_std_only &
  pid=$!
  cmake --build --preset release-clang -j "$jobs" --target travpool_tests_with_libs || status=1
  wait "$pid" || status=1
  return "$status"
}
phase build build_clang_trees
phase test ctest --preset libcxx -j "$jobs"
phase test ctest --preset release-clang -j "$jobs"

stage "3/8 ASan + UBSan build and tests"
# Everything but the CGAL test, whose translation unit alone took 2.5 min
# to compile here under ASan at -O2, and the checks-default programs: both
# run in stage 1 (docs/testing.md says where each case runs).
cmake --preset asan >/dev/null
phase build cmake --build --preset asan -j "$jobs" --target travpool_tests
phase test ctest --preset asan -j "$jobs"

stage "4/8 TSan build and threaded tests"
cmake --preset tsan >/dev/null
# Only the threaded tests (*_mt_test.cpp, ctest label "threads") run here,
# the mesh's (examples/mesh/tests/*_mt_test.cpp, one program: mesh_mt_test)
# included.
mapfile -t mt_targets < <(find tests -name '*_mt_test.cpp' -exec basename {} .cpp \;)
mt_targets+=(mesh_mt_test)
phase build cmake --build --preset tsan -j "$jobs" --target "${mt_targets[@]}"
# TSan needs a non-randomised high address layout on some kernels.
phase test setarch "$(uname -m)" -R ctest --preset tsan -j "$jobs"

stage "5/8 fuzzers, ${TRAVPOOL_FUZZ_SECONDS:-30}s each, from the committed corpora"
scripts/fuzz.sh "${TRAVPOOL_FUZZ_SECONDS:-30}"

stage "6/8 the core tests cross-built for AArch64, under qemu with 64 KiB and 4 KiB pages"
scripts/cross_aarch64.sh 65536 4096

stage "7/8 the core tests cross-built for 64-bit Windows (mingw-w64), under wine"
scripts/cross_windows.sh

stage "8/8 install, then build tests/consumer against the installed package"
prefix=$PWD/build/install
rm -rf "$prefix" build/consumer
cmake --install build/release --prefix "$prefix" >/dev/null
cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
phase build cmake --build build/consumer -j "$jobs"
phase test ctest --test-dir build/consumer --output-on-failure
if (($(count_tests --test-dir build/consumer -R '^consumer_cgal$') == 0)); then
  echo "test.sh: tests/consumer has no consumer_cgal test (CGAL not found by the consumer)" >&2
  exit 1
fi
print_summary
echo "all test stages passed in $SECONDS s"
