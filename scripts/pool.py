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

A part whose PGN is lost (with a machine) can still be pooled from the
counts its notes kept: --part W,D,L,P0,P1,P2,P3,P4 gives its wins, draws
and losses and its pentanomial (pairs scoring 0, 0.5, 1, 1.5 and 2 for
the named engine); the counts must agree with each other.

    scripts/pool.py --engine cand --part 44,95,49,2,27,41,22,2 part2.pgn
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


def parse_part(text):
    """(wins, draws, losses, pentanomial) from `W,D,L,P0,P1,P2,P3,P4`;
    raises ValueError saying what is wrong."""
    fields = text.split(",")
    if len(fields) != 8:
        raise ValueError(f"--part {text!r}: 8 counts wanted (W,D,L,P0,P1,P2,P3,P4), "
                         f"{len(fields)} given")
    try:
        counts = [int(f) for f in fields]
    except ValueError:
        raise ValueError(f"--part {text!r}: the counts must be whole numbers") from None
    if min(counts) < 0:
        raise ValueError(f"--part {text!r}: a count is negative")
    w, d, l, penta = counts[0], counts[1], counts[2], counts[3:]
    if w + d + l != 2 * sum(penta):
        raise ValueError(f"--part {text!r}: {w + d + l} games but {sum(penta)} pairs")
    # Points in halves: a win 2, a draw 1; a pair in bin i scored i halves.
    if 2 * w + d != sum(i * c for i, c in enumerate(penta)):
        raise ValueError(f"--part {text!r}: the pentanomial's points differ from W, D, L's")
    return w, d, l, penta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="*", help="PGN files written by scripts/match.py")
    ap.add_argument("--engine", required=True, help="the engine whose score is reported")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="also the SPRT's LLR for these bounds (alpha = beta = 0.05)")
    ap.add_argument("--part", action="append", default=[], metavar="W,D,L,P0,P1,P2,P3,P4",
                    help="a part known only by its counts (its PGN lost), from the named "
                         "engine's view; may be given more than once")
    args = ap.parse_args(argv)
    if not args.pgn and not args.part:
        print("pool.py: no PGN files and no --part", file=sys.stderr)
        return 1
    try:
        parts = [parse_part(p) for p in args.part]
        stats, ends, opponents = pool(args.pgn, args.engine)
    except (OSError, ValueError) as ex:
        print(f"pool.py: {ex}", file=sys.stderr)
        return 1
    for part in parts:
        stats.add_counts(*part)
    n = stats.w + stats.d + stats.l
    if n == 0:
        print("pool.py: no games", file=sys.stderr)
        return 1
    score = (stats.w + 0.5 * stats.d) / n
    against = ", ".join(sorted(opponents)) or "(opponent not named)"
    sources = f"{len(args.pgn)} file(s)"
    if parts:
        sources += f" and {len(parts)} part(s) given by counts"
    print(f"{args.engine} vs {against}: {n} games from {sources}")
    print(f"  wins {stats.w}  draws {stats.d}  losses {stats.l}  score {score:.3f}")
    print(f"  {stats.elo_text()} (95%, pentanomial {stats.penta})")
    if ends:
        ended = ", ".join(f"{k} {v}" for k, v in ends.most_common())
        if parts:
            ended += " (the games of --part not counted)"
        print("  ended by: " + ended)
    if args.sprt:
        lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
        llr = stats.llr(*args.sprt)
        verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "inconclusive"
        print(f"  SPRT [{args.sprt[0]:g}, {args.sprt[1]:g}]: LLR {llr:.2f} ({lower:.2f}, {upper:.2f}) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
