#!/usr/bin/env python3
"""Pools the games of one match played in parts and reports it as one.

A match is often played in parts: on a lent machine and on this one, or
across sessions, each part with its own seed and PGN file. Elo and SPRT
must then come from all the pairs together, not from averaging the parts.
This reads the PGN files that scripts/match.py wrote (its python-chess
runner writes each colour-swapped pair as two consecutive games), checks
that every pair is one (same start position, colours swapped, the named
engine in both), and prints what match.py prints for one run: wins, draws,
losses, score, Elo with its 95% error bar from the pentanomial counts, the
SPRT's log-likelihood ratio when asked, and how the games ended.

    scripts/pool.py --engine n16 part1.pgn part2.pgn --sprt 0 10
"""
import argparse
import collections
import math
import pathlib
import sys

import chess.pgn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from match import Stats  # noqa: E402  (the same Elo and LLR as one run's)

POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def read_games(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        games = []
        while (g := chess.pgn.read_game(f)) is not None:
            games.append(g)
    return games


def pool(paths, engine):
    """(Stats, terminations, opponents) of `engine` over the pairs of every
    file; raises ValueError naming the file and game of anything that is not
    a finished colour-swapped pair with `engine` in it."""
    stats, ends, opponents = Stats(), collections.Counter(), set()
    for path in paths:
        games = read_games(path)
        if len(games) % 2:
            raise ValueError(f"{path}: {len(games)} games, not whole pairs")
        for i in range(0, len(games), 2):
            g1, g2 = games[i], games[i + 1]
            where = f"{path}: games {i + 1}-{i + 2}"
            w1, b1 = g1.headers.get("White"), g1.headers.get("Black")
            if (g2.headers.get("White"), g2.headers.get("Black")) != (b1, w1):
                raise ValueError(f"{where}: colours are not swapped ({w1}-{b1}, "
                                 f"{g2.headers.get('White')}-{g2.headers.get('Black')})")
            if engine not in (w1, b1):
                raise ValueError(f"{where}: no engine named {engine!r} ({w1}-{b1})")
            if g1.board().fen() != g2.board().fen():
                raise ValueError(f"{where}: the two games start from different positions")
            scores = []
            for g in (g1, g2):
                result = g.headers.get("Result")
                if result not in POINTS:
                    raise ValueError(f"{where}: result {result!r} is not a finished game")
                scores.append(POINTS[result] if g.headers["White"] == engine else 1 - POINTS[result])
                ends[g.headers.get("Termination", "unknown")] += 1
                opponents.add(g.headers["Black"] if g.headers["White"] == engine else g.headers["White"])
            stats.add_pair(*scores)
    return stats, ends, opponents


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="+", help="PGN files written by scripts/match.py")
    ap.add_argument("--engine", required=True, help="the engine whose score is reported")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="also the SPRT's LLR for these bounds (alpha = beta = 0.05)")
    args = ap.parse_args(argv)
    try:
        stats, ends, opponents = pool(args.pgn, args.engine)
    except (OSError, ValueError) as ex:
        print(f"pool.py: {ex}", file=sys.stderr)
        return 1
    n = stats.w + stats.d + stats.l
    if n == 0:
        print("pool.py: no games", file=sys.stderr)
        return 1
    score = (stats.w + 0.5 * stats.d) / n
    print(f"{args.engine} vs {', '.join(sorted(opponents))}: {n} games from {len(args.pgn)} file(s)")
    print(f"  wins {stats.w}  draws {stats.d}  losses {stats.l}  score {score:.3f}")
    print(f"  {stats.elo_text()} (95%, pentanomial {stats.penta})")
    print("  ended by: " + ", ".join(f"{k} {v}" for k, v in ends.most_common()))
    if args.sprt:
        lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
        llr = stats.llr(*args.sprt)
        verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "inconclusive"
        print(f"  SPRT [{args.sprt[0]:g}, {args.sprt[1]:g}]: LLR {llr:.2f} ({lower:.2f}, {upper:.2f}) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
