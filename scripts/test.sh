#!/usr/bin/env bash
# Runs every test of Ferrum: formatting, lints, the Rust unit and
# integration tests (release mode: perft suites need the speed) and the
# python-chess client tests against the release binary.
#
# Tests on public suites read the shared data folder ($FERRUM_DATA, else
# ../shared/data); without it they are skipped and counted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r scripts/requirements.txt

cargo fmt --all -- --check
cargo clippy --release --all-targets -- -D warnings
# The 512-neuron build (#109: wider nets) compiles and lints clean too.
cargo clippy --release --all-targets --features hidden512 -- -D warnings
cargo build --release
mkdir -p target
export FERRUM_SKIP_LOG="$PWD/target/suite-skips.txt"
rm -f "$FERRUM_SKIP_LOG"
cargo test --release
# The OpenBench build (`make EXE=...`, native CPU) searches exactly as the
# cargo build does: same bench signature.
make EXE=target/ferrum-make
test "$(target/ferrum-make bench 2>/dev/null | cut -d' ' -f1)" = "$(target/release/ferrum bench 2>/dev/null | cut -d' ' -f1)"
# The release binaries of other platforms (README, "Release builds"): the
# Windows .exe (run under Wine), the static ARM64 (under qemu-user) and
# x86-64 Linux builds, tested by scripts/tests/test_platforms.py; built with
# the ci-cross profile (Cargo.toml: the release code without whole-program
# LTO, which halves these builds; `make release` checks the shipped ones'
# bench under Wine and qemu). Where the
# Debian packages cannot be installed (not root, no apt) their tests are
# skipped and counted; in CI a failed build fails the run.
cross() {
    local log="target/cross-$1.log" out
    if out=$(CROSS_PROFILE=ci-cross scripts/cross.sh "$1" 2>"$log"); then
        echo "$PWD/$out"
    elif [ "${CI:-}" = true ]; then
        cat "$log" >&2
        echo "scripts/cross.sh $1 failed" >&2
        return 1
    else
        echo "scripts/cross.sh $1 failed (its tests are skipped): see $log" >&2
    fi
}
FERRUM_WINDOWS=$(cross windows-x86-64)
FERRUM_AARCH64=$(cross linux-aarch64)
FERRUM_STATIC=$(cross linux-x86-64)
export FERRUM_WINDOWS FERRUM_AARCH64 FERRUM_STATIC
FERRUM="$PWD/target/release/ferrum" python3 -m pytest -q scripts/tests

skipped=0
if [ -f "$FERRUM_SKIP_LOG" ]; then
    skipped=$(sort -u "$FERRUM_SKIP_LOG" | wc -l)
fi
if [ "$skipped" -gt 0 ]; then
    echo "All tests passed; $skipped suite tests were SKIPPED (no shared data at ${FERRUM_DATA:-../shared/data}):"
    sort -u "$FERRUM_SKIP_LOG" | sed 's/^/  /'
    echo "To run them, set FERRUM_DATA to the folder holding perft/ and tactical/ (or check out ../shared beside this repository)."
else
    echo "All tests passed; every suite test ran (data: ${FERRUM_DATA:-../shared/data})."
fi
