#!/usr/bin/env bash
# travpool::hive against plf::colony and pool<T> (bench/hive_bench.cpp):
# insert, erase, iterate and sort, 24-B and 64-B elements, built with the
# project's flags (the release preset) and as a plain user's -O2 -DNDEBUG.
# The program runs --rounds times per build, the builds alternating, and
# within a run Google Benchmark interleaves the repetitions of every row
# and contender at random. A time is the median over every round's
# repetitions; a ratio is taken within each round (median ÷ median of the
# same row) and the cell is the median of the rounds' ratios, with their
# range, so that the machine's drift between rounds does not enter it
# (docs/hive.md, "Against plf::colony").
# Usage: scripts/bench_hive.sh [--docs] [--rounds=R] [--n=N] [--reps=R]
#   --docs   also writes the tables into docs/hive.md
set -euo pipefail
cd "$(dirname "$0")/.."
docs=0 rounds=3 n=2000000 reps=3
for a in "$@"; do
  case $a in
    --docs) docs=1 ;;
    --rounds=*) rounds=${a#*=} ;;
    --n=*) n=${a#*=} ;;
    --reps=*) reps=${a#*=} ;;
    *) echo "bench_hive.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
scripts/deps.sh libplf-colony-dev libbenchmark-dev
out=build/bench-hive
mkdir -p "$out"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target hive_bench
cmake -S . -B build/bench-hive/plain -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
  -DTRAVPOOL_BUILD_TESTS=OFF -DTRAVPOOL_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/bench-hive/plain -j "$(nproc)" --target hive_bench
rm -f "$out"/*.json
# The rows in the order the program registers them (a run's own order is random).
build/release/bench/hive_bench --n="$n" --reps="$reps" --benchmark_list_tests=true >"$out/rows.txt"
for r in $(seq "$rounds"); do
  for build in release plain; do
    bin=build/release/bench/hive_bench
    [[ $build == plain ]] && bin=build/bench-hive/plain/bench/hive_bench
    "$bin" --n="$n" --reps="$reps" --benchmark_enable_random_interleaving=true --benchmark_out="$out/$build-$r.json" --benchmark_out_format=json >/dev/null
  done
done
python3 - "$out" "$rounds" "$n" "$reps" "$docs" <<'PY'
import json, statistics, subprocess, sys, collections, re
out, rounds, n, reps, docs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
text = []
for build, label in (("release", "project flags (-O3 -DNDEBUG, JCC fix)"), ("plain", "plain user's Release (-O2 -DNDEBUG)")):
    strip = lambda name: "/".join(x for x in name.split("/") if not re.match(r"(iterations|repeats):|manual_time$", x))
    times = collections.defaultdict(list)  # (op, contender) -> every round's times
    per_round = collections.defaultdict(lambda: collections.defaultdict(list))  # round -> (op, contender) -> times
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{out}/{build}-{r}.json"))["benchmarks"]:
            if b.get("run_type") == "iteration":
                key = tuple(strip(b["run_name"]).rsplit("/", 1))
                times[key].append(b["real_time"])
                per_round[r][key].append(b["real_time"])
    ops = list(collections.OrderedDict.fromkeys(strip(l.strip()).rsplit("/", 1)[0] for l in open(f"{out}/rows.txt") if l.strip()))
    def ratio(op, a, b):
        rs = [statistics.median(per_round[r][(op, a)]) / statistics.median(per_round[r][(op, b)])
              for r in per_round if per_round[r].get((op, a)) and per_round[r].get((op, b))]
        if not rs:
            return "–"
        return f"**{statistics.median(rs):.2f}** ({min(rs):.2f}–{max(rs):.2f})" if len(rs) > 1 else f"**{rs[0]:.2f}**"
    text.append(f"### {label}\n")
    text.append(f"`{build}: n={n}, {rounds} rounds x {reps} repetitions (builds alternating, repetitions interleaved at random); commit {commit}; {cpu}`\n")
    text.append("| workload | travpool::hive (ms) | plf::colony (ms) | travpool::pool (ms) | hive ÷ colony (rounds' range) | hive ÷ pool |")
    text.append("|---|---|---|---|---|---|")
    for op in ops:
        f = lambda c: f"{statistics.median(times[(op, c)]):.2f}" if times.get((op, c)) else "–"
        text.append(f"| {op} | {f('travpool::hive')} | {f('plf::colony')} | {f('travpool::pool')} | "
                    f"{ratio(op, 'travpool::hive', 'plf::colony')} | {ratio(op, 'travpool::hive', 'travpool::pool')} |")
    text.append("")
table = "\n".join(text)
print(table)
if docs:
    path = "docs/hive.md"
    s = open(path).read()
    begin, end = "<!-- bench_hive.sh: begin -->", "<!-- bench_hive.sh: end -->"
    s = re.sub(re.escape(begin) + ".*?" + re.escape(end), begin + "\n\n" + table + "\n" + end, s, flags=re.S)
    open(path, "w").write(s)
PY
