"""scripts/ebf.py: the effective branching factor is read from the nodes at
the end of each iteration, and the script reports it for a real search."""
import subprocess
import sys

from conftest import ROOT, ferrum_path

sys.path.insert(0, str(ROOT / "scripts"))
from ebf import ebf, iteration_nodes  # noqa: E402

EBF = str(ROOT / "scripts" / "ebf.py")


def test_iteration_nodes_keep_each_depths_last_line():
    infos = [
        {"depth": 1, "nodes": 20, "pv": []},
        {"depth": 2, "nodes": 60, "pv": []},
        {"depth": 3, "currmove": None},  # no nodes: ignored
        {"depth": 3, "nodes": 150, "pv": []},  # a fail high ...
        {"depth": 3, "nodes": 200, "pv": []},  # ... and its re-search
        {"depth": 4, "nodes": 700},  # no pv: ignored
    ]
    assert iteration_nodes(infos) == {1: 20, 2: 60, 3: 200}


def test_ebf_is_the_growth_per_ply_over_the_last_half():
    # Nodes double each ply, then the budget cuts depth 6 short: it is left
    # out, and depths 3..5 (the last half of 1..5) give exactly 2.
    nodes = {1: 10, 2: 30, 3: 100, 4: 200, 5: 400, 6: 450}
    assert abs(ebf(nodes) - 2.0) < 1e-12
    # Growth by 3 from depth 3 to 5 (the early plies do not count).
    assert abs(ebf({1: 1, 2: 50, 3: 100, 4: 300, 5: 900, 6: 901}) - 3.0) < 1e-12
    # Too few completed iterations, or none that grew: no figure.
    assert ebf({1: 10, 2: 30, 3: 40}) is None
    assert ebf({1: 10, 2: 10, 3: 10, 4: 10}) is None


def test_script_reports_a_factor_for_ferrum():
    out = subprocess.run(
        [sys.executable, EBF, "--engine", f"ferrum={ferrum_path()}", "--nodes", "50000", "--positions", "2"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    row = next(line for line in out.splitlines() if line.startswith("ferrum "))
    _, depth, mean, median, positions = row.split()
    assert int(positions) == 2
    assert float(depth) >= 5
    # A search that branches at all, and far less than the legal moves.
    assert 1.0 < float(mean) < 10.0 and 1.0 < float(median) < 10.0
