#!/bin/sh
# Fetches the real meshes of the mesh comparison and of the CGAL tests
# (docs/mesh.md) once: Debian's libcgal-demo package holds data.tar.gz with
# CGAL's sample meshes.
#   scripts/fetch_meshes.sh [CACHE_DIR]     (default: data/ at the repo root)
# Leaves CACHE_DIR/meshes/NAME.off for each NAME in $meshes below.
# Idempotent: does nothing when the files are already there. Needs
# apt-get (Debian) and network access to the Debian mirror; the tests never
# call it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-"$root/data"}
meshes="armadillo bunny00 refined_elephant elephant blobby_3cc mech-holes-shark"
mkdir -p "$cache/meshes"

missing=0
for m in $meshes; do [ -s "$cache/meshes/$m.off" ] || missing=1; done
if [ "$missing" = 0 ]; then
  echo "fetch_meshes: meshes already in $cache/meshes"
  exit 0
fi

cd "$cache"
if ! ls libcgal-demo_*.deb >/dev/null 2>&1; then
  # Without package lists (a fresh image), fetch them first.
  apt-get download libcgal-demo || { apt-get update -qq && apt-get download libcgal-demo; }
fi
deb=$(ls libcgal-demo_*.deb | head -n 1)
# The package ships usr/share/doc/libcgal-dev/data.tar.gz, which holds data/meshes/*.off.
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/libcgal-dev/data.tar.gz >cgal-data.tar.gz
for m in $meshes; do
  tar -xzOf cgal-data.tar.gz "data/meshes/$m.off" >"meshes/$m.off.tmp"
  mv "meshes/$m.off.tmp" "meshes/$m.off"
done
rm -f cgal-data.tar.gz
echo "fetch_meshes: extracted $(echo $meshes | wc -w) meshes into $cache/meshes"
ls -l "$cache/meshes"
