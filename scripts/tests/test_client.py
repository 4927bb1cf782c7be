"""Ferrum driven by a real client: python-chess's chess.engine (UCI)."""
import chess
import chess.engine

from conftest import ferrum_path


def test_handshake_and_options(engine):
    assert engine.id["name"].startswith("Ferrum ")
    opts = engine.options
    for name in ["Hash", "Threads", "MultiPV", "Ponder", "Move Overhead", "UCI_Chess960",
                 "Use NNUE", "EvalFile", "Clear Hash"]:
        assert name in opts, name
    assert opts["Hash"].type == "spin" and opts["Hash"].default == 16
    assert opts["UCI_Chess960"].type == "check"
    assert opts["EvalFile"].type == "string" and opts["EvalFile"].default == "ferrum-n42.nnue"
    engine.configure({"Hash": 32, "Threads": 2, "Move Overhead": 20})
    engine.ping()
    # A GUI sending the default EvalFile back (as many do) keeps the engine playing.
    engine.configure({"EvalFile": "ferrum-n42.nnue", "Use NNUE": True})
    result = engine.play(chess.Board(), chess.engine.Limit(depth=3))
    assert result.move in chess.Board().legal_moves


def test_analysis_with_multipv(engine):
    board = chess.Board()
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert len(infos) == 3
    moves = [i["pv"][0] for i in infos]
    assert len(set(moves)) == 3
    for info in infos:
        assert info["depth"] == 6
        assert info["pv"][0] in board.legal_moves
        b = board.copy()
        for m in info["pv"]:
            assert m in b.legal_moves
            b.push(m)
    # Lines are ordered best first.
    scores = [i["score"].relative.score(mate_score=100000) for i in infos]
    assert scores == sorted(scores, reverse=True)


def test_finds_mate_in_two(engine):
    board = chess.Board("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1")
    info = engine.analyse(board, chess.engine.Limit(depth=8))
    assert info["score"].relative == chess.engine.Mate(2)
    assert info["pv"][0] == chess.Move.from_uci("d5f6")


def test_go_with_clocks(engine):
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=2.0, black_clock=2.0, white_inc=0.05, black_inc=0.05)
    result = engine.play(board, limit)
    assert result.move in board.legal_moves


def test_ponder_and_ponderhit():
    # python-chess sends "go ponder" after a move with ponder=True and
    # "ponderhit" when the next play() continues the same line.
    eng = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
    try:
        board = chess.Board()
        limit = chess.engine.Limit(white_clock=3, black_clock=3)
        r = eng.play(board, limit, ponder=True)
        assert r.move in board.legal_moves
        board.push(r.move)
        reply = r.ponder if r.ponder in board.legal_moves else next(iter(board.legal_moves))
        board.push(reply)
        r2 = eng.play(board, limit, ponder=True)
        assert r2.move in board.legal_moves
    finally:
        eng.quit()


def test_chess960_game_with_castling(engine):
    board = chess.Board("b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", chess960=True)
    castle = chess.Move.from_uci("f1g1")
    assert board.is_castling(castle)
    board.push(castle)
    for _ in range(12):
        if board.is_game_over():
            break
        r = engine.play(board, chess.engine.Limit(depth=4))
        assert r.move in board.legal_moves
        board.push(r.move)


def test_self_play_games_are_legal():
    a = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
    b = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
    try:
        for game in range(3):
            board = chess.Board()
            clocks = [1.0, 1.0]
            players = [a, b] if game % 2 == 0 else [b, a]
            while not board.is_game_over(claim_draw=True) and board.ply() < 160:
                side = 0 if board.turn == chess.WHITE else 1
                limit = chess.engine.Limit(white_clock=clocks[0], black_clock=clocks[1],
                                           white_inc=0.02, black_inc=0.02)
                r = players[side].play(board, limit)
                assert r.move in board.legal_moves, (board.fen(), r.move)
                board.push(r.move)
            assert board.ply() > 0
    finally:
        a.quit()
        b.quit()


def test_play_info_is_the_line_played():
    # What a GUI or python-chess shows for a move (the last reported line)
    # belongs to the move played: many short searches of a self-play game,
    # ended by time, nodes, depth or the clock, with one and two threads.
    import random
    rng = random.Random(107)
    for threads in (1, 2):
        eng = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
        try:
            eng.configure({"Threads": threads})
            board = chess.Board()
            for i in range(150):
                if board.is_game_over() or board.ply() > 120:
                    board = chess.Board()
                kind = rng.randrange(4)
                if kind == 0:
                    limit = chess.engine.Limit(time=rng.uniform(0.001, 0.03))
                elif kind == 1:
                    limit = chess.engine.Limit(nodes=rng.randrange(1, 50000))
                elif kind == 2:
                    limit = chess.engine.Limit(depth=rng.randrange(1, 8))
                else:
                    t = rng.uniform(0.05, 2.0)
                    limit = chess.engine.Limit(white_clock=t, black_clock=t,
                                               white_inc=0.01, black_inc=0.01)
                r = eng.play(board, limit, info=chess.engine.INFO_ALL)
                pv = r.info.get("pv")
                assert pv, (i, board.fen(), limit, r)
                assert pv[0] == r.move, (i, board.fen(), limit, r)
                if r.ponder is not None:
                    assert len(pv) > 1 and pv[1] == r.ponder, (i, board.fen(), limit, r)
                board.push(r.move)
        finally:
            eng.quit()
