#!/usr/bin/env bash
# Instructions, data accesses and simulated cache misses per create and per
# destroy (random order), one thread, for pool<T>, concurrent_pool and the
# malloc contenders of alloc_peers_bench (each preloaded), under callgrind
# with a cache model (deterministic; no hardware counters needed).
# Usage: bench/standalone/alloc_ops_profile.sh [N] [size 24|64]   (default 1,000,000 and 24)
# Cache model: D1 32 KiB 8-way, LL 32 MiB 16-way, 64 B lines (--D1/--LL below).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000000}
size=${2:-24}
out=$(mktemp -d)
g++ -std=c++20 -O3 -DNDEBUG -g -Iinclude bench/standalone/alloc_ops_profile.cpp -o "$out/aop"
lib=/usr/lib/x86_64-linux-gnu
printf '| %s B, N = %s | phase | instructions | data reads | data writes | D1 misses (reads + writes) | LL misses (reads + writes) |\n|---|---|---|---|---|---|---|\n' "$size" "$n"
for c in ${CONTENDERS:-pool concurrent_pool mimalloc jemalloc tbbmalloc glibc}; do
  prog=$c pre=""
  case $c in
    mimalloc) prog=new pre=$lib/libmimalloc.so.2 ;;
    jemalloc) prog=new pre=$lib/libjemalloc.so.2 ;;
    tbbmalloc) prog=new pre=$lib/libtbbmalloc_proxy.so.2 ;;
    glibc) prog=new ;;
  esac
  for phase in create destroy; do
    f="$out/$c.$phase.out"
    LD_PRELOAD=$pre valgrind --tool=callgrind --cache-sim=yes --D1=32768,8,64 --LL=33554432,16,64 \
      --toggle-collect="*${phase}_all*" --callgrind-out-file="$f" "$out/aop" "$prog" "$n" "$size" >/dev/null 2>&1
    # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
    awk -v c="$c" -v p="$phase" -v n="$n" '/^summary:/ {
      printf "| %s | %s | %.1f | %.1f | %.1f | %.2f (%.2f + %.2f) | %.2f (%.2f + %.2f) |\n", c, p, $2/n, $3/n, $4/n,
        ($6+$7)/n, $6/n, $7/n, ($9+$10)/n, $9/n, $10/n }' "$f"
  done
done
rm -rf "$out"
