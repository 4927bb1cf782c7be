#!/usr/bin/env python3
"""Compares the `bench` speed of engines side by side on one machine.

Runs `ENGINE bench` for every engine in turn, `--runs` rounds (alternating,
so that a change of load hits all of them alike), reads the last line's
node count and nps, and prints each engine's median nps, its ratio to the
first engine's median, and whether its node count (the search's signature)
matched in every run. Any UCI engine with a `bench` command works:
Stockfish and Ethereal print their totals on stderr, which is read too.

    scripts/bench_compare.py --runs 7 base=/tmp/ferrum-old new=target/release/ferrum \
        sf=/usr/games/stockfish
"""
import argparse
import re
import statistics
import subprocess
import sys


def bench(cmd, depth=None):
    """(nodes, nps) from one `bench` run of `cmd` (at `depth`, if given)."""
    out = subprocess.run([cmd, "bench"] + ([str(depth)] if depth else []), capture_output=True, text=True, timeout=600)
    text = out.stdout + "\n" + out.stderr
    # Ferrum and OpenBench: "<N> nodes <M> nps"; Stockfish and Ethereal:
    # "Nodes searched  : N" and "Nodes/second    : M"; Ethereal: "Nodes : N", "NPS : M".
    m = re.search(r"^(\d+) nodes (\d+) nps\s*$", text, re.M)
    if m:
        return int(m.group(1)), int(m.group(2))
    nodes = re.search(r"^Nodes(?: searched)?\s*:\s*(\d+)", text, re.M)
    nps = re.search(r"^(?:Nodes/second|NPS)\s*:\s*(\d+)", text, re.M)
    if nodes and nps:
        return int(nodes.group(1)), int(nps.group(1))
    sys.exit(f"{cmd}: no bench totals in its output:\n{text[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engines", nargs="+", help="NAME=PATH")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--depth", type=int, help="bench depth (Ferrum's default if absent): deeper runs are longer and steadier")
    args = ap.parse_args()
    engines = [e.split("=", 1) if "=" in e else (e, e) for e in args.engines]
    results = {name: [] for name, _ in engines}
    for r in range(args.runs):
        for name, path in engines:
            nodes, nps = bench(path, args.depth)
            results[name].append((nodes, nps))
            print(f"run {r + 1} {name}: {nodes} nodes {nps} nps", flush=True)
    base = statistics.median(n for _, n in results[engines[0][0]])
    print(f"\n{'engine':<12} {'median nps':>12} {'ratio':>7}  nodes")
    for name, _ in engines:
        runs = results[name]
        med = statistics.median(n for _, n in runs)
        counts = sorted({c for c, _ in runs})
        same = "same every run" if len(counts) == 1 else "VARIES"
        print(f"{name:<12} {med:>12.0f} {med / base:>7.3f}  {counts[0]} ({same})")


if __name__ == "__main__":
    main()
