#!/usr/bin/env bash
# scripts/bench.sh: build and run the paper benchmarks, then render
# docs/benchmarks.md and docs/img/*.png.
#
#   scripts/bench.sh            defaults for 2 cores / 24 GiB: N = 20 M, 5 repetitions
#   scripts/bench.sh --paper    the paper's scale: N = 200 M, 3 repetitions (hours)
#
# Run `scripts/bench.sh --help` for every flag.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=20000000
reps=5        # fig11, table3, gaps
reps_long=3   # erase: each repetition rebuilds N elements
build_dir="$repo/build/bench"
out_dir=""
only="fig11,table2,table3,erase,gaps"
install=1
report=1
jcc_fix=1

usage() {
  cat <<EOF
usage: scripts/bench.sh [flags]

  --paper          the paper's scale, N = 200,000,000 (needs ~14 GiB; takes hours)
  --n N            elements per container (default 20,000,000)
  --reps R         repetitions of every benchmark (default 5, but 3 for erase, whose
                   repetitions each rebuild N elements; 3 for all with --paper)
  --quick          N = 2,000,000 and 3 repetitions (a smoke run, about 2 minutes)
  --only LIST      comma-separated subset of: fig11,table2,table3,erase,gaps
  --build-dir DIR  CMake build directory (default build/bench)
  --out DIR        where the JSON results go (default <build-dir>/results)
  --no-install     do not install missing Debian packages
  --no-report      do not render docs/benchmarks.md and docs/img/*.png
  --no-jcc-fix     build without -Wa,-mbranches-within-32B-boundaries (see docs/benchmarks.md)
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --paper) n=200000000; reps=3; reps_long=3 ;;
    --n) n="$2"; shift ;;
    --n=*) n="${1#*=}" ;;
    --reps) reps="$2"; reps_long="$2"; shift ;;
    --reps=*) reps="${1#*=}"; reps_long="$reps" ;;
    --quick) n=2000000; reps=3; reps_long=3 ;;
    --only) only="$2"; shift ;;
    --only=*) only="${1#*=}" ;;
    --build-dir) build_dir="$2"; shift ;;
    --out) out_dir="$2"; shift ;;
    --no-install) install=0 ;;
    --no-report) report=0 ;;
    --no-jcc-fix) jcc_fix=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown flag $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
out_dir=${out_dir:-$build_dir/results}
t_start=$(date +%s)

say() { printf '\n=== [%s, +%ss] %s\n' "$(date -u +%H:%M:%S)" "$(( $(date +%s) - t_start ))" "$*"; }
wants() { [[ ",$only," == *",$1,"* ]]; }

# --- 1. Debian packages ------------------------------------------------------
packages=(cmake g++ make python3 python3-matplotlib libbenchmark-dev libboost-dev libtbb-dev
          libplf-colony-dev libcgal-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ $install -eq 0 ]]; then
    echo "bench.sh: missing Debian packages: ${missing[*]} (rerun without --no-install)" >&2
    exit 1
  fi
  say "installing missing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# --- 2. build ------------------------------------------------------------------
programs=()
wants fig11 && programs+=(create_bench)
wants table2 && programs+=(memory_probe_bench)
wants table3 && programs+=(sweep_bench)
wants erase && programs+=(erase_bench)
wants gaps && programs+=(gap_pattern_bench)
cxxflags=""
[[ $jcc_fix -eq 1 ]] && cxxflags="-Wa,-mbranches-within-32B-boundaries"
say "building ${programs[*]} in $build_dir (Release, CXXFLAGS='$cxxflags')"
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTRAVPOOL_BUILD_TESTS=OFF \
  -DTRAVPOOL_BUILD_EXAMPLES=OFF -DCMAKE_CXX_FLAGS="$cxxflags" >/dev/null
cmake --build "$build_dir" --target "${programs[@]}" -j"$(nproc)"
bin="$build_dir/bench"

mkdir -p "$out_dir"
{
  echo "n=$n reps=$reps reps_erase=$reps_long only=$only jcc_fix=$jcc_fix"
  echo "commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD -- include bench 2>/dev/null || echo ' (+ uncommitted changes in include/ or bench/)')"
  echo "$(c++ --version | head -1); kernel $(uname -r); THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
} >"$out_dir/run.txt"
say "N = $n elements, $reps / $reps_long repetitions; JSON goes to $out_dir"

# --- 3. run --------------------------------------------------------------------
step=0
steps=${#programs[@]}
run_gbench() {  # name json reps
  step=$((step + 1))
  say "[$step/$steps] $1: running, $3 repetitions (one line per benchmark as it finishes)"
  "$bin/$1" --n="$n" --reps="$3" --benchmark_out="$out_dir/$2.json" --benchmark_out_format=json \
    --benchmark_display_aggregates_only=true --benchmark_counters_tabular=false |
    { grep --line-buffered -v -E '_(mean|stddev|cv) ' || true; }
}

wants fig11 && run_gbench create_bench fig11 "$reps"
if wants table2; then
  mapfile -t containers < <("$bin/memory_probe_bench" --list)
  step=$((step + 1))
  say "[$step/$steps] memory_probe_bench: one process per container (${#containers[@]} containers)"
  {
    echo "["
    i=0
    for c in "${containers[@]}"; do
      i=$((i + 1))
      printf '  [%2d/%d] %-34s' "$i" "${#containers[@]}" "$c" >&2
      line=$("$bin/memory_probe_bench" --container="$c" --n="$n")
      /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(" %7.2f B/elem, peak %8.1f MiB" % (d["bytes_per_element"], d["peak_rss"]/2**20))' "$line" >&2
      [[ $i -gt 1 ]] && echo ","
      printf '%s' "$line"
    done
    echo
    echo "]"
  } >"$out_dir/table2.json"
fi
wants table3 && run_gbench sweep_bench table3 "$reps"
wants erase && run_gbench erase_bench erase "$reps_long"
wants gaps && run_gbench gap_pattern_bench gaps "$reps"

# --- 4. report -----------------------------------------------------------------
if [[ $report -eq 1 ]]; then
  say "rendering docs/benchmarks.md and docs/img/*.png"
  /usr/bin/python3 "$repo/scripts/bench_report.py" --results "$out_dir" --md "$repo/docs/benchmarks.md" \
    --img "$repo/docs/img"
fi
say "done"
