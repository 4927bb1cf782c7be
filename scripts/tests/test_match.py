"""scripts/match.py: the python-chess runner plays real games and counts
them, and hands the match to fastchess / cutechess-cli when one is on PATH."""
import os
import pathlib
import re
import stat
import subprocess
import sys

import chess.pgn
import chess.syzygy

from conftest import CLOCK_OPTS, ROOT, ferrum_path, skip_counted, syzygy_dir

MATCH = str(ROOT / "scripts" / "match.py")
BOOK = str(ROOT / "tests" / "data" / "openings_selfmade.epd")


def run(args, env=None):
    return subprocess.run([sys.executable, MATCH, *args], capture_output=True, text=True,
                          timeout=300, env=env)


def stand_in_tool(tmp_path, name):
    """A stand-in `name` (fastchess, cutechess-cli) that records its arguments.

    Returns the environment to run with, whose PATH holds the stand-in and
    nothing else (so that a real fastchess or cutechess-cli on this machine
    can neither take the match nor change which tool is named), and the file
    the arguments land in, one a line."""
    log = tmp_path / f"{name}-args.txt"
    fake = tmp_path / name
    fake.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {log}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return dict(os.environ, PATH=str(tmp_path)), log


def self_play(pgn, book, games, *extra):
    """Ferrum against itself (a, then b as White) played by this runner;
    the games its PGN holds."""
    r = run(["--engine", f"a={ferrum_path()}", "--engine", f"b={ferrum_path()}", "--book", str(book),
             "--games", str(games), "--pgn", str(pgn), "--runner", "python", *extra])
    assert r.returncode == 0, r.stdout + r.stderr
    with open(pgn) as f:
        return [chess.pgn.read_game(f) for _ in range(games)]


def test_python_runner_plays_pairs_and_writes_pgn(tmp_path):
    pgn = tmp_path / "games.pgn"
    r = run(["--engine", f"a={ferrum_path()};{CLOCK_OPTS}", "--engine", f"b={ferrum_path()};{CLOCK_OPTS}",
             "--book", BOOK, "--tc", "1+0.01", "--games", "2", "--pgn", str(pgn), "--runner", "python",
             "--record-time"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Result of a vs b (1+0.01): 2 games" in r.stdout
    assert "time forfeits 0  illegal moves 0  crashes 0" in r.stdout
    games = []
    with open(pgn) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            games.append(g)
    assert len(games) == 2
    # A pair: the same opening with colours swapped.
    assert games[0].board().fen() == games[1].board().fen()
    assert (games[0].headers["White"], games[1].headers["White"]) == ("a", "b")
    for g in games:
        board = g.board()
        for node in g.mainline():
            assert node.move in board.legal_moves
            # Each move carries the mover's clock after it, inside the 1 s base.
            assert 0 <= node.clock() <= 1.0 + 0.01 * board.fullmove_number
            board.push(node.move)
        assert g.headers["Result"] in ("1-0", "0-1", "1/2-1/2")


def test_move_log_holds_every_move_with_the_engines_own_time(tmp_path):
    """--move-log: one row per move of the PGN; Ferrum, sent `debug on`,
    reports its time from `go` to `bestmove`, which the runner's own
    measure of the move (pipes and all) can only exceed."""
    pgn, log = tmp_path / "games.pgn", tmp_path / "moves.csv"
    r = run(["--engine", f"a={ferrum_path()};{CLOCK_OPTS}", "--engine", f"b={ferrum_path()};{CLOCK_OPTS}",
             "--book", BOOK, "--tc", "1+0.01", "--games", "2", "--pgn", str(pgn), "--runner", "python",
             "--move-log", str(log)])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "longest wait beyond its own time" in r.stdout, r.stdout
    rows = [line.split(",") for line in log.read_text().splitlines()]
    assert rows[0] == ["wall", "round", "ply", "engine", "clock_before_ms", "used_ms",
                       "engine_time_ms", "engine_go_to_bestmove_ms", "nodes", "depth", "seldepth"]
    rows = rows[1:]
    with open(pgn) as f:
        games = [chess.pgn.read_game(f) for _ in range(2)]
    for rnd, g in enumerate(games, 1):
        # Every move the engines played (the opening's moves are the FEN's).
        assert sum(row[1] == str(rnd) for row in rows) == len(list(g.mainline_moves()))
    for row in rows:
        used, whole = float(row[5]), float(row[7])
        assert 0 < whole <= used, row
        # The engine's own time, less the waits outside it, stays inside
        # the clock it was given.
        assert 0 < whole < float(row[4]), row
        # Ferrum reports a depth and a selective depth for every move it
        # plays (at least one completed iteration).
        assert int(row[9]) >= 1 and int(row[10]) >= 1, row
    # The report sets each engine's mean depth and nodes beside the other's.
    for name in ("a", "b"):
        line = next(x for x in r.stdout.splitlines() if x.startswith(f"  {name}: last PV"))
        mean = float(re.search(r"mean depth ([0-9.]+)", line).group(1))
        mine = [int(row[9]) for row in rows if row[3] == name]
        assert abs(mean - sum(mine) / len(mine)) < 0.051, (line, mine)
        assert re.search(r"median nodes a move [1-9][0-9]*", line), line


def test_an_option_the_engine_refuses_ends_the_run_at_once():
    # A value the engine rejects (a spin option given text) must stop the
    # match with the engine's message and status 2, not leave it hanging.
    r = run(["--engine", f"a={ferrum_path()};Hash=lots", "--engine", f"b={ferrum_path()}",
             "--book", BOOK, "--tc", "1+0.01", "--games", "2", "--runner", "python"])
    assert r.returncode == 2, r.stdout + r.stderr
    assert "cannot start a" in r.stderr and "Hash" in r.stderr
    assert "Result of" not in r.stdout


def test_external_tool_on_path_gets_the_match(tmp_path):
    env, log = stand_in_tool(tmp_path, "fastchess")
    r = run(["--engine", f"new={ferrum_path()};Hash=32", "--engine", f"old={ferrum_path()}",
             "--book", BOOK, "--tc", "40/2", "--games", "10", "--concurrency", "3",
             "--sprt", "0", "5"], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    args = log.read_text().split("\n")
    assert args[:4] == ["-engine", f"cmd={ferrum_path()}", "name=new", "proto=uci"]
    assert "option.Hash=32" in args
    for flag, value in [("-rounds", "5"), ("-games", "2"), ("-concurrency", "3")]:
        assert args[args.index(flag) + 1] == value
    assert "tc=40/2" in args and "-repeat" in args
    assert args[args.index("-sprt") + 1:args.index("-sprt") + 5] == [
        "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"]
    # An xboard engine rules fastchess out: with only fastchess around, the
    # python runner is used (--print-cmd then names cutechess-cli).
    r = run(["--engine", ferrum_path(), "--engine", "/usr/games/fairymax:xboard", "--book", BOOK,
             "--print-cmd"], env=env)
    assert r.stdout.startswith("cutechess-cli -engine"), r.stdout
    assert "proto=xboard" in r.stdout


def test_fixed_nodes_games_repeat_exactly(tmp_path):
    # With a node budget a move and no clock, a single-threaded engine plays
    # the same game every time: two runs write the same moves.
    movelists = []
    for i in range(2):
        pgn = tmp_path / f"nodes{i}.pgn"
        r = run(["--engine", f"a={ferrum_path()}", "--engine", f"b={ferrum_path()}", "--book", BOOK,
                 "--nodes", "800", "--games", "2", "--pgn", str(pgn), "--runner", "python",
                 "--max-plies", "60"])
        assert r.returncode == 0, r.stdout + r.stderr
        assert "Result of a vs b (800 nodes a move): 2 games" in r.stdout
        with open(pgn) as f:
            games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
        assert all(g.headers["TimeControl"] == "-" for g in games)
        movelists.append([[m.uci() for m in g.mainline_moves()] for g in games])
    assert movelists[0] == movelists[1]
    assert all(len(moves) > 0 for moves in movelists[0])
    # An external tool gets the node budget instead of a time control.
    env, log = stand_in_tool(tmp_path, "cutechess-cli")
    r = run(["--engine", ferrum_path(), "--engine", ferrum_path(), "--book", BOOK, "--nodes", "800",
             "--runner", "cutechess-cli"], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    args = log.read_text().split("\n")
    assert args[args.index("-each") + 1:args.index("-each") + 3] == ["tc=inf", "nodes=800"]


def test_a_mate_on_the_last_allowed_ply_is_a_mate_not_a_length_draw(tmp_path):
    # Scholar's mate is one move away (an EPD opening starts at move 1, so
    # the mate is ply 1); with --max-plies 1 the mating move is the last ply
    # allowed. The game ended by mate, so it must be scored as one, also when
    # adjudication by score is on.
    book = tmp_path / "mate.epd"
    book.write_text("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4\n")
    for extra in ([], ["--resign", "3", "1000"]):
        games = self_play(tmp_path / "mate.pgn", book, 2, "--nodes", "2000", "--max-plies", "1", *extra)
        for g in games:
            assert [m.uci() for m in g.mainline_moves()] == ["h5f7"]
            assert g.headers["Result"] == "1-0"
            assert g.headers["Termination"] == "checkmate"


def test_adjudicator_needs_both_engines_to_agree_for_the_whole_run():
    sys.path.insert(0, str(ROOT / "scripts"))
    import match  # noqa: PLC0415

    board = chess.Board()
    # resign 2 moves each at 300: White's score +400, Black's -400 (mover's view).
    adj = match.Adjudicator(resign=(2, 300))
    verdicts = [adj.after_move(board, white, s) for white, s in
                [(True, 400), (False, -400), (True, 400)]]
    assert verdicts == [None, None, None]  # 3 plies: one short
    assert adj.after_move(board, False, -400) == (1, "adjudicated win (resign score)")
    # One engine that disagrees (Black thinks it is level) breaks the run.
    adj = match.Adjudicator(resign=(2, 300))
    seq = [(True, 400), (False, -400), (True, 400), (False, 0), (True, 400), (False, -400), (True, 400)]
    assert all(adj.after_move(board, w, s) is None for w, s in seq)
    assert adj.after_move(board, False, -400) == (1, "adjudicated win (resign score)")
    # Black ahead, and a move without a score starts the count again.
    adj = match.Adjudicator(resign=(1, 300))
    assert adj.after_move(board, True, -500) is None
    assert adj.after_move(board, False, None) is None
    assert adj.after_move(board, True, -500) is None
    assert adj.after_move(board, False, 500) == (0, "adjudicated win (resign score)")
    # A draw only from the given move number on.
    adj = match.Adjudicator(draw=(40, 1, 10))
    assert adj.after_move(board, True, 5) is None
    assert adj.after_move(board, False, -5) is None  # move 1: too early
    late = chess.Board("8/5k2/8/8/8/8/2K5/8 w - - 0 40")
    assert adj.after_move(late, True, 5) == (0.5, "adjudicated draw (draw score)")
    assert adj.after_move(late, True, 11) is None  # outside the draw score


def test_adjudicated_games_are_the_full_games_cut_short(tmp_path):
    # Adjudication reads the engines' scores and changes nothing else: at a
    # fixed node budget each adjudicated game is the start of the game played
    # without it, and its verdict follows from the [%eval] scores it records.
    lists, games = [], []
    for i, extra in enumerate([[], ["--resign", "2", "150", "--draw", "1", "3", "20"]]):
        gs = self_play(tmp_path / f"adj{i}.pgn", BOOK, 4, "--nodes", "800", "--max-plies", "200", *extra)
        games.append(gs)
        lists.append([[m.uci() for m in g.mainline_moves()] for g in gs])
    adjudicated = 0
    for full, short, g in zip(lists[0], lists[1], games[1]):
        assert full[:len(short)] == short
        if g.headers["Termination"].startswith("adjudicated"):
            adjudicated += 1
            assert len(short) < len(full)
            evals = [n.eval().white().score(mate_score=100000) for n in g.mainline()]
            if g.headers["Result"] == "1-0":
                assert all(e >= 150 for e in evals[-4:]), evals
            elif g.headers["Result"] == "0-1":
                assert all(e <= -150 for e in evals[-4:]), evals
            else:
                assert all(abs(e) <= 20 for e in evals[-6:]), evals
    assert adjudicated > 0


def test_adjudication_is_handed_to_an_external_tool(tmp_path):
    env, log = stand_in_tool(tmp_path, "fastchess")
    r = run(["--engine", ferrum_path(), "--engine", ferrum_path(), "--book", BOOK, "--nodes", "800",
             "--resign", "3", "1000", "--draw", "40", "8", "10"], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    args = log.read_text().split("\n")
    i = args.index("-resign")
    assert args[i + 1:i + 4] == ["movecount=3", "score=1000", "twosided=true"]
    i = args.index("-draw")
    assert args[i + 1:i + 4] == ["movenumber=40", "movecount=8", "score=10"]


def tables_or_skip():
    tables = syzygy_dir()
    if not (tables / "KQvK.rtbw").is_file():
        skip_counted("test_match.py (tablebase adjudication)",
                     f"no Syzygy tables at {tables} (set FERRUM_DATA)")
    return tables


def test_tablebase_verdicts_follow_the_tables_and_the_fifty_move_rule():
    tables = tables_or_skip()
    sys.path.insert(0, str(ROOT / "scripts"))
    import match  # noqa: PLC0415

    tb = match.open_tablebase(str(tables))
    win, draw = "adjudicated win (tablebase)", "adjudicated draw (tablebase)"
    kqk = "8/8/8/2k5/8/8/8/4K2Q"
    # KQ v K is won for White whoever is to move; K v KQ lost for White.
    assert match.tablebase_verdict(tb, chess.Board(f"{kqk} w - - 0 1")) == (1, win)
    assert match.tablebase_verdict(tb, chess.Board(f"{kqk} b - - 0 1")) == (1, win)
    assert match.tablebase_verdict(tb, chess.Board("4k2q/8/8/8/3K4/8/8/8 w - - 0 1")) == (0, win)
    # KR v KR with nothing hanging: a draw.
    krkr = chess.Board("8/8/2k5/8/5r2/8/1R6/4K3 w - - 0 1")
    assert match.tablebase_verdict(tb, krkr) == (0.5, draw)
    # A running halfmove clock: the win stands while its zeroing move (DTZ
    # plies away) still comes in time, and is left to the game once it may not.
    dtz = tb.probe_dtz(chess.Board(f"{kqk} w - - 0 1"))
    assert 0 < dtz < 40
    assert match.tablebase_verdict(tb, chess.Board(f"{kqk} w - - 50 60")) == (1, win)
    assert match.tablebase_verdict(tb, chess.Board(f"{kqk} w - - 99 60")) is None
    # Out of the tables: five pieces, castling rights, or above --tb-pieces.
    assert match.tablebase_verdict(tb, chess.Board("8/8/2k5/8/5r2/8/1R6/Q3K3 w - - 0 1")) is None
    assert match.tablebase_verdict(tb, chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")) is None
    assert match.tablebase_verdict(tb, krkr, max_pieces=3) is None


def test_tablebase_adjudication_ends_games_the_tables_decide(tmp_path):
    # From KQ v K, each engine as White plays one move; the tables then know
    # the result, so the game ends there with their verdict. Without --tb the
    # same games go on to mate.
    tables = tables_or_skip()
    book = tmp_path / "kqk.epd"
    book.write_text("8/8/8/2k5/8/8/8/4K2Q w - -\n")
    moves = []
    for extra in (["--tb", str(tables)], []):
        games = self_play(tmp_path / "tb.pgn", book, 2, "--nodes", "2000", "--max-plies", "100", *extra)
        moves.append([len(list(g.mainline_moves())) for g in games])
        if extra:
            with chess.syzygy.open_tablebase(str(tables)) as tb:
                for g in games:
                    end = g.end().board()
                    assert tb.probe_wdl(end) == -2  # Black to move, lost
                    assert g.headers["Result"] == "1-0"
                    assert g.headers["Termination"] == "adjudicated win (tablebase)"
        else:
            assert all(g.headers["Termination"] == "checkmate" for g in games)
    assert moves[0] == [1, 1]
    assert all(n > 1 for n in moves[1])


def test_tablebase_adjudication_is_handed_to_an_external_tool_and_checked(tmp_path):
    env, log = stand_in_tool(tmp_path, "cutechess-cli")
    r = run(["--engine", ferrum_path(), "--engine", ferrum_path(), "--book", BOOK, "--nodes", "800",
             "--tb", str(tmp_path), "--tb-pieces", "4"], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    args = log.read_text().split("\n")
    i = args.index("-tb")
    assert args[i + 1:i + 4] == [str(tmp_path), "-tbpieces", "4"]
    # A directory that does not exist is refused before any game.
    r = run(["--engine", ferrum_path(), "--engine", ferrum_path(), "--book", BOOK, "--nodes", "800",
             "--tb", str(tmp_path / "nowhere"), "--runner", "python"])
    assert r.returncode == 2 and "not a directory" in r.stderr
    # So is one without tables, when this runner plays the games.
    r = run(["--engine", ferrum_path(), "--engine", ferrum_path(), "--book", BOOK, "--nodes", "800",
             "--tb", str(tmp_path), "--runner", "python"])
    assert r.returncode == 2 and "no Syzygy WDL tables" in r.stderr


LIAR = '''import sys
import chess
board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name liar\\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        rest = line.split(" moves ")
        fen = rest[0].split(" fen ", 1)[1].strip() if " fen " in rest[0] else chess.STARTING_FEN
        board = chess.Board(fen)
        for m in (rest[1].split() if len(rest) > 1 else []):
            board.push_uci(m)
    elif words[0] == "go":
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        print(f"info depth 1 score cp 0 pv {moves[-1].uci()}", flush=True)
        print(f"bestmove {moves[0].uci()}", flush=True)
    elif words[0] == "quit":
        break
'''


def test_lines_that_do_not_lead_with_the_move_played_are_counted(tmp_path):
    # A stand-in engine that always shows one move and plays another (when
    # it has two); Ferrum, against it, never does.
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR)
    liar_cmd = tmp_path / "liar"
    liar_cmd.write_text(f"#!/bin/sh\nexec {sys.executable} {liar}\n")
    liar_cmd.chmod(liar_cmd.stat().st_mode | stat.S_IEXEC)
    pgn = tmp_path / "games.pgn"
    r = run(["--engine", f"ferrum={ferrum_path()};{CLOCK_OPTS}", "--engine", f"liar={liar_cmd}", "--book", BOOK,
             "--tc", "2+0.02", "--games", "2", "--pgn", str(pgn), "--runner", "python",
             "--max-plies", "40"])
    assert r.returncode == 0, r.stdout + r.stderr
    lying = played = 0
    with open(pgn) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            board = g.board()
            for node in g.mainline():
                liar_moves = (board.turn == chess.WHITE) == (g.headers["White"] == "liar")
                if liar_moves:
                    played += 1
                    lying += board.legal_moves.count() > 1
                board.push(node.move)
    assert lying > 0
    assert (f"liar: last PV not led by the move played in {lying} of {played} moves (2 games)"
            in r.stdout), r.stdout
    assert "ferrum: last PV not led by the move played in 0 of" in r.stdout, r.stdout
