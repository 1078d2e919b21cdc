#!/usr/bin/env python3
"""export_ratios.py: the table of bench/README.md's export_bench line from
export_bench's JSON (--benchmark_out=FILE with repetitions): per case the
median bytes/s of each export row and of memcpy of the same bytes, and
their ratio (export / memcpy: 1 is memcpy's speed)."""
import json
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs[b["run_name"].removesuffix("/real_time")].append(b["bytes_per_second"])
med = {k: statistics.median(v) for k, v in runs.items()}
print("| case | row | median GB/s | memcpy GB/s | ratio | reps |")
print("|---|---|---|---|---|---|")
for name in sorted(med):
    kind, case = name.split("/", 1)
    if kind == "memcpy":
        continue
    m = med.get("memcpy/" + case)
    print(f"| {case} | {kind} | {med[name] / 1e9:.2f} | {m / 1e9:.2f} | {med[name] / m:.2f} | {len(runs[name])} |")
