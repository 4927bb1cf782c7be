"""Shared fixtures: the Ferrum binary under test (FERRUM, or target/release/ferrum)."""
import os
import pathlib

import chess.engine
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def ferrum_path() -> str:
    return os.environ.get("FERRUM", str(ROOT / "target" / "release" / "ferrum"))


@pytest.fixture
def engine():
    eng = chess.engine.SimpleEngine.popen_uci(ferrum_path(), timeout=30)
    try:
        yield eng
    finally:
        eng.quit()
