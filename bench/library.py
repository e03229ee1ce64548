#!/usr/bin/env python3
"""iolab::io against the usual ways, side by side on the same cached files, alternating run by
run: the ratios the library promises (docs/library.md).

  bench/library            256 MiB of lines, a 1 GiB file; about a minute
  bench/library --smoke    tiny files, three rounds: checks that the script works

Each program's output is checked on every run (line count, bytes, the copy's content)."""
import os, shutil, statistics, subprocess, sys, tempfile, time, filecmp

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
prog = os.environ.get("IOLAB_BENCH_LIBRARY", os.path.join(root, "build", "iolab_bench_library"))
smoke = "--smoke" in sys.argv[1:]
rounds = 3 if smoke else 11
lines_bytes = (1 << 20) if smoke else (256 << 20)
big_bytes = (4 << 20) if smoke else (1 << 30)


def run(argv, want=None):
    t0 = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()
    t = time.perf_counter() - t0
    if want is not None and out != str(want):
        sys.exit(f"bench/library: {' '.join(argv)} printed {out!r}, expected {want!r}")
    return t


def alternate(pairs):
    """pairs: name -> (prepare or None, argv, want). Median time of each, taken in turns."""
    times = {n: [] for n in pairs}
    for _ in range(rounds):
        for name, (prepare, argv, want) in pairs.items():
            if prepare:
                prepare()
            times[name].append(run(argv, want))
    return {n: statistics.median(t) for n, t in times.items()}


def main():
    if not os.path.exists(prog):
        sys.exit(f"bench/library: {prog} is missing (make build)")
    work = tempfile.mkdtemp(prefix="iolab-bench-library.")
    try:
        text = os.path.join(work, "lines.txt")
        with open(text, "w") as f:
            n = 0
            line = 0
            while n < lines_bytes:
                s = f"{line} the quick brown fox jumps over the lazy dog {line * 7919 % 1000003}\n"
                f.write(s)
                n += len(s)
                line += 1
        big = os.path.join(work, "big.bin")
        with open(big, "wb") as f:
            left = big_bytes
            block = os.urandom(1 << 20)
            while left > 0:
                f.write(block[: min(left, len(block))])
                left -= len(block)
        for p in (text, big):  # cached: read once
            with open(p, "rb") as f:
                while f.read(1 << 24):
                    pass
        dst = os.path.join(work, "copy.bin")

        def fresh():
            if os.path.exists(dst):
                os.unlink(dst)

        rows, bounds = [], []
        t = alternate({
            "peek": (None, [prog, "count-peek", text], line),
            "getc": (None, [prog, "count-getc", text], line),
            "getline": (None, [prog, "count-getline", text], line),
            "read-only": (None, [prog, "read-only", text], os.path.getsize(text)),
        })
        rows.append(("line counting: peek/consume vs getc_unlocked", t["getc"] / t["peek"], 1.5))
        rows.append(("line counting: peek/consume vs std::getline", t["getline"] / t["peek"], 10.0))
        bounds.append(f"read(2) alone, 256 KiB at a time, no byte looked at: std::getline takes "
                      f"{t['getline'] / t['read-only']:.2f}x as long, so no reader through read(2) can beat it by more")
        t = alternate({
            "read_file": (None, [prog, "read-file", big], big_bytes),
            "dd": (None, ["dd", f"if={big}", "of=/dev/null", "bs=1M", "status=none"], None),
            "fresh": (None, [prog, "fresh-memory", big], big_bytes),
            "map": (None, [prog, "map-file", big], big_bytes),
        })
        rows.append((f"read_file vs dd bs=1M ({big_bytes >> 20} MiB cached)", t["dd"] / t["read_file"], 0.95))
        bounds.append(f"{big_bytes >> 20} MiB of new memory faulted in, nothing read: {t['dd'] / t['fresh']:.2f}x dd, "
                      f"so no copy of the file into new memory can reach more")
        bounds.append(f"the cached file mapped (MappedFile), every page touched: {t['dd'] / t['map']:.2f}x dd")
        t = alternate({
            "copy_file": (fresh, [prog, "copy-file", big, dst], big_bytes),
            "cp": (fresh, ["cp", big, dst], None),
        })
        if not filecmp.cmp(big, dst, shallow=False):
            sys.exit("bench/library: the copy differs")
        rows.append((f"copy_file vs cp ({big_bytes >> 20} MiB)", t["cp"] / t["copy_file"], 1.0))
        print(f"iolab::io against the usual ways: median of {rounds} alternating runs each (time ratio: >1 is faster)")
        for name, ratio, target in rows:
            verdict = "met" if ratio >= target else "NOT met"
            print(f"- {name}: {ratio:.2f}x (target >= {target}x) — {verdict}")
        print("What bounds them here, measured the same way:")
        for b in bounds:
            print(f"- {b}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
