#!/usr/bin/env bash
# Quadric decimation to 10% of the faces: travpool::mesh::decimate against
# CGAL's edge_collapse (Garland-Heckbert plane policies, Surface_mesh),
# OpenMesh's Decimater + ModQuadric and meshopt_simplify
# (bench/mesh/decimate_compare.cpp: all in one process, interleaved rounds,
# medians), built with a plain user's g++ -O2 -DNDEBUG, on CGAL's sample
# meshes (scripts/fetch_meshes.sh) and their Loop subdivisions. Prints each
# contender's median time, face count and sampled symmetric Hausdorff
# distance (docs/mesh.md, "Decimation", quotes them).
# Usage: scripts/bench_decimate.sh [--reps=R] [--max-subdivide=K] [--names=a,b,...]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=3
maxsub=2
names=bunny00,armadillo,refined_elephant
for a in "$@"; do
  case $a in
    --reps=*) reps=${a#--reps=} ;;
    --max-subdivide=*) maxsub=${a#--max-subdivide=} ;;
    --names=*) names=${a#--names=} ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh libcgal-dev libopenmesh-dev libmeshoptimizer-dev >/dev/null 2>&1 || true
scripts/fetch_meshes.sh >/dev/null
out=build/bench-decimate
mkdir -p "$out"
g++ -std=c++20 -O2 -DNDEBUG -fopenmp -Iinclude -I/usr/include/eigen3 bench/mesh/decimate_compare.cpp -o "$out/decimate_compare" \
  -lOpenMeshTools -lOpenMeshCore -lmeshoptimizer -lgmp -lmpfr
IFS=, read -ra list <<<"$names"
for n in "${list[@]}"; do
  for ((k = 0; k <= maxsub; ++k)); do
    "$out/decimate_compare" "data/meshes/$n.off" --subdivide="$k" --reps="$reps"
    echo
  done
done
