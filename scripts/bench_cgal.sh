#!/usr/bin/env bash
# CGAL's Polygon Mesh Processing on the travpool mesh against
# CGAL::Surface_mesh (bench/mesh/cgal_pmp_bench.cpp: both in one process),
# built with the project's Release flags and with a plain user's
# g++ -O2 -DNDEBUG, on CGAL's sample meshes (scripts/fetch_meshes.sh). Each
# build runs every benchmark --reps times in random interleaving; prints the
# median times and the ratios travpool / Surface_mesh (docs/mesh.md, "CGAL
# on both meshes", quotes them).
# Usage: scripts/bench_cgal.sh [--reps=R] [--names=a,b,...]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=7
names=armadillo,bunny00,mech-holes-shark
for a in "$@"; do
  case $a in
    --reps=*) reps=${a#--reps=} ;;
    --names=*) names=${a#--names=} ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh libcgal-dev
scripts/fetch_meshes.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target cgal_pmp_bench
out=build/bench-cgal
mkdir -p "$out"
g++ -std=c++20 -O2 -DNDEBUG -Iinclude bench/mesh/cgal_pmp_bench.cpp -o "$out/cgal_pmp_plain" \
  -lbenchmark -lgmp -lmpfr -lpthread
for build in project plain; do
  prog=build/release/bench/mesh/cgal_pmp_bench
  [[ $build == plain ]] && prog=$out/cgal_pmp_plain
  echo "== $build build ($reps repetitions, random interleaving)" >&2
  "$prog" --meshes=data/meshes --names="$names" --benchmark_min_time=0.05 --benchmark_repetitions="$reps" \
    --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
    --benchmark_format=console --benchmark_out="$out/$build.json" --benchmark_out_format=json >&2
done
python3 - "$out" "$reps" <<'PY'
import json, sys
out, reps = sys.argv[1], sys.argv[2]
med, faces = {}, {}
for build in ("project", "plain"):
    for b in json.load(open(f"{out}/{build}.json"))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            name = b["run_name"].replace("/manual_time", "")
            med[(build, name)] = b["real_time"]  # milliseconds
            faces[name] = b.get("faces")
print(f"Medians of {reps} repetitions in random interleaving, ms; ratio = travpool / Surface_mesh\n")
print("| mesh | operation | faces after | travpool | Surface_mesh | ratio (project; -O2) |")
print("|---|---|---|---|---|---|")
for (build, name) in sorted(med):
    if build != "project" or not name.endswith("/travpool"):
        continue
    _, mesh, op, _ = name.split("/")
    sm = name[: -len("travpool")] + "surface_mesh"
    if faces[name] != faces[sm]:
        sys.exit(f"{name}: {faces[name]} faces against Surface_mesh's {faces[sm]}")
    r = lambda b: med[(b, name)] / med[(b, sm)]
    print(f"| {mesh} | {op} | {faces[name]:,.0f} | {med[('project', name)]:.3g} | {med[('project', sm)]:.3g} | "
          f"{r('project'):.2f}×; {r('plain'):.2f}× |")
PY
