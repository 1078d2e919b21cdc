#!/usr/bin/env bash
# Builds and runs every test: Release (the default compiler, c++ or $CXX),
# Release with clang++-14 (the programs that need only the standard library
# with libc++ on the POSIX branch as for macOS, the others with libstdc++
# on Linux's), ASan+UBSan, TSan
# (threaded tests), the fuzzers for a bounded time, the core tests
# cross-built for AArch64 and run under qemu with 64 KiB and 4 KiB pages,
# the core tests cross-built for 64-bit Windows and run under wine, and a
# consumer project built against the installed package. The full run
# goes in two tracks at once (GCC's Release and Clang's ASan+UBSan; the others).
# Prints each stage's build and test time and its CPU seconds. Idempotent.
# docs/testing.md says what each stage builds and runs, and how long it
# takes.
# Usage: scripts/test.sh [--quick | --component NAME]
#   --quick            every test, built by Clang at -O0 (preset quick)
#   --component NAME   the quick build's programs and cases of one
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
# records them), with the CPU seconds (user + system) of the stage's
# processes. The stages that run a script (fuzz.sh, cross_*.sh) get the
# split from it through the file $TRAVPOOL_PHASE_TIMES.
mkdir -p build/logs
export TRAVPOOL_PHASE_TIMES=$PWD/build/phase-times.txt
stage_name="" stage_start=$SECONDS stage_cpu0=0 build_s=0 test_s=0 summary_file=$PWD/build/logs/summary.txt
: >"$TRAVPOOL_PHASE_TIMES"
# children_cpu: sets cpu_s to the user + system CPU seconds of the finished
# children of this shell (bash's times, run in this shell: a command
# substitution's subshell has no children yet).
children_cpu() {
  local f=build/logs/times.$BASHPID
  times >"$f"
  cpu_s=$(awk 'function sec(x, m) { m = x; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", x); sub(/s$/, "", x); return m * 60 + x }
    END { printf "%d", sec($1) + sec($2) }' "$f")
  rm -f "$f"
}
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
  children_cpu
  local total=$((SECONDS - stage_start)) cpu=$((cpu_s - stage_cpu0))
  printf '==== %s: %ds (build %ds, tests %ds; %d CPU s) ====\n' "$stage_name" $total $build_s $test_s $cpu | tee -a build/logs/progress.txt >&3
  printf '| %s | %d | %d | %d | %d |\n' "$stage_name" $build_s $test_s $total $cpu >>"$summary_file"
  stage_name=""
}
stage() {
  stage_done
  children_cpu
  stage_name=$1 stage_start=$SECONDS build_s=0 test_s=0 stage_cpu0=$cpu_s
  printf '\n==== %s ====\n' "$*"
  printf '%s: %s starts\n' "$(date +%T)" "$1" >&3
}
print_summary() {
  stage_done
  printf '\n| stage | build s | tests s | total s | CPU s |\n|---|---|---|---|---|\n'
  sort -k2,2n "$summary_file"
}
exec 3>&1
: >"$summary_file"
: >build/logs/progress.txt

# The CGAL tests are built only where CGAL is found: fail rather than skip them unnoticed.
count_tests() {
  local n
  n=$(ctest "$@" -N | sed -n 's/^Total Tests: //p')
  echo "${n:-0}"
}

if ((quick)) || [[ -n $component ]]; then
  # The quick loop: every test program but the checks-default ones and
  # mesh_compare, compiled by Clang at -O0 (the slowest at -O1), every case
  # at the depth of the stages after the first; or one component's
  # programs and cases (label COMPONENT). What it leaves to the full run:
  # optimised code, GCC, the full depths, the sanitizers, the other
  # targets (docs/testing.md).
  target=travpool_tests only=()
  if [[ -n $component ]]; then
    stage "quick build and tests of component $component"
    target=travpool_tests_$component only=(-L "^$component\$" --no-tests=error)
  else
    stage "quick: every test, clang++-14 at -O0"
  fi
  cmake --preset quick >/dev/null
  phase build cmake --build --preset quick -j "$jobs" --target "$target"
  phase test ctest --preset quick -j "$jobs" "${only[@]}"
  print_summary
  exit 0
fi

stage_1() {
  stage "1/8 Release build and tests"
  # travpool_tests: every program ctest runs; the benchmarks are built by
  # their own scripts (bench/README.md), but for mesh_compare, whose
  # agreement check is a test.
  cmake --preset release >/dev/null
  phase build cmake --build --preset release -j "$jobs" --target travpool_tests
  # Stage 8 installs from this tree once it is built.
  touch build/logs/release-built
  phase test ctest --preset release -j "$jobs"
  if (($(count_tests --preset release -R '^cgal: ') == 0)); then
    echo "test.sh: build/release has no mesh_cgal_test cases (CGAL not found, or TRAVPOOL_CGAL_TESTS off)" >&2
    return 1
  fi
}

stage_2() {
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
  phase build cmake --build --preset libcxx -j "$jobs" --target travpool_tests_std_only
  phase build cmake --build --preset release-clang -j "$jobs" --target travpool_tests_with_libs
  phase test ctest --preset libcxx -j "$jobs"
  phase test ctest --preset release-clang -j "$jobs"
}

stage_3() {
  stage "3/8 ASan + UBSan build and tests"
  # Everything but the CGAL test, whose translation unit alone took 2.5 min
  # to compile here under ASan at -O2, and the checks-default programs: both
  # run in stage 1 (docs/testing.md says where each case runs).
  cmake --preset asan >/dev/null
  phase build cmake --build --preset asan -j "$jobs" --target travpool_tests
  phase test ctest --preset asan -j "$jobs"
}

stage_4() {
  stage "4/8 TSan build and threaded tests"
  cmake --preset tsan >/dev/null
  # Only the threaded tests (*_mt_test.cpp, ctest label "threads") run here,
  # the mesh's (examples/mesh/tests/*_mt_test.cpp, one program: mesh_mt_test)
  # included.
  local mt_targets
  mapfile -t mt_targets < <(find tests -name '*_mt_test.cpp' -exec basename {} .cpp \;)
  mt_targets+=(mesh_mt_test)
  phase build cmake --build --preset tsan -j "$jobs" --target "${mt_targets[@]}"
  # TSan needs a non-randomised high address layout on some kernels.
  phase test setarch "$(uname -m)" -R ctest --preset tsan -j "$jobs"
}

stage_5() {
  stage "5/8 fuzzers, ${TRAVPOOL_FUZZ_SECONDS:-30}s each, from the committed corpora"
  scripts/fuzz.sh "${TRAVPOOL_FUZZ_SECONDS:-30}"
}

stage_6() {
  stage "6/8 the core tests cross-built for AArch64, under qemu with 64 KiB and 4 KiB pages"
  scripts/cross_aarch64.sh 65536 4096
}

stage_7() {
  stage "7/8 the core tests cross-built for 64-bit Windows (mingw-w64), under wine"
  scripts/cross_windows.sh
}

stage_8() {
  stage "8/8 install, then build tests/consumer against the installed package"
  local prefix=$PWD/build/install
  # The Release tree of stage 1, once built (the other track builds it).
  while [[ ! -e build/logs/release-built ]]; do
    [[ -e build/logs/track-a.failed ]] && return 1
    sleep 5
  done
  rm -rf "$prefix" build/consumer
  cmake --install build/release --prefix "$prefix" >/dev/null
  cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  phase build cmake --build build/consumer -j "$jobs"
  phase test ctest --test-dir build/consumer --output-on-failure
  if (($(count_tests --test-dir build/consumer -R '^consumer_cgal$') == 0)); then
    echo "test.sh: tests/consumer has no consumer_cgal test (CGAL not found by the consumer)" >&2
    return 1
  fi
}

# The full run: two tracks at once, each running its stages one after the
# other, each build and ctest with -j $(nproc): track a (stages 1 and 3,
# GCC's Release and Clang's ASan+UBSan, about half of the CPU time) and track b (the
# others). One stage's tests and the end of its build (a few long
# compiles) leave cores idle; the other track's work fills them. Each
# track's output goes to build/logs/track-NAME.log, printed when the track
# ends; the console shows each stage's start and end as they happen.
rm -f build/logs/release-built build/logs/track-*.failed
# track NAME STAGE...: runs the stages in order, each in a subshell of its
# own (so that set -e holds in it), the output to the track's log.
track() {
  local name=$1 s
  shift
  export TRAVPOOL_PHASE_TIMES=$PWD/build/logs/phase-times-$name.txt
  : >"$TRAVPOOL_PHASE_TIMES"
  for s in "$@"; do
    (
      "stage_$s"
      stage_done
    ) >>"build/logs/track-$name.log" 2>&1 &
    if ! wait $!; then
      printf '%s: FAILED: stage %s/8 (its output: build/logs/track-%s.log)\n' "$(date +%T)" "$s" "$name" >&3
      echo "stage $s/8" >"build/logs/track-$name.failed"
      return 1
    fi
  done
}
rm -f build/logs/track-*.log
track a 1 3 &
pid_a=$!
track b 2 4 5 6 7 8 &
pid_b=$!
status=0
wait "$pid_a" || status=1
wait "$pid_b" || status=1
for name in a b; do
  printf '\n======== track %s: build/logs/track-%s.log ========\n' "$name" "$name"
  cat "build/logs/track-$name.log"
done
print_summary
if ((status != 0)); then
  echo "test.sh: failed: $(cat build/logs/track-*.failed)" >&2
  exit 1
fi
children_cpu
echo "all test stages passed in $SECONDS s ($cpu_s CPU s: $(awk -v c="$cpu_s" -v w="$SECONDS" 'BEGIN { printf "%.2f", c / w }') cores busy on average)"
