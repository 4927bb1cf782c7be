"""Shared fixtures: the Ferrum binary under test (FERRUM, or target/release/ferrum)."""
import os
import pathlib

import chess.engine
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


# Engine options for games on the clock (match.py's `;opt=val`). The
# machines that run the tests are shared: a stall outside the engine can
# outlast the 10 ms default Move Overhead and the ten overheads (100 ms) the
# engine keeps in hand at 1+0.01 (CI once saw the referee's clock run 159 ms
# past Ferrum's own go-to-bestmove time, a forfeit). 50 ms keeps 500 ms in
# hand: what a user on a busy machine sets, and still a clock the engine
# must manage (an engine that ignored it would lose on time all the same).
CLOCK_OPTS = "Move Overhead=50"


def ferrum_path() -> str:
    return os.environ.get("FERRUM", str(ROOT / "target" / "release" / "ferrum"))


def syzygy_dir() -> pathlib.Path:
    """The shared Syzygy tables: $FERRUM_DATA/syzygy, else ../shared/data/syzygy."""
    data = os.environ.get("FERRUM_DATA") or str(ROOT.parent / "shared" / "data")
    return pathlib.Path(data) / "syzygy"


def skip_counted(test: str, reason: str):
    """Skips a test that lacks shared data, and names it in $FERRUM_SKIP_LOG
    so that scripts/test.sh counts it (as the Rust suite tests are)."""
    log = os.environ.get("FERRUM_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(test + "\n")
    pytest.skip(reason)


@pytest.fixture
def engine():
    eng = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
    try:
        yield eng
    finally:
        eng.quit()
