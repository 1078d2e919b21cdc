#!/usr/bin/env bash
# Instruction counts per phase of ops_count.cpp for several source trees, side
# by side (callgrind self cost of each noinline phase; -O3 -DNDEBUG).
#   bench/ops_count/compare.sh OLD_TREE NEW_TREE [...]   (each a checkout's root)
# e.g. git worktree add /tmp/prev HEAD~1 && bench/ops_count/compare.sh /tmp/prev .
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
names=()
i=0
for tree in "$@"; do
  i=$((i + 1))
  for layout in c i; do
    flag=""
    [[ $layout == i ]] && flag=-DINTERLEAVED
    g++ -std=c++20 -O3 -DNDEBUG $flag -g -I"$tree/include" "$here/ops_count.cpp" -o "$out/ops_${layout}_$i"
    valgrind --tool=callgrind --callgrind-out-file="$out/cg_${layout}_$i.out" "$out/ops_${layout}_$i" >/dev/null 2>&1
  done
  names+=("$i")
done
cd "$out"
for layout in c i; do python3 "$here/phases.py" "${names[@]/#/${layout}_}"; done
echo "(trees: $*)"
