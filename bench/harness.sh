#!/usr/bin/env bash
# Measures the harness itself: its cost per iteration, and how much the median of one case
# moves over 5 repeated runs (the spread a user should expect between two identical runs).
# Usage: bench/harness.sh [SIZE]   (after `make build`; default SIZE 256M)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256M}
build/iolab_bench_harness
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in 1 2 3 4 5; do
  build/iolab run -s read.chunk --buffer 1M --size "$size" --iterations 10 --quiet --json "$out/$i.json"
done
python3 - "$out" <<'PY'
import json, statistics, sys, glob
medians = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    case = json.load(open(f))["cases"][0]
    medians.append(case["stats"]["median_s"])
mean = statistics.mean(medians)
cv = statistics.stdev(medians) / mean
print("read.chunk buffer=1M medians over 5 runs (ms):", ", ".join(f"{m*1e3:.2f}" for m in medians))
print(f"spread of the median: cv {cv*100:.1f}%, max/min {max(medians)/min(medians):.3f}")
PY
