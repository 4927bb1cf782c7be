#!/usr/bin/env python3
"""Writes tests/data/openings_selfmade.epd: the start positions of the match-runner
test, one line per move sequence below (common openings, chosen for Ferrum's tests),
as 6-field FEN. Needs python-chess. Run from the repository root."""
import chess

LINES = [
    "e4 e5 Nf3 Nc6 Bb5",
    "e4 c5 Nf3 d6 d4",
    "d4 d5 c4 e6 Nc3",
    "d4 Nf6 c4 g6 Nc3",
    "e4 e6 d4 d5 Nd2",
    "c4 e5 Nc3 Nf6 g3",
    "Nf3 d5 g3 Nf6 Bg2",
    "e4 c6 d4 d5 e5",
]

with open("tests/data/openings_selfmade.epd", "w") as out:
    for line in LINES:
        board = chess.Board()
        for san in line.split():
            board.push_san(san)
        out.write(board.fen() + "\n")
