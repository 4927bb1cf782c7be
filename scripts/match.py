#!/usr/bin/env python3
"""Engine match runner built on python-chess (chess.engine speaks UCI and
xboard, so Debian's fairymax and phalanx work as opponents; chess.pgn writes
the games).

Plays openings from an EPD/PGN/zip book in pairs with colours swapped,
several games at once, and reports wins/draws/losses, Elo with a 95% error
bar (pentanomial over pairs), and optionally an SPRT (alpha = beta = 0.05).
Time forfeits, illegal moves and crashes are counted as such; so are the
moves whose last reported PV does not begin with the move played (what
fastchess warns of as "Bestmove does not match beginning of last PV": the
score and line a GUI shows belong to another move), per engine, with the
lowest clock each engine had left after a move. Adjudication
is off unless asked for: --max-plies (a draw by length), --resign and --draw
(by the engines' own scores, as cutechess-cli's and fastchess's options of
those names; --resign is two-sided: both engines must agree), which shorten
fixed-node games without changing how they are played up to that point, and
--tb (by Syzygy tables, as the tools' -tb: a game whose position after a
move the tables decide under the fifty-move rule ends with their verdict).

If fastchess or cutechess-cli is on PATH (the tools most testers use), the
match is handed to it with equivalent options (--runner picks one; --print-cmd
shows the command line without running it); this runner is the fallback and
the one that records time use per move (--record-time).

Examples:
  scripts/match.py --engine target/release/ferrum --engine /usr/games/fairymax:xboard \
      --book ../shared/data/openings/noob_3moves.epd --tc 10+0.1 --games 100 --concurrency 2
  scripts/match.py --engine new=./ferrum-new --engine old=./ferrum-old \
      --book ../shared/data/openings/UHO_4060_v4.epd.zip --tc 1+0.01 --sprt 0 5 --games 20000
"""
import argparse
import concurrent.futures
import functools
import gc
import io
import logging
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

import chess
import chess.engine
import chess.pgn
import chess.syzygy


def parse_engine(spec):
    """NAME=PATH[:xboard][;opt=val,...] -> (name, path, protocol, options)."""
    opts = {}
    if ";" in spec:
        spec, o = spec.split(";", 1)
        for kv in o.split(","):
            k, v = kv.split("=", 1)
            opts[k] = v
    name = None
    if "=" in spec:
        name, spec = spec.split("=", 1)
    proto = "uci"
    if spec.endswith(":xboard"):
        spec, proto = spec[: -len(":xboard")], "xboard"
    return (name or spec.rsplit("/", 1)[-1], spec, proto, opts)


def read_book_text(path):
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            return z.read(z.namelist()[0]).decode()
    with open(path) as f:
        return f.read()


def load_book(path):
    """Openings as (FEN, [moves]): EPD lines give a FEN; PGN games give the
    start position and their moves, so engines without xboard `setboard`
    (fairymax) can play them from the initial position."""
    text = read_book_text(path)
    if path.endswith(".pgn"):
        book, f = [], io.StringIO(text)
        while (g := chess.pgn.read_game(f)) is not None:
            book.append((g.board().fen(), list(g.mainline_moves())))
        return book
    book = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        fen = " ".join(parts[:4]) + " 0 1"
        try:
            if chess.Board(fen).is_valid():
                book.append((fen, []))
        except ValueError:
            pass  # not a position: skip the line
    if not book:
        raise SystemExit(f"no usable openings in {path}")
    return book


def parse_tc(tc):
    """'10+0.1' -> (10.0, 0.1); '40/2' -> moves 40 in 2 s."""
    if "/" in tc:
        moves, t = tc.split("/")
        return float(t), 0.0, int(moves)
    if "+" in tc:
        base, inc = tc.split("+")
        return float(base), float(inc), None
    return float(tc), 0.0, None


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.w = self.d = self.l = 0
        self.penta = [0] * 5  # pair scores 0, 0.5, 1, 1.5, 2
        self.forfeits = self.illegal = self.crashes = 0
        self.by_engine = {}  # (fault, engine name) -> count
        self.time_fractions = []
        # Per engine name: moves played, moves whose last PV led with another
        # move, moves with no PV at all, games with such a move, and the
        # lowest clock left after a move (seconds).
        self.moves = {}
        self.pv_mismatch = {}
        self.pv_missing = {}
        self.pv_games = {}
        self.min_clock = {}
        # Per engine name: the depth and nodes of each move's last `info`
        # (what the search reached; set beside the opponent's, the depth a
        # change buys or costs at this time control).
        self.depths = {}
        self.nodes = {}
        # Per engine name: (seconds, round, ply) of the move whose runner-measured
        # time most exceeded the engine's own (count_wait).
        self.max_wait = {}
        self.move_log = None  # a CSV file of every timed move, with --move-log

    def add_pair(self, s1, s2):
        """Counts a colour-swapped pair: each game's score (1, 0.5 or 0) from
        the same engine's view. The caller holds `lock` where games run at once."""
        for s in (s1, s2):
            if s == 1:
                self.w += 1
            elif s == 0:
                self.l += 1
            else:
                self.d += 1
        self.penta[int(round((s1 + s2) * 2))] += 1

    def add_counts(self, w, d, l, penta):
        """Adds a part known only by its counts: wins, draws, losses and the
        five pentanomial bins (a match's notes, its games lost)."""
        self.w, self.d, self.l = self.w + w, self.d + d, self.l + l
        self.penta = [a + b for a, b in zip(self.penta, penta)]

    def llr(self, elo0, elo1):
        """Pentanomial log-likelihood ratio (normal approximation)."""
        n = sum(self.penta)
        if n == 0:
            return 0.0
        scores = [0, 0.25, 0.5, 0.75, 1.0]
        mean = sum(s * c for s, c in zip(scores, self.penta)) / n
        var = sum(c * (s - mean) ** 2 for s, c in zip(scores, self.penta)) / n
        if var <= 0:
            return 0.0
        s0 = 1 / (1 + 10 ** (-elo0 / 400))
        s1 = 1 / (1 + 10 ** (-elo1 / 400))
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def elo(self):
        """Elo and 95% error bar from the pentanomial pair distribution."""
        n = sum(self.penta)
        if n == 0:
            return 0.0, float("inf")
        scores = [0, 0.25, 0.5, 0.75, 1.0]
        mean = sum(s * c for s, c in zip(scores, self.penta)) / n
        var = sum(c * (s - mean) ** 2 for s, c in zip(scores, self.penta)) / n
        se = math.sqrt(var / n) if n > 1 else 0.5

        def to_elo(p):
            p = min(max(p, 1e-6), 1 - 1e-6)
            return -400 * math.log10(1 / p - 1)

        return to_elo(mean), (to_elo(mean + 1.96 * se) - to_elo(mean - 1.96 * se)) / 2

    def elo_text(self):
        """'Elo +12.3 +/- 45.6', or a note when every game was won or lost
        (then there is no finite estimate)."""
        n = self.w + self.d + self.l
        if n and self.w == n:
            return "Elo undefined (every game won)"
        if n and self.l == n:
            return "Elo undefined (every game lost)"
        elo, err = self.elo()
        return f"Elo {elo:+.1f} +/- {err:.1f}"


def start_engine(spec, debug=False):
    """Starts one engine and sets its options; an engine that refuses an
    option is closed again before the error is passed on (a process left
    running would keep the match from ever exiting). With `debug`, a UCI
    engine is sent `debug on` (Ferrum then reports, before each `bestmove`,
    how long it took from reading `go`; others may ignore it)."""
    _, path, proto, opts = spec
    e = (chess.engine.SimpleEngine.popen_uci(path) if proto == "uci"
         else chess.engine.SimpleEngine.popen_xboard(path))
    try:
        if debug and proto == "uci":
            p = e.protocol
            p.loop.call_soon_threadsafe(p.debug, True)
        if opts:
            e.configure(opts)
    except Exception:
        e.quit()
        raise
    return e


def check_engines(specs):
    """Starts and closes each engine once before any game: a wrong path or a
    refused option ends the run at once with the engine's own message,
    instead of failing in every game."""
    for spec in specs:
        try:
            start_engine(spec).quit()
        except Exception as ex:  # noqa: BLE001
            return f"cannot start {spec[0]} ({spec[1]}): {ex}"
    return None


class Adjudicator:
    """Ends a game early by the engines' reported scores (centipawns, mover's view).

    resign (COUNT, SCORE): the side both engines see at least SCORE behind for
    COUNT moves each in a row (2 * COUNT plies) loses.
    draw (MOVENUMBER, COUNT, SCORE): from full move MOVENUMBER on, both
    engines' scores within SCORE of 0 for COUNT moves each in a row is a draw.
    A move without a score breaks every run.
    """

    def __init__(self, resign=None, draw=None):
        self.resign = resign
        self.draw = draw
        self.white_ahead = 0  # plies in a row whose score says White leads by SCORE
        self.black_ahead = 0
        self.level = 0  # plies in a row within the draw score

    @property
    def active(self):
        return bool(self.resign or self.draw)

    def after_move(self, board, mover_white, score):
        """Called after each move is pushed; `score` from the mover's view or None.
        Returns (result from White's view, reason) when the game is adjudicated."""
        if score is None:
            self.white_ahead = self.black_ahead = self.level = 0
            return None
        white_view = score if mover_white else -score
        if self.resign:
            count, margin = self.resign
            self.white_ahead = self.white_ahead + 1 if white_view >= margin else 0
            self.black_ahead = self.black_ahead + 1 if white_view <= -margin else 0
            if self.white_ahead >= 2 * count:
                return 1, "adjudicated win (resign score)"
            if self.black_ahead >= 2 * count:
                return 0, "adjudicated win (resign score)"
        if self.draw:
            movenumber, count, margin = self.draw
            self.level = self.level + 1 if abs(white_view) <= margin else 0
            if board.fullmove_number >= movenumber and self.level >= 2 * count:
                return 0.5, "adjudicated draw (draw score)"
        return None


@functools.lru_cache(maxsize=None)
def open_tablebase(path):
    """The Syzygy tables under `path` (directories separated by ':'), opened
    once and shared by every game (python-chess's prober is thread-safe)."""
    tb = chess.syzygy.Tablebase()
    for d in path.split(os.pathsep):
        tb.add_directory(d)
    return tb


def tablebase_verdict(tb, board, max_pieces=0):
    """(result from White's view, reason) when the Syzygy tables decide `board`
    under the fifty-move rule, else None (not in the tables, more than
    `max_pieces` pieces when that is set, castling rights, or a win whose
    zeroing move may come too late for the halfmove clock to know)."""
    pieces = chess.popcount(board.occupied)
    if (max_pieces and pieces > max_pieces) or board.castling_rights:
        return None
    try:
        wdl = tb.probe_wdl(board)
        if abs(wdl) == 2 and board.halfmove_clock > 0:
            # A win only if its zeroing move (DTZ plies away, perhaps one
            # more: DTZ is rounded) comes before the clock reaches 100.
            if abs(tb.probe_dtz(board)) + 1 + board.halfmove_clock > 100:
                return None
    except KeyError:  # no table for this material
        return None
    if abs(wdl) < 2:  # a draw, or a win the fifty-move rule turns into one
        return 0.5, "adjudicated draw (tablebase)"
    white_wins = (wdl > 0) == (board.turn == chess.WHITE)
    return (1 if white_wins else 0), "adjudicated win (tablebase)"


def reported_score(result, mover):
    """The engine's last score in centipawns from the mover's view (mates as
    +-100000), or None when it reported none."""
    pov = result.info.get("score") if result.info else None
    if pov is None:
        return None
    return pov.pov(mover).score(mate_score=100000)


def play_game(a, b, opening, tc, args, stats, rnd):
    """One game, `a` White. Returns (result from a's view: 1/0.5/0, pgn game)."""
    fen, book_moves = opening
    base, inc, mtg = tc
    engines = []
    for spec in (a, b):
        try:
            engines.append(start_engine(spec, debug=bool(args.move_log)))
        except Exception as ex:  # noqa: BLE001
            for e in engines:
                e.quit()
            raise SystemExit(f"cannot start {spec[0]} ({spec[1]}): {ex}")
    board = chess.Board(fen)
    game = chess.pgn.Game()
    game.setup(board)
    node = game
    for m in book_moves:
        node = node.add_variation(m)
        board.push(m)
    game.headers.update({"White": a[0], "Black": b[0], "Round": str(rnd),
                         "TimeControl": "-" if args.nodes else args.tc})
    clock = [base, base]
    moves_left = [mtg, mtg]
    result, reason = None, None
    adjudicator = Adjudicator(args.resign, args.draw)
    info = chess.engine.INFO_BASIC | chess.engine.INFO_PV \
        | (chess.engine.INFO_SCORE if adjudicator.active else 0)
    mismatched = set()  # engines with a move whose last PV led with another move
    last = None  # (White moved, score from the mover's view) of the move just played
    tb = open_tablebase(args.tb) if args.tb else None
    engine_moves = 0
    try:
        # A game's natural end (mate, stalemate, a claimable draw) comes first,
        # then the adjudications, each checked once a ply.
        while not board.is_game_over(claim_draw=True):
            if tb is not None and engine_moves > 0:
                verdict = tablebase_verdict(tb, board, args.tb_pieces)
                if verdict is not None:
                    result, reason = verdict
                    break
            if last is not None:
                verdict = adjudicator.after_move(board, *last)
                if verdict is not None:
                    result, reason = verdict
                    break
            if args.max_plies and board.ply() >= args.max_plies:
                result, reason = 0.5, "adjudicated draw (length)"
                break
            side = 0 if board.turn == chess.WHITE else 1
            eng = engines[side]
            mover = (a, b)[side][0]
            if args.nodes:
                limit = chess.engine.Limit(nodes=args.nodes)
            else:
                limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1],
                                           white_inc=inc, black_inc=inc,
                                           remaining_moves=moves_left[side])
            before = clock[side]
            t0 = time.perf_counter()
            try:
                r = eng.play(board, limit, info=info)
            except chess.engine.EngineTerminatedError:
                stats_add(stats, "crashes", mover)
                result, reason = (0 if side == 0 else 1), f"crash ({mover})"
                break
            except chess.engine.EngineError:
                stats_add(stats, "illegal", mover)
                result, reason = (0 if side == 0 else 1), f"illegal move ({mover})"
                break
            except TimeoutError:
                stats_add(stats, "forfeits", mover)
                result, reason = (0 if side == 0 else 1), f"time forfeit ({mover}, no move)"
                break
            used = time.perf_counter() - t0
            if args.nodes:
                used = 0.0  # no clock: a node budget a move is the whole limit
            if side == (0 if a[0] == args.focus else 1) and clock[side] > 0:
                with stats.lock:
                    stats.time_fractions.append(used / clock[side])
            if not args.nodes:
                count_wait(stats, mover, rnd, board.ply() + 1, used, r, before)
            clock[side] -= used
            if clock[side] < -args.margin:
                stats_add(stats, "forfeits", mover)
                result, reason = (0 if side == 0 else 1), \
                    f"time forfeit ({mover}, {-clock[side] * 1000:.1f} ms over)"
                break
            clock[side] += inc
            if mtg:
                moves_left[side] -= 1
                if moves_left[side] == 0:
                    moves_left[side] = mtg
                    clock[side] += base
            if r.resigned:
                result, reason = (0 if side == 0 else 1), "resignation"
                break
            if r.move is None or r.move not in board.legal_moves:
                stats_add(stats, "illegal", mover)
                result, reason = (0 if side == 0 else 1), f"illegal move ({mover})"
                break
            count_line(stats, mover, r, clock[side] if not args.nodes else None, mismatched)
            node = node.add_variation(r.move)
            node.set_clock(max(clock[side], 0.0))  # [%clk] after the move, as GUIs write it
            if adjudicator.active and r.info.get("score") is not None:
                node.set_eval(r.info["score"], r.info.get("depth"))  # [%eval], White's view
            board.push(r.move)
            engine_moves += 1
            if adjudicator.active:
                last = (side == 0, reported_score(r, not board.turn))
    finally:
        for e in engines:
            try:
                e.quit()
            except Exception:  # noqa: BLE001
                pass
    with stats.lock:
        for name in mismatched:
            stats.pv_games[name] = stats.pv_games.get(name, 0) + 1
    if result is None:
        o = board.outcome(claim_draw=True)
        result = 0.5 if o.winner is None else (1 if o.winner == chess.WHITE else 0)
        reason = o.termination.name.lower()
    game.headers["Result"] = {1: "1-0", 0: "0-1", 0.5: "1/2-1/2"}[result]
    game.headers["Termination"] = reason
    return result, game


def count_line(stats, mover, r, clock_left, mismatched):
    """Counts a legal move of `mover`: whether its last reported PV (the
    line a GUI shows for it) begins with it, and the clock it left."""
    pv = r.info.get("pv") if r.info else None
    with stats.lock:
        stats.moves[mover] = stats.moves.get(mover, 0) + 1
        if not pv:
            stats.pv_missing[mover] = stats.pv_missing.get(mover, 0) + 1
        elif pv[0] != r.move:
            stats.pv_mismatch[mover] = stats.pv_mismatch.get(mover, 0) + 1
            mismatched.add(mover)
        if clock_left is not None:
            stats.min_clock[mover] = min(stats.min_clock.get(mover, clock_left), clock_left)
        if r.info and "depth" in r.info:
            stats.depths.setdefault(mover, []).append(r.info["depth"])
        if r.info and "nodes" in r.info:
            stats.nodes.setdefault(mover, []).append(r.info["nodes"])


def count_wait(stats, mover, rnd, ply, used, r, clock_before):
    """Records how long a move took as the runner measured it beside the
    engine's own time: from `go` to `bestmove` where it says (Ferrum with
    `debug on`), else its last `info` line's: the difference is time spent
    outside the engine (the pipes, the runner, the machine).
    Keeps the longest such wait per engine, and logs the move when asked."""
    own = r.info.get("time") if r.info else None
    # Ferrum under `debug on`: its time from reading `go` to `bestmove`.
    said = re.match(r"debug: bestmove ([0-9.]+) ms after go", r.info.get("string", "") if r.info else "")
    whole = float(said.group(1)) / 1000 if said else None
    wait = used - (whole if whole is not None else own) if own is not None or whole is not None else None
    with stats.lock:
        if wait is not None and wait > stats.max_wait.get(mover, (-1.0,))[0]:
            stats.max_wait[mover] = (wait, rnd, ply)
        if stats.move_log is not None:
            own_ms = f"{own * 1000:.1f}" if own is not None else ""
            whole_ms = f"{whole * 1000:.1f}" if whole is not None else ""
            stats.move_log.write(f"{time.time():.3f},{rnd},{ply},{mover},{clock_before * 1000:.1f},"
                                 f"{used * 1000:.1f},{own_ms},{whole_ms},{r.info.get('nodes', '')},"
                                 f"{r.info.get('depth', '')},{r.info.get('seldepth', '')}\n")


def stats_add(stats, field, engine):
    """Counts a fault (forfeits, illegal, crashes) in total and for `engine`."""
    with stats.lock:
        setattr(stats, field, getattr(stats, field) + 1)
        key = (field, engine)
        stats.by_engine[key] = stats.by_engine.get(key, 0) + 1


def external_command(tool, args, engines, book_path):
    """The fastchess / cutechess-cli command line equivalent to `args`."""
    cmd = [tool]
    for name, path, proto, opts in engines:
        cmd += ["-engine", f"cmd={path}", f"name={name}", f"proto={proto}"]
        cmd += [f"option.{k}={v}" for k, v in opts.items()]
    if args.nodes:
        # Both tools take `nodes=N`; cutechess-cli still wants a time control.
        each = ["-each", f"nodes={args.nodes}"]
        if not tool.endswith("fastchess"):
            each.insert(1, "tc=inf")
    else:
        each = ["-each", f"tc={args.tc}"]
    if args.margin:
        each.append(f"timemargin={int(args.margin * 1000)}")
    cmd += each
    fmt = "pgn" if book_path.endswith(".pgn") else "epd"
    cmd += ["-openings", f"file={book_path}", f"format={fmt}", "order=random"]
    cmd += ["-rounds", str((args.games + 1) // 2), "-games", "2", "-repeat"]
    cmd += ["-concurrency", str(args.concurrency), "-srand", str(args.seed)]
    if args.pgn:
        cmd += ["-pgnout", f"file={args.pgn}"] if tool.endswith("fastchess") else ["-pgnout", args.pgn]
    if args.sprt:
        cmd += ["-sprt", f"elo0={args.sprt[0]:g}", f"elo1={args.sprt[1]:g}", "alpha=0.05", "beta=0.05"]
    if args.max_plies:
        cmd += ["-maxmoves", str((args.max_plies + 1) // 2)]
    if args.resign:
        cmd += ["-resign", f"movecount={args.resign[0]}", f"score={args.resign[1]}", "twosided=true"]
    if args.draw:
        cmd += ["-draw", f"movenumber={args.draw[0]}", f"movecount={args.draw[1]}", f"score={args.draw[2]}"]
    if args.tb:
        cmd += ["-tb", args.tb]
        if args.tb_pieces:
            cmd += ["-tbpieces", str(args.tb_pieces)]
    return cmd


def pick_runner(args, engines):
    """fastchess (UCI only) or cutechess-cli when on PATH, else None (python)."""
    if args.runner == "python" or args.record_time:
        return None
    wanted = ["fastchess", "cutechess-cli"] if args.runner == "auto" else [args.runner]
    for tool in wanted:
        if tool == "fastchess" and any(e[2] != "uci" for e in engines):
            continue
        found = shutil.which(tool)
        if found:
            return found
    if args.runner != "auto":
        raise SystemExit(f"{args.runner} not usable here (not on PATH, or an xboard engine for fastchess)")
    return None


def run_external(tool, args, engines):
    book = args.book
    tmp = None
    if book.endswith(".zip"):
        # Neither tool reads zipped books: unpack to a temporary EPD.
        tmp = tempfile.NamedTemporaryFile("w", suffix=".epd", delete=False)
        tmp.write(read_book_text(book))
        tmp.close()
        book = tmp.name
    cmd = external_command(tool, args, engines, book)
    try:
        if args.print_cmd:
            print(" ".join(cmd))
            return 0
        print("running:", " ".join(cmd), flush=True)
        return subprocess.call(cmd)
    finally:
        if tmp and not args.print_cmd:
            os.unlink(tmp.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", action="append", required=True,
                    help="NAME=PATH[:xboard][;Opt=val,...]; give two")
    ap.add_argument("--book", required=True, help="EPD, PGN or zipped EPD of openings")
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC seconds, or MOVES/SECONDS")
    ap.add_argument("--nodes", type=int, default=0,
                    help="a fixed node budget a move instead of a clock (--tc is then ignored): "
                         "a quick, machine-load-proof screen of evaluation changes")
    ap.add_argument("--games", type=int, default=100, help="games (rounded up to pairs)")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--pgn", help="write the games here")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--margin", type=float, default=0.0, help="grace in seconds before a forfeit")
    ap.add_argument("--max-plies", type=int, default=0, help="adjudicate a draw after this many plies (0: off)")
    ap.add_argument("--resign", nargs=2, type=int, metavar=("MOVECOUNT", "SCORE"),
                    help="adjudicate a win when both engines' scores (centipawns) agree one side is "
                         "SCORE or more ahead for MOVECOUNT moves each in a row (e.g. 3 1000)")
    ap.add_argument("--draw", nargs=3, type=int, metavar=("MOVENUMBER", "MOVECOUNT", "SCORE"),
                    help="adjudicate a draw from move MOVENUMBER on when both engines' scores stay "
                         "within SCORE of 0 for MOVECOUNT moves each in a row (e.g. 40 8 10)")
    ap.add_argument("--tb", metavar="DIR[:DIR...]",
                    help="adjudicate by Syzygy tables (WDL, and DTZ when the halfmove clock runs) "
                         "after each engine move, as fastchess's and cutechess-cli's -tb")
    ap.add_argument("--tb-pieces", type=int, default=0, metavar="N",
                    help="with --tb: only positions of at most N pieces (default: all the tables hold)")
    ap.add_argument("--move-log", metavar="CSV",
                    help="write every timed move: wall clock, round, ply, engine, clock before (ms), "
                         "time the runner measured (ms), the engine's last reported time (ms), its "
                         "time from go to bestmove (ms; UCI engines are sent `debug on`, which "
                         "Ferrum answers with it), and its last info's nodes, depth and seldepth")
    ap.add_argument("--record-time", action="store_true", help="report the first engine's time use per move")
    ap.add_argument("--runner", choices=["auto", "python", "fastchess", "cutechess-cli"], default="auto",
                    help="auto: fastchess or cutechess-cli when on PATH, else python-chess")
    ap.add_argument("--print-cmd", action="store_true",
                    help="print the fastchess/cutechess-cli command line and exit")
    args = ap.parse_args()
    # Chatty xboard engines (phalanx) make python-chess log every unknown line.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    if len(args.engine) != 2:
        ap.error("give exactly two --engine")
    a, b = parse_engine(args.engine[0]), parse_engine(args.engine[1])
    if args.tb:
        missing = [d for d in args.tb.split(os.pathsep) if not os.path.isdir(d)]
        if missing:
            ap.error(f"--tb: not a directory: {', '.join(missing)}")
    tool = pick_runner(args, [a, b])
    if tool is None and args.print_cmd:
        tool = "fastchess" if a[2] == b[2] == "uci" else "cutechess-cli"
    if tool:
        return run_external(tool, args, [a, b])
    args.focus = a[0]
    if (err := check_engines([a, b])) is not None:
        print(err, file=sys.stderr)
        return 2
    if args.tb and not open_tablebase(args.tb).wdl:
        print(f"match.py: --tb: no Syzygy WDL tables (*.rtbw) in {args.tb}", file=sys.stderr)
        return 2
    tc = parse_tc(args.tc)
    book = load_book(args.book)
    rng = random.Random(args.seed)
    pairs = (args.games + 1) // 2
    openings = [rng.choice(book) for _ in range(pairs)]
    # The whole book is not needed past this point. Left alive (UHO: 241,670
    # openings, half a million objects), each of the garbage collector's full
    # passes walked all of it: 44 ms on an idle core, up to ~170 ms with the
    # engines on the cores, stopping every game's thread at once and charged
    # to whichever engines were moving (#107: a runner stall, not the
    # engines'). What is left is frozen out of the collector's passes.
    del book
    gc.collect()
    gc.freeze()
    stats = Stats()
    if args.move_log:
        stats.move_log = open(args.move_log, "w", buffering=1)
        stats.move_log.write("wall,round,ply,engine,clock_before_ms,used_ms,engine_time_ms,"
                             "engine_go_to_bestmove_ms,nodes,depth,seldepth\n")
    pgn_lock = threading.Lock()
    pgn_out = open(args.pgn, "w") if args.pgn else None
    stop = threading.Event()
    if args.sprt:
        lower = math.log(0.05 / 0.95)
        upper = math.log(0.95 / 0.05)

    def play_pair(i):
        if stop.is_set():
            return
        fen = openings[i]
        r1, g1 = play_game(a, b, fen, tc, args, stats, 2 * i + 1)
        r2, g2 = play_game(b, a, fen, tc, args, stats, 2 * i + 2)
        s1, s2 = r1, 1 - r2  # from a's view
        with stats.lock:
            stats.add_pair(s1, s2)
        if pgn_out:
            with pgn_lock:
                print(g1, file=pgn_out, end="\n\n")
                print(g2, file=pgn_out, end="\n\n")
                pgn_out.flush()
        n = stats.w + stats.d + stats.l
        if n % 20 == 0:
            print(f"{n} games: +{stats.w} ={stats.d} -{stats.l}  {stats.elo_text()}", flush=True)
        if args.sprt:
            llr = stats.llr(*args.sprt)
            if llr <= lower or llr >= upper:
                stop.set()

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as ex:
        list(ex.map(play_pair, range(pairs)))

    n = stats.w + stats.d + stats.l
    score = (stats.w + 0.5 * stats.d) / max(n, 1)
    limit_text = f"{args.nodes} nodes a move" if args.nodes else args.tc
    print(f"Result of {a[0]} vs {b[0]} ({limit_text}): {n} games")
    print(f"  wins {stats.w}  draws {stats.d}  losses {stats.l}  score {score:.3f}")
    print(f"  {stats.elo_text()} (95%, pentanomial {stats.penta})")
    print(f"  time forfeits {stats.forfeits}  illegal moves {stats.illegal}  crashes {stats.crashes}")
    for (fault, name), count in sorted(stats.by_engine.items()):
        print(f"    {fault}: {name} {count}")
    for name in sorted(stats.moves):
        line = (f"  {name}: last PV not led by the move played in {stats.pv_mismatch.get(name, 0)} "
                f"of {stats.moves[name]} moves ({stats.pv_games.get(name, 0)} games); "
                f"no PV {stats.pv_missing.get(name, 0)}")
        if stats.depths.get(name):
            depths = stats.depths[name]
            line += f"; mean depth {sum(depths) / len(depths):.1f}"
        if stats.nodes.get(name):
            nodes = sorted(stats.nodes[name])
            line += f"; median nodes a move {nodes[len(nodes) // 2]}"
        if name in stats.min_clock:
            line += f"; lowest clock left {stats.min_clock[name] * 1000:.0f} ms"
        if name in stats.max_wait:
            wait, rnd, ply = stats.max_wait[name]
            line += (f"; longest wait beyond its own time {wait * 1000:.0f} ms "
                     f"(round {rnd}, ply {ply})")
        print(line)
    if args.sprt:
        llr = stats.llr(*args.sprt)
        verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "inconclusive"
        print(f"  SPRT [{args.sprt[0]}, {args.sprt[1]}]: LLR {llr:.2f} ({lower:.2f}, {upper:.2f}) {verdict}")
    if args.record_time and stats.time_fractions:
        xs = sorted(stats.time_fractions)
        print(f"  {a[0]} time per move as a fraction of its clock: min {xs[0]:.4f} "
              f"median {xs[len(xs) // 2]:.4f} max {xs[-1]:.4f} ({len(xs)} moves)")
    return 0 if stats.forfeits == 0 and stats.illegal == 0 and stats.crashes == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
