#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (ASan+UBSan) and runs each for a
# bounded time from its committed seed corpus (tests/fuzz/corpus/NAME).
# New corpus entries go to build/fuzz/corpus-NAME, not into the repository.
# A crash leaves its input in build/fuzz/ and fails the script: add it to
# tests/fuzz/regressions/NAME/ once fixed.
# Usage: scripts/fuzz.sh [SECONDS_PER_FUZZER]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/deps.sh clang-14 libclang-rt-14-dev libfuzzer-14-dev
mkdir -p build/fuzz
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iinclude)
# Build and fuzzing times go to $TRAVPOOL_PHASE_TIMES, when set (scripts/test.sh).
t=$SECONDS
for name in pool_ops mesh_reader; do
  echo "== building ${name}_fuzz"
  clang++-14 "${flags[@]}" "tests/fuzz/${name}_fuzz.cpp" -o "build/fuzz/${name}_fuzz"
done
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "build $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
t=$SECONDS
for name in pool_ops mesh_reader; do
  work=build/fuzz/corpus-$name
  mkdir -p "$work"
  echo "== fuzzing ${name} for ${seconds}s"
  # grep hides libFuzzer's progress lines; the fuzzer's own exit status
  # decides (with pipefail, the pipeline's status is the fuzzer's when grep
  # matched; grep's own "no match" is forgiven inside the braces).
  rc=0
  "build/fuzz/${name}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="build/fuzz/${name}-" "$work" "tests/fuzz/corpus/$name" 2>&1 |
    { grep -E "^(#[0-9]+ +DONE|==|stat::number_of_executed_units|stat::peak_rss|SUMMARY|ERROR)|Done" || true; } || rc=$?
  ((rc == 0)) || { echo "fuzzer ${name} failed (exit status $rc)"; exit 1; }
done
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "test $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
echo "fuzzers passed"
