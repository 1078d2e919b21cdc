#!/usr/bin/env bash
# Figure 11 on fresh memory: every contender creates N elements in a process
# of its own (create_bench, one repetition), so that none of them reuses
# memory that it mapped and released before (travpool's span cache, glibc's
# heap). Rounds are interleaved and the order rotates every round, because a
# process that starts right after another one's exit may fault the pages that
# the other gave back, which on a VM with free page reporting is faster.
# Prints each contender's median of ROUNDS runs (wall, ms) and its ratio to
# plf::colony and boost::object_pool.
#   bench/fresh_create.sh BENCH_BINARY [ROUNDS] [N]
# Contenders: travpool<compact> (the default pool) under the default page
# policy (travpool) and under TRAVPOOL_HUGE_PAGES=always and =never
# (travpool@always, travpool@never), boost::object_pool,
# plf::colony, std::vector (reserved). Set CONTENDERS to choose others:
#   CONTENDERS="travpool travpool@never plf::colony" bench/fresh_create.sh ...
set -euo pipefail
bin=$1
rounds=${2:-7}
n=${3:-20000000}
read -r -a names <<<"${CONTENDERS:-travpool travpool@always travpool@never boost::object_pool plf::colony std::vector}"
declare -A times
run_one() {  # $1: contender; prints the wall ms of one creation of n elements
  local name=${1%%@*} policy=${1#*@} filter
  [[ $policy == "$1" ]] && policy=""
  case $name in
    travpool) filter='fig11/travpool<compact>/default/' ;;
    *) filter="fig11/${name}/-/" ;;
  esac
  filter=$(printf '%s' "$filter" | sed 's/[][+.*()]/\\&/g')
  env ${policy:+TRAVPOOL_HUGE_PAGES=$policy} "$bin" --n="$n" --reps=1 --benchmark_filter="^${filter}" \
    --benchmark_format=csv 2>/dev/null | awk -F, '/^"fig11/ { print $3 }'
}
k=${#names[@]}
for ((r = 0; r < rounds; ++r)); do
  for ((j = 0; j < k; ++j)); do
    c=${names[$(((j + r) % k))]}
    t=$(run_one "$c")
    times[$c]="${times[$c]:-} $t"
  done
done
median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ref_c=$(echo "${times[plf::colony]:-}" | median)
ref_b=$(echo "${times[boost::object_pool]:-}" | median)
printf '%-24s %10s %9s %9s   %s\n' contender "median ms" "÷colony" "÷boost" "runs (ms)"
for c in "${names[@]}"; do
  m=$(echo "${times[$c]}" | median)
  printf '%-24s %10.1f %9s %9s  %s\n' "$c" "$m" \
    "$([[ -n $ref_c ]] && awk -v a="$m" -v b="$ref_c" 'BEGIN { printf "%.2f", a / b }')" \
    "$([[ -n $ref_b ]] && awk -v a="$m" -v b="$ref_b" 'BEGIN { printf "%.2f", a / b }')" "${times[$c]}"
done
echo "(n=$n, rounds=$rounds, $(uname -r), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
