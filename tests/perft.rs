//! Perft suites: exact leaf counts through Ferrum's game state, and the
//! incremental Zobrist key checked against shakmaty's from-scratch key at
//! every node. Data: tests/data (see tests/data/SOURCES.md).

mod common;

use common::perft_suite;
use ferrum::fen::parse_fen;
use ferrum::perft::{divide, perft, perft_parallel};
use ferrum::state::GameState;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{EnPassantMode, Position};

/// Checks every count of `file` up to `max_nodes` (and at least depth 1),
/// on every `step`-th position.
fn check_suite(file: &str, chess960: bool, step: usize, max_nodes: u64) -> usize {
    let mut checked = 0;
    for case in perft_suite(file).iter().step_by(step) {
        let pos = parse_fen(&case.fen, chess960).unwrap_or_else(|e| panic!("{e}"));
        let mut state = GameState::new(pos);
        for &(depth, expected) in &case.counts {
            if depth > 1 && expected > max_nodes {
                break;
            }
            assert_eq!(
                perft(&mut state, depth),
                expected,
                "{file}: {} depth {depth}",
                case.fen
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perftsuite() {
    assert!(check_suite("perftsuite.epd", false, 1, 5_000_000) >= 126 * 4);
}

#[test]
fn cpw_positions() {
    assert!(check_suite("cpw_positions.epd", false, 1, 5_000_000) >= 7 * 4);
}

#[test]
fn tricky_pychess() {
    assert!(check_suite("tricky_pychess.epd", false, 1, 5_000_000) >= 19 * 2);
}

#[test]
fn chess960_sample() {
    assert!(check_suite("chess960_fischer.epd", true, 8, 1_000_000) >= 120 * 3);
}

#[test]
fn random_positions_sample() {
    assert!(check_suite("perft_random_marcel.epd", false, 17, 1_000_000) >= 400 * 3);
}

#[test]
fn parallel_divide_matches_serial() {
    let pos = parse_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
    )
    .unwrap();
    let state = GameState::new(pos);
    let d = divide(&state, 3, 2);
    assert_eq!(d.len(), 48);
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert_eq!(perft_parallel(&state, 4, 2), 4_085_603);
}

#[test]
#[ignore = "deep counts: minutes in debug, seconds in release (cargo test --release -- --ignored)"]
fn deep_counts() {
    let mut s = GameState::new(shakmaty::Chess::default());
    assert_eq!(perft(&mut s, 6), 119_060_324);
    let kiwipete = parse_fen(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
    )
    .unwrap();
    assert_eq!(perft(&mut GameState::new(kiwipete), 5), 193_690_690);
}

/// Walks the legal move tree to `depth`, asserting at every node that the
/// incremental key equals the from-scratch key, also after a null move,
/// and that undo restores it. Returns the number of nodes checked.
fn walk_keys(state: &mut GameState, depth: u32) -> u64 {
    let expected = state
        .pos()
        .zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
        .0;
    assert_eq!(
        state.key(),
        expected,
        "{}",
        shakmaty::fen::Fen::from_position(state.pos(), EnPassantMode::Always)
    );
    if state.play_null() {
        let after_null = state
            .pos()
            .zobrist_hash::<Zobrist64>(EnPassantMode::Legal)
            .0;
        assert_eq!(state.key(), after_null, "after null move");
        assert!(state.undo());
        assert_eq!(state.key(), expected, "undo of null move");
    } else {
        assert!(state.in_check(), "null move refused only in check");
    }
    if depth == 0 {
        return 1;
    }
    let mut nodes = 1;
    for m in state.pos().legal_moves() {
        state.play(m);
        nodes += walk_keys(state, depth - 1);
        assert!(state.undo());
        assert_eq!(state.key(), expected, "undo of {m:?}");
    }
    nodes
}

fn check_keys(file: &str, chess960: bool, step: usize, depth: u32) -> u64 {
    let mut nodes = 0;
    for case in perft_suite(file).iter().step_by(step) {
        let pos = parse_fen(&case.fen, chess960).unwrap();
        nodes += walk_keys(&mut GameState::new(pos), depth);
    }
    nodes
}

#[test]
fn incremental_keys_perftsuite() {
    let n = check_keys("perftsuite.epd", false, 1, 3);
    assert!(n > 100_000, "{n}");
}

#[test]
fn incremental_keys_cpw_and_tricky() {
    assert!(check_keys("cpw_positions.epd", false, 1, 4) > 1_000_000);
    assert!(check_keys("tricky_pychess.epd", false, 1, 3) > 10_000);
}

#[test]
fn incremental_keys_chess960() {
    assert!(check_keys("chess960_fischer.epd", true, 16, 3) > 100_000);
}

#[test]
fn incremental_keys_random() {
    assert!(check_keys("perft_random_marcel.epd", false, 40, 3) > 100_000);
}
