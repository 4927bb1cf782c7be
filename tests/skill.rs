//! Weakened play: the same seed gives the same game, other seeds other
//! games; every move legal.

use ferrum::chess::state::GameState;
use ferrum::search::skill::{LINES, Skill};
use ferrum::search::tt::TranspositionTable;
use ferrum::search::{Limits, SearchOptions, Signals, Silent, search};
use rand::SeedableRng;
use rand::rngs::StdRng;
use shakmaty::{Chess, Position};

/// A game of `plies` moves at `skill`, choices drawn from `seed`.
fn game(skill: Skill, seed: u64, plies: usize) -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = GameState::new(Chess::default());
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let limits = Limits {
        nodes: Some(skill.node_limit()),
        ..Limits::default()
    };
    let options = SearchOptions {
        multipv: LINES,
        ..SearchOptions::default()
    };
    let mut moves = Vec::new();
    for _ in 0..plies {
        if state.pos().legal_moves().is_empty() {
            break;
        }
        tt.clear();
        let r = search(&state, &limits, &options, &tt, &signals, &Silent);
        let scored: Vec<_> = r.lines.iter().map(|l| (l.pv[0], l.score)).collect();
        let m = skill.pick(&scored, &mut rng).unwrap();
        assert!(state.pos().is_legal(m));
        assert!(r.lines.iter().any(|l| l.pv[0] == m));
        moves.push(m.to_uci(shakmaty::CastlingMode::Standard).to_string());
        state.play(m);
    }
    moves
}

#[test]
fn same_seed_same_game_other_seeds_other_games() {
    let skill = Skill { level: 2.0 };
    let a = game(skill, 11, 16);
    assert_eq!(a, game(skill, 11, 16));
    let others: std::collections::HashSet<Vec<String>> =
        (12..16).map(|s| game(skill, s, 16)).collect();
    assert!(others.len() >= 3, "{others:?}");
    assert!(others.iter().any(|g| *g != a));
}
