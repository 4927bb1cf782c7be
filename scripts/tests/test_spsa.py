"""scripts/spsa.py: OpenBench's SPSA rule on a synthetic objective (a noisy
"match" whose expected score is a known quadratic of the parameters),
resuming, bounds and bad parameter files."""
import csv
import json
import pathlib
import signal
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SCRIPTS))

import match  # noqa: E402
import spsa  # noqa: E402

PARAMS = "x, int, 20, 0, 100, 5, 0.01\ny, int, 80, 0, 100, 5, 0.01\n"


def run(tmp_path, *extra, params=PARAMS, state="s.json"):
    (tmp_path / "p.txt").write_text(params)
    argv = ["--params", str(tmp_path / "p.txt"), "--state", str(tmp_path / state),
            "--synthetic", "x=60,y=30", "--pairs", "1", "--every", "100000"] + list(extra)
    return spsa.main(argv)


def theta(tmp_path, state="s.json"):
    return json.loads((tmp_path / state).read_text())["theta"]


def test_moves_the_parameters_to_the_optimum_of_a_quadratic(tmp_path):
    assert run(tmp_path, "--iterations", "3000", "--seed", "5") == 0
    t = theta(tmp_path)
    # From (20, 80) to within 10 (a tenth of the range) of (60, 30).
    assert abs(t["x"] - 60) < 10, t
    assert abs(t["y"] - 30) < 10, t


def test_a_resumed_run_follows_the_unbroken_path(tmp_path):
    assert run(tmp_path, "--iterations", "400", "--seed", "9", "--csv", str(tmp_path / "a.csv"),
               state="a.json") == 0
    assert run(tmp_path, "--iterations", "400", "--seed", "9", "--stop-after", "150",
               "--csv", str(tmp_path / "b.csv"), state="b.json") == 0
    assert json.loads((tmp_path / "b.json").read_text())["k"] == 150
    assert run(tmp_path, "--iterations", "400", "--seed", "9", "--csv", str(tmp_path / "b.csv"),
               state="b.json") == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a == b
    rows_a = list(csv.reader(open(tmp_path / "a.csv")))
    rows_b = list(csv.reader(open(tmp_path / "b.csv")))
    assert rows_a == rows_b and len(rows_a) == 401
    # Another seed takes another path.
    assert run(tmp_path, "--iterations", "400", "--seed", "10", state="c.json") == 0
    assert theta(tmp_path, "c.json") != a["theta"]


def test_values_never_leave_their_bounds(tmp_path):
    # The optimum far outside the range: theta runs into the bound and stays there.
    params = "x, int, 5, 0, 10, 2, 0.5\ny, int, 5, 0, 10, 2, 0.5\n"
    (tmp_path / "p.txt").write_text(params)
    argv = ["--params", str(tmp_path / "p.txt"), "--state", str(tmp_path / "s.json"), "--iterations", "300",
            "--synthetic", "x=1000,y=-1000", "--pairs", "1", "--csv", str(tmp_path / "path.csv")]
    assert spsa.main(argv) == 0
    rows = list(csv.DictReader(open(tmp_path / "path.csv")))
    assert len(rows) == 300
    for r in rows:
        assert 0 <= float(r["x"]) <= 10 and 0 <= float(r["y"]) <= 10
    # Pressed against the bounds the far optimum lies beyond (from 5, 5).
    assert max(float(r["x"]) for r in rows) == 10 and min(float(r["y"]) for r in rows) == 0
    assert float(rows[-1]["x"]) >= 7 and float(rows[-1]["y"]) <= 3, rows[-1]
    # The perturbed values handed to the engines stay inside too.
    s = spsa.Spsa(spsa.parse_params(params), 300, 1)
    s.theta = {"x": 10.0, "y": 0.0}
    plus, minus = s.perturbed(1, s.signs(1))
    assert all(0 <= v <= 10 for v in list(plus.values()) + list(minus.values()))


@pytest.mark.parametrize("text, line, words", [
    ("x, int, 20, 0, 100, 5, 0.01\ny, int, 80, 0, 100, 5\n", 2, "7 fields"),
    ("x, int, 20, 0, 100, 5, 0.01\n\n# c\ny, int, 180, 0, 100, 5, 0.01\n", 4, "outside"),
    ("x, int, 20, 100, 0, 5, 0.01\n", 1, "not below"),
    ("x, int, twenty, 0, 100, 5, 0.01\n", 1, "numbers"),
    ("x, int, 20, 0, 100, 5, 0.01\nx, int, 20, 0, 100, 5, 0.01\n", 2, "twice"),
    ("x, bool, 1, 0, 1, 1, 0.01\n", 1, "int or float"),
    ("x, int, 20, 0, 100, 0, 0.01\n", 1, "positive"),
])
def test_bad_parameter_files_are_refused_naming_the_line(tmp_path, text, line, words):
    with pytest.raises(ValueError, match=f"line {line}: .*{words}"):
        spsa.parse_params(text)
    (tmp_path / "p.txt").write_text(text)
    r = subprocess.run([sys.executable, str(SCRIPTS / "spsa.py"), "--params", str(tmp_path / "p.txt"),
                        "--synthetic", "x=1", "--state", str(tmp_path / "s.json")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert f"line {line}:" in r.stderr
    assert not (tmp_path / "s.json").exists()


def test_ferrum_spsa_output_is_accepted_and_reported_as_rust(tmp_path):
    from conftest import ferrum_path
    text = subprocess.run([ferrum_path(), "spsa"], capture_output=True, text=True, check=True).stdout
    params = spsa.parse_params(text)
    assert len(params) > 20
    s = spsa.Spsa(params, 100, 1)
    block = spsa.rust_block(s).splitlines()
    assert len(block) == len(params)
    assert block[0].startswith(f"    {params[0].name} = {spsa.engine_value(params[0].start)}, ")
    assert all(line.endswith(";") and "..=" in line for line in block)


def test_the_report_gives_the_changed_engine_values_as_match_options(tmp_path, capsys):
    # Three parameters: z rounds to its start (20.4 -> 20), x and y do not;
    # halves round up, negative values alike (-30.5 -> -30).
    params = spsa.parse_params("x, int, 20, 0, 100, 5, 0.01\ny, int, -40, -100, 0, 5, 0.01\n"
                               "z, int, 20, 0, 100, 5, 0.01\n")
    s = spsa.Spsa(params, 100, 1)
    assert ",".join(spsa.changed_values(s)) == ""
    assert spsa.report(s).endswith("# no engine value changed")
    s.theta.update(x=24.5, y=-30.5, z=20.4)
    assert ",".join(spsa.changed_values(s)) == "x=25,y=-30"
    last = spsa.report(s).splitlines()[-1]
    assert last.startswith("# 2 changed, as match.py options")
    spec = last.split('--engine "', 1)[1].rstrip('"').replace("BIN", "/path/to/ferrum")
    assert match.parse_engine(spec) == ("tuned", "/path/to/ferrum", "uci", {"x": "25", "y": "-30"})
    # A finished run prints the same report.
    assert run(tmp_path, "--iterations", "50", "--seed", "2") == 0
    done = spsa.Spsa(spsa.parse_params(PARAMS), 50, 2)
    done.restore(json.loads((tmp_path / "s.json").read_text()))
    assert capsys.readouterr().out.endswith(spsa.report(done) + "\n")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_background_run_stops_on_a_signal_with_its_state_saved(tmp_path, sig):
    # A shell's background job (`nohup ... &`) starts with SIGINT ignored; the
    # runner must still stop on SIGINT (and on SIGTERM), say so, and leave a
    # state that resumes where it stopped.
    (tmp_path / "p.txt").write_text(PARAMS)
    state = tmp_path / "s.json"
    cmd = [sys.executable, str(SCRIPTS / "spsa.py"), "--params", str(tmp_path / "p.txt"),
           "--state", str(state), "--synthetic", "x=60,y=30", "--pairs", "1", "--every", "1",
           "--iterations", "100000000", "--seed", "3", "--csv", str(tmp_path / "path.csv")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert proc.stdout.readline().startswith("iteration 1/")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # no stray run if the signal was not obeyed
    assert proc.returncode == 130, out[-500:] + err
    assert "stopped;" in out
    k = json.loads(state.read_text())["k"]
    assert 1 <= k < 100000000
    assert f"holds iteration {k}:" in out  # the message names the iteration on disk
    assert len(list(csv.reader(open(tmp_path / "path.csv")))) == k + 1  # a row each, and the header
