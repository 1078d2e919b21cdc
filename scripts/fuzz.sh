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
# The two fuzzers are built at once, and run at once, one per core: each
# is one process and one thread.
names=(pool_ops mesh_reader)
t=$SECONDS
pids=()
for name in "${names[@]}"; do
  echo "== building ${name}_fuzz"
  clang++-14 "${flags[@]}" "tests/fuzz/${name}_fuzz.cpp" -o "build/fuzz/${name}_fuzz" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "build $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
# fuzz NAME: runs NAME's fuzzer for $seconds from its corpora, its output in
# build/fuzz/NAME.log; the fuzzer's exit status is the function's.
fuzz() {
  local name=$1 work=build/fuzz/corpus-$1
  mkdir -p "$work"
  "build/fuzz/${name}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="build/fuzz/${name}-" "$work" "tests/fuzz/corpus/$name" >"build/fuzz/${name}.log" 2>&1
}
t=$SECONDS
pids=()
for name in "${names[@]}"; do
  echo "== fuzzing ${name} for ${seconds}s"
  fuzz "$name" &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  # libFuzzer's summary and any report, without its progress lines.
  echo "== ${names[$i]}"
  grep -E "^(#[0-9]+ +DONE|==|stat::number_of_executed_units|stat::peak_rss|SUMMARY|ERROR)|Done" \
    "build/fuzz/${names[$i]}.log" || true
  if ((rc != 0)); then
    echo "fuzzer ${names[$i]} failed (exit status $rc; its output: build/fuzz/${names[$i]}.log)"
    failed=1
  fi
done
((failed == 0)) || exit 1
[[ -z ${TRAVPOOL_PHASE_TIMES:-} ]] || echo "test $((SECONDS - t))" >>"$TRAVPOOL_PHASE_TIMES"
echo "fuzzers passed"
