//! Helpers shared by the integration tests: reading the data files in
//! `tests/data/`.

#![allow(dead_code)]

use std::path::PathBuf;

/// Path of a file in `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

/// One perft-suite line: the FEN and the (depth, count) pairs.
pub struct PerftCase {
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads a perft suite (`FEN ;D1 n ;D2 n ... [;id x]`).
pub fn perft_suite(name: &str) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(data(name)).expect("test data file");
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
