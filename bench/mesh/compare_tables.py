#!/usr/bin/env python3
"""Markdown tables of docs/mesh.md "Results" from mesh_compare's JSON files.

    bench/mesh/compare_tables.py build/release/mesh_compare/{icosahedron,armadillo,bunny00,refined_elephant}.json

Ratios are contender time / travpool time (above 1: travpool is faster);
"omp, tbb" are travpool's OpenMP and TBB runs against the vector meshes'
OpenMP run; OpenMesh and the pointer mesh run in their own (serial / same)
mode; peak RSS ratios are contender / travpool of the full-mesh child.
The last table gives the seconds behind the ratios (medians of the runs).
"""
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def name(d):
    return os.path.splitext(os.path.basename(d["input"]))[0]


def r(a, b):
    return a / b if a > 0 and b > 0 else float("nan")


def loop_only(runs):
    """The table of runs with the loop part only (--parts loop)."""
    print("| input | faces after | thp | loop s: travpool / vector / vector_huge / OpenMesh / pointer "
          "| vs vector / vector_huge / OpenMesh / pointer |")
    print("|---|---|---|---|---|")
    for d in runs:
        who = ("travpool", "vector", "vector_huge", "openmesh", "pointer")
        t = d["travpool"]["loop"]
        secs = " / ".join("%.3f" % d[c]["loop"] if c in d else "—" for c in who)
        ratios = " / ".join("%.2f" % r(d[c]["loop"], t) if c in d else "—" for c in who[1:])
        print("| %s | %.1f M | %s | %s | %s |" % (name(d), d["travpool"]["loop.F"] / 1e6, d.get("thp", "on"),
                                               secs, ratios))


CONTENDERS = ("travpool", "vector", "vector_huge", "openmesh", "pointer")


def is_loop_run(d):
    """A --parts loop run: every contender timed Loop and nothing else."""
    return all(c in d and "loop" in d[c] and "normals.serial" not in d[c] for c in CONTENDERS)


def is_full_run(d):
    """A run of every part (loop, full, deletion) and every contender."""
    return all(c in d and "loop" in d[c] and "normals.serial" in d[c] for c in CONTENDERS) and \
        all("del.delete" in d[c] for c in ("travpool", "vector", "vector_huge"))


def main(paths):
    runs = [load(p) for p in paths]
    if all(is_loop_run(d) for d in runs):
        loop_only(runs)
        return
    if not all(is_full_run(d) for d in runs):
        bad = [p for p, d in zip(paths, runs) if not is_full_run(d)]
        sys.exit("compare_tables.py: every file must come from a run of all parts and contenders, or every "
                 "file from a --parts loop run of all contenders; not so: " + ", ".join(bad))
    print("| input | faces | loop vs vector / vector_huge | normals omp, tbb vs vector | vs vector_huge "
          "| smooth10 omp, tbb vs vector | vs vector_huge | split_collapse vs vector / vector_huge "
          "| peak RSS travpool / OpenMesh | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d in runs:
        t, v, h, o = d["travpool"], d["vector"], d["vector_huge"], d["openmesh"]
        cells = [name(d), "%.1f M" % (d["faces"] / 1e6),
                 "%.2f / %.2f" % (r(v["loop"], t["loop"]), r(h["loop"], t["loop"]))]
        for op in ("normals", "smooth10"):
            for c in (v, h):
                cells.append("%.2f, %.2f" % (r(c[op + ".openmp"], t[op + ".openmp"]),
                                             r(c[op + ".openmp"], t[op + ".tbb"])))
        cells.append("%.2f / %.2f" % (r(v["split_collapse"], t["split_collapse"]),
                                      r(h["split_collapse"], t["split_collapse"])))
        cells.append("%.2f" % (t["peak_rss"] / o["peak_rss"]))
        cells.append("yes" if d["agree"] else "NO")
        print("| " + " | ".join(cells) + " |")
    print()
    print("| input | after deletion: normals omp, tbb vs vector | vs vector_huge | smooth10 omp, tbb vs vector "
          "| vs vector_huge | held handles | delete_face of half vs vector |")
    print("|---|---|---|---|---|---|---|")
    for d in runs:
        t, v, h = d["travpool"], d["vector"], d["vector_huge"]
        cells = [name(d)]
        for op in ("normals", "smooth10"):
            for c in (v, h):
                cells.append("%.2f, %.2f" % (r(c["del." + op + ".openmp"], t["del." + op + ".openmp"]),
                                             r(c["del." + op + ".openmp"], t["del." + op + ".tbb"])))
        ok = t["held.ok_after_delete"] == t["held.n"] and t["held.live_after_ops"] == t["held.n"]
        cells.append("%d of %d" % (t["held.live_after_ops"], t["held.n"]) + ("" if ok else " (FAILED)"))
        cells.append("%.2f" % r(v["del.delete"], t["del.delete"]))
        print("| " + " | ".join(cells) + " |")
    print()
    print("| input | split_collapse vs OpenMesh / pointer | loop vs OpenMesh / pointer | normals omp vs OpenMesh "
          "| smooth10 omp vs OpenMesh | peak RSS MiB travpool / vector / vector_huge / OpenMesh |")
    print("|---|---|---|---|---|---|")
    for d in runs:
        t, v, h, o, p = d["travpool"], d["vector"], d["vector_huge"], d["openmesh"], d["pointer"]
        mib = lambda c: "%.0f" % (c["peak_rss"] / 2**20)
        cells = [name(d),
                 "%.2f / %.2f" % (r(o["split_collapse"], t["split_collapse"]), r(p["split_collapse"], t["split_collapse"])),
                 "%.2f / %.2f" % (r(o["loop"], t["loop"]), r(p["loop"], t["loop"])),
                 "%.2f" % r(o["normals.serial"], t["normals.openmp"]),
                 "%.2f" % r(o["smooth10.serial"], t["smooth10.openmp"]),
                 " / ".join(mib(c) for c in (t, v, h, o))]
        print("| " + " | ".join(cells) + " |")
    print()
    print("Seconds (full mesh; medians of %d):" % runs[0]["runs"])
    print()
    print("| input | contender | build | normals 1t / omp / tbb | smooth10 1t / omp / tbb | split_collapse | loop |")
    print("|---|---|---|---|---|---|---|")
    sec = lambda c, k: "%.3f" % c[k] if k in c else "—"
    for d in runs:
        for i, who in enumerate(("travpool", "vector", "vector_huge", "openmesh", "pointer")):
            c = d[who]
            cells = [name(d) if i == 0 else "", who, sec(c, "build"),
                     " / ".join(sec(c, "normals." + m) for m in ("serial", "openmp", "tbb")),
                     " / ".join(sec(c, "smooth10." + m) for m in ("serial", "openmp", "tbb")),
                     sec(c, "split_collapse"), sec(c, "loop")]
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
