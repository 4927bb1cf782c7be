#!/usr/bin/env python3
"""Protocol latency benchmark (not a test): time from `isready` to `readyok`
while a search runs, and from `stop` to `bestmove`, over many runs.

Usage: scripts/latency.py [--engine PATH] [--runs N] [--threads T]
Prints median, p99 and max in milliseconds for both.
"""
import argparse
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="target/release/ferrum")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    p = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def wait_for(prefix):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("engine exited")
            if line.startswith(prefix):
                return

    send("uci")
    wait_for("uciok")
    send(f"setoption name Threads value {args.threads}")
    ready, stop = [], []
    for i in range(args.runs):
        send("position startpos moves e2e4" if i % 2 else "position startpos")
        send("go infinite")
        time.sleep(0.02)
        t = time.perf_counter()
        send("isready")
        wait_for("readyok")
        ready.append((time.perf_counter() - t) * 1000)
        time.sleep(0.02)
        t = time.perf_counter()
        send("stop")
        wait_for("bestmove")
        stop.append((time.perf_counter() - t) * 1000)
    send("quit")
    p.wait(timeout=10)

    def report(name, xs):
        xs = sorted(xs)
        p99 = xs[min(len(xs) - 1, int(len(xs) * 0.99))]
        print(f"{name:22s} runs {len(xs)}  median {statistics.median(xs):.3f} ms  "
              f"p99 {p99:.3f} ms  max {xs[-1]:.3f} ms")

    report("isready -> readyok", ready)
    report("stop -> bestmove", stop)


if __name__ == "__main__":
    main()
