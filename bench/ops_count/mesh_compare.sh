#!/usr/bin/env bash
# Instruction counts per edit kind of mesh_ops_count.cpp for several source
# trees (callgrind, inclusive cost of each noinline phase; -O3 -DNDEBUG).
#   bench/ops_count/mesh_compare.sh OLD_TREE NEW_TREE [...]
# A tree may carry extra flags after a colon, e.g. property rules' cost:
#   bench/ops_count/mesh_compare.sh . .:-DWITH_PROPERTY .:-DWITH_RULES
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
i=0
names=()
for arg in "$@"; do
  i=$((i + 1))
  tree=${arg%%:*}
  extra=""
  [[ $arg == *:* ]] && extra=${arg#*:}
  # shellcheck disable=SC2086  # $extra: flags, split on purpose
  g++ -std=c++20 -O3 -DNDEBUG $extra -g -I"$tree/include" "$here/mesh_ops_count.cpp" -o "$out/mesh_$i"
  valgrind --tool=callgrind --callgrind-out-file="$out/cg_$i.out" "$out/mesh_$i" >"$out/stdout_$i" 2>/dev/null
  names+=("$i")
done
cd "$out"
python3 - "${names[@]}" <<'PY'
import re, subprocess, sys, collections
d = collections.defaultdict(dict)
for n in sys.argv[1:]:
    out = subprocess.run(['callgrind_annotate', '--inclusive=yes', '--threshold=100', f'cg_{n}.out'],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r'\s*([\d,]+) \([^)]*\)\s+\S*mesh_ops_count\.cpp:(?:\S+ )?(phase_\w+)', line)
        if m and n not in d[m.group(2)]: d[m.group(2)][n] = int(m.group(1).replace(',', ''))
names = sys.argv[1:]
print(f"{'phase':18} " + " ".join(f"{x:>14}" for x in names) + "   " + "   ".join(f"{names[i]}/{names[0]}" for i in range(1, len(names))))
for k in sorted(d):
    v = d[k]
    print(f"{k:18} " + " ".join(f"{v.get(x, 0):>14,}" for x in names) + "   " +
          "   ".join(f"{v.get(names[i], 0) / v[names[0]]:7.4f}" for i in range(1, len(names))))
PY
for n in "${names[@]}"; do echo "tree $n: $(cat "stdout_$n")"; done
echo "(trees: $*)"
