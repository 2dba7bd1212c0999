#!/usr/bin/env python3
"""Whole-process timing, side by side: runs each command in turn, interleaved, N times,
and prints the median and best wall time and the peak resident memory of each, with the
ratio of each command's median to the reference's (the last one given).

    scripts/compare.py [--runs N] [--bytes N] [--cpu] NAME CMD [NAME CMD ...]

With --bytes, each line also gives the throughput: N bytes (of input) / median time.
With --cpu, the times are CPU time (user + system) instead of wall time: a single-threaded
program's own work, without the time it spent waiting for the processor.
With --also NAME, each line also gives its ratio to NAME's median (a second reference).

Commands are shell strings. Output goes to /dev/null; a failing command stops the run.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def run_once(cmd, cpu=False):
    start = time.perf_counter()
    p = subprocess.Popen(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    if cpu:
        elapsed = usage.ru_utime + usage.ru_stime
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"compare.py: `{cmd}` failed with status {p.returncode}: {p.stderr.read().decode()}")
    # ru_maxrss of the shell's child is reported through the shell (exec'd: same process).
    return elapsed, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--bytes", type=int, help="input size, for a MB/s column")
    ap.add_argument("--cpu", action="store_true", help="CPU time (user + system), not wall time")
    ap.add_argument("--also", help="a second reference, by name")
    ap.add_argument("pairs", nargs="+")
    a = ap.parse_args()
    if len(a.pairs) % 2:
        sys.exit("compare.py: NAME CMD pairs expected")
    cmds = [(a.pairs[i], a.pairs[i + 1]) for i in range(0, len(a.pairs), 2)]
    # One warm-up round (page cache, dynamic libraries).
    for _, c in cmds:
        run_once("exec " + c)
    times = {n: [] for n, _ in cmds}
    rss = {n: 0 for n, _ in cmds}
    for _ in range(a.runs):
        for n, c in cmds:
            t, m = run_once("exec " + c, a.cpu)
            times[n].append(t)
            rss[n] = max(rss[n], m)
    ref = cmds[-1][0]
    ref_median = statistics.median(times[ref])
    width = max(len(n) for n, _ in cmds)
    if a.cpu:
        print("  (CPU time: user + system)")
    for n, _ in cmds:
        med = statistics.median(times[n])
        rate = f"  {a.bytes / med / 1e6:7.3f} MB/s" if a.bytes else ""
        prec = 3 if ref_median < 0.01 else 1
        also = ""
        if a.also:
            also = f"  {med / statistics.median(times[a.also]):5.2f}x {a.also}"
        print(
            f"  {n:{width}}  median {med * 1e3:9.{prec}f} ms  best {min(times[n]) * 1e3:9.{prec}f} ms"
            f"  peak RSS {rss[n] / 1024:7.1f} MiB{rate}  {med / ref_median:5.2f}x {ref}{also}"
        )


if __name__ == "__main__":
    main()
