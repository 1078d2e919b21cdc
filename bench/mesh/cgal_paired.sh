#!/usr/bin/env bash
# One CGAL call of bench/mesh/cgal_pmp_bench on both meshes, in pairs: each
# pair runs travpool's and Surface_mesh's call in two fresh processes, one
# after the other (the order alternating, ABBA), so both see the same load;
# prints the median and quartiles of the per-pair ratios travpool /
# Surface_mesh and each side's median (docs/mesh.md, "edge_collapse").
# On a noisy machine the per-pair ratio drifts far less than either time.
# Usage: bench/mesh/cgal_paired.sh MESH [PAIRS] [OPERATION]
#   e.g. bench/mesh/cgal_paired.sh armadillo 16 edge_collapse
# Needs build/release/bench/mesh/cgal_pmp_bench (scripts/bench_cgal.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
mesh=${1:?mesh name, e.g. armadillo}
pairs=${2:-16}
op=${3:-edge_collapse}
prog=${PROG:-build/release/bench/mesh/cgal_pmp_bench}
one() {
  "$prog" --meshes=data/meshes --names="$mesh" --benchmark_filter="^cgal/$mesh/$op/$1" --benchmark_min_time=0 \
    --benchmark_repetitions=1 --benchmark_format=json 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["benchmarks"][0]["real_time"])'
}
for ((i = 0; i < pairs; ++i)); do
  if ((i % 2 == 0)); then
    a=$(one travpool) b=$(one surface_mesh)
  else
    b=$(one surface_mesh) a=$(one travpool)
  fi
  echo "$a $b"
done | python3 -c '
import statistics as st, sys
mesh, op = sys.argv[1], sys.argv[2]
pairs = [tuple(map(float, line.split())) for line in sys.stdin]
q = sorted(a / b for a, b in pairs)
n = len(q)
print(f"{mesh} {op}: {n} pairs, ratio travpool / Surface_mesh median {st.median(q):.3f} "
      f"(quartiles {q[n // 4]:.3f}, {q[(3 * n) // 4]:.3f}); medians {st.median(a for a, _ in pairs):.0f} ms "
      f"against {st.median(b for _, b in pairs):.0f} ms")' "$mesh" "$op"
