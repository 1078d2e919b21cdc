#!/usr/bin/env bash
# Builds and runs the main demo: mesh_demo (examples/mesh) builds a closed
# surface subdivided to 5 M faces and runs the mesh benchmark suite serially,
# with OpenMP and with TBB over travpool pools. Arguments are passed on:
#   scripts/demo.sh [--input FILE.off|FILE.obj] [--subdivide K] [--threads N]
#                   [--output FILE.off|FILE.obj] [--json FILE]
# Idempotent; installs the Debian packages it lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target mesh_demo pool_tour
./build/release/examples/mesh/mesh_demo "$@"
