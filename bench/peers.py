"""The peer benchmark behind bench/peers (python3 standard library only).

Every comparison runs its tools on the same files, one run of each tool per round, rounds
repeated (5 by default) so that a shared machine's drift affects all tools alike. iolab's times
come from its own JSON (the strategy's time, as the harness measures it, with its output
verified); fio's from its JSON; the others are timed as processes. Medians and ratios of
medians go to docs/performance.md with the commands that produced them.
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IOLAB = os.environ.get("IOLAB_BIN", os.path.join(ROOT, "build", "iolab"))
PEERS = None  # the compiled bench/peer_programs.cpp, in the work folder
WORK = None  # the work folder, named $WORK in the commands listed
MiB = 1 << 20
commands = []  # every command run, in order, for the report


def shown(cmd):
    """A command as the report lists it: the checkout's and the work folder's paths left out."""
    text = " ".join(cmd)
    if WORK:
        text = text.replace(WORK, "$WORK")
    if not os.path.abspath(IOLAB).startswith(ROOT + os.sep):
        text = text.replace(IOLAB, "$IOLAB_BIN")
    return text.replace(ROOT + os.sep, "")


def run(cmd, **kw):
    commands.append(shown(cmd))
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def timed(cmd):
    """Wall time of a child process."""
    t0 = time.perf_counter()
    run(cmd)
    return time.perf_counter() - t0


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def resident(path):
    """Bytes of the file in the page cache (util-linux fincore), or None without fincore."""
    if shutil.which("fincore") is None:
        return None
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES", path],
                         check=True, capture_output=True, text=True).stdout.split()
    return int(out[0])


def fresh_output(path):
    """The harness's write state (docs/harness.md): the previous writer's output is removed just
    before the next writer starts, not when it ended."""
    if os.path.exists(path):
        os.unlink(path)


def device_ceiling(workdir, size):
    """O_DIRECT reads of `size` bytes from the scratch folder's device, as iolab info measures it."""
    out = run([IOLAB, "info", "--limits", "--device", "--size", str(size), "--dir", workdir]).stdout
    for line in out.splitlines():
        # "...O_DIRECT reads of 1 GiB from the device: 5998 MiB/s", or ": not measured: <why>"
        found = re.search(r"O_DIRECT reads of .*: ([0-9.]+) MiB/s$", line)
        if found:
            return float(found.group(1))
    return None


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def iolab_cases(args, workdir):
    """Runs iolab once; returns {label: wall seconds of its single measured iteration}."""
    out = os.path.join(workdir, "iolab.json")
    if os.path.exists(out):
        os.unlink(out)
    run([IOLAB, "run", "--iterations", "1", "--quiet", "--dir", workdir, "--json", out] + args)
    with open(out) as f:
        result = json.load(f)
    times = {}
    for c in result["cases"]:
        if c["status"] != "ok":
            continue
        if not c["verified"]:
            raise SystemExit(f"iolab case {c['label']} did not verify")
        times["iolab " + c["label"]] = c["samples"][0]["wall_s"]
    return times


def fio_time(path, size, bs, engine, depth=1, direct=False, lat_off=False):
    """fio's own time for the job. lat_off: the same work as iolab's loop: no per-I/O latency or
    bandwidth accounting (two clock reads per I/O are otherwise inside it) and a page-aligned
    buffer, as iolab and dd use (fio's default buffer is not page-aligned)."""
    if shutil.which("fio") is None:
        return None
    cmd = ["fio", "--name=peer", f"--filename={path}", "--rw=read", f"--bs={bs}", f"--size={size}",
           f"--ioengine={engine}", f"--iodepth={depth}", "--invalidate=0", "--output-format=json"]
    if direct:
        cmd.append("--direct=1")
    if lat_off:
        cmd += ["--disable_lat=1", "--disable_clat=1", "--disable_slat=1", "--disable_bw_measurement=1",
                "--iomem_align=4096"]
    result = json.loads(run(cmd).stdout)
    read = result["jobs"][0]["read"]
    if read["io_bytes"] != size:
        raise SystemExit(f"fio read {read['io_bytes']} bytes, not {size}")
    return read["io_bytes"] / read["bw_bytes"]


def peer(mode, path, *rest):
    out = run([PEERS, mode, path] + [str(r) for r in rest]).stdout.split()
    return float(out[0]), int(out[1])


class Table:
    def __init__(self, title, size):
        self.title, self.size, self.samples, self.notes = title, size, {}, []
        self.resident = []  # shares of the input cached before a peer's run, where they were taken

    def add(self, name, seconds):
        if seconds is not None:
            self.samples.setdefault(name, []).append(seconds)

    def add_iolab(self, args, workdir, suffix=""):
        """Runs iolab once and adds each case it measured."""
        for name, seconds in iolab_cases(args, workdir).items():
            self.add(name + suffix, seconds)

    def median(self, name):
        return statistics.median(self.samples[name]) if name in self.samples else None

    def best(self, prefix):
        names = [n for n in self.samples if n.startswith(prefix)]
        return min(names, key=self.median) if names else None

    def markdown(self):
        rows = sorted(self.samples, key=self.median)
        out = [f"### {self.title}", "", "| tool | runs | median | MiB/s |", "| --- | ---: | ---: | ---: |"]
        for n in rows:
            m = self.median(n)
            out.append(f"| {n} | {len(self.samples[n])} | {m * 1e3:.1f} ms | {self.size / MiB / m:.0f} |")
        out.append("")
        out += self.notes
        return "\n".join(out) + "\n"


def ratio_interval(table, a, b):
    """How many times faster a is than b: Hodges and Lehmann's estimate (the median of every ratio
    b_j / a_i), and an interval from the same ratios: the C-th from each end, C from the normal
    approximation of the Mann-Whitney statistic (about 95 %; 3 for five runs a side). With too few
    runs for that (C < 1), the extremes, and the label says so."""
    ratios = sorted(y / x for x in table.samples[a] for y in table.samples[b])
    n, m = len(table.samples[a]), len(table.samples[b])
    c = int(n * m / 2 - 1.96 * (n * m * (n + m + 1) / 12) ** 0.5)
    label = "~95% interval" if c >= 1 else f"range of the {len(ratios)} pairs, too few runs for 95%"
    c = min(max(c, 1), len(ratios))
    return statistics.median(ratios), ratios[c - 1], ratios[-c], label


def ratio_line(table, a, b, target=None, what=""):
    if a is None or b is None or table.median(a) is None or table.median(b) is None:
        missing = a if a is None or table.median(a) is None else b
        line = f"- {what}: not measured ({missing or 'a tool'} did not run here)"
        table.notes.append(line)
        return line, None
    r, low, high, label = ratio_interval(table, a, b)  # > 1: a is faster
    # Met when the interval lies at or above the target, missed when wholly below it; between,
    # the runs cannot tell: a tie with the target, said as such.
    met = None if target is None else (True if low >= target else False if high < target else None)
    verdict = ("" if target is None else " — target met" if met else " — target NOT met" if met is False
               else " — a tie with the target: its interval holds it")
    line = (f"- {what}: {a} is {r:.2f}x ({low:.2f}-{high:.2f}) {b} (the median of the ratios of every pair of runs, "
            f"{label}{', target >= ' + str(target) + 'x' if target else ''}){verdict}")
    table.notes.append(line)
    return line, met


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--smoke", action="store_true", help="tiny sizes, one round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--dir", default=tempfile.gettempdir())
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    p.add_argument("--tables", default="1,2,3,4,5,6", help="the tables to run, e.g. 2,3 (default: all six)")
    a = p.parse_args()
    try:
        only = {int(t) for t in a.tables.split(",")}
    except ValueError:
        only = set()
    if not only or not only <= set(range(1, 7)):
        p.error(f"--tables {a.tables!r}: expected numbers 1 to 6, e.g. 2,3")
    if only != set(range(1, 7)) and a.out == p.get_default("out"):
        p.error(f"--tables {a.tables} writes some of the tables: give --out, not to replace docs/performance.md")
    if not os.access(IOLAB, os.X_OK):
        raise SystemExit(f"bench/peers: {IOLAB} is missing: run make build first")
    gib = 8 * MiB if a.smoke else 1 << 30
    byte_size = 4 * MiB if a.smoke else 256 * MiB
    records = 10 if a.smoke else 1000
    rounds = 1 if a.smoke else a.rounds
    global PEERS, WORK
    work = tempfile.mkdtemp(prefix="iolab-peers.", dir=a.dir)
    WORK = work
    targets = []
    try:
        PEERS = os.path.join(work, "peer_programs")
        subprocess.run(["g++", "-O2", "-std=c++20", os.path.join(ROOT, "bench", "peer_programs.cpp"), "-o", PEERS],
                       check=True)
        src = os.path.join(work, "input")
        with open(src, "wb") as f:
            for _ in range(gib // MiB):
                f.write(os.urandom(MiB))
        dst = os.path.join(work, "copy")
        limits = run([IOLAB, "info", "--limits", "--dir", work]).stdout
        # "limit         memcpy of 64 MiB into a 64 KiB buffer: 15683 MiB/s"
        cache_limit = float([l for l in limits.splitlines() if "into a 64 KiB buffer" in l][0].split()[-2])

        t1 = t2 = t3 = t4 = t5 = t6 = None
        # 1. warm sequential read
        if 1 in only:
            t1 = Table(f"1. Warm sequential read of {gib // MiB} MiB", gib)
            warm(src)
            for _ in range(rounds):
                t1.add_iolab(["-s", "read.chunk,read.pread-chunk,read.mmap-chunks,read.mmap-scan,read.io-uring",
                              "--buffer", "16K,1M", "--input", src, "--warmup", "1"], work)
                for bs in ("16k", "1m"):
                    for engine in ("psync", "mmap", "io_uring"):
                        t1.add(f"fio {engine} bs={bs}", fio_time(src, gib, bs, engine, 8 if engine == "io_uring" else 1))
                t1.add("dd bs=1M", timed(["dd", f"if={src}", "of=/dev/null", "bs=1M", "status=none"]))
                t1.add("cat", timed(["sh", "-c", f"cat '{src}' > /dev/null"]))
            t1.notes.append(f"- memcpy into a 64 KiB buffer (iolab info --limits): {cache_limit:.0f} MiB/s")
            best1 = t1.best("iolab")
            targets.append(ratio_line(t1, "iolab read.chunk buffer=1M", "dd bs=1M", 0.95, "warm read: read.chunk 1 MiB vs dd bs=1M"))
            targets.append(ratio_line(t1, best1, t1.best("fio"), 1.0, "warm read: iolab's best vs fio's best"))
            if best1:
                frac = gib / MiB / t1.median(best1) / cache_limit
                ok = frac >= 0.8
                line = f"- warm read: iolab's best reaches {frac * 100:.0f}% of the memcpy-into-cache limit (target >= 80%) — target {'met' if ok else 'NOT met'}"
                t1.notes.append(line)
                targets.append((line, ok))

        # 2. cold sequential read
        if 2 in only:
            t2 = Table(f"2. Cold sequential read of {gib // MiB} MiB (evicted before every run)", gib)
            ceilings = []

            def evicted():
                """Evicts the input and keeps the share fincore still finds cached: the proof."""
                evict(src)
                cached = resident(src)
                if cached is not None:
                    t2.resident.append(cached / gib)

            def fio_direct(depth, engine="io_uring"):
                evicted()
                name = f"fio {engine} direct=1 bs=1m" + (f" iodepth={depth}" if engine == "io_uring" else "")
                t2.add(name, fio_time(src, gib, "1m", engine, depth, True))

            def dd_direct():
                evicted()
                t2.add("dd iflag=direct bs=1M", timed(["dd", f"if={src}", "of=/dev/null", "bs=1M", "iflag=direct", "status=none"]))

            tools = [
                lambda: t2.add_iolab(["-s", "read.direct,read.io-uring", "--buffer", "1M", "--queue", "8,32",
                                      "--cache", "direct", "--input", src, "--warmup", "0"], work),
                lambda: fio_direct(8), lambda: fio_direct(32), lambda: fio_direct(1, "psync"), dd_direct,
                lambda: ceilings.append(device_ceiling(work, gib)),
            ]
            for r in range(rounds):
                # A new order each round (seeded, so a rerun repeats it): a virtual disk served from
                # its host's cache reads faster right after another read, and no tool should keep
                # one place or one predecessor.
                order = list(range(len(tools)))
                random.Random(r).shuffle(order)
                for k in order:
                    tools[k]()
            targets.append(ratio_line(t2, t2.best("iolab"), t2.best("fio"), 0.95, "cold read: iolab's best vs fio's best direct"))
            if t2.resident:
                t2.notes.append(f"- cold: at most {max(t2.resident) * 100:.1f}% of the input was in the page cache when "
                                f"a peer started ({len(t2.resident)} checks, fincore after each eviction); every row "
                                "reads with O_DIRECT, past the page cache, iolab's too (--cache direct)")
            ceilings = sorted(c for c in ceilings if c)
            fastest = min(t2.samples, key=t2.median)
            if ceilings:
                rate = gib / MiB / t2.median(fastest)
                top = statistics.median(ceilings)
                ok = rate <= top * 1.1
                line = (f"- cold read: the fastest row, {fastest}, {rate:.0f} MiB/s; the device's O_DIRECT ceiling "
                        f"(iolab info --limits --device, once a round among the tools) {top:.0f} MiB/s, from "
                        f"{ceilings[0]:.0f} to {ceilings[-1]:.0f} (target: at most 1.1x its median) — "
                        f"{'target met' if ok else 'target NOT met'}")
                t2.notes.append(line)
                targets.append((line, ok))

        # 3. copy, warm source, new destination each run
        if 3 in only:
            t3 = Table(f"3. Copy of a {gib // MiB} MiB file (warm source, new destination)", gib)
            warm(src)
            for _ in range(rounds):
                # Each writer starts in the harness's write state: the previous output removed just before.
                fresh_output(dst)
                t3.add_iolab(["-s", "copy.auto,copy.chunk,copy.copy-file-range,copy.sendfile,copy.std-filesystem",
                              "--buffer", "1M", "--input", src, "--warmup", "1"], work)
                for label, cmd in (("cp", ["cp", src, dst]), ("dd bs=1M", ["dd", f"if={src}", f"of={dst}", "bs=1M", "status=none"])):
                    fresh_output(dst)
                    t3.add(label, timed(cmd))
            fresh_output(dst)
            t3.notes.append("- every writer starts as the harness's cases do: the previous output removed just before it")
            targets.append(ratio_line(t3, "iolab copy.auto buffer=1M", "cp", 1.0, "copy: copy.auto vs cp"))
            targets.append(ratio_line(t3, "iolab copy.auto buffer=1M", t3.best(""), 0.95,
                                      "copy: copy.auto vs the best copy of the table"))

        # 4. 1,000 records of 50 KiB
        if 4 in only:
            t4 = Table(f"4. {records} records of 50 KiB, without sync and with fsync at the end", records * 50 * 1024)
            for _ in range(rounds):
                for sync in ("none", "fsync"):
                    t4.add_iolab(["-s", "write.record-buffered,write.record-syscall,write.writev,write.record-stdio",
                                  "--record", "50K", "--count", str(records), "--buffer", "1M",
                                  "--sync", sync, "--warmup", "1"], work, " sync=" + sync)
                    for mode in ("fwrite", "ofstream"):
                        out = os.path.join(work, "records")
                        s, n = peer(mode, out, 50 * 1024, records, *(["fsync"] if sync == "fsync" else []))
                        os.unlink(out)
                        t4.add(f"{mode} sync={sync}", s)
            for sync in ("none", "fsync"):
                best = min((n for n in t4.samples if n.startswith("iolab") and n.endswith(f"sync={sync}")), key=t4.median)
                for peer_name in ("fwrite", "ofstream"):
                    targets.append(ratio_line(t4, best, f"{peer_name} sync={sync}", 1.0, f"records, sync {sync}: iolab's best vs {peer_name}"))

        # 5. one byte at a time
        if 5 in only:
            t5 = Table(f"5. One byte per call over {byte_size // MiB} MiB (warm)", byte_size)
            bsrc = os.path.join(work, "bytes")
            with open(bsrc, "wb") as f:
                f.write(os.urandom(byte_size))
            for _ in range(rounds):
                t5.add_iolab(["-s", "read.byte-buffered", "--input", bsrc, "--byte-slice", "0",
                              "--warmup", "1"], work)
                t5.add_iolab(["-s", "write.byte-buffered", "--size", str(byte_size), "--record", "64K",
                              "--byte-slice", "0", "--warmup", "1"], work)
                for mode in ("getc", "istream-get"):
                    s, n = peer(mode, bsrc)
                    if n != byte_size:
                        raise SystemExit(f"{mode} read {n} bytes, not {byte_size}")
                    t5.add(mode + " (getc_unlocked)" if mode == "getc" else mode, s)
                for mode in ("putc", "ostream-put"):
                    out = os.path.join(work, "bytes-out")
                    s, _ = peer(mode, out, byte_size)
                    os.unlink(out)
                    t5.add(mode + " (putc_unlocked)" if mode == "putc" else mode, s)
            rb, wb = t5.best("iolab read"), t5.best("iolab write")
            targets.append(ratio_line(t5, rb, "getc (getc_unlocked)", 1.0, "byte reads: iolab's buffered reader vs getc_unlocked"))
            targets.append(ratio_line(t5, rb, "istream-get", 10, "byte reads: iolab's buffered reader vs std::istream::get"))
            targets.append(ratio_line(t5, wb, "putc (putc_unlocked)", 1.5, "byte writes: iolab's buffered writer vs putc_unlocked"))
            targets.append(ratio_line(t5, wb, "ostream-put", 10, "byte writes: iolab's buffered writer vs std::ostream::put"))

        # 6. agreement: the same pread workload measured by iolab and by fio
        if 6 in only:
            t6 = Table(f"6. Agreement: warm pread of {gib // MiB} MiB, iolab vs fio psync (latency accounting off, "
                       "page-aligned buffer)", gib)
            warm(src)
            for _ in range(rounds):
                t6.add_iolab(["-s", "read.pread-chunk", "--buffer", "16K,1M", "--input", src, "--warmup", "1"], work)
                for bs in ("16k", "1m"):
                    t6.add(f"fio psync bs={bs}", fio_time(src, gib, bs, "psync", lat_off=True))
            for ours, theirs in (("iolab read.pread-chunk buffer=16K", "fio psync bs=16k"), ("iolab read.pread-chunk buffer=1M", "fio psync bs=1m")):
                if t6.median(ours) and t6.median(theirs):
                    d = t6.median(ours) / t6.median(theirs) - 1
                    ok = abs(d) <= 0.05
                    line = f"- agreement: {ours} vs {theirs}: {d * 100:+.1f}% (target within 5%) — {'agree' if ok else 'DIFFER'}"
                    t6.notes.append(line)
                    targets.append((line, ok))

        tables = [t for t in (t1, t2, t3, t4, t5, t6) if t is not None]
        info = run([IOLAB, "info", "--dir", work]).stdout
        doc = ["# Performance: iolab against its peers", "",
               f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `bench/peers`"
               f"{' --smoke (tiny sizes, one round: NOT a measurement)' if a.smoke else ''}, "
               f"{rounds} round(s), the tools alternating within each round"
               f"{'' if only == set(range(1, 7)) else '; only table(s) ' + ', '.join(map(str, sorted(only)))}.", "",
               "```", info.strip().replace(work, "$WORK"), limits.strip().replace(work, "$WORK"), "```", "",
               "How each tool is timed: iolab by its own harness (one measured iteration per round, after "
               "one warm-up that hashes every byte; the measured read is checked by its sampled "
               "fingerprint, written files by their checksum); fio by its JSON report (bytes over bandwidth); "
               "dd, cat and cp as processes (start-up included, about a millisecond); the C/C++ loops by "
               "their own clock around the loop. A ratio is the median of the ratios of every pair of runs "
               "(Hodges and Lehmann), with its ~95 % interval; a target is met when the interval lies at or "
               "above it, missed when below it, and a tie when the interval holds it.", "",
               "## Targets", ""]
        doc += [line for line, _ in targets]
        doc += ["", "## Results", ""]
        doc += [t.markdown() for t in tables]
        with open(os.path.join(ROOT, "bench", "performance-analysis.md")) as f:
            doc += [f.read()]
        doc += ["## Commands", "", "```"] + commands + ["```", ""]
        with open(a.out + ".tmp", "w") as f:
            f.write("\n".join(doc))
        os.replace(a.out + ".tmp", a.out)
        for line, _ in targets:
            print(line)
        print(f"wrote {a.out}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
