#!/usr/bin/env python3
"""Render the paper benchmarks' JSON (scripts/bench.sh) into docs/benchmarks.md
and docs/img/*.png, and print the sweep targets with met/missed.

    bench_report.py --results build/bench/results --md docs/benchmarks.md --img docs/img

Every time in the report is the median over the repetitions of one run. The
primary time is the thread CPU time of the timed region (steadier than wall
time on a shared machine); the wall-clock median is shown beside it. The
noise column is (max - min) / median of the primary time over the
repetitions.
"""
import argparse
import json
import os
import re
import statistics
import sys
from collections import OrderedDict

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def base_name(run_name):
    """fig11/x/y/iterations:1/repeats:5/manual_time -> fig11/x/y"""
    parts = []
    for p in run_name.split("/"):
        if re.match(r"^(iterations|repeats|min_time|min_warmup_time):", p) or p in ("manual_time", "real_time"):
            continue
        parts.append(p)
    return "/".join(parts)


def collect(doc):
    """name -> dict(cpu=[s], wall=[s], counters=dict) over the repetitions."""
    out = OrderedDict()
    if doc is None:
        return out
    for b in doc["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        name = base_name(b["run_name"])
        scale = UNIT[b.get("time_unit", "ns")]
        r = out.setdefault(name, {"cpu": [], "wall": [], "counters": {}})
        wall = b["real_time"] * scale
        cpu = b["cpu_s"] if "cpu_s" in b else b["cpu_time"] * scale  # manual-time runs record cpu_s
        r["cpu"].append(cpu)
        r["wall"].append(wall)
        for k in ("live", "n", "erased"):
            if k in b:
                r["counters"][k] = b[k]
    for r in out.values():
        r["med"] = statistics.median(r["cpu"])
        r["wall_med"] = statistics.median(r["wall"])
        r["noise"] = (max(r["cpu"]) - min(r["cpu"])) / r["med"] if r["med"] > 0 else 0.0
    return out


def fmt_s(x):
    if x is None:
        return "–"
    if x >= 100:
        return "%.0f" % x
    if x >= 1:
        return "%.2f" % x
    return "%.3f" % x


def fmt_ratio(x):
    return "–" if x is None else "%.2f×" % x


def fmt_pct(x):
    return "±%.0f %%" % (100 * x / 2)


def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def code(s):
    return "`" + s + "`"


class Report:
    def __init__(self, args):
        self.args = args
        self.md = []
        self.targets = []  # (target, subject, value, limit, met)
        self.noises = []
        self.plt = None
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            self.plt = plt
        except ImportError:
            print("bench_report: matplotlib missing, no plots (scripts/bench.sh installs python3-matplotlib)",
                  file=sys.stderr)
        os.makedirs(args.img, exist_ok=True)
        self.n = None
        self.section = ""

    def img(self, fig, name, alt):
        if self.plt is None:
            return
        path = os.path.join(self.args.img, name)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        self.plt.close(fig)
        rel = os.path.relpath(path, os.path.dirname(os.path.abspath(self.args.md)))
        self.md.append("![%s](%s)\n" % (alt, rel))

    def target(self, what, subject, value, limit, unit="×"):
        met = value is not None and value <= limit
        self.targets.append((what, subject, value, limit, unit, met))

    # ------------------------------------------------------------------ Figure 11
    def fig11(self, res):
        if not res:
            return
        self.section = "Figure 11"
        self.md.append("## Figure 11: creating N elements\n")
        self.md.append(
            "Each repetition times only the loop of N creations into an empty container (untimed setup, "
            "untimed teardown). travpool runs at the figure's bin sizes and at its default bin capacity; "
            "the other contenders have no bin size. Ratios are to `boost::object_pool` (the paper's "
            "comparison) and to `plf::colony`. travpool's bin spans that are a multiple of 2 MiB, i.e. from "
            "64,000 chunks of 32 B up, follow the page policy (api.md, Memory: by default transparent huge "
            "pages unless their first touch is measured slow, then 4 KiB pages populated when the bin is "
            "made): such bins fault in 2 MiB at a time instead of 4 KiB, which is the step between 32,000 "
            "and 64,000 (see THP in run.txt). The repetitions run in one process, so all but the first may "
            "fault memory that the previous one gave back moments before; `bench/fresh_create.sh` compares "
            "the contenders on fresh memory, each in a process of its own (threads.md).\n"
        )
        rows, series = [], {}
        base = res.get("fig11/boost::object_pool/-", {}).get("med")
        colony = res.get("fig11/plf::colony/-", {}).get("med")
        for name, r in res.items():
            _, cont, bin_ = name.split("/", 2)
            self.noises.append((self.section, r["noise"]))
            label = cont if bin_ == "-" else "%s, bin %s" % (cont, bin_)
            rows.append([code(label), fmt_s(r["med"]), fmt_s(r["wall_med"]), fmt_pct(r["noise"]),
                         fmt_ratio(r["med"] / base if base else None),
                         fmt_ratio(r["med"] / colony if colony else None)])
            series.setdefault(cont, []).append((bin_, r["med"]))
        self.md.append(table(["contender", "create N: CPU s (median)", "wall s (median)", "noise",
                              "÷ boost::object_pool", "÷ plf::colony"], rows))
        for cont, pts in series.items():
            d = dict(pts)
            if "default" in d:
                t = d["default"]
                if colony:
                    self.target("create N ≤ 1.0× plf::colony", cont + ", default bin", t / colony, 1.0)
                if base:
                    self.target("create N ≤ 0.5× boost::object_pool", cont + ", default bin", t / base, 0.5)
        if self.plt:
            fig, ax = self.plt.subplots(figsize=(8, 4.8))
            for cont, pts in series.items():
                numeric = [(int(b), t) for b, t in pts if b.isdigit()]
                if numeric:
                    xs, ys = zip(*sorted(numeric))
                    ax.plot(xs, ys, marker="o", linewidth=2, label=cont)
                elif len(pts) == 1:
                    ax.axhline(pts[0][1], linestyle="--", linewidth=1, label=cont,
                               color=next(ax._get_lines.prop_cycler)["color"])
            ax.set_xscale("log", base=2)
            ax.set_xticks([4000, 8000, 16000, 32000, 64000, 128000])
            ax.set_xticklabels(["4,000", "8,000", "16,000", "32,000", "64,000", "128,000"])
            ax.set_xlabel("bin size in elements")
            ax.set_ylabel("CPU seconds for N creations")
            ax.set_title("Figure 11: creating N = {:,} elements".format(int(self.n or 0)))
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=7, loc="upper right")
            self.img(fig, "fig11_create.png", "Figure 11")

    # ------------------------------------------------------------------ Table 2
    def table2(self, mem):
        if not mem:
            return
        self.md.append("## Table 2: memory\n")
        self.md.append(
            "One process per container, same N. *B/elem* is the growth of resident memory (VmRSS) over the N "
            "creations divided by N; *peak* is the process's peak resident memory (VmHWM), the paper's "
            "\"memory consumption of the complete process\". Ratios are to `std::vector` with `reserve`. "
            "`CGAL::Compact_container`'s element is 32 B (the 24-byte payload plus the pointer CGAL requires).\n"
        )
        self.md.append(
            "For reference, the paper's Table 2 (200 M elements, whole process): boost memory pool 6,308 MB, "
            "with vector 7,876 MB, with list 12,584 MB, C++ new 6,279 MB, its allocator 6,276 MB.\n")
        base = next((m for m in mem if m["container"] == "std::vector(reserve)"), None)
        rows = []
        for m in sorted(mem, key=lambda m: m["bytes_per_element"]):
            rows.append([code(m["container"]), m["element_bytes"], "%.2f" % m["bytes_per_element"],
                         "{:,.0f}".format(m["peak_rss"] / 2**20),
                         fmt_ratio(m["bytes_per_element"] / base["bytes_per_element"] if base else None),
                         fmt_ratio(m["peak_rss"] / base["peak_rss"] if base else None)])
            if m["container"].startswith("travpool"):
                self.target("memory ≤ 25 B/element", m["container"], m["bytes_per_element"], 25.0, " B")
        self.md.append(table(["container", "element B", "B/elem", "peak RSS (MiB)", "B/elem ÷ vector",
                              "peak ÷ vector"], rows))
        if self.plt:
            ms = sorted(mem, key=lambda m: m["bytes_per_element"])
            fig, ax = self.plt.subplots(figsize=(8, 4.5))
            ax.barh([m["container"] for m in ms], [m["bytes_per_element"] for m in ms],
                    color=["C3" if m["container"].startswith("travpool") else "C0" for m in ms])
            ax.axvline(24, color="k", linewidth=0.8, linestyle=":")
            ax.set_xlabel("resident bytes per element (payload: 24 B)")
            ax.set_title("Table 2: memory, N = {:,}".format(int(mem[0]["n"])))
            self.img(fig, "table2_memory.png", "Table 2")

    # ------------------------------------------------------------------ Table 3
    def per_live(self, r):
        live = r["counters"].get("live") or r["counters"].get("n")
        return r["med"] / live if live else None

    def table3(self, res):
        if not res:
            return
        self.section = "Table 3"
        self.md.append("## Table 3: sweeps\n")
        self.md.append(
            "The container is built and its gaps made before timing; one iteration is one sweep. Gaps: each "
            "element erased with probability 10 % or 50 % (fixed seed, the same elements in every container). "
            "Time per live element is the sweep's time divided by the live elements; *s per N live* scales it "
            "to N live elements, as the paper's Table 3 does. The ratio is per live element, to the dense "
            "`std::vector` with the same kernel. Kernels: `sum` adds x + y + z of every element "
            "(memory-bound); `listing15` is the paper's Listing 15 (20 random values drawn once per sweep; "
            "x += r, y += 2r, z += 4r for each, per element).\n"
        )
        self.md.append(
            "`std::vector(huge_pages)` is the same vector on memory that asks for transparent huge pages "
            "(`madvise`), as travpool does for its bins: with THP in `madvise` mode (see run.txt) glibc's "
            "`malloc` never asks, so a plain `std::vector` runs on 4 KiB pages and pays more TLB misses. The "
            "last column separates what the page size gives from what the layout gives. The targets use the "
            "plain `std::vector`, as the targets state them.\n")
        for kernel in ("sum", "listing15"):
            vec = res.get("table3/%s/std::vector.range_for/dense" % kernel)
            vpl = self.per_live(vec) if vec else None
            hvec = res.get("table3/%s/std::vector(huge_pages).range_for/dense" % kernel)
            hpl = self.per_live(hvec) if hvec else None
            rows, plot = [], OrderedDict()
            for name, r in res.items():
                _, k, cont_style, gaps = name.split("/", 3)
                if k != kernel:
                    continue
                self.noises.append((self.section, r["noise"]))
                pl = self.per_live(r)
                ratio = pl / vpl if (pl and vpl) else None
                n = r["counters"].get("n", 0)
                rows.append([code(cont_style), gaps, "{:,.0f}".format(r["counters"].get("live", 0)),
                             fmt_s(r["med"]), fmt_s(r["wall_med"]), "%.2f" % (pl * 1e9), fmt_s(pl * n),
                             fmt_pct(r["noise"]), fmt_ratio(ratio), fmt_ratio(pl / hpl if (pl and hpl) else None)])
                plot.setdefault(cont_style, {})[gaps] = pl * 1e9
                if cont_style.startswith("travpool"):
                    if kernel == "sum" and gaps == "dense":
                        self.target("dense sweep ≤ 1.10× std::vector", cont_style, ratio, 1.10)
                    if kernel == "sum" and gaps == "10%random":
                        self.target("10 % random gaps ≤ 1.25× dense vector (per live)", cont_style, ratio, 1.25)
                    if kernel == "sum" and gaps == "50%random":
                        self.target("50 % random gaps ≤ 2.1× dense vector (per live)", cont_style, ratio, 2.1)
                    if kernel == "listing15" and gaps == "50%random":
                        self.target("Listing 15 at 50 % gaps ≤ 1.3× dense vector (per live)", cont_style, ratio,
                                    1.3)
            self.md.append("### Kernel `%s`\n" % kernel)
            if kernel == "sum":
                self.md.append(
                    "For reference, the paper's Table 3 (200 M elements, i7-4770): std::vector 0.64 s, std::list "
                    "1.15 s (1.80×), its allocator 0.64 s (1.00×), with 10 % gaps 0.79 s (1.23×), with 50 % gaps "
                    "1.84 s (2.88×).\n")
            self.md.append(table(["container.sweep", "gaps", "live", "sweep: CPU s (median)", "wall s",
                                  "ns per live", "s per N live", "noise", "÷ dense vector per live",
                                  "÷ dense vector(huge pages) per live"], rows))
            if self.plt:
                fig, ax = self.plt.subplots(figsize=(9, 4.8))
                names = list(plot)
                gap_kinds = ["dense", "10%random", "50%random"]
                w = 0.27
                for gi, g in enumerate(gap_kinds):
                    xs = [i + (gi - 1) * w for i in range(len(names))]
                    ys = [plot[nm].get(g, 0) for nm in names]
                    ax.bar(xs, ys, width=w, label=g)
                if vpl:
                    ax.axhline(vpl * 1e9, color="k", linewidth=0.8, linestyle=":", label="dense std::vector")
                ax.set_xticks(range(len(names)))
                ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
                ax.set_ylabel("ns per live element")
                ax.set_title("Table 3: sweep, kernel %s" % kernel)
                ax.legend(fontsize=8)
                self.img(fig, "table3_%s.png" % kernel, "Table 3, %s" % kernel)

    # ------------------------------------------------------------------ erasure
    def erase(self, res):
        if not res:
            return
        self.section = "erasure"
        self.md.append("## Erasure\n")
        self.md.append(
            "N elements are created and their handles kept (untimed); the timed loop destroys all of them, "
            "or a random 50 %, in the order of one fixed-seed permutation (travpool: `destroy(T*)`; colony, "
            "CGAL, lists: `erase(iterator)`; `new`: `delete`). Ratios are to `plf::colony`. "
            "`boost::object_pool` is left out: its `destroy` is an ordered free, O(free chunks) per call, so "
            "N random destroys are quadratic.\n"
        )
        conts = OrderedDict()
        for name, r in res.items():
            _, mode, cont = name.split("/", 2)
            conts.setdefault(cont, {})[mode] = r
            self.noises.append((self.section, r["noise"]))
        rows = []
        for cont, modes in conts.items():
            row = [code(cont)]
            for mode in ("all", "half"):
                r = modes.get(mode)
                col = conts.get("plf::colony", {}).get(mode)
                if r is None:
                    row += ["–"] * 4
                    continue
                er = r["counters"].get("erased") or 1
                ratio = r["med"] / col["med"] if col else None
                row += [fmt_s(r["med"]), "%.1f" % (r["med"] / er * 1e9), fmt_pct(r["noise"]), fmt_ratio(ratio)]
                if mode == "all" and cont.startswith("travpool"):
                    self.target("destroy all in random order ≤ 1.0× plf::colony", cont, ratio, 1.0)
            rows.append(row)
        self.md.append(table(["contender", "all: CPU s", "ns/erase", "noise", "÷ colony", "half: CPU s",
                              "ns/erase", "noise", "÷ colony"], rows))
        if self.plt:
            fig, ax = self.plt.subplots(figsize=(8, 4.2))
            names = list(conts)
            for mi, mode in enumerate(("all", "half")):
                ys = [conts[c][mode]["med"] if mode in conts[c] else 0 for c in names]
                ax.bar([i + (mi - 0.5) * 0.4 for i in range(len(names))], ys, width=0.4,
                       label="destroy %s" % ("all" if mode == "all" else "a random 50 %"))
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
            ax.set_ylabel("CPU seconds")
            ax.set_title("Erasure in random order, N = {:,}".format(int(self.n or 0)))
            ax.legend(fontsize=8)
            self.img(fig, "erase.png", "Erasure")

    # ------------------------------------------------------------------ gap patterns
    def gaps(self, res):
        if not res:
            return
        self.section = "gap patterns"
        self.md.append("## Gap patterns: runs of neighbours\n")
        self.md.append(
            "The elements, in creation order, are cut into runs of L neighbours and each run is erased with "
            "probability p (the same runs in every container); L = 1 is the random erasure of Table 3, "
            "repeated in this run for a side-by-side comparison. Kernel `sum`. Cells: ns per live element "
            "(ratio to the dense `std::vector` per live element of this run).\n"
        )
        vec = res.get("gaps/sum/std::vector.range_for/dense")
        vpl = self.per_live(vec) if vec else None
        if vpl:
            self.md.append("Dense `std::vector`: %.2f ns per element.\n" % (vpl * 1e9))
        hvec = res.get("gaps/sum/std::vector(huge_pages).range_for/dense")
        if hvec:
            self.md.append("Dense `std::vector(huge_pages)`: %.2f ns per element (%s of the plain vector).\n"
                           % (self.per_live(hvec) * 1e9, fmt_ratio(self.per_live(hvec) / vpl if vpl else None)))
        grid = OrderedDict()
        lengths = []
        for name, r in res.items():
            _, _, cont_style, pat = name.split("/", 3)
            if pat == "dense":
                continue
            self.noises.append((self.section, r["noise"]))
            m = re.match(r"(\d+)%(random|runs(\d+))", pat)
            p, L = int(m.group(1)), (1 if m.group(2) == "random" else int(m.group(3)))
            if L not in lengths:
                lengths.append(L)
            grid.setdefault((p, cont_style), {})[L] = self.per_live(r)
        for p in sorted({k[0] for k in grid}):
            rows = []
            for (pp, cs), cells in grid.items():
                if pp != p:
                    continue
                row = [code(cs)]
                for L in lengths:
                    v = cells.get(L)
                    row.append("–" if v is None else "%.2f (%s)" % (v * 1e9, fmt_ratio(v / vpl if vpl else None)))
                rows.append(row)
            self.md.append("### p = %d %%\n" % p)
            self.md.append(table(["container.sweep"] + ["L = %d" % L for L in lengths], rows))
        if self.plt:
            ps = sorted({k[0] for k in grid})
            fig, axes = self.plt.subplots(1, len(ps), figsize=(10, 4.2), sharey=True)
            if len(ps) == 1:
                axes = [axes]
            for ax, p in zip(axes, ps):
                for (pp, cs), cells in grid.items():
                    if pp != p:
                        continue
                    xs = sorted(cells)
                    ax.plot(xs, [cells[x] * 1e9 for x in xs], marker="o", label=cs)
                if vpl:
                    ax.axhline(vpl * 1e9, color="k", linewidth=0.8, linestyle=":", label="dense std::vector")
                ax.set_xscale("log", base=2)
                ax.set_xlabel("run length L (elements)")
                ax.set_title("p = %d %% erased" % p)
            axes[0].set_ylabel("ns per live element")
            axes[-1].legend(fontsize=7)
            self.img(fig, "gap_patterns.png", "Gap patterns")

    # ------------------------------------------------------------------ targets
    def targets_section(self):
        if not self.targets:
            return
        self.md.append("## Sweep targets\n")
        self.md.append(
            "Computed from this one run. The targets were set for the compact layout; other layouts are listed "
            "for reference.\n"
        )
        order = list(OrderedDict((t[0], 1) for t in self.targets))
        self.targets.sort(key=lambda t: (order.index(t[0]), 0 if "compact" in t[1] else 1))
        rows = []
        for what, subj, v, lim, unit, met in self.targets:
            val = "–" if v is None else ("%.3f%s" % (v, unit))
            rows.append([what, code(subj), val, "%.2f%s" % (lim, unit), "**met**" if met else "missed"])
        self.md.append(table(["target", "subject", "measured", "limit", ""], rows))

    def write(self, header):
        text = header + "\n".join(self.md)
        os.makedirs(os.path.dirname(os.path.abspath(self.args.md)), exist_ok=True)
        with open(self.args.md, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--img", required=True)
    args = ap.parse_args()

    docs = {k: load(os.path.join(args.results, k + ".json")) for k in ("fig11", "table3", "erase", "gaps")}
    mem = load(os.path.join(args.results, "table2.json"))
    rep = Report(args)
    ctx = next((d["context"] for d in docs.values() if d), {})
    n = ctx.get("elements") or (mem[0]["n"] if mem else None)
    rep.n = int(n) if n else None
    reps = ctx.get("repetitions", "?")
    ereps = docs["erase"]["context"].get("repetitions", "?") if docs["erase"] else "–"
    run_txt = ""
    if os.path.exists(os.path.join(args.results, "run.txt")):
        run_txt = "; ".join("`%s`" % l for l in open(os.path.join(args.results, "run.txt")).read().split("\n") if l)

    rep.fig11(collect(docs["fig11"]))
    rep.table2(mem)
    rep.table3(collect(docs["table3"]))
    rep.erase(collect(docs["erase"]))
    rep.gaps(collect(docs["gaps"]))
    rep.targets_section()

    noise_line = ""
    if rep.noises:
        parts = []
        for sec in OrderedDict((sec, 1) for sec, _ in rep.noises):
            v = sorted(x for s2, x in rep.noises if s2 == sec)
            parts.append("%s: median %.0f %%, worst %.0f %%" % (sec, 100 * statistics.median(v), 100 * v[-1]))
        noise_line = ("Noise, as (max − min) / median of the primary time over the repetitions of each benchmark: "
                      + "; ".join(parts) + ". The *noise* columns show half of that spread (±). Creation and "
                      "erasure are dominated by page faults and the kernel's huge-page work, which vary from "
                      "one repetition to the next; the median is robust to the outliers.\n")
    caches = ", ".join("L%d %s %d KiB" % (c["level"], c["type"][0], c["size"] // 1024) for c in ctx.get("caches", []))
    header = (
        "# Benchmarks\n\n"
        "Generated by `scripts/bench.sh` (then `scripts/bench_report.py`); do not edit by hand. The workloads "
        "follow section 6 of C. Schüßler and R. Gruber, *A Traversable Fixed Size Small Object Allocator in C++* "
        "(arXiv:1611.01667; see [design.md](design.md)): the "
        "element is `struct {{ uint64_t x, y, z; }}` (24 B) and every contender runs side by side in the same "
        "run, with the same N.\n\n"
        "## This run\n\n"
        "- N = {n} elements; repetitions per benchmark: {reps} ({ereps} for erasure)\n"
        "- machine: {cpus} CPUs at {mhz} MHz ({caches}); date {date}\n"
        "- run.txt: {run}\n"
        "- times: median over the repetitions of the **thread CPU time** of the timed region (user + "
        "system, so page faults count); the wall-clock median is shown beside it. The machine is shared "
        "(2 cores, other jobs running), so CPU time is the steadier measure; wall time can be much larger "
        "when the benchmark is descheduled.\n"
        "- {noise}"
        "- compiler flags: Release (`-O3 -DNDEBUG`) plus `-Wa,-mbranches-within-32B-boundaries` unless "
        "`--no-jcc-fix`: this Xeon has the JCC erratum, and without the fix a loop's speed depended on where "
        "it happened to land (the same Listing 15 loop ran 1.4× slower over a `std::vector` than over a "
        "`std::list` only because of its address).\n"
        "- paper scale: `scripts/bench.sh --paper` (N = 200 M, 3 repetitions).\n\n"
        "## Programs and method\n\n"
        "| program | measures |\n|---|---|\n"
        "| `bench/create_bench.cpp` | Figure 11: N creations into an empty container; travpool at bin "
        "sizes 4,000 to 128,000 and its default |\n"
        "| `bench/memory_probe_bench.cpp` | Table 2: one container per process, VmRSS growth / N and VmHWM |\n"
        "| `bench/sweep_bench.cpp` | Table 3: sweeps, dense and after 10 % / 50 % random erasure, "
        "kernels `sum` and `listing15` |\n"
        "| `bench/erase_bench.cpp` | destroying all elements, or a random 50 %, in random order |\n"
        "| `bench/gap_pattern_bench.cpp` | sweeps after erasing runs of L neighbours (L = 1, 8, 64, 1024) |\n\n"
        "- Only the claimed work is timed: containers are built, handles collected and gaps made before "
        "the timed region; teardown is after it. Creation and erasure use manual timing of exactly the "
        "loop (one loop per repetition); sweeps time one full sweep per iteration, and the `sum` result "
        "goes through `benchmark::DoNotOptimize`.\n"
        "- travpool is swept with `for_each(f)` and with range-for (and `segments()` where a layout has "
        "it); every travpool contender is a template over the layout tag and runs in both layouts. "
        "Every other way of sweeping (const range-for, "
        "`std::ranges::for_each`, `std::transform_reduce`, segments as spans, the 2-thread OpenMP and TBB "
        "rows), with the project's flags and as a plain `-O2 -DNDEBUG` build, is in [sweeps.md](sweeps.md) "
        "(`scripts/bench_sweeps.sh`).\n"
        "- `boost::object_pool` creates with `malloc()` + placement new (what its `construct` does); "
        "`new` keeps its pointers in a vector reserved before timing (Table 2 also lists `new` alone, "
        "as the paper does); `boost::object_pool+vector<T*>` grows its vector as a program not knowing N "
        "would; `std::list<fast_pool_allocator>`'s singleton pool is purged after each repetition (it "
        "never returns memory by itself).\n"
        "- `CGAL::Compact_container` needs a `void* for_compact_container()` accessor pair in the element, "
        "so its element wraps the 24-byte payload with a pointer: 32 B.\n"
        "- Listing 15: the 20 values are drawn once per sweep, outside the element loop; each value passes "
        "through an empty `asm` so that GCC keeps the 20 additions per field instead of folding them into "
        "one (which would turn it into a plain read-modify-write sweep).\n"
        "- Random erasure and runs use fixed seeds and a hash of the position in creation order, so every "
        "container loses the same elements; erasure order is one fixed permutation for all.\n"
        "- glibc's mmap threshold is pinned at its default (128 KiB) so that every repetition allocates "
        "large blocks the same way (otherwise the first free raises it, and later repetitions differ).\n\n"
    ).format(n="{:,}".format(rep.n) if rep.n else "?", reps=reps, ereps=ereps, run=run_txt,
             cpus=ctx.get("num_cpus", "?"), mhz=ctx.get("mhz_per_cpu", "?"), caches=caches,
             date=ctx.get("date", "?"),
             noise=noise_line)
    rep.write(header)

    print("\nSweep targets (this run):")
    for what, subj, v, lim, unit, met in rep.targets:
        val = "n/a" if v is None else "%.3f%s" % (v, unit)
        print("  %-8s %-58s %-40s %s (limit %.2f%s)" % ("MET" if met else "MISSED", what, subj, val, lim, unit))
    print("\nwrote %s and %s/*.png" % (args.md, args.img))


if __name__ == "__main__":
    main()
