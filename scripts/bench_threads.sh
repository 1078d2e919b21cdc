#!/usr/bin/env bash
# Thread benchmarks: concurrent creation (Figure 12), churn, producer-consumer
# and parallel traversal (Figure 13), side by side, median of repetitions.
# Writes build/bench-threads/*.json and the tables of the run to
# build/bench-threads/threads.md (docs/threads.md quotes them).
# Usage: scripts/bench_threads.sh [--n=N] [--reps=R] [--threads=1,2,4,8,16]
#   (defaults 20,000,000, 5 and 1,2,4,8; --threads sets TRAVPOOL_BENCH_THREADS)
set -euo pipefail
cd "$(dirname "$0")/.."
n=20000000
reps=5
for a in "$@"; do
  case $a in
    --n=*) n=${a#--n=} ;;
    --reps=*) reps=${a#--reps=} ;;
    --threads=*) export TRAVPOOL_BENCH_THREADS=${a#--threads=} ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target concurrent_bench parallel_bench policy_cost_bench policy_cost_checks_bench
out=build/bench-threads
mkdir -p "$out"
common=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=console)
# boost::object_pool::free is O(n) (an ordered free): its churn rows at 4
# threads and more alone would take most of the run, and add nothing.
filter_concurrent='-churn<boost_pool_mutex_c>/([4-9]|[1-9][0-9]+)/'
for prog in concurrent_bench parallel_bench policy_cost_bench policy_cost_checks_bench; do
  echo "== $prog (n=$n, $reps repetitions)"
  filter=()
  [[ $prog == concurrent_bench ]] && filter=(--benchmark_filter="$filter_concurrent")
  "build/release/bench/$prog" --n="$n" "${common[@]}" "${filter[@]}" --benchmark_out="$out/$prog.json" \
    --benchmark_out_format=json
done
# The same concurrent_pool rows with the biased bin locks switched off: the
# paper's plain per-bin lock, one CAS per create and destroy.
echo "== concurrent_bench, concurrent_pool, TRAVPOOL_BIASED_LOCKS=0"
TRAVPOOL_BIASED_LOCKS=0 build/release/bench/concurrent_bench --n="$n" "${common[@]}" \
  --benchmark_filter='concurrent_pool_c' --benchmark_out="$out/concurrent_bench_unbiased.json" --benchmark_out_format=json
python3 scripts/bench_threads_report.py "$out" > "$out/threads.md"
echo "wrote $out/threads.md"
