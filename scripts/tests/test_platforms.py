"""The release binaries of other platforms, run here: the Windows .exe under
Wine, the ARM64 Linux binary under qemu-user, and the static x86-64 Linux
binary. Each must search exactly as the native build does (the same bench
signature, the same perft counts) and behave as its users' tools expect.

scripts/test.sh builds them with scripts/cross.sh and names them in
FERRUM_WINDOWS, FERRUM_AARCH64 and FERRUM_STATIC; a test whose binary or
emulator is missing is skipped and counted, as a missing data suite is."""
import os
import pathlib
import shutil
import struct
import subprocess
import sys

import chess
import chess.engine
import pytest

from conftest import CLOCK_OPTS, ROOT, ferrum_path, skip_counted, syzygy_dir

DATA = pathlib.Path(os.environ.get("FERRUM_DATA") or str(ROOT.parent / "shared" / "data"))


def binary(var, test):
    path = os.environ.get(var)
    if not path or not os.path.isfile(path):
        skip_counted(test, f"{var} is not set to a built binary (scripts/test.sh builds it)")
    return path


def wine_command(test):
    """The command that runs the .exe under Wine, in a prefix of the tests' own."""
    exe = binary("FERRUM_WINDOWS", test)
    wine = shutil.which("wine") or shutil.which("wine64")
    if wine is None:
        skip_counted(test, "wine is not installed")
    return [wine, exe]


def wine_env():
    prefix = ROOT / "target" / "wine-prefix"
    return dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all")


def qemu_command(test):
    exe = binary("FERRUM_AARCH64", test)
    qemu = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")
    if qemu is None:
        skip_counted(test, "qemu-user (qemu-aarch64) is not installed")
    return [qemu, exe]


def run(cmd, *args, env=None, input=None, timeout=300):
    r = subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, input=input,
                       timeout=timeout)
    assert r.returncode == 0, (cmd, args, r.stdout[-2000:], r.stderr[-2000:])
    return r.stdout


def bench_nodes(cmd, env=None):
    last = run(cmd, "bench", env=env).strip().splitlines()[-1]
    return int(last.split()[0])


NATIVE_BENCH = None


def native_bench():
    global NATIVE_BENCH
    if NATIVE_BENCH is None:
        NATIVE_BENCH = bench_nodes([ferrum_path()])
    return NATIVE_BENCH


def first_perft_positions(limit):
    """The first two positions of each perft suite, each at its deepest
    listed depth whose count is at most `limit`: (fen, chess960, depth, count)."""
    cases = []
    for name, c960 in [("perftsuite.epd", False), ("cpw_positions.epd", False),
                       ("tricky_pychess.epd", False), ("chess960_fischer.epd", True)]:
        path = DATA / "perft" / name
        if not path.is_file():
            continue
        lines = [l for l in path.read_text().splitlines() if l.strip()][:2]
        for line in lines:
            fields = [f.strip() for f in line.split(";")]
            depths = [(int(f[1:].split()[0]), int(f.split()[1])) for f in fields[1:] if f.startswith("D")]
            depth, count = max((d, n) for d, n in depths if n <= limit)
            cases.append((fields[0], c960, depth, count))
    return cases


def perft_total(cmd, fen, c960, depth, env=None):
    args = ["perft", str(depth), "--fen", fen] + (["--chess960"] if c960 else [])
    out = run(cmd, *args, env=env)
    for line in out.splitlines():
        if line.startswith("Nodes:"):
            return int(line.split()[1])
    raise AssertionError(out)


def uci_session(cmd, steps, env=None, newline="\n"):
    """Runs a UCI session: each step is a command, or (command, prefix) to
    wait after it for a line starting with `prefix` (a search's `bestmove`).
    Sends quit at the end; returns every line the engine printed."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    out = []
    try:
        for step in steps + ["quit"]:
            command, wait = step if isinstance(step, tuple) else (step, None)
            p.stdin.write((command + newline).encode())
            p.stdin.flush()
            while wait is not None:
                line = p.stdout.readline().decode(errors="replace")
                assert line, f"the engine ended while waiting for {wait!r}: {out}"
                out.append(line.rstrip("\r\n"))
                if out[-1].startswith(wait):
                    break
        rest, _ = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    out += rest.decode(errors="replace").replace("\r\n", "\n").splitlines()
    assert p.returncode == 0, out
    return out


def legal_bestmove(out, fen):
    best = [l for l in out if l.startswith("bestmove")]
    assert best, out
    move = chess.Move.from_uci(best[-1].split()[1])
    assert move in chess.Board(fen).legal_moves, (best, fen)
    return move


def windows_path(path):
    """How a Windows program under Wine names a path of this machine (Z: is /)."""
    return "Z:" + str(pathlib.Path(path).resolve()).replace("/", "\\")


# --- the Windows .exe, under Wine ---

def test_windows_bench_matches_the_native_build():
    cmd = wine_command("test_windows_bench_matches_the_native_build")
    assert bench_nodes(cmd, env=wine_env()) == native_bench()


def test_windows_perft_on_the_suites_first_positions():
    cmd = wine_command("test_windows_perft_on_the_suites_first_positions")
    cases = first_perft_positions(2_000_000)
    if not cases:
        skip_counted("test_windows_perft_on_the_suites_first_positions", "no perft suites")
    for fen, c960, depth, count in cases:
        assert perft_total(cmd, fen, c960, depth, env=wine_env()) == count, (fen, depth)


def test_windows_uci_with_crlf_input_windows_paths_and_a_search():
    test = "test_windows_uci_with_crlf_input_windows_paths_and_a_search"
    cmd = wine_command(test)
    tb = syzygy_dir()
    if not (tb / "KQvK.rtbw").is_file():
        skip_counted(test, f"no Syzygy tables at {tb}")
    # The tables split over two folders, given as Windows paths joined by ';'.
    tmp = ROOT / "target" / "platform-test-tables"
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "a").mkdir(parents=True)
    (tmp / "b").mkdir()
    for i, f in enumerate(sorted(tb.glob("*.rtb[wz]"))):
        shutil.copy(f, tmp / ("a" if i % 2 else "b") / f.name)
    net = ROOT / "nets" / "ferrum-n36w.nnue"
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    krk = "8/8/8/4k3/8/8/8/KR6 w - - 0 1"
    out = uci_session(cmd, [
        "uci",
        f"setoption name SyzygyPath value {windows_path(tmp / 'a')};{windows_path(tmp / 'b')}",
        f"setoption name EvalFile value {windows_path(net)}",
        ("isready", "readyok"),
        "position startpos moves e2e4",
        ("go depth 8", "bestmove"),
        f"position fen {krk}",
        ("go depth 6", "bestmove"),
        f"position fen {after_e4}",
        "eval",
        ("isready", "readyok"),
    ], env=wine_env(), newline="\r\n")
    assert any(l.startswith("id name Ferrum") for l in out), out
    assert "uciok" in out and out.count("readyok") == 2, out
    assert not any("error" in l for l in out), [l for l in out if "error" in l]
    assert "info string Found 35 tablebases (35 WDL and 35 DTZ files, up to 4 pieces)" in out, out
    bestmoves = [l for l in out if l.startswith("bestmove")]
    assert len(bestmoves) == 2, out
    first = chess.Move.from_uci(bestmoves[0].split()[1])
    assert first in chess.Board(after_e4).legal_moves
    second = chess.Move.from_uci(bestmoves[1].split()[1])
    assert second in chess.Board(krk).legal_moves
    # The tables' verdict is the score shown for the rook ending.
    krk_infos = [l for l in out[out.index(bestmoves[0]):] if l.startswith("info depth")]
    assert any(" tbhits " in l and " tbhits 0 " not in l for l in krk_infos), krk_infos
    # The net loaded from the Windows path evaluates as the native build with it does.
    native = uci_session([ferrum_path()], [f"setoption name EvalFile value {net}",
                                           f"position fen {after_e4}", "eval",
                                           ("isready", "readyok")])
    def nnue(lines):  # "NNUE evaluation: +0.16 (White side), -16 cp ... [the file's name]"
        return [l.split(" [")[0] for l in lines if l.startswith("NNUE evaluation:")]
    assert nnue(out) and nnue(out) == nnue(native), (nnue(out), nnue(native))
    assert any(l.endswith(f"[{windows_path(net)}]") for l in out), out
    shutil.rmtree(tmp, ignore_errors=True)


def test_windows_binary_plays_games_against_the_linux_binary(tmp_path):
    cmd = wine_command("test_windows_binary_plays_games_against_the_linux_binary")
    wrapper = tmp_path / "ferrum-wine"
    env = wine_env()
    wrapper.write_text(f"#!/bin/sh\nexport WINEPREFIX={env['WINEPREFIX']} WINEDEBUG=-all\n"
                       f"exec {cmd[0]} {cmd[1]} \"$@\"\n")
    wrapper.chmod(0o755)
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "match.py"),
                        "--engine", f"windows={wrapper};{CLOCK_OPTS}",
                        "--engine", f"linux={ferrum_path()};{CLOCK_OPTS}",
                        "--book", str(ROOT / "tests" / "data" / "openings_selfmade.epd"),
                        "--tc", "2+0.05", "--games", "4", "--runner", "python", "--seed", "108"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Result of windows vs linux (2+0.05): 4 games" in r.stdout, r.stdout
    assert "time forfeits 0  illegal moves 0  crashes 0" in r.stdout, r.stdout
    assert "windows: last PV not led by the move played in 0 of" in r.stdout, r.stdout


# --- the ARM64 Linux binary, under qemu-user ---

def test_aarch64_bench_matches_the_native_build():
    # The ARM build evaluates with the portable kernels, x86-64 with SSE2 or
    # AVX2: the same signature shows they give the same evaluation.
    cmd = qemu_command("test_aarch64_bench_matches_the_native_build")
    assert bench_nodes(cmd) == native_bench()


def test_aarch64_perft_and_a_search():
    cmd = qemu_command("test_aarch64_perft_and_a_search")
    for fen, c960, depth, count in first_perft_positions(500_000):
        assert perft_total(cmd, fen, c960, depth) == count, (fen, depth)
    out = uci_session(cmd, ["uci", "position startpos", ("go depth 6", "bestmove")])
    legal_bestmove(out, chess.STARTING_FEN)


# --- the static x86-64 Linux binary ---

def elf_interpreter(path):
    """Whether the ELF file at `path` names a program interpreter (the
    dynamic loader): a static binary has none."""
    data = pathlib.Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not a 64-bit ELF file"
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    return any(struct.unpack_from("<I", data, phoff + i * phentsize)[0] == 3 for i in range(phnum))


def test_static_linux_binary_needs_no_loader_and_matches_the_native_build():
    exe = binary("FERRUM_STATIC", "test_static_linux_binary_needs_no_loader_and_matches_the_native_build")
    assert not elf_interpreter(exe)
    assert elf_interpreter(ferrum_path())  # the check can tell the two apart
    assert bench_nodes([exe]) == native_bench()
    with chess.engine.SimpleEngine.popen_uci(exe, timeout=30) as eng:
        r = eng.play(chess.Board(), chess.engine.Limit(depth=6))
        assert r.move in chess.Board().legal_moves
