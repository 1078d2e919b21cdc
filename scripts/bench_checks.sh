#!/usr/bin/env bash
# What checks::hardened and checks::on cost against checks::off
# (bench/checks_cost_bench.cpp: all three in one process), built with the
# project's Release flags and with a plain user's g++ -O2 -DNDEBUG. Each
# build runs every benchmark --reps times in random interleaving; prints the
# median times and the ratios hardened / off and on / off (docs/api.md,
# "Checks", quotes them).
# Usage: scripts/bench_checks.sh [--n=N] [--reps=R]   (defaults 5,000,000 and 9)
set -euo pipefail
cd "$(dirname "$0")/.."
n=5000000
reps=9
for a in "$@"; do
  case $a in
    --n=*) n=${a#--n=} ;;
    --reps=*) reps=${a#--reps=} ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target checks_cost_bench
out=build/bench-checks
mkdir -p "$out"
g++ -std=c++20 -O2 -DNDEBUG -Iinclude -Ibench bench/checks_cost_bench.cpp -o "$out/checks_cost_plain" -lbenchmark -lpthread
for build in project plain; do
  prog=build/release/bench/checks_cost_bench
  [[ $build == plain ]] && prog=$out/checks_cost_plain
  echo "== $build build (n=$n, $reps repetitions, random interleaving)" >&2
  "$prog" --n="$n" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_format=console \
    --benchmark_out="$out/$build.json" --benchmark_out_format=json >&2
done
python3 - "$out" "$n" "$reps" <<'EOF'
import json, sys
out, n, reps = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(f"N = {n:,} elements of 24 B; medians of {reps} repetitions in random interleaving; time per operation (ns)\n")
print("| workload | pool | off | hardened | on | hardened / off (project; -O2) | on / off (project; -O2) |")
print("|---|---|---|---|---|---|---|")
med = {}
for build in ("project", "plain"):
    for b in json.load(open(f"{out}/{build}.json"))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            med[(build, b["run_name"])] = b["real_time"]  # milliseconds
rows = []
for (build, name) in med:
    if build == "project" and name.endswith("_off>"):
        work, kind = name[:-len("_off>")].split("<")
        rows.append((work, kind))
for work, kind in rows:
    def t(build, level):
        return med[(build, f"{work}<{kind}_{level}>")]
    ns = lambda ms: ms * 1e6 / n
    r = lambda build, level: t(build, level) / t(build, "off")
    print(f"| {work} | {kind} | {ns(t('project','off')):.2f} | {ns(t('project','hardened')):.2f} | "
          f"{ns(t('project','on')):.2f} | {r('project','hardened'):.2f}×; {r('plain','hardened'):.2f}× | "
          f"{r('project','on'):.2f}×; {r('plain','on'):.2f}× |")
EOF
