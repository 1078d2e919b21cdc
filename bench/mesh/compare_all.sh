#!/bin/sh
# The mesh comparison on the generated icosahedron and on CGAL's armadillo,
# bunny00 and refined_elephant (fetched once by scripts/fetch_meshes.sh),
# each Loop-subdivided to at least 5 M faces.
#   bench/mesh/compare_all.sh [BUILD_DIR] [RUNS] [MESHES...]
# BUILD_DIR defaults to build/release (needs target mesh_compare), RUNS to 3,
# MESHES to "icosahedron armadillo bunny00 refined_elephant". Writes
# BUILD_DIR/mesh_compare/<mesh>.txt and .json.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-"$root/build/release"}
runs=${2:-3}
shift 2 2>/dev/null || shift $#
meshes=${*:-"icosahedron armadillo bunny00 refined_elephant"}
exe="$build/bench/mesh/mesh_compare"
[ -x "$exe" ] || { echo "compare_all: build the target mesh_compare in $build first" >&2; exit 2; }
out="$build/mesh_compare"
mkdir -p "$out"
case " $meshes " in *" armadillo "* | *" bunny00 "* | *" refined_elephant "*) "$root/scripts/fetch_meshes.sh" ;; esac
for m in $meshes; do
  if [ "$m" = icosahedron ]; then input=""; else input="--input $root/data/meshes/$m.off"; fi
  echo "== $m" >&2
  # shellcheck disable=SC2086
  "$exe" $input --runs "$runs" --json "$out/$m.json" | tee "$out/$m.txt"
done
