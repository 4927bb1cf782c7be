//! Helpers shared by the integration tests: the project's own files in
//! `tests/data/`, and the public suites read from the shared data folder.
//!
//! Public suites (perft suites, WAC, Bratko-Kopec, the sunfish mate files)
//! are not kept in this repository. They are read from `$FERRUM_DATA` when
//! set, else from `../shared/data` beside the checkout. When that folder is
//! missing, a test that needs it says so in one line on stderr and returns
//! early; when `$FERRUM_SKIP_LOG` names a file, the test name is appended to
//! it so that `scripts/test.sh` can count the skipped tests.

#![allow(dead_code)]

pub mod engine;

use std::io::Write;
use std::path::PathBuf;

/// Path of a file the project made, in `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

/// Writes a Polyglot book made from the games of `pgn` (every move of the
/// first 40 plies, from one game on) to `path`.
pub fn write_book(pgn: &str, path: &std::path::Path) {
    let games: Vec<_> = ferrum::tools::pgn::read_games(pgn.as_bytes())
        .unwrap()
        .into_iter()
        .map(|g| g.unwrap())
        .collect();
    std::fs::write(
        path,
        ferrum::tools::book_build::build(&games, 40, 1).to_bytes(),
    )
    .unwrap();
}

/// The shared data folder: `$FERRUM_DATA`, else `../shared/data`.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("FERRUM_DATA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    }
}

/// Path of a public suite file (`perft/perftsuite.epd`, `tactical/wac.epd`,
/// ...) in the shared data folder, or `None` after reporting the skip of
/// `test` when the file is not there.
pub fn suite(test: &str, rel: &str) -> Option<PathBuf> {
    let path = shared_dir().join(rel);
    if path.is_file() {
        return Some(path);
    }
    // Written to the process's stderr directly, past the test harness's
    // output capture, so the line shows in a normal `cargo test` run.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: suite file {} not found (set FERRUM_DATA to the shared data folder)",
        path.display()
    );
    if let Some(log) = std::env::var_os("FERRUM_SKIP_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
    {
        let _ = writeln!(f, "{test}");
    }
    None
}

/// One perft-suite line: the FEN and the (depth, count) pairs.
pub struct PerftCase {
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Parses a perft suite (`FEN ;D1 n ;D2 n ... [;id x]`).
pub fn parse_perft_suite(text: &str) -> Vec<PerftCase> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .filter_map(|p| {
                    let p = p.trim();
                    let rest = p.strip_prefix('D')?;
                    let (d, n) = rest.split_once(' ')?;
                    Some((d.parse().ok()?, n.trim().parse().ok()?))
                })
                .collect();
            PerftCase { fen, counts }
        })
        .collect()
}

/// Reads the perft suite `perft/<name>` from the shared data folder, or
/// `None` (reported as a skip of `test`) when it is missing.
pub fn perft_suite(test: &str, name: &str) -> Option<Vec<PerftCase>> {
    let path = suite(test, &format!("perft/{name}"))?;
    let text = std::fs::read_to_string(&path).expect("readable suite file");
    Some(parse_perft_suite(&text))
}
