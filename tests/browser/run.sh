#!/usr/bin/env bash
# The HTML report as a reader sees it: reports of a run, of a suite with findings and of two
# runs side by side, each opened in headless Chromium by check_report.py; then reports with a
# planted console error and a planted fetch, which the check must refuse.
# Usage: run.sh IOLAB_BINARY SOURCE_DIR
set -euo pipefail
iolab=$1
src=$2
check="python3 $src/tests/browser/check_report.py"
if ! command -v chromium >/dev/null; then
  echo "skipped: Chromium is not installed (Debian package chromium; scripts/deps.sh installs it)"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# A run: a buffer sweep, an unverified case (cat), recorded timelines of the pipelined and
# io_uring copies.
"$iolab" run -q -s read.chunk,read.cat,copy.chunk,copy.pipelined-threads,copy.io-uring --size 1M --buffer 4K,64K,256K \
  --warmup 1 --iterations 6 --timeline --dir "$dir" --json run.json --html run.html
$check run.html --results run.json --expect-kinds ranked,samples,order,sweep,timeline --expect-sortable \
  --expect-heading "fixed cost" --expect-count 'table.notes=1' --expect-count 'table.legend-notes=1'

# A run of four sizes: its title names their range, not each (each table names its own).
"$iolab" run -q -s read.chunk --size 4K,8K,16K,32K --buffer 4K --warmup 1 --iterations 3 --dir "$dir" --json sizes.json \
  --html sizes.html
$check sizes.html --results sizes.json --expect-text '4 sizes from 4 KiB to 32 KiB'

# Forty cases: charts taller than a screen, with their axis at the top as well as the bottom.
"$iolab" run -q -s read.chunk,read.pread-chunk,read.readv,read.stdio-chunk --size 512K --buffer 1K..512K --warmup 0 \
  --iterations 3 --dir "$dir" --json tall.json --html tall.html
$check tall.html --results tall.json --expect-kinds ranked,samples

# A sweep over jobs (scale's smoke run): aggregate throughput against the number of jobs.
"$iolab" run -q scale --smoke --dir "$dir" --json scale.json --html scale.html
$check scale.html --results scale.json --expect-kinds ranked,samples,jobs,replication

# A suite with findings: the replication chart first, and its two answers (a read, a copy) as one
# table.
"$iolab" run -q --suite-file "$src/tests/browser/findings.toml" --dir "$dir" --json suite.json --html suite.html
$check suite.html --results suite.json --expect-kinds ranked,samples,sweep,replication \
  --expect-first-chart replication --expect-text 'finding(s):' --expect-count '.answer-table tbody tr=2' \
  --expect-heading 'vs everyday'
# The same page on a narrow screen: its tables wrap, but never a verdict ("DOES NOT HOLD").
$check suite.html --results suite.json --width 480

# Saved results, re-rendered side by side: a second run shares the first's read.chunk and
# copy.chunk cases.
"$iolab" run -q -s read.chunk,copy.chunk --size 1M --buffer 4K,64K,256K --warmup 1 --iterations 6 --dir "$dir" \
  --json again.json
"$iolab" report run.json again.json suite.json --html all.html
$check all.html --results run.json again.json suite.json --expect-kinds comparison,ratios,replication,timeline

# A run against a baseline (the first run's file): its ratio chart and table; and two runs that
# share no case say so.
"$iolab" run -q -s read.chunk,read.mmap-scan --size 1M --buffer 64K --warmup 1 --iterations 12 --dir "$dir" \
  --baseline run.json --json based.json --html based.html
$check based.html --results based.json --expect-kinds ratios,order
# Two runs of 12 samples a case, side by side: the verdict counts first, and each shared case's two
# distributions overlaid (the check counts them from the result files: two violins a case).
"$iolab" run -q -s read.chunk,read.mmap-scan --size 1M --buffer 64K --warmup 1 --iterations 12 --dir "$dir" \
  --json twelve.json
"$iolab" report based.json twelve.json --html overlaid.html
$check overlaid.html --results based.json twelve.json --expect-kinds comparison,ratios,distributions \
  --expect-text 'twelve.json against based.json: 2 case(s) compared:' --expect-count 'section.comparison p.verdicts=1'
# A history of three runs kept as baselines: a chart per case, each with a point per run, its
# whiskers and the threshold's band.
mkdir kept
for day in one two three; do
  (cd kept && "$iolab" run -q -s read.chunk,read.mmap-scan --size 1M --buffer 64K --warmup 1 --iterations 12 \
    --dir "$dir" --save-baseline "$day")
done
(cd kept && "$iolab" report --history --html ../history.html)
$check history.html --results kept/.iolab/baselines/*.json --expect-history-points 3 --expect-kinds history \
  --expect-text 'the runs, in date order' --expect-count 'canvas[data-kind=history]=2'
# A baseline comparison of known verdicts (written into a copy of a result file): one case slower
# beyond a 5 % gate, one faster, one the same, one with too few samples, one without a time; a
# removed and an added case. Every verdict in its own colour, the tripped row marked, the gate's
# line drawn, the p-values and the lines under the table shown.
python3 - <<'PY'
import json
r = json.load(open('again.json'))
def case(label, ratio, low, high, p, change, tripped=False):
    return {'case': label, 'before_mib_s': 1000.0, 'after_mib_s': 1000.0 / ratio if ratio else 0.0, 'ratio': ratio,
            'ratio_interval': [low, high], 'p': p, 'change': change, 'tripped': tripped}
r['baseline'] = {'before': 'baseline main', 'after': 'this run', 'threshold': 0.05, 'geomean': 1.0, 'ranks': '',
                 'partial': '', 'broken': [], 'not_compared': [],
                 'cases': [case('read.chunk slower', 1.3, 1.2, 1.4, 0.0001, 'slower', True),
                           case('read.chunk faster', 0.7, 0.65, 0.75, 0.0002, 'faster'),
                           case('read.chunk same', 1.01, 0.97, 1.05, 0.4, 'same'),
                           case('read.chunk few', 1.1, 0.9, 1.3, 1, 'too_few'),
                           case('read.chunk no time', 0, 0, 0, 1, 'too_few')],
                 'added': ['copy.new size=1M'], 'removed': ['copy.old size=1M']}
json.dump(r, open('verdicts.json', 'w'))
PY
"$iolab" report verdicts.json --html verdicts.html
$check verdicts.html --results verdicts.json --expect-kinds ratios \
  --expect-count 'tr.change-slower.tripped=1' --expect-count 'tr.change-faster=1' --expect-count 'tr.change-same=1' \
  --expect-count 'tr.change-too_few=2' --expect-count 'td.p=5' --expect-guide 'the gate: slower by 5%' \
  --expect-text '0.000100' --expect-text 'REGRESSION: 1 case(s) slower by more than 5%' \
  --expect-text '1 case(s) only in baseline main (removed): copy.old size=1M' \
  --expect-text '1 case(s) only in this run (added): copy.new size=1M' --expect-text 'geometric mean of the time ratios'
"$iolab" report run.json scale.json --html apart.html
$check apart.html --results run.json scale.json --expect-nothing-shared

# Under MPI: the per-rank table (a result file given two ranks, each with its own times).
python3 - <<'PY'
import json
r = json.load(open('again.json'))
r['environment']['ranks'] = [{'rank': 0, 'host': 'node-a'}, {'rank': 1, 'host': 'node-b'}]
for c in r['cases']:
    for s in c['samples']:
        s['rank_s'] = [s['wall_s'], s['wall_s'] * 0.9]
    c.pop('ranks', None)
json.dump(r, open('ranks.json', 'w'))
PY
"$iolab" report ranks.json --html ranks.html
$check ranks.html --results ranks.json --expect-heading rank --expect-heading host

# Reports with nothing to rank (every case failed or skipped) or no case at all still draw
# without an error.
python3 - <<'PY'
import json
r = json.load(open('run.json'))
for i, c in enumerate(r['cases']):
    c.update(status='failed' if i % 2 else 'skipped', reason='planted', samples=[])
    c.pop('timeline', None)
json.dump(r, open('nothing.json', 'w'))
r['cases'] = []
json.dump(r, open('empty.json', 'w'))
PY
"$iolab" report nothing.json --html nothing.html
$check nothing.html --results nothing.json --expect-kinds ranked
"$iolab" report empty.json --html empty.html
$check empty.html --results empty.json

# The check fails on a console error, and on a fetch even where no policy forbids it (to the
# discard port of this machine, refused at once rather than left to time out).
sed 's#</body>#<script>console.error("planted error")</script></body>#' run.html > error.html
if out=$($check error.html); then echo "a console error went unnoticed"; exit 1; fi
grep -q 'console error: planted error' <<<"$out" || { echo "unexpected: $out"; exit 1; }
sed -e 's#<meta http-equiv="Content-Security-Policy"[^>]*>##' \
    -e 's#</body>#<img alt="" src="http://127.0.0.1:9/planted.png"></body>#' run.html > fetch.html
if out=$($check fetch.html); then echo "a network request went unnoticed"; exit 1; fi
grep -q 'network request: http://127.0.0.1:9/planted.png' <<<"$out" || { echo "unexpected: $out"; exit 1; }
echo "browser: every report drawn and checked; a planted console error and a planted fetch were caught"
