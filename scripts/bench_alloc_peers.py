#!/usr/bin/env python3
"""Runs bench/alloc_peers_bench.cpp for every contender, element size and
thread count, each in its own child process, interleaved over rounds, and
prints ratio tables (medians over the rounds, ratios to mimalloc).

Usage: scripts/bench_alloc_peers.py BINARY [--rounds=R] [--sizes=24,64]
           [--threads=1,2] [--contenders=a,b] [--n24=N] [--n64=N]
           [--lock=FILE] [--json=OUT] [--docs=docs/threads.md]

Each round runs every configuration once, in a shuffled order (seeded by
the round), holding an exclusive flock(2) on --lock (default
/tmp/travpool-bench.lock) for the round. With --docs, the tables replace the
text between the alloc-peers markers of that file.
"""
import fcntl
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

CONTENDERS = ["concurrent_pool", "pool", "mimalloc", "jemalloc", "tbbmalloc", "glibc", "colony", "boost_pool"]
LABEL = {
    "concurrent_pool": "concurrent_pool",
    "pool": "pool&lt;T&gt;",
    "mimalloc": "mimalloc",
    "jemalloc": "jemalloc",
    "tbbmalloc": "tbbmalloc",
    "glibc": "glibc",
    "colony": "colony+mutex",
    "boost_pool": "boost::pool+mutex",
}
PHASES = [
    ("create_ms", "create N, fresh process"),
    ("destroy_ms", "destroy all, random order"),
    ("recreate_ms", "create N again (memory held)"),
    ("churn_ms", "churn at N/2 live"),
    ("sweep1_ms", "sweep after churn, 1 thread"),
    ("sweep2_ms", "sweep after churn, 2 threads"),
    ("rss_mb", "peak RSS (MB)"),
]
BEGIN = "<!-- alloc-peers:begin (scripts/bench_alloc_peers.sh writes this section's tables) -->"
END = "<!-- alloc-peers:end -->"


def parse(argv):
    opts = {"rounds": "3", "sizes": "24,64", "threads": "1,2", "contenders": ",".join(CONTENDERS),
            "n24": "5000000", "n64": "2000000", "lock": "/tmp/travpool-bench.lock", "json": "", "docs": ""}
    binary = None
    for a in argv:
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            if k not in opts:
                sys.exit(f"unknown option {a}")
            opts[k] = v
        else:
            binary = a
    if binary is None:
        sys.exit(__doc__)
    return binary, opts


def fmt_ms(v):
    return f"{v:,.0f}" if v >= 100 else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")


def main():
    binary, o = parse(sys.argv[1:])
    sizes = [int(s) for s in o["sizes"].split(",")]
    threads = [int(t) for t in o["threads"].split(",")]
    contenders = o["contenders"].split(",")
    configs = [(s, t, c) for s in sizes for t in threads for c in contenders]
    rounds = int(o["rounds"])
    runs = {}
    lines = []
    for r in range(rounds):
        # A new order every round (fixed seeds): on this VM the first process
        # to fault in memory after another one freed its memory pays for it
        # (docs/threads.md, fresh memory), so no contender may always be it.
        order = configs[:]
        random.Random(r).shuffle(order)
        with open(o["lock"], "a") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            t0 = time.time()
            for s, t, c in order:
                n = o["n24"] if s == 24 else o["n64"]
                env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
                out = subprocess.run([binary, f"--contender={c}", f"--size={s}", f"--threads={t}", f"--n={n}"],
                                     capture_output=True, text=True, env=env)
                if out.returncode != 0:
                    sys.exit(f"{c} size {s} threads {t} failed: {out.stderr}")
                rec = json.loads(out.stdout.strip().splitlines()[-1])
                lines.append(rec)
                runs.setdefault((s, t, c), []).append(rec)
            load = os.getloadavg()[0]
        print(f"round {r + 1}/{rounds}: {time.time() - t0:.0f} s, load average {load:.2f}", file=sys.stderr)
    if o["json"]:
        with open(o["json"], "w") as f:
            for rec in lines:
                f.write(json.dumps(rec) + "\n")
    # Every contender made the same operations: same checksum per (size, threads).
    for s in sizes:
        for t in threads:
            checks = {rec["check"] for c in contenders for rec in runs[(s, t, c)]}
            if len(checks) != 1:
                sys.exit(f"checksums differ at size {s}, {t} threads: {checks}")

    def med(s, t, c, k):
        return statistics.median(rec[k] for rec in runs[(s, t, c)])

    out = []
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    out.append(f"Run: {time.strftime('%Y-%m-%d')}, {cpu}, {os.cpu_count()} CPUs, "
               f"{platform.system()} {platform.release()}; {rounds} interleaved rounds, medians; "
               f"N = {int(o['n24']):,} (24 B), {int(o['n64']):,} (64 B).")
    out.append("")
    for s in sizes:
        n = int(o["n24"] if s == 24 else o["n64"])
        for t in threads:
            out.append(f"**{s} B, N = {n:,}, {t} thread{'s' if t > 1 else ''}**: ms (and ratio to mimalloc; "
                       f"below 1 is faster)")
            out.append("")
            out.append("| phase | " + " | ".join(LABEL[c] for c in contenders) + " |")
            out.append("|---" * (len(contenders) + 1) + "|")
            for k, name in PHASES:
                cells = []
                base = med(s, t, "mimalloc", k) if "mimalloc" in contenders else None
                for c in contenders:
                    v = med(s, t, c, k)
                    serial = c == "pool" and t > 1 and k in ("create_ms", "destroy_ms", "recreate_ms", "churn_ms")
                    if serial:
                        cells.append(f"({fmt_ms(v)} serial)")
                        continue
                    txt = f"{v:,.0f}" if k == "rss_mb" else fmt_ms(v)
                    if base:
                        txt += f" ({v / base:.2f}×)"
                    cells.append(txt)
                out.append(f"| {name} | " + " | ".join(cells) + " |")
            out.append("")
    if "concurrent_pool" in contenders and "pool" in contenders:
        out.append("Sweeps after the same churn, `concurrent_pool` ÷ `pool<T>` and ÷ colony (time):")
        out.append("")
        out.append("| size, churn threads | 1-thread sweep ÷ pool&lt;T&gt; | 2-thread sweep ÷ pool&lt;T&gt; | "
                   "1-thread sweep ÷ colony | 2-thread sweep ÷ colony |")
        out.append("|---|---|---|---|---|")
        for s in sizes:
            for t in threads:
                row = [f"{s} B, {t}"]
                for ref in ("pool", "colony"):
                    for k in ("sweep1_ms", "sweep2_ms"):
                        if ref in contenders:
                            row.append(f"{med(s, t, 'concurrent_pool', k) / med(s, t, ref, k):.2f}×")
                        else:
                            row.append("–")
                out.append("| " + " | ".join(row) + " |")
        out.append("")
    text = "\n".join(out)
    print(text)
    if o["docs"]:
        with open(o["docs"]) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{o['docs']}: no alloc-peers markers")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        with open(o["docs"], "w") as f:
            f.write(head + BEGIN + "\n" + text + "\n" + END + tail)
        print(f"wrote {o['docs']}", file=sys.stderr)


if __name__ == "__main__":
    main()
