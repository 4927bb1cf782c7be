#!/usr/bin/env python3
"""Effective branching factor (issue #109): how fast each engine's tree
grows with depth, at an equal node budget.

Each engine searches every bench position (read from src/search/bench.rs)
to the same number of nodes, one thread, a fresh game and table each time;
the nodes reported at the end of each iteration are read from its `info`
lines. For one position, with N(d) the nodes when iteration d ended:

    EBF = (N(hi) / N(lo)) ** (1 / (hi - lo))

over the last half of its completed iterations (lo the middle one, hi the
last; the deepest depth reported is left out, since the budget cut it
short). The table prints, per engine, the mean depth reached, the mean and
median EBF over the positions. Depths are not the same unit across engines;
the EBF is (nodes per extra ply). A node budget makes it load-proof: run it
while matches use the cores. Ethereal 12 stops after depth 1 under
`go nodes`: give it `--movetime` instead (the time its nps needs for the
same nodes, on an idle machine) and `MoveOverhead=0`, or it keeps 100 ms back.

  pip install chess
  scripts/ebf.py --engine ferrum=target/release/ferrum --engine sf=/usr/games/stockfish \\
      --nodes 2000000
  scripts/ebf.py --engine "ethereal=/usr/games/ethereal-chess;MoveOverhead=0" --movetime 2000
"""

import argparse
import math
import statistics

import chess
import chess.engine

from search_depth import bench_fens, open_engines


def iteration_nodes(infos: list[dict]) -> dict[int, int]:
    """The nodes at the end of each iteration: for every depth, the most
    nodes any of its `info` lines with a principal variation reported
    (aspiration re-searches print several; the last is the largest)."""
    out: dict[int, int] = {}
    for info in infos:
        if "pv" in info and "depth" in info and "nodes" in info:
            d = info["depth"]
            out[d] = max(out.get(d, 0), info["nodes"])
    return out


def ebf(nodes_by_depth: dict[int, int]) -> float | None:
    """The effective branching factor over the last half of the completed
    iterations (the deepest depth, cut by the budget, left out), or None
    with fewer than three completed iterations."""
    depths = sorted(nodes_by_depth)[:-1]
    if len(depths) < 3:
        return None
    lo, hi = depths[len(depths) // 2], depths[-1]
    n_lo, n_hi = nodes_by_depth[lo], nodes_by_depth[hi]
    if hi == lo or n_lo <= 0 or n_hi <= n_lo:
        return None
    return math.exp(math.log(n_hi / n_lo) / (hi - lo))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True, help="NAME=PATH[;opt=val,...]")
    ap.add_argument("--nodes", type=int, default=2_000_000, help="node budget per position")
    ap.add_argument("--movetime", type=int, default=0,
                    help="milliseconds per position instead of a node budget")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--positions", type=int, default=0, help="only the first N bench positions (0: all)")
    args = ap.parse_args()

    engines = open_engines(args.engine, args.hash)
    fens = bench_fens()
    if args.positions:
        fens = fens[: args.positions]
    limit = (chess.engine.Limit(time=args.movetime / 1000) if args.movetime
             else chess.engine.Limit(nodes=args.nodes))
    depth = {name: [] for name, _ in engines}
    factor = {name: [] for name, _ in engines}
    try:
        for i, fen in enumerate(fens):
            board = chess.Board(fen)
            if board.is_game_over():
                continue
            row = []
            for name, e in engines:
                # A new game object each time: python-chess sends ucinewgame.
                with e.analysis(board, limit, game=object()) as a:
                    infos = [dict(info) for info in a]
                by_depth = iteration_nodes(infos)
                f = ebf(by_depth)
                if by_depth:
                    depth[name].append(max(by_depth))
                if f is not None:
                    factor[name].append(f)
                row.append(f"{name} d{max(by_depth, default=0)} ebf {f:.2f}" if f else f"{name} -")
            print(f"{i + 1:2}/{len(fens)}  " + "  ".join(row), flush=True)
    finally:
        for _, e in engines:
            e.quit()

    budget = f"{args.movetime} ms" if args.movetime else f"{args.nodes} nodes"
    print(f"\n{budget} a position, {len(fens)} positions, one thread, Hash {args.hash}")
    print(f"{'engine':<12} {'depth':>6} {'EBF mean':>9} {'EBF median':>11} {'positions':>10}")
    for name, _ in engines:
        f = factor[name]
        print(f"{name:<12} {statistics.fmean(depth[name]) if depth[name] else 0:6.1f} "
              f"{statistics.fmean(f) if f else 0:9.3f} {statistics.median(f) if f else 0:11.3f} {len(f):10}")


if __name__ == "__main__":
    main()
