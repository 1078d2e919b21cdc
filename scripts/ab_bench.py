#!/usr/bin/env python3
"""Side-by-side A/B run of the same Google Benchmark programs built from two
trees (say, the previous commit and the working tree), in one run.

Each round runs every program from both trees back to back, alternating
which goes first, so drift of the machine hits both alike. Prints, per
benchmark, the median time of each tree over all rounds and repetitions,
and the ratio new/old.

  scripts/ab_bench.py --old OLD/build/bench/bench --new build/bench/bench \
      --programs sweep_bench,erase_bench,create_bench \
      --filter 'travpool' --n 20000000 --reps 3 --rounds 3
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile


def run(binary, n, reps, flt):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [binary, f"--n={n}", f"--reps={reps}", f"--benchmark_filter={flt}",
               f"--benchmark_out={out.name}", "--benchmark_out_format=json"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(out.name))
    times = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = b.get("run_name", b["name"])
        times.setdefault(name, []).append(b["real_time"])
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="directory of the old tree's benchmark programs")
    ap.add_argument("--new", required=True, help="directory of the new tree's benchmark programs")
    ap.add_argument("--programs", required=True, help="comma-separated program names")
    ap.add_argument("--filter", default=".", help="--benchmark_filter regex")
    ap.add_argument("--n", type=int, default=20_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    results = {"old": {}, "new": {}}
    for r in range(a.rounds):
        for prog in a.programs.split(","):
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for side in order:
                print(f"round {r + 1}/{a.rounds}: {prog} ({side})", file=sys.stderr, flush=True)
                for name, ts in run(f"{getattr(a, side)}/{prog}", a.n, a.reps, a.filter).items():
                    results[side].setdefault(name, []).extend(ts)
    print(f"{'benchmark':<70} {'old (med)':>12} {'new (med)':>12} {'new/old':>8} {'spread old/new':>16}")
    for name in results["old"]:
        if name not in results["new"]:
            continue
        o, nw = results["old"][name], results["new"][name]
        mo, mn = statistics.median(o), statistics.median(nw)
        spread = f"{(max(o) - min(o)) / mo:5.1%}/{(max(nw) - min(nw)) / mn:5.1%}"
        print(f"{name:<70} {mo:12.4g} {mn:12.4g} {mn / mo:8.3f} {spread:>16}")


if __name__ == "__main__":
    main()
