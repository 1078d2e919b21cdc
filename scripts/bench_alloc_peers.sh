#!/usr/bin/env bash
# travpool against the allocators people use for many small objects
# (mimalloc, jemalloc, tbbmalloc, glibc malloc, plf::colony and boost::pool
# behind a mutex): create, random destroy, churn, sweeps after the churn and
# peak RSS, every contender in its own child process (docs/threads.md,
# "Against general-purpose allocators").
# Usage: scripts/bench_alloc_peers.sh [--docs] [options of bench_alloc_peers.py]
#   --docs   also writes the tables into docs/threads.md
#   e.g. --rounds=5 --sizes=24 --threads=2 --contenders=concurrent_pool,pool,mimalloc
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for a in "$@"; do
  case $a in
    --docs) args+=(--docs=docs/threads.md) ;;
    *) args+=("$a") ;;
  esac
done
scripts/deps.sh libmimalloc-dev libjemalloc-dev libtbb-dev libplf-colony-dev libboost-dev
cmake --preset release >/dev/null
flock -s /tmp/travpool-bench.lock cmake --build --preset release -j "$(nproc)" --target alloc_peers_bench
out=build/bench-alloc-peers
mkdir -p "$out"
python3 scripts/bench_alloc_peers.py build/release/bench/alloc_peers_bench --json="$out/runs.jsonl" "${args[@]}" |
  tee "$out/alloc_peers.md"
