#!/usr/bin/env bash
# Destroy in random order, ns per destroy, medians of interleaved rounds
# (each contender a process of its own per round; the mean of the middle two
# for an even count): pool<T> and concurrent_pool as include/ builds them;
# the same with release() patched to do no free-run repair at all, which
# leaves the bins invalid (no sweep may follow) and bounds this destroy
# with its other work kept (directory lookup, misuse check, status bit,
# free-list push); and mimalloc, jemalloc and glibc through new/delete.
# docs/threads.md, "Where travpool stands", quotes it.
# Usage: bench/standalone/destroy_bound.sh [N] [size 24|64] [rounds]   (default 10,000,000, 24, 5)
# BASE=<checkout> adds the rows of that tree's include/ (the same harness).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000000}
size=${2:-24}
rounds=${3:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c++20 -O2 -DNDEBUG)
g++ "${flags[@]}" -Iinclude bench/standalone/alloc_ops_profile.cpp -o "$out/aop"
cp -r include "$out/bound"
alg="$out/bound/travpool/detail/bin_algorithms.hpp"
sed -i 's/const auto \[prev, next\] = traits::neighbours(b, c);/const std::uint32_t prev = c - 1, next = c + 1;/' "$alg"
grep -q 'const std::uint32_t prev = c - 1, next = c + 1;' "$alg" || { echo "destroy_bound.sh: the patch no longer applies" >&2; exit 1; }
g++ "${flags[@]}" -I"$out/bound" bench/standalone/alloc_ops_profile.cpp -o "$out/aop_bound"
lib=/usr/lib/x86_64-linux-gnu
for so in libmimalloc.so.2 libjemalloc.so.2; do
  # ld.so only warns about a missing preload, and the row would time glibc.
  [[ -e $lib/$so ]] || { echo "destroy_bound.sh: $lib/$so is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
rows=(pool concurrent_pool "pool, no repair" "concurrent_pool, no repair" mimalloc jemalloc glibc)
if [[ -n ${BASE:-} ]]; then
  g++ "${flags[@]}" -I"$BASE/include" bench/standalone/alloc_ops_profile.cpp -o "$out/aop_base"
  rows=("pool, BASE" "concurrent_pool, BASE" "${rows[@]}")
fi
declare -A t
for ((r = 0; r < rounds; ++r)); do
  for row in "${rows[@]}"; do
    prog=$out/aop pre="" c=${row%%,*}
    [[ $row == *"no repair" ]] && prog=$out/aop_bound
    [[ $row == *BASE ]] && prog=$out/aop_base
    case $c in
      mimalloc) c=new pre=$lib/libmimalloc.so.2 ;;
      jemalloc) c=new pre=$lib/libjemalloc.so.2 ;;
      glibc) c=new ;;
    esac
    v=$(LD_PRELOAD=$pre "$prog" "$c" "$n" "$size" time | grep -E '^[0-9.]+$') ||
      { echo "destroy_bound.sh: no time from the $row row" >&2; exit 1; }
    t[$row]="${t[$row]:-} $v"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mi=$(echo "${t[mimalloc]}" | median)
printf '| %s B, N = %s, %s rounds | ns per destroy (median) | ÷ mimalloc | all rounds |\n|---|---|---|---|\n' "$size" "$n" "$rounds"
for row in "${rows[@]}"; do
  m=$(echo "${t[$row]}" | median)
  printf '| %s | %s | %s | %s |\n' "$row" "$m" "$(awk -v a="$m" -v b="$mi" 'BEGIN {printf "%.2f", a / b}')" "${t[$row]# }"
done
