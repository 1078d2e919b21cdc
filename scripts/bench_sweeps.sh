#!/usr/bin/env bash
# scripts/bench_sweeps.sh: Table 3's sweeps in every idiom, and the 2-thread
# parallel rows, and the sweeps after clustered deletions (gap_pattern_bench,
# N = --gap-n), built twice: with the project's flags (the Release preset,
# -O3 plus the JCC fix as in scripts/bench.sh) and as a plain user's Release
# build (-O2 -DNDEBUG, no other flag). The clustered-deletion run is repeated
# in --gap-rounds rounds, one process each, alternating between the two
# builds (this VM's dense sweep moves by 10-20 % between processes).
# Renders docs/sweeps.md.
#
#   scripts/bench_sweeps.sh [--n N] [--gap-n N] [--reps R] [--gap-rounds K] [--no-report]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=20000000
gap_n=10000000
reps=5
gap_rounds=3
report=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n="$2"; shift ;;
    --gap-n) gap_n="$2"; shift ;;
    --reps) reps="$2"; shift ;;
    --gap-rounds) gap_rounds="$2"; shift ;;
    --no-report) report=0 ;;
    *) echo "bench_sweeps.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done
"$repo/scripts/deps.sh" libplf-colony-dev libcgal-dev

# The two builds, by key.
declare -A dir=([project]="$repo/build/bench-sweeps-project" [o2]="$repo/build/bench-sweeps-o2")
declare -A flags=([project]="-O3 -DNDEBUG -Wa,-mbranches-within-32B-boundaries" [o2]="-O2 -DNDEBUG")
declare -A label=([project]="project flags" [o2]="plain -O2")

run_set() {  # project|o2: build, then Table 3's sweeps and the parallel rows
  local d=${dir[$1]} out=${dir[$1]}/sweeps
  cmake -S "$repo" -B "$d" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=${flags[$1]}" \
    -DTRAVPOOL_BUILD_TESTS=OFF -DTRAVPOOL_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$d" --target sweep_bench parallel_bench gap_pattern_bench -j "$(nproc)"
  rm -rf "$out"
  mkdir -p "$out"
  local cpu
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
  echo "${label[$1]}: CXX_FLAGS_RELEASE='${flags[$1]}'; n=$n gap_n=$gap_n reps=$reps gap_rounds=$gap_rounds; commit $(git -C "$repo" rev-parse --short HEAD); $(c++ --version | head -1); $(nproc) x $cpu" >"$out/run.txt"
  "$d/bench/sweep_bench" --n="$n" --reps="$reps" \
    --benchmark_filter='std::vector\.|travpool|colony|CGAL' \
    --benchmark_out="$out/table3.json" --benchmark_out_format=json >/dev/null
  "$d/bench/parallel_bench" --n="$n" --benchmark_repetitions="$reps" \
    --benchmark_filter='/[12]/' \
    --benchmark_out="$out/parallel.json" --benchmark_out_format=json >/dev/null
}

run_set project
run_set o2
for ((r = 1; r <= gap_rounds; r++)); do
  for s in project o2; do
    "${dir[$s]}/bench/gap_pattern_bench" --n="$gap_n" --reps="$reps" \
      --benchmark_out="${dir[$s]}/sweeps/gaps.$r.json" --benchmark_out_format=json >/dev/null
  done
done
if ((report)); then
  python3 "$repo/scripts/sweep_report.py" "$repo/docs/sweeps.md" \
    "project flags (-O3 -DNDEBUG, JCC fix):${dir[project]}/sweeps" \
    "plain user's Release (-O2 -DNDEBUG):${dir[o2]}/sweeps"
  echo "wrote docs/sweeps.md"
fi
