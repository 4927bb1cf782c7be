"""scripts/pool.py: pairs from several files pooled exactly, and anything that
is not a colour-swapped pair refused with the file and game named."""
import subprocess
import sys

from conftest import ROOT

POOL = str(ROOT / "scripts" / "pool.py")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
OTHER = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def game(white, black, result, fen=START, end="checkmate"):
    return (f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[FEN "{fen}"]\n[SetUp "1"]\n[Termination "{end}"]\n\n{result}\n\n')


def run(*args):
    return subprocess.run([sys.executable, POOL, *args], capture_output=True, text=True, timeout=60)


def test_pairs_of_every_file_are_pooled(tmp_path):
    # Part 1: a won pair (2 points for new), a split pair (1). Part 2: a lost
    # pair (0), a pair with one draw (1.5). From new's view: W 3, D 1, L 3.
    (tmp_path / "a.pgn").write_text(
        game("new", "old", "1-0") + game("old", "new", "0-1")
        + game("new", "old", "1-0", OTHER) + game("old", "new", "1-0", OTHER))
    (tmp_path / "b.pgn").write_text(
        game("new", "old", "0-1") + game("old", "new", "1-0", end="fifty_moves")
        + game("new", "old", "1/2-1/2", end="threefold_repetition") + game("old", "new", "0-1"))
    r = run("--engine", "new", str(tmp_path / "a.pgn"), str(tmp_path / "b.pgn"), "--sprt", "0", "10")
    assert r.returncode == 0, r.stderr
    assert "new vs old: 8 games from 2 file(s)" in r.stdout
    assert "wins 4  draws 1  losses 3  score 0.562" in r.stdout
    # Pair scores 2, 1, 0, 1.5 in halves: 4, 2, 0, 3.
    assert "pentanomial [1, 0, 1, 1, 1]" in r.stdout
    assert "checkmate 6, fifty_moves 1, threefold_repetition 1" in r.stdout
    assert "SPRT [0, 10]: LLR" in r.stdout
    # The other engine's view is the mirror image.
    r = run("--engine", "old", str(tmp_path / "a.pgn"), str(tmp_path / "b.pgn"))
    assert "wins 3  draws 1  losses 4  score 0.438" in r.stdout
    assert "pentanomial [1, 1, 1, 0, 1]" in r.stdout


def test_what_is_not_a_pair_is_refused(tmp_path):
    cases = {
        "odd.pgn": (game("new", "old", "1-0") * 3, "3 games, not whole pairs"),
        "same.pgn": (game("new", "old", "1-0") * 2, "games 1-2: colours are not swapped"),
        "start.pgn": (game("new", "old", "1-0") + game("old", "new", "1-0", OTHER),
                      "games 1-2: the two games start from different positions"),
        "open.pgn": (game("new", "old", "1-0") + game("old", "new", "*"),
                     "games 1-2: result '*' is not a finished game"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        r = run("--engine", "new", str(tmp_path / name))
        assert r.returncode == 1, name
        assert f"{name}: {message}" in r.stderr, r.stderr
    r = run("--engine", "nobody", str(tmp_path / "same.pgn"))
    assert r.returncode == 1
    (tmp_path / "ok.pgn").write_text(game("new", "old", "1-0") + game("old", "new", "1-0"))
    r = run("--engine", "nobody", str(tmp_path / "ok.pgn"))
    assert r.returncode == 1 and "no engine named 'nobody'" in r.stderr


def test_a_part_given_by_counts_pools_as_its_games(tmp_path):
    # b.pgn's pairs (from new's view: a lost pair, a pair with one draw:
    # W 1, D 1, L 2, pentanomial [1, 0, 0, 1, 0]) given as counts instead
    # pool to the same report as the file itself.
    a = game("new", "old", "1-0") + game("old", "new", "0-1") \
        + game("new", "old", "1-0", OTHER) + game("old", "new", "1-0", OTHER)
    b = game("new", "old", "0-1") + game("old", "new", "1-0") \
        + game("new", "old", "1/2-1/2") + game("old", "new", "0-1")
    (tmp_path / "a.pgn").write_text(a)
    (tmp_path / "b.pgn").write_text(b)
    files = run("--engine", "new", str(tmp_path / "a.pgn"), str(tmp_path / "b.pgn"),
                "--sprt", "0", "10")
    counts = run("--engine", "new", str(tmp_path / "a.pgn"), "--part", "1,1,2,1,0,0,1,0",
                 "--sprt", "0", "10")
    assert files.returncode == 0 and counts.returncode == 0, counts.stderr
    assert "8 games from 1 file(s) and 1 part(s) given by counts" in counts.stdout
    for line in ("wins 4  draws 1  losses 3  score 0.562", "pentanomial [1, 0, 1, 1, 1]"):
        assert line in files.stdout and line in counts.stdout
    llr = [ln for ln in files.stdout.splitlines() if "SPRT" in ln]
    assert llr and llr[0] in counts.stdout
    # Counts alone, no file.
    r = run("--engine", "new", "--part", "1,1,2,1,0,0,1,0")
    assert r.returncode == 0, r.stderr
    assert "new vs (opponent not named): 4 games from 0 file(s) and 1 part(s)" in r.stdout
    assert "pentanomial [1, 0, 0, 1, 0]" in r.stdout


def test_counts_that_disagree_are_refused():
    cases = {
        "1,1,2,1,0,0,1": "8 counts wanted",
        "1,1,x,1,0,0,1,0": "whole numbers",
        "1,1,-2,1,0,0,1,0": "negative",
        "1,1,2,1,0,0,0,0": "4 games but 1 pairs",
        "2,0,2,1,0,0,1,0": "the pentanomial's points differ",
    }
    for part, message in cases.items():
        r = run("--engine", "new", "--part", part)
        assert r.returncode == 1, part
        assert message in r.stderr, (part, r.stderr)
    r = run("--engine", "new")
    assert r.returncode == 1 and "no PGN files and no --part" in r.stderr
