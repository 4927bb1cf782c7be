#!/usr/bin/env python3
"""Depth and speed at a fixed time: each engine searches every bench
position (read from src/search/bench.rs) for the same time with one thread and a
fresh game, and the mean depth reached, the mean seldepth and the median
nps are printed side by side. Engines alternate position by position, so
that load on a shared machine falls on both alike (issue #12's "mean depth
in 1 s on the bench positions").

  pip install chess
  scripts/search_depth.py --engine new=target/release/ferrum --engine old=/tmp/ferrum-old [--movetime 1000]

An engine may carry UCI options as scripts/match.py takes them, so that
networks are compared at their own speed (a 128-neuron net such as n10
runs on a `--features hidden128` build):

  scripts/search_depth.py --engine "n42=FERRUM;EvalFile=nets/ferrum-n42.nnue" --engine "n10=FERRUM128;EvalFile=nets/ferrum-n10.nnue"
"""

import argparse
import re
import statistics
from pathlib import Path

import chess
import chess.engine

from match import parse_engine


def bench_fens() -> list[str]:
    src = (Path(__file__).resolve().parent.parent / "src" / "search" / "bench.rs").read_text()
    block = src[src.index("pub const POSITIONS"):]
    block = block[: block.index("];")]
    return re.findall(r'"([^"]+)"', block)


def open_engines(specs: list[str], hash_mb: int) -> list[tuple[str, chess.engine.SimpleEngine]]:
    """Starts each NAME=PATH[;opt=val,...] engine with one thread, `hash_mb`
    MB of Hash and its own options."""
    engines = []
    for spec in specs:
        name, path, _, opts = parse_engine(spec)
        e = chess.engine.SimpleEngine.popen_uci(path)
        e.configure({"Hash": hash_mb, "Threads": 1, **opts})
        engines.append((name, e))
    return engines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True, help="NAME=PATH[;opt=val,...]")
    ap.add_argument("--movetime", type=int, default=1000, help="milliseconds per position")
    ap.add_argument("--hash", type=int, default=16)
    args = ap.parse_args()

    engines = open_engines(args.engine, args.hash)
    fens = bench_fens()
    results = {name: [] for name, _ in engines}
    try:
        for i, fen in enumerate(fens):
            board = chess.Board(fen)
            row = []
            for name, e in engines:
                # A new game object each time: python-chess sends ucinewgame.
                info = e.analyse(board, chess.engine.Limit(time=args.movetime / 1000), game=object())
                results[name].append((info.get("depth", 0), info.get("seldepth", 0), info.get("nps", 0)))
                row.append(f"{name} d{info.get('depth', 0)}")
            print(f"{i + 1:2}/{len(fens)} " + "  ".join(row), flush=True)
    finally:
        for _, e in engines:
            e.quit()
    print(f"\n{'engine':12} {'mean depth':>10} {'mean seldepth':>14} {'median nps':>11}")
    for name, rows in results.items():
        print(
            f"{name:12} {statistics.mean(r[0] for r in rows):10.2f} "
            f"{statistics.mean(r[1] for r in rows):14.2f} {statistics.median(r[2] for r in rows):11.0f}"
        )


if __name__ == "__main__":
    main()
