//! Evaluation: colour and left-right symmetry on every suite position, the
//! trace agreeing with the evaluation, endgame scaling, mop-up mates, and
//! the tuner recovering known weights from data it makes itself.

mod common;

use ferrum::chess::fen::parse_fen;
use ferrum::chess::state::GameState;
use ferrum::eval::layout::{self, NUM_WEIGHTS, S};
use ferrum::eval::{evaluate, trace};
use ferrum::search::tt::TranspositionTable;
use ferrum::search::{Limits, SearchOptions, Signals, Silent, search};
use ferrum::tools::tune::{self, Dataset, TuneConfig};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

/// The colour-mirrored position: the board flipped and colours swapped,
/// the other side to move (castling rights and en passant dropped).
fn colour_mirror(pos: &Chess) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.mirror();
    setup.castling_rights = shakmaty::Bitboard::EMPTY;
    setup.ep_square = None;
    setup.position(shakmaty::CastlingMode::Standard).ok()
}

/// The left-right mirror (files a-h swapped).
fn flip_files(pos: &Chess) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.board.flip_horizontal();
    setup.castling_rights = shakmaty::Bitboard::EMPTY;
    setup.ep_square = None;
    setup.position(shakmaty::CastlingMode::Standard).ok()
}

/// Random positions from seeded playouts: openings to bare endgames.
fn random_positions(n: usize, seed: u64) -> Vec<Chess> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Chess::default();
        for ply in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Captures more often than chance, to reach endgames.
            let caps: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !caps.is_empty() && rng.random_range(0..2) == 0 {
                *caps[rng.random_range(0..caps.len())]
            } else {
                moves[rng.random_range(0..moves.len())]
            };
            pos.play_unchecked(m);
            if ply % 7 == 6 {
                out.push(pos.clone());
            }
        }
    }
    out
}

fn check_symmetry(positions: &[Chess]) -> usize {
    let mut checked = 0;
    for pos in positions {
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        let v = evaluate(pos);
        if let Some(m) = colour_mirror(pos) {
            assert_eq!(v, evaluate(&m), "colour mirror of {fen}");
            checked += 1;
        }
        if pos.castles().is_empty()
            && let Some(f) = flip_files(pos)
        {
            assert_eq!(v, evaluate(&f), "left-right mirror of {fen}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn symmetric_on_random_positions() {
    assert!(check_symmetry(&random_positions(3000, 11)) > 4000);
}

#[test]
fn symmetric_on_suite_positions() {
    let mut positions = Vec::new();
    for file in [
        "perft/perftsuite.epd",
        "perft/perft_random_marcel.epd",
        "perft/tricky_pychess.epd",
    ] {
        let Some(path) = common::suite("eval_symmetric_on_suite_positions", file) else {
            return;
        };
        let cases = common::parse_perft_suite(&std::fs::read_to_string(path).unwrap());
        positions.extend(cases.iter().filter_map(|c| parse_fen(&c.fen, false).ok()));
    }
    for file in ["tactical/wac.epd", "tactical/bratko_kopec.epd"] {
        let Some(path) = common::suite("eval_symmetric_on_suite_positions", file) else {
            return;
        };
        let suite = ferrum::tools::suite::Suite::load(&path).unwrap();
        positions.extend(suite.records.into_iter().map(|r| r.pos));
    }
    assert!(positions.len() > 7000);
    assert!(check_symmetry(&positions) > 7000);
}

/// The trace, evaluated with the weights, is the evaluation (up to the
/// engine's integer rounding), for both sides to move.
#[test]
fn trace_agrees_with_the_evaluation() {
    let w = tune::current();
    let mut data = Dataset::default();
    let positions = random_positions(500, 5);
    for pos in &positions {
        data.push(&trace(pos), 0.5, 0.0);
    }
    for (i, pos) in positions.iter().enumerate() {
        let white_view = match pos.turn() {
            shakmaty::Color::White => evaluate(pos),
            shakmaty::Color::Black => -evaluate(pos),
        };
        let traced = data.linear_eval(i, &w);
        assert!(
            (traced - f64::from(white_view)).abs() <= 2.0,
            "{}: trace {traced}, eval {white_view}",
            Fen::from_position(pos, EnPassantMode::Legal)
        );
    }
}

#[test]
fn drawish_material_is_scaled_toward_zero() {
    let eval = |fen: &str| evaluate(&parse_fen(fen, false).unwrap());
    // A lone minor piece cannot win; KR v KB and KR v KN rarely do.
    assert_eq!(
        eval("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"),
        eval("8/8/4k3/8/8/4K3/8/8 w - - 0 1")
    );
    let krkb = eval("8/8/4k3/8/2b5/4K3/8/R7 w - - 0 1");
    let krk = eval("8/8/4k3/8/8/4K3/8/R7 w - - 0 1");
    assert!(krkb < 150 && krk > 500, "KRKB {krkb}, KRK {krk}");
    // Opposite-coloured bishops with a pawn up, against same-coloured.
    let ocb = eval("8/5k2/8/2b1P3/8/4K3/8/5B2 w - - 0 1");
    let scb = eval("8/5k2/8/3bP3/8/4K3/8/5B2 w - - 0 1");
    assert!(ocb < scb, "OCB {ocb}, same colour {scb}");
    // The wrong bishop for the rook pawn, with the defender in the corner.
    assert_eq!(
        eval("7k/8/6K1/7P/8/8/8/1B6 w - - 0 1"),
        eval("7k/8/6K1/8/8/8/8/8 w - - 0 1")
    );
}

/// Plays the strong side's search moves and the weak side's best defence
/// (both at a node budget) until mate; the number of moves it took.
fn mates_within(fen: &str, nodes: u64, max_moves: usize) -> Option<usize> {
    let mut state = GameState::new(parse_fen(fen, false).unwrap());
    let tt = TranspositionTable::new(16);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    for ply in 0..2 * max_moves {
        if state.pos().is_checkmate() {
            return Some(ply.div_ceil(2));
        }
        if state.pos().legal_moves().is_empty() || state.is_draw(state.history_len()) {
            return None;
        }
        let r = search(
            &state,
            &limits,
            &SearchOptions::default(),
            &tt,
            &Signals::default(),
            &Silent,
        );
        state.play(r.best?);
        state.commit();
    }
    None
}

#[test]
fn mop_up_mates_kqk_krk_kbnk() {
    for fen in [
        "8/8/8/4k3/8/8/8/K6Q w - - 0 1",
        "8/8/3k4/8/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
        "8/8/8/3k4/8/8/8/1R2K3 w - - 0 1",
    ] {
        assert!(mates_within(fen, 20_000, 40).is_some(), "{fen}");
    }
    for fen in [
        "8/8/8/4k3/8/8/8/3NKB2 w - - 0 1",
        "8/8/8/8/3k4/8/8/2B1K1N1 w - - 0 1",
    ] {
        assert!(mates_within(fen, 100_000, 60).is_some(), "{fen}");
    }
}

/// Data the test makes: random positions labelled with the expected score
/// of known weights. Tuning from material only recovers the loss of the
/// known weights and their material values.
#[test]
fn tuner_recovers_known_weights() {
    // Known weights: material and a bishop pair, everything else zero, so
    // that they are identifiable from a few thousand positions.
    let mut known = [S(0, 0); NUM_WEIGHTS];
    let values = [(70, 140), (260, 330), (280, 350), (400, 620), (820, 1150)];
    for (r, &(m, e)) in values.iter().enumerate() {
        known[layout::MATERIAL + r] = S(m, e);
    }
    known[layout::BISHOP_PAIR] = S(40, 60);
    let known_flat = tune::flatten(&known);
    let k = 1.0;
    let mut data = Dataset::default();
    for pos in random_positions(20_000, 3) {
        let t = trace(&pos);
        let mut d1 = Dataset::default();
        d1.push(&t, 0.0, 0.0);
        let e = d1.linear_eval(0, &known_flat);
        // The result is the expected score itself; the score is the eval.
        let p = 1.0 / (1.0 + (-k * e / 400.0).exp());
        data.push(&t, p as f32, e as f32);
    }
    // Every weight is free; the start is material only.
    let cfg = TuneConfig {
        threads: 2,
        epochs: 1500,
        lr: 5.0,
        wdl: 1.0,
        holdout_every: 10,
    };
    let start = tune::material_only();
    let before = tune::loss(&data, &start, k, cfg.wdl, Some((10, true)));
    let tuned = tune::tune(&data, &start, k, &cfg, &|_, _| {});
    let after = tune::loss(&data, &tuned, k, cfg.wdl, Some((10, true)));
    let floor = tune::loss(&data, &known_flat, k, cfg.wdl, Some((10, true)));
    assert!(floor < 1e-9, "{floor}");
    assert!(before > 1e-4, "{before}");
    println!("held-out loss: known {floor:e}, before {before:e}, after {after:e}");
    assert!(after < before / 10.0, "before {before}, after {after}");
    // Material and piece-square weights are collinear (a constant added to
    // every square of a piece's table is its material), so the weights are
    // recovered as a function: the tuned evaluation equals the known one
    // within a few centipawns on the held-out positions.
    let mut diff = 0.0;
    let mut n = 0;
    for i in (9..data.len()).step_by(10) {
        diff += (data.linear_eval(i, &tuned) - data.linear_eval(i, &known_flat)).abs();
        n += 1;
    }
    let mean = diff / n as f64;
    println!("mean difference {mean:.2} cp");
    assert!(mean < 10.0, "mean difference {mean} cp");
}
