#!/usr/bin/env bash
# Installs the Debian packages travpool's build needs, if any is missing.
# Runs `apt-get update` only when something must be installed. Idempotent.
# Usage: scripts/deps.sh [extra packages...]
set -euo pipefail
packages=(cmake g++ make libboost-dev libtbb-dev catch2 libbenchmark-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing missing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
