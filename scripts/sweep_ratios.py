#!/usr/bin/env python3
"""Ratios per live element of one sweep_bench (or gap_pattern_bench)
JSON run: each row's median time per live element divided by the dense
std::vector's, per kernel, with the row's spread ((max - min) / median over
the repetitions), and range-for / for_each per gap pattern.

  build/bench-o2/bench/sweep_bench --reps=7 --benchmark_out=t3.json ...
  scripts/sweep_ratios.py t3.json
"""
import statistics
import sys

from sweep_report import load_table3  # the same parsing as docs/sweeps.md

runs = load_table3(sys.argv[1])

for kernel in sorted({k[0] for k in runs}):
    base = [v for k, v in runs.items() if k[0] == kernel and k[1] == "std::vector" and k[3] == "dense"]
    if not base:
        continue
    ref = statistics.median(base[0])
    print(f"\n## kernel {kernel}: time per live element / dense std::vector (median of repetitions; spread)")
    for key in sorted(k for k in runs if k[0] == kernel):
        ts = runs[key]
        med = statistics.median(ts)
        spread = (max(ts) - min(ts)) / med
        print(f"  {key[1] + '.' + key[2]:<42} {key[3]:<10} {med / ref:6.2f}   ({spread:4.0%})")
    print("  range_for / for_each:")
    for key in sorted(k for k in runs if k[0] == kernel and k[2] == "range_for"):
        fe = (key[0], key[1], "for_each", key[3])
        if fe in runs:
            print(f"    {key[1]:<30} {key[3]:<10} {statistics.median(runs[key]) / statistics.median(runs[fe]):6.2f}")
