#!/usr/bin/env bash
# Builds and runs every test: Release, ASan+UBSan, TSan (threaded tests),
# the fuzzers for a bounded time, and a consumer project built against the
# installed package. Idempotent.
# Usage: scripts/test.sh [--quick]   (--quick: Release only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh clang-14 libclang-rt-14-dev libfuzzer-14-dev libplf-colony-dev libcgal-dev libopenmesh-dev
jobs=$(nproc)
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

stage() { printf '\n==== %s ====\n' "$*"; }

stage "1/5 Release build and tests"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

if ((quick)); then exit 0; fi

stage "2/5 ASan + UBSan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

stage "3/5 TSan build and threaded tests"
cmake --preset tsan >/dev/null
# Only the threaded tests (*_mt_test.cpp, ctest label "threads") run here.
mapfile -t mt_targets < <(find tests -name '*_mt_test.cpp' -exec basename {} .cpp \;)
cmake --build --preset tsan -j "$jobs" --target "${mt_targets[@]}"
# TSan needs a non-randomised high address layout on some kernels.
setarch "$(uname -m)" -R ctest --preset tsan -j "$jobs"

stage "4/5 fuzzers, ${TRAVPOOL_FUZZ_SECONDS:-60}s each, from the committed corpora"
scripts/fuzz.sh "${TRAVPOOL_FUZZ_SECONDS:-60}"

stage "5/5 install, then build tests/consumer against the installed package"
prefix=$PWD/build/install
rm -rf "$prefix" build/consumer
cmake --install build/release --prefix "$prefix" >/dev/null
cmake -S tests/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/consumer -j "$jobs"
ctest --test-dir build/consumer --output-on-failure
echo "all test stages passed"
