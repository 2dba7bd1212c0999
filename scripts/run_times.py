#!/usr/bin/env python3
"""Translates each run/ pexe at -O2 for x86-32 and times its run (median of 5), checking
its output against the expected .stdout.

    scripts/run_times.py PNACL_TRANSLATE RUN_DIR WORK_DIR
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    translate, run_dir, work = sys.argv[1:4]
    names = sorted(f[:-5] for f in os.listdir(run_dir) if f.endswith(".pexe"))
    for n in names:
        exe = os.path.join(work, n + ".run")
        subprocess.run([translate, "-O2", "--arch", "x86-32", os.path.join(run_dir, n + ".pexe"), "-o", exe], check=True)
        with open(os.path.join(run_dir, n + ".argv")) as f:
            argv = f.read().splitlines()
        with open(os.path.join(run_dir, n + ".stdout"), "rb") as f:
            expected = f.read()
        times = []
        for _ in range(5):
            t = time.perf_counter()
            p = subprocess.run(argv, executable=exe, stdin=subprocess.DEVNULL, capture_output=True, env={})
            times.append(time.perf_counter() - t)
            if p.returncode != 0 or p.stdout != expected:
                sys.exit(f"run_times.py: {n} printed the wrong output or failed (status {p.returncode})")
        print(f"  {n:14} median {statistics.median(times) * 1e3:8.1f} ms  best {min(times) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
