#!/usr/bin/env bash
# Instruction counts per phase of ops_count.cpp for several source trees, side
# by side (callgrind self cost of each noinline phase; -O3 -DNDEBUG).
#   bench/ops_count/compare.sh OLD_TREE NEW_TREE [...]   (each a checkout's root)
# e.g. git worktree add /tmp/prev HEAD~1 && bench/ops_count/compare.sh /tmp/prev .
# A tree may carry extra compiler flags after a colon: a typed column pool
# against the raw one is bench/ops_count/compare.sh . .:-DTYPED_HANDLES
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
names=()
i=0
for arg in "$@"; do
  i=$((i + 1))
  tree=${arg%%:*}
  extra=""
  [[ $arg == *:* ]] && extra=${arg#*:}
  for layout in c i; do
    flag=""
    [[ $layout == i ]] && flag=-DINTERLEAVED
    # shellcheck disable=SC2086  # $extra: flags, split on purpose
    g++ -std=c++20 -O3 -DNDEBUG $flag $extra -g -I"$tree/include" "$here/ops_count.cpp" -o "$out/ops_${layout}_$i"
    valgrind --tool=callgrind --callgrind-out-file="$out/cg_${layout}_$i.out" "$out/ops_${layout}_$i" >/dev/null 2>&1
  done
  names+=("$i")
done
cd "$out"
for layout in c i; do python3 "$here/phases.py" "${names[@]/#/${layout}_}"; done
echo "(trees: $*)"
