#!/usr/bin/env bash
# iolab in a real MPI job: mpirun -np 2 on this host (as root too, with Open MPI's allow-run-as-root
# settings). Two ranks write one report with a row per rank; a fault on one rank fails the case on
# both and names the rank; a rank that hangs ends the job within --mpi-timeout; reads shift to
# the other rank's input; --mpi without mpirun is a job of one rank.
# Usage: run.sh IOLAB FAULT_RANK_IOLAB. Exit 77 (skipped) where mpirun is missing.
set -uo pipefail
iolab=$1 faulty=$2
command -v mpirun >/dev/null || { echo "skipped: mpirun is not installed (Debian's openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's own allocations are not iolab's leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/scratch"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# Every job ends within 240 s or is killed: a hang is a failure (status 124), never a stuck test.
mpi() { timeout -k 10 240 mpirun -np 2 --oversubscribe "$@"; }
leftovers() { find "$work/scratch" -mindepth 1 -maxdepth 1 | wc -l; }

# 1. Two ranks, one report.
mpi "$iolab" run -s read.chunk,write.record-syscall,copy.chunk --size 1M --buffer 64K --record 4K \
  --iterations 3 --mpi --dir "$work/scratch" --json "$work/r.json" --csv "$work/r.csv" --markdown "$work/r.md" \
  >"$work/out1" 2>"$work/err1"
rc=$?
[ $rc -eq 0 ] || fail "two ranks: status $rc: $(tail -5 "$work/err1")"
python3 - "$work/r.json" "$work/r.csv" "$work/r.md" "$work/out1" <<'PY' || fail "two ranks: the report"
import csv, json, sys
r = json.load(open(sys.argv[1]))
ranks = r["environment"]["ranks"]
assert [x["rank"] for x in ranks] == [0, 1], ranks
assert len(r["cases"]) == 3, len(r["cases"])
for c in r["cases"]:
    assert c["status"] == "ok" and c["verified"], (c["label"], c.get("reason"))
    one = int(c["params"]["size"].rstrip("M")) << 20 if c["family"] != "write" else None
    for s in c["samples"]:
        assert len(s["rank_s"]) == 2, s
        assert all(0 < t <= s["wall_s"] for t in s["rank_s"]), s
        if one is not None:
            assert s["bytes"] == 2 * one, (s["bytes"], one)
    assert [x["rank"] for x in c["ranks"]] == [0, 1], c["ranks"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert [row["rank"] for row in rows] == ["", "0", "1"] * 3, [row["rank"] for row in rows]
assert "per rank (2 ranks" in open(sys.argv[3]).read()
out = open(sys.argv[4]).read()
assert out.count("per rank (2 ranks") == 1, "the terminal report is printed by rank 0 only"
# mpirun gives its ranks a pseudo-terminal for stdout even when its own goes to a file: no colour.
assert "\x1b[" not in out, "colour codes in the report mpirun wrote to a file"
PY
[ "$(leftovers)" -eq 0 ] || fail "two ranks: scratch folders left: $(ls "$work/scratch")"

# 2. A fault on rank 1 fails every case on both ranks, naming rank 1.
FAULT_RANK_PLAN=1:eio mpi "$faulty" run -s write.record-syscall,write.record-buffered --record 4K --count 64 \
  --iterations 3 --mpi --dir "$work/scratch" --json "$work/f.json" >"$work/out2" 2>"$work/err2"
rc=$?
[ $rc -eq 1 ] || fail "fault on rank 1: status $rc, expected 1: $(tail -5 "$work/err2")"
python3 - "$work/f.json" <<'PY' || fail "fault on rank 1: the report"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["cases"]) == 2
for c in r["cases"]:
    assert c["status"] == "failed", c
    assert c["reason"].startswith("rank 1 on "), c["reason"]
    assert "Input/output error" in c["reason"], c["reason"]
PY
[ "$(leftovers)" -eq 0 ] || fail "fault on rank 1: scratch folders left: $(ls "$work/scratch")"

# 3. A rank that hangs ends the job at --mpi-timeout, saying so; never a hang.
FAULT_RANK_PLAN=1:hang mpi "$faulty" run -s write.record-syscall --record 4K --count 64 --iterations 3 --mpi \
  --mpi-timeout 10s --dir "$work/scratch" >"$work/out3" 2>"$work/err3"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "hung rank: status $rc (124 or 137: the job did not end by itself)"
# Rank 0 waits at the barrier after its jobs, for rank 1 which hangs in its first write.
grep -q "no answer from every rank within 10 s (barrier)" "$work/err3" || fail "hung rank: no message: $(tail -5 "$work/err3")"
# The hung rank is ended by mpirun's signals; a rank killed before it removes its folder leaves it
# for 'iolab clean'.
rm -rf "${work:?}/scratch/"*

# 4. Reads shifted to the other rank's input, cold.
mpi "$iolab" run -s read.chunk,copy.chunk,read.dd --size 1M --iterations 3 --mpi --rank-shift 1 --cache cold \
  --dir "$work/scratch" --json "$work/s.json" >"$work/out4" 2>"$work/err4"
rc=$?
[ $rc -eq 0 ] || fail "rank shift: status $rc: $(tail -5 "$work/err4")"
python3 - "$work/s.json" <<'PY' || fail "rank shift: the report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["environment"]["rank_shift"] == 1
cases = {c["strategy"]: c for c in r["cases"]}
assert all(cases[s]["status"] == "ok" and cases[s]["verified"] for s in ("read.chunk", "copy.chunk")), r["cases"]
# A tool in another process cannot open another rank's folder through iolab's descriptors.
assert cases["read.dd"]["status"] == "skipped" and "--rank-shift" in cases["read.dd"]["reason"], cases["read.dd"]
PY

# 5. One file shared by every job of both ranks (IOR's segmented layout): rank R's job k on part
# R x jobs + k of rank 0's files; every part verified, nothing left behind.
mpi "$iolab" run -s read.chunk,write.record-syscall,copy.chunk,read.mmap-chunks --size 1M --record 4K --jobs 1,2 \
  --shared-file --iterations 3 --mpi --dir "$work/scratch" --json "$work/sh.json" >"$work/out6" 2>"$work/err6"
rc=$?
[ $rc -eq 0 ] || fail "shared file: status $rc: $(tail -5 "$work/err6")"
python3 - "$work/sh.json" <<'PY' || fail "shared file: the report"
import json, sys
r = json.load(open(sys.argv[1]))
cases = {c["label"]: c for c in r["cases"]}
for label in ["read.chunk buffer=64K", "read.chunk buffer=64K jobs=2", "write.record-syscall record=4K",
              "write.record-syscall record=4K jobs=2", "copy.chunk buffer=64K", "copy.chunk buffer=64K jobs=2"]:
    c = cases[label]
    assert c["status"] == "ok" and c["verified"], (label, c.get("reason"))
    jobs = int(c["params"]["jobs"])
    for s in c["samples"]:
        assert s["bytes"] == 2 * jobs * (1 << 20), (label, s["bytes"])
skipped = cases["read.mmap-chunks buffer=64K"]
assert skipped["status"] == "skipped" and "whole files" in skipped["reason"], skipped
PY
[ "$(leftovers)" -eq 0 ] || fail "shared file: scratch folders left: $(ls "$work/scratch")"

# 6. Ranks given different plans are refused before anything is made, by every rank.
timeout -k 10 240 mpirun -np 1 "$iolab" run -s read.chunk --size 1M --iterations 3 --mpi --dir "$work/scratch" : \
  -np 1 "$iolab" run -s write.record-syscall --size 1M --iterations 3 --mpi --dir "$work/scratch" \
  >"$work/out7" 2>"$work/err7"
rc=$?
[ $rc -eq 2 ] || fail "different plans: status $rc, expected 2"
grep -q "rank 1 on .*: this rank was given another plan than rank 0" "$work/err7" || fail "different plans: $(cat "$work/err7")"
[ "$(leftovers)" -eq 0 ] || fail "different plans: scratch folders left: $(ls "$work/scratch")"

# 6b. The same for a setting that changes no case's name (--data) and for --rank-shift: the plan
# covers every setting, and every rank records its own values only when they are rank 0's.
for other in "--data zeros" "--rank-shift 1"; do
  timeout -k 10 240 mpirun -np 1 "$iolab" run -s read.chunk --size 1M --iterations 3 --mpi --dir "$work/scratch" : \
    -np 1 "$iolab" run -s read.chunk --size 1M --iterations 3 --mpi --dir "$work/scratch" $other \
    >"$work/out7b" 2>"$work/err7b"
  rc=$?
  [ $rc -eq 2 ] || fail "different $other: status $rc, expected 2"
  grep -q "rank 1 on .*: this rank was given another plan than rank 0" "$work/err7b" || fail "different $other: $(cat "$work/err7b")"
done
[ "$(leftovers)" -eq 0 ] || fail "different settings: scratch folders left: $(ls "$work/scratch")"

# 6c. A rank whose partner never starts MPI waits in MPI_Init no longer than --mpi-timeout.
start=$(date +%s)
timeout -k 10 240 mpirun -np 1 "$iolab" run -s read.chunk --size 1M --iterations 3 --mpi --mpi-timeout 3s \
  --dir "$work/scratch" : -np 1 sleep 200 >"$work/out7c" 2>"$work/err7c"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "no partner: status $rc (124 or 137: the job did not end by itself)"
grep -q "rank 0 on .*: MPI_Init did not end within 3 s" "$work/err7c" || fail "no partner: no message: $(tail -5 "$work/err7c")"

# 7. Bad input under mpirun is said once, by rank 0, and every rank ends with status 2.
mpi "$iolab" run -s read.chunk --mpi --rank-shift -1 >"$work/out8" 2>"$work/err8"
rc=$?
[ $rc -eq 2 ] || fail "bad input: status $rc, expected 2"
[ "$(grep -c "invalid --rank-shift '-1'" "$work/err8")" -eq 1 ] || fail "bad input said other than once: $(cat "$work/err8")"

# 8. --mpi without mpirun: a job of one rank.
"$iolab" run -s read.chunk --size 256K --iterations 3 --mpi --dir "$work/scratch" --json "$work/one.json" \
  >"$work/out5" 2>"$work/err5"
rc=$?
[ $rc -eq 0 ] || fail "one rank: status $rc: $(tail -5 "$work/err5")"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert len(r['environment']['ranks']) == 1" \
  "$work/one.json" || fail "one rank: the report"

[ $failed -eq 0 ] && echo "MPI: all checks passed"
exit $failed
