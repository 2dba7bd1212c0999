"""The PPAPI host's speed (scripts/bench ppapi): stockfish's search, and the message path.

    python3 ppapi_bench.py search RUNS COMMAND...   nodes per second of `go depth 18` from
                                                     the start position, one thread (median)
    python3 ppapi_bench.py search-pair RUNS NAME1 COMMAND1 NAME2 COMMAND2
                                                     the same for two programs (each COMMAND
                                                     one string, split at spaces), their
                                                     runs taken in turn; each one's median
                                                     and the first's ratio to the second's
    python3 ppapi_bench.py roundtrips N COMMAND...  N isready -> readyok round trips, per
                                                     second
    python3 ppapi_bench.py start RUNS COMMAND...     the time from starting the program to
                                                     its first answer (uciok to uci), ms
    python3 ppapi_bench.py page RUNS URL             the time from a page's start to its
                                                     result (benches/page/load.html: the
                                                     plugin's `load`), ms, in headless
                                                     Chromium (a new browser each run)
    python3 ppapi_bench.py frames SECONDS COMMAND... messages a plugin posts per second
                                                     (each one a frame: path_tracer's
                                                     iterations), between its first and its
                                                     last in SECONDS; with PAGE=URL also the
                                                     page's own count (benches/page/frames.html)
    python3 ppapi_bench.py page-pair RUNS NAME1 URL1 NAME2 URL2
                                                     the numbers two pages give as their result
                                                     (each a rate), their runs taken in turn;
                                                     each one's median and the first's ratio
                                                     to the second's"""
import statistics
import subprocess
import sys
import time


def search(runs, command):
    nps = []
    for _ in range(runs):
        out = subprocess.run(command, input=b"setoption name Threads value 1\nposition startpos\ngo depth 18\n",
                             capture_output=True, check=True).stdout.decode()
        infos = [l for l in out.splitlines() if l.startswith("info depth 18 ") and " nps " in l]
        if not infos or "bestmove" not in out:
            raise SystemExit(f"no search result: {out[-500:]}")
        nps.append(int(infos[-1].split(" nps ")[1].split()[0]))
    return nps


def roundtrips(n, command):
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdin.write(b"uci\n")
    p.stdin.flush()
    while p.stdout.readline().strip() != b"uciok":
        pass
    start = time.perf_counter()
    for _ in range(n):
        p.stdin.write(b"isready\n")
        p.stdin.flush()
        while p.stdout.readline().strip() != b"readyok":
            pass
    took = time.perf_counter() - start
    p.stdin.write(b"quit\n")
    p.stdin.close()
    p.wait()
    return n / took


def start(runs, command):
    took = []
    for _ in range(runs):
        begin = time.perf_counter()
        p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        p.stdin.write(b"uci\n")
        p.stdin.flush()
        while p.stdout.readline().strip() not in (b"uciok", b""):
            pass
        took.append((time.perf_counter() - begin) * 1000)
        p.stdin.write(b"quit\n")
        p.stdin.close()
        p.wait()
    return took


def page(runs, url):
    took = []
    for _ in range(runs):
        out = subprocess.run(["node", "tests/browser/wait_page.mjs", "chromium", url, "60"],
                             capture_output=True, check=True).stdout.decode().strip()
        took.append(float(out))
    return took


def frames(seconds, command):
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    times = []
    while True:
        line = p.stdout.readline()
        if not line:
            break
        times.append(time.perf_counter())
        if times[-1] - times[0] >= seconds:
            break
    p.kill()
    p.wait()
    if len(times) < 2:
        raise SystemExit("fewer than two frames")
    return (len(times) - 1) / (times[-1] - times[0])


def main():
    what, count, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if what == "search-pair":
        (n1, c1, n2, c2) = command
        got = {n1: [], n2: []}
        for _ in range(count):
            for name, c in ((n1, c1), (n2, c2)):
                got[name] += search(1, c.split())
        for name in (n1, n2):
            print(f"  {name:>8}: median {statistics.median(got[name]):>10,.0f} nodes/s   best {max(got[name]):>10,}")
        ratio = statistics.median(got[n1]) / statistics.median(got[n2])
        print(f"  {n1} / {n2}: {ratio:.3f}x the nodes per second ({count} runs each, in turn)")
    elif what == "search":
        nps = search(count, command)
        print(f"  median {statistics.median(nps):>10,.0f} nodes/s   best {max(nps):>10,} ({count} runs)")
    elif what == "frames":
        print(f"  {frames(count, command):8.3f} frames/s ({count} s)")
    elif what == "page-pair":
        (n1, u1, n2, u2) = command
        got = {n1: [], n2: []}
        for _ in range(count):
            for name, url in ((n1, u1), (n2, u2)):
                out = subprocess.run(["node", "tests/browser/wait_page.mjs", "chromium", url, "300"],
                                     capture_output=True, check=True).stdout.decode().strip()
                got[name].append(float(out))
        for name in (n1, n2):
            print(f"  {name:>10}: median {statistics.median(got[name]):8.2f} /s   all {got[name]}")
        ratio = statistics.median(got[n1]) / statistics.median(got[n2])
        print(f"  {n1} / {n2}: {ratio:.3f}x ({count} runs each, in turn)")
    elif what == "page-frames":
        out = subprocess.run(["node", "tests/browser/wait_page.mjs", "chromium",
                              f"{command[0]}?seconds={count}", str(count * 3 + 60)],
                             capture_output=True, check=True).stdout.decode().strip()
        print(f"  {float(out):8.3f} frames/s ({count} s)")
    elif what in ("start", "page"):
        ms = start(count, command) if what == "start" else page(count, command[0])
        print(f"  median {statistics.median(ms):8.1f} ms   best {min(ms):8.1f} ms ({count} runs)")
    else:
        print(f"  {roundtrips(count, command):>10,.0f} round trips/s ({count})")


if __name__ == "__main__":
    main()
