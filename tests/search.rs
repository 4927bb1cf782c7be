//! Search tests: mates found with the exact distance, a tactic suite at a
//! fixed node budget, draw detection, and a deterministic bench.

mod common;

use ferrum::epd::{parse_text, solve};
use ferrum::fen::parse_fen;
use ferrum::score::to_uci;
use ferrum::search::{Limits, SearchOptions, Signals, Silent, search, search_fixed_depth};
use ferrum::state::GameState;
use ferrum::tt::TranspositionTable;
use shakmaty::Position;

/// Searches every record of `mates_verified.epd` with mate distance `n`
/// (a `go mate N` search capped at `max_nodes`) and checks the reported
/// score is exactly `mate N` and the move legal.
fn check_mates(n: i32, max_nodes: u64) -> usize {
    let text = std::fs::read_to_string(common::data("mates_verified.epd")).unwrap();
    let (records, errors) = parse_text(&text);
    assert!(errors.is_empty(), "{errors:?}");
    let mut checked = 0;
    for rec in records.iter().filter(|r| r.mate == Some(n)) {
        let state = GameState::new(rec.pos.clone());
        let limits = Limits {
            mate: Some(n),
            nodes: Some(max_nodes),
            ..Limits::default()
        };
        let tt = TranspositionTable::new(16);
        let r = search(
            &state,
            &limits,
            &SearchOptions::default(),
            &tt,
            &Signals::default(),
            &Silent,
        );
        assert_eq!(
            to_uci(r.score),
            format!("mate {n}"),
            "{} ({})",
            rec.fen,
            rec.id
        );
        let best = r.best.expect("a move");
        assert!(rec.pos.is_legal(best), "{}", rec.fen);
        if n == 1 {
            let mut after = rec.pos.clone();
            after.play_unchecked(best);
            assert!(after.is_checkmate(), "{}", rec.fen);
        }
        checked += 1;
    }
    checked
}

#[test]
fn mate_in_one() {
    assert_eq!(check_mates(1, 100_000), 8);
}

#[test]
fn mate_in_two() {
    assert_eq!(check_mates(2, 2_000_000), 53);
}

#[test]
fn mate_in_three() {
    assert_eq!(check_mates(3, 5_000_000), 10);
}

#[test]
fn mate_in_four() {
    assert_eq!(check_mates(4, 5_000_000), 8);
}

#[test]
fn checkmated_and_stalemated_roots() {
    // Fool's mate: White is checkmated, there is no move.
    let mated = parse_fen(
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        false,
    )
    .unwrap();
    let r = search_fixed_depth(&GameState::new(mated), 5, 1);
    assert_eq!(r.best, None);
    assert_eq!(to_uci(r.score), "mate 0");
    let stalemate = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
    let r = search_fixed_depth(&GameState::new(stalemate), 5, 1);
    assert_eq!(r.best, None);
    assert_eq!(r.score, 0);
}

/// WAC at a fixed node budget per position, single thread: deterministic.
#[test]
fn win_at_chess_fixed_nodes() {
    let text = std::fs::read_to_string(common::data("wac.epd")).unwrap();
    let (records, errors) = parse_text(&text);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(records.len(), 300);
    let limits = Limits {
        nodes: Some(100_000),
        ..Limits::default()
    };
    let tt = TranspositionTable::new(16);
    let solved = records
        .iter()
        .filter(|r| solve(r, &limits, 1, &tt).solved)
        .count();
    println!("WAC solved at 100k nodes: {solved}/300");
    assert!(solved >= WAC_SOLVED_AT_100K, "solved {solved}");
}

/// Raise as the search improves.
const WAC_SOLVED_AT_100K: usize = 253;

fn score_at_depth(fen: &str, moves: &[&str], depth: i32) -> i32 {
    let pos = parse_fen(fen, false).unwrap();
    let mut state = GameState::new(pos);
    for m in moves {
        let mv = ferrum::engine::parse_move(state.pos(), m).unwrap();
        state.play(mv);
    }
    state.commit();
    search_fixed_depth(&state, depth, 4).score
}

#[test]
fn draws_score_zero() {
    // Insufficient material: king and knight against king.
    assert_eq!(score_at_depth("8/8/4k3/8/8/3NK3/8/8 w - - 0 1", &[], 8), 0);
    // Fifty-move rule: a rook up, but the clock has run out at the next move.
    let v = score_at_depth("8/8/4k3/8/8/4K3/8/7R w - - 99 80", &[], 6);
    assert_eq!(v, 0);
}

/// Plays knight shuffles so that Black, to move, can repeat the start
/// position for the third time with Nc6-b8.
fn after_shuffles(fen: &str) -> GameState {
    let mut state = GameState::new(parse_fen(fen, false).unwrap());
    for m in ["g1f3", "b8c6", "f3g1", "c6b8", "g1f3", "b8c6", "f3g1"] {
        let mv = ferrum::engine::parse_move(state.pos(), m).unwrap();
        state.play(mv);
    }
    state.commit();
    state
}

#[test]
fn threefold_repetition_is_taken_when_behind_and_avoided_when_ahead() {
    let c6b8 = |s: &GameState| ferrum::engine::parse_move(s.pos(), "c6b8").unwrap();
    // Black is a queen down: repeating draws at once.
    let behind = after_shuffles("1n2k3/8/8/8/8/8/8/3QK1N1 w - - 0 1");
    let r = search_fixed_depth(&behind, 6, 4);
    assert_eq!(r.best, Some(c6b8(&behind)));
    assert_eq!(r.score, 0);
    // Black is a queen up: it plays on.
    let ahead = after_shuffles("1n1qk3/8/8/8/8/8/8/4K1N1 w - - 0 1");
    let r = search_fixed_depth(&ahead, 6, 4);
    assert_ne!(r.best, Some(c6b8(&ahead)));
    assert!(r.score > 500, "{}", r.score);
}

#[test]
fn bench_is_deterministic() {
    let a = ferrum::bench::run(5, &|_, _| {});
    let b = ferrum::bench::run(5, &|_, _| {});
    assert_eq!(a.nodes, b.nodes);
    assert!(a.nodes > 10_000);
}

#[test]
fn node_limit_and_searchmoves() {
    let state = GameState::new(shakmaty::Chess::default());
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let a2a3 = ferrum::engine::parse_move(state.pos(), "a2a3").unwrap();
    let limits = Limits {
        nodes: Some(20_000),
        searchmoves: vec![a2a3],
        ..Limits::default()
    };
    let r = search(
        &state,
        &limits,
        &SearchOptions::default(),
        &tt,
        &signals,
        &Silent,
    );
    assert_eq!(r.best, Some(a2a3));
    assert!(r.nodes <= 20_000 + 1024, "{}", r.nodes);
}
