#!/usr/bin/env bash
# Isotropic remeshing: travpool::mesh::remesh (serial and OpenMP on 2
# threads) against CGAL's isotropic_remeshing on Surface_mesh
# (bench/mesh/remesh_compare.cpp: all in one process, runs interleaved,
# medians), built with the project's Release flags and with a plain user's
# g++ -O2 -DNDEBUG -fopenmp, on bunny00, armadillo and armadillo after two
# Loop subdivisions (833k faces), at L = 1 and 2 x the mean edge length,
# 5 iterations. Prints the tables docs/mesh.md ("Remeshing") quotes.
# Usage: scripts/bench_remesh.sh [--reps=R] [--names=a,b] [--subdivide=NAME:LEVELS|none] [--plain-only|--project-only]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=3
names=bunny00,armadillo
subdivide=armadillo:2
builds="project plain"
for a in "$@"; do
  case $a in
    --reps=*) reps=${a#--reps=} ;;
    --names=*) names=${a#--names=} ;;
    --subdivide=*) subdivide=${a#--subdivide=} ;;
    --plain-only) builds=plain ;;
    --project-only) builds=project ;;
    *) echo "unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh libcgal-dev
scripts/fetch_meshes.sh >/dev/null
out=build/bench-remesh
mkdir -p "$out"
for build in $builds; do
  if [[ $build == project ]]; then
    cmake --preset release >/dev/null
    cmake --build --preset release -j "$(nproc)" --target remesh_compare
    prog=build/release/bench/mesh/remesh_compare
  else
    g++ -std=c++20 -O2 -DNDEBUG -fopenmp -DTRAVPOOL_WITH_CGAL=1 -Iinclude -Iexamples/mesh bench/mesh/remesh_compare.cpp \
      -o "$out/remesh_compare_plain" -lgmp -lmpfr -lpthread
    prog=$out/remesh_compare_plain
  fi
  echo "== $build build"
  "$prog" --meshes=data/meshes --names="$names" --subdivide="$subdivide" --reps="$reps" --iterations=5 \
    --scales=1,2 --threads=2 | tee "$out/$build.md"
done
