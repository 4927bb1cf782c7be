"""Ferrum's tablebase prober (shakmaty-syzygy, through `ferrum syzygy`)
against python-chess's independent one (`chess.syzygy`), on random legal
3- and 4-piece positions of every material, both sides to move, en passant
positions included.

The tables are read from $FERRUM_DATA/syzygy, else ../shared/data/syzygy;
without them the test is skipped and counted (as the Rust suite tests are).
"""
import random
import subprocess

import chess
import chess.syzygy

from conftest import ferrum_path, skip_counted, syzygy_dir

POSITIONS = 10_000
EN_PASSANT = 500
SEED = 20261125


def materials():
    """Every 3- and 4-piece material with a table, as lists of pieces beside the kings."""
    pieces = [chess.Piece(t, c) for c in chess.COLORS for t in range(chess.PAWN, chess.KING)]
    out = [[p] for p in pieces]
    for i, a in enumerate(pieces):
        for b in pieces[i:]:
            out.append([a, b])
    return out


def random_board(rng: random.Random, extra) -> chess.Board:
    """A random legal position with the two kings and `extra`, or None."""
    board = chess.Board(None)
    squares = rng.sample(range(64), 2 + len(extra))
    board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
    for sq, piece in zip(squares[2:], extra):
        if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
            return None
        board.set_piece_at(sq, piece)
    board.turn = rng.choice(chess.COLORS)
    return board if board.is_valid() else None


def en_passant_board(rng: random.Random) -> chess.Board:
    """KPvKP just after a double pawn push that the side to move can take en passant."""
    board = chess.Board(None)
    turn = rng.choice(chess.COLORS)
    # The pawn that just moved belongs to the other side.
    rank = 4 if turn == chess.WHITE else 3
    file = rng.randrange(8)
    side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
    pushed = chess.square(file, rank)
    taker = chess.square(side, rank)
    board.set_piece_at(pushed, chess.Piece(chess.PAWN, not turn))
    board.set_piece_at(taker, chess.Piece(chess.PAWN, turn))
    behind = chess.square(file, rank + (1 if turn == chess.WHITE else -1))
    start = chess.square(file, rank + (2 if turn == chess.WHITE else -2))
    free = [s for s in range(64) if s not in (pushed, taker, behind, start)]
    kings = rng.sample(free, 2)
    board.set_piece_at(kings[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(kings[1], chess.Piece(chess.KING, chess.BLACK))
    board.turn = turn
    board.ep_square = behind
    return board if board.is_valid() and board.has_legal_en_passant() else None


def positions():
    rng = random.Random(SEED)
    mats = materials()
    boards = []
    while len(boards) < EN_PASSANT:
        b = en_passant_board(rng)
        if b is not None:
            boards.append(b)
    while len(boards) < POSITIONS:
        b = random_board(rng, rng.choice(mats))
        if b is not None:
            boards.append(b)
    return boards


def test_ferrum_and_python_chess_agree_on_wdl_and_dtz():
    tables = syzygy_dir()
    if not (tables / "KQvK.rtbw").is_file():
        skip_counted("test_syzygy.py (python-chess agreement)",
                     f"no Syzygy tables at {tables} (set FERRUM_DATA)")
    boards = positions()
    fens = [b.fen() for b in boards]
    assert sum(1 for f in fens if f.split()[3] != "-") == EN_PASSANT
    out = subprocess.run(
        [ferrum_path(), "syzygy", "--path", str(tables)],
        input="\n".join(fens) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(fens)
    agreed = 0
    with chess.syzygy.open_tablebase(str(tables)) as tb:
        for board, fen, line in zip(boards, fens, out):
            words = line.split()
            assert words[0] == "wdl" and words[2] == "dtz", line
            assert line.endswith("fen " + fen), (line, fen)
            wdl, dtz = int(words[1]), int(words[3])
            assert wdl == tb.probe_wdl(board), fen
            assert dtz == tb.probe_dtz(board), fen
            agreed += 1
    assert agreed == POSITIONS
    print(f"{agreed} positions agree ({EN_PASSANT} with en passant)")
