#!/usr/bin/env python3
"""Hash table benchmark (not a test): how long `setoption name Hash` and
`ucinewgame` take until `readyok`, for Ferrum and any other UCI engines side
by side, and (with --soak) whether the resident size stays put over many
games, resizes and searches.

Usage:
  scripts/hash_bench.py [--engine PATH ...] [--sizes 1024 4096 8192] [--threads T]
  scripts/hash_bench.py --soak [--engine PATH] [--searches 2000]

For each engine and size, a fresh process: resize (+ isready), a 1 s search
that fills part of the table, the first `ucinewgame` (+ isready; it writes the
whole table), a second `ucinewgame`, and the resident size (VmRSS, Linux).
The first touch of memory is far slower inside some virtual machines than on
bare metal: compare engines within one run only.
"""
import argparse
import subprocess
import time


class Uci:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def wait_for(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("engine exited")
            if line.startswith(prefix):
                return line

    def timed(self, command):
        """Seconds from sending `command` to `readyok` after it."""
        t = time.perf_counter()
        self.send(command)
        self.send("isready")
        self.wait_for("readyok")
        return time.perf_counter() - t

    def rss_mb(self):
        try:
            with open(f"/proc/{self.p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=60)


def bench(engines, sizes, threads):
    print(f"{'engine':28s} {'MB':>6s} {'resize s':>9s} {'1st clear s':>12s} "
          f"{'2nd clear s':>12s} {'RSS MB':>8s}")
    for size in sizes:
        for path in engines:
            e = Uci(path)
            e.timed(f"setoption name Threads value {threads}")
            resize = e.timed(f"setoption name Hash value {size}")
            e.send("position startpos")
            e.send("go movetime 1000")
            e.wait_for("bestmove")
            first = e.timed("ucinewgame")
            second = e.timed("ucinewgame")
            rss = e.rss_mb()
            e.quit()
            print(f"{path[-28:]:28s} {size:6d} {resize:9.3f} {first:12.3f} {second:12.3f} "
                  f"{rss:8.0f}", flush=True)


def soak(path, searches):
    e = Uci(path)
    samples = []
    for i in range(searches):
        if i % 100 == 0:
            e.timed(f"setoption name Hash value {[16, 64, 16, 128][i // 100 % 4]}")
            e.timed(f"setoption name Threads value {[1, 2, 4][i // 100 % 3]}")
        if i % 20 == 0:
            e.timed("ucinewgame")
        e.send("position startpos moves e2e4 e7e5" if i % 2 else "position startpos")
        e.send("go nodes 5000")
        e.wait_for("bestmove")
        if i % 100 == 99:
            samples.append((i + 1, e.rss_mb()))
            print(f"searches {i + 1:6d}  RSS {samples[-1][1]:8.1f} MB", flush=True)
    e.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", action="append", help="engine binary (repeatable)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096, 8192])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--soak", action="store_true")
    ap.add_argument("--searches", type=int, default=2000)
    args = ap.parse_args()
    engines = args.engine or ["target/release/ferrum"]
    if args.soak:
        soak(engines[0], args.searches)
    else:
        bench(engines, args.sizes, args.threads)


if __name__ == "__main__":
    main()
