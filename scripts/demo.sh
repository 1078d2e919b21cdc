#!/usr/bin/env bash
# Builds and runs the main demo. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target pool_tour
./build/release/examples/pool_tour "$@"
