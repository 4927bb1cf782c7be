#!/usr/bin/env bash
# Runs every test of Ferrum: formatting, lints, the Rust unit and
# integration tests (release mode: perft suites need the speed) and the
# python-chess client tests against the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --disable-pip-version-check -r scripts/requirements.txt

cargo fmt --all -- --check
cargo clippy --release --all-targets -- -D warnings
cargo build --release
cargo test --release
# The OpenBench build (`make EXE=...`, native CPU) searches exactly as the
# cargo build does: same bench signature.
make EXE=target/ferrum-make
test "$(target/ferrum-make bench 2>/dev/null | cut -d' ' -f1)" = "$(target/release/ferrum bench 2>/dev/null | cut -d' ' -f1)"
FERRUM="$PWD/target/release/ferrum" python3 -m pytest -q scripts/tests
