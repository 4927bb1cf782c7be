"""`ferrum analyse` output read by python-chess, as lichess-style tools read it."""
import io
import json
import subprocess
import xml.etree.ElementTree as ET

import chess
import chess.pgn

from conftest import ferrum_path

PGN = """[Event "Analyse test"]
[White "Alice"]
[Black "Bob"]
[Result "1-0"]

{A test game} 1. e4 e5 2. Nf3 {developing} Qg5 (2... d6 {Philidor} 3. d4) 3. Nxg5 $1 Nc6
4. Nf3 Nf6 5. Nc3 Bc5 6. d3 O-O 1-0
"""


def run(tmp_path):
    src = tmp_path / "in.pgn"
    src.write_text(PGN)
    out = tmp_path / "out.pgn"
    graphs = tmp_path / "graphs"
    proc = subprocess.run([ferrum_path(), "analyse", str(src), "--nodes", "20000",
                           "--out", str(out), "--graph", str(graphs), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), out.read_text(), graphs


def test_evals_moves_comments_and_variations(tmp_path):
    report, text, _ = run(tmp_path)
    original = chess.pgn.read_game(io.StringIO(PGN))
    game = chess.pgn.read_game(io.StringIO(text))
    # Same moves, same tags.
    assert [m.uci() for m in game.mainline_moves()] == \
        [m.uci() for m in original.mainline_moves()]
    assert game.headers["White"] == "Alice"
    # Every move's eval is the one reported, in White's view.
    moves = report["games"][0]["moves"]
    nodes = list(game.mainline())
    assert len(nodes) == len(moves)
    for node, m in zip(nodes, moves):
        score = node.eval()
        assert score is not None, node.comment
        if "Cp" in m["eval"]:
            assert score.white().score() == m["eval"]["Cp"]
        else:
            assert score.white().mate() == m["eval"]["Mate"]
    # Comments kept: the game comment and the one on 2. Nf3.
    assert game.comment == "A test game"
    assert "developing" in nodes[2].comment
    # The variation 2... d6 (with its comment) survives beside any the engine adds.
    after_nf3 = nodes[2]
    d6 = [v for v in after_nf3.variations if v.move.uci() == "d7d6"]
    assert d6 and "Philidor" in d6[0].comment
    assert d6[0].next().move.uci() == "d2d4"
    # The queen left en prise is a blunder ($4) with a better line.
    qg5 = nodes[3]
    assert qg5.move.uci() == "d8g5"
    assert chess.pgn.NAG_BLUNDER in qg5.nags
    assert len(qg5.parent.variations) >= 2


def test_graph_is_svg_with_a_point_per_move(tmp_path):
    report, _, graphs = run(tmp_path)
    svg = graphs / "game-1.svg"
    root = ET.parse(svg).getroot()  # well-formed XML, or this raises
    assert root.tag.endswith("svg")
    lines = [e for e in root.iter() if e.tag.endswith("polyline")
             and e.get("stroke", "").upper() == "#0000FF"]
    assert len(lines) == 1
    points = lines[0].get("points").split()
    assert len(points) == len(report["games"][0]["moves"])
