//! Move generation: exact leaf counts through Ferrum's game state, and the
//! incremental Zobrist key checked against shakmaty's from-scratch key at
//! every node.
//!
//! Without any outside file: the chessprogramming-wiki positions with their
//! published counts, and positions reached by seeded random playouts (from
//! the standard start and from random Chess960 starts) whose perft is
//! checked against `shakmaty::perft` as an independent reference. With the
//! shared data folder (see tests/common): the public perft suites.

mod common;

use common::perft_suite;
use ferrum::chess::fen::parse_fen;
use ferrum::chess::movegen::{self, Pins, is_legal_quiet, is_noisy, legal_moves_staged};
use ferrum::chess::moves::attacked_by;
use ferrum::chess::perft::{divide, perft, perft_parallel};
use ferrum::chess::state::GameState;
use ferrum::search::history::History;
use ferrum::search::movepick::MovePicker;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// Checks every count of `cases` up to `max_nodes` (and at least depth 1),
/// on every `step`-th position. Returns the number of counts checked.
fn check_cases(
    name: &str,
    cases: &[common::PerftCase],
    chess960: bool,
    step: usize,
    max_nodes: u64,
) -> usize {
    let mut checked = 0;
    for case in cases.iter().step_by(step) {
        let pos = parse_fen(&case.fen, chess960).unwrap_or_else(|e| panic!("{e}"));
        let mut state = GameState::new(pos);
        for &(depth, expected) in &case.counts {
            if depth > 1 && expected > max_nodes {
                break;
            }
            assert_eq!(
                perft(&mut state, depth),
                expected,
                "{name}: {} depth {depth}",
                case.fen
            );
            checked += 1;
        }
    }
    checked
}

/// The shared suite `perft/<file>`, checked as [`check_cases`] does; `None`
/// when the shared data is missing (the test is then reported as skipped).
fn check_suite(
    test: &str,
    file: &str,
    chess960: bool,
    step: usize,
    max_nodes: u64,
) -> Option<usize> {
    let cases = perft_suite(test, file)?;
    Some(check_cases(file, &cases, chess960, step, max_nodes))
}

/// The chessprogramming-wiki "Perft Results" positions 1-6 (and the
/// mirrored position 4) with their published counts: well-known facts.
const CPW: [(&str, &[u64]); 7] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8_902, 197_281, 4_865_609],
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2_039, 97_862, 4_085_603],
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2_812, 43_238, 674_624],
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9_467, 422_333],
    ),
    (
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        &[6, 264, 9_467, 422_333],
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1_486, 62_379, 2_103_487],
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2_079, 89_890, 3_894_594],
    ),
];

fn cpw_cases() -> Vec<common::PerftCase> {
    CPW.iter()
        .map(|(fen, counts)| common::PerftCase {
            fen: fen.to_string(),
            counts: counts
                .iter()
                .enumerate()
                .map(|(i, &n)| (i as u32 + 1, n))
                .collect(),
        })
        .collect()
}

#[test]
fn cpw_positions() {
    assert_eq!(check_cases("cpw", &cpw_cases(), false, 1, 5_000_000), 30);
}

/// A random Chess960 start position (bishops on opposite colours, the king
/// between the rooks), in Shredder-FEN.
fn random_chess960(rng: &mut StdRng) -> String {
    let mut rank = [' '; 8];
    let dark = 2 * rng.random_range(0..4usize);
    let light = 2 * rng.random_range(0..4usize) + 1;
    rank[dark] = 'b';
    rank[light] = 'b';
    for piece in ['q', 'n', 'n'] {
        let free: Vec<usize> = (0..8).filter(|&i| rank[i] == ' ').collect();
        rank[free[rng.random_range(0..free.len())]] = piece;
    }
    // Three squares left: rook, king, rook in file order.
    let free: Vec<usize> = (0..8).filter(|&i| rank[i] == ' ').collect();
    rank[free[0]] = 'r';
    rank[free[1]] = 'k';
    rank[free[2]] = 'r';
    let black: String = rank.iter().collect();
    let files = |i: usize| (b'a' + free[i] as u8) as char;
    format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{}{}{} - 0 1",
        black.to_uppercase(),
        files(2).to_ascii_uppercase(),
        files(0).to_ascii_uppercase(),
        files(2),
        files(0)
    )
}

/// What the random positions covered, so that the test proves it exercised
/// every kind of move.
#[derive(Default, Debug)]
struct Coverage {
    positions: usize,
    chess960: usize,
    captures: usize,
    promotions: usize,
    castles: usize,
    en_passant: usize,
    checks: usize,
}

/// Positions from seeded random playouts: `games` games from the standard
/// start and as many from random Chess960 starts; every 4th position of
/// the first 40 plies is kept (castling, en passant) and every 20th after
/// (promotions, endings), until the game ends.
fn random_positions(seed: u64, games: usize) -> (Vec<Chess>, Coverage) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut cov = Coverage::default();
    for g in 0..2 * games {
        let chess960 = g % 2 == 1;
        let mut pos = if chess960 {
            parse_fen(&random_chess960(&mut rng), true).unwrap()
        } else {
            Chess::default()
        };
        for ply in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.is_insufficient_material() {
                break;
            }
            if (ply < 40 && ply % 4 == 3) || ply % 20 == 19 {
                cov.positions += 1;
                cov.chess960 += chess960 as usize;
                cov.checks += pos.is_check() as usize;
                cov.captures += moves.iter().any(|m| m.is_capture()) as usize;
                cov.promotions += moves.iter().any(|m| m.is_promotion()) as usize;
                cov.castles += moves.iter().any(|m| m.is_castle()) as usize;
                cov.en_passant += moves.iter().any(|m| m.is_en_passant()) as usize;
                out.push(pos.clone());
            }
            // Prefer the rarer moves, pawn moves (en passant, promotions)
            // and moves that keep castling rights, so that all are reached often.
            let pick = |v: Vec<shakmaty::Move>, rng: &mut StdRng| -> Option<shakmaty::Move> {
                (!v.is_empty()).then(|| v[rng.random_range(0..v.len())])
            };
            let special = moves
                .iter()
                .filter(|m| m.is_en_passant() || m.is_castle() || m.is_promotion())
                .cloned()
                .collect();
            let pawn = moves
                .iter()
                .filter(|m| m.role() == shakmaty::Role::Pawn)
                .cloned()
                .collect();
            let keeps_rights = moves
                .iter()
                .filter(|m| {
                    m.is_capture()
                        || !matches!(m.role(), shakmaty::Role::King | shakmaty::Role::Rook)
                })
                .cloned()
                .collect();
            let m = match rng.random_range(0..4) {
                0 => pick(special, &mut rng),
                1 => pick(pawn, &mut rng),
                2 => pick(keeps_rights, &mut rng),
                _ => None,
            }
            .unwrap_or_else(|| moves[rng.random_range(0..moves.len())]);
            pos.play_unchecked(m);
        }
    }
    (out, cov)
}

/// Ferrum's perft equals `shakmaty::perft` (the independent reference) on
/// ~2,000 random positions at depth 3, and on every 25th at depth 4.
#[test]
fn random_playouts_match_shakmaty_perft() {
    let (positions, cov) = random_positions(0x5eed_f00d, 60);
    assert!(positions.len() > 1500, "{cov:?}");
    assert!(cov.chess960 > 700, "{cov:?}");
    assert!(cov.captures > 1000, "{cov:?}");
    assert!(cov.checks > 50, "{cov:?}");
    assert!(cov.promotions > 30, "{cov:?}");
    assert!(cov.castles > 50, "{cov:?}");
    assert!(cov.en_passant > 8, "{cov:?}");
    let mut total = 0;
    for (i, pos) in positions.iter().enumerate() {
        let depth = if i % 25 == 0 { 4 } else { 3 };
        let expected = shakmaty::perft(pos, depth);
        let mut state = GameState::new(pos.clone());
        let fen = shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal);
        assert_eq!(perft(&mut state, depth), expected, "{fen} depth {depth}");
        total += expected;
    }
    assert!(total > 10_000_000, "{total}");
}

#[test]
fn perftsuite() {
    if let Some(n) = check_suite("perftsuite", "perftsuite.epd", false, 1, 5_000_000) {
        assert!(n >= 126 * 4);
    }
}

#[test]
fn cpw_suite_file_agrees_with_the_published_counts() {
    let Some(cases) = perft_suite("cpw_suite_file", "cpw_positions.epd") else {
        return;
    };
    assert_eq!(cases.len(), 7);
    assert!(check_cases("cpw_positions.epd", &cases, false, 1, 5_000_000) >= 7 * 4);
    for (case, (fen, counts)) in cases.iter().zip(CPW) {
        let a = parse_fen(&case.fen, false).unwrap();
        let b = parse_fen(fen, false).unwrap();
        assert_eq!(a.board(), b.board());
        for (&(_, n), &m) in case.counts.iter().zip(counts) {
            assert_eq!(n, m, "{fen}");
        }
    }
}

#[test]
fn tricky_pychess() {
    if let Some(n) = check_suite("tricky_pychess", "tricky_pychess.epd", false, 1, 5_000_000) {
        assert!(n >= 19 * 2);
    }
}

#[test]
fn chess960_sample() {
    if let Some(n) = check_suite(
        "chess960_sample",
        "chess960_fischer.epd",
        true,
        8,
        1_000_000,
    ) {
        assert!(n >= 120 * 3);
    }
}

#[test]
fn random_positions_sample() {
    if let Some(n) = check_suite(
        "random_positions_sample",
        "perft_random_marcel.epd",
        false,
        17,
        1_000_000,
    ) {
        assert!(n >= 400 * 3);
    }
}

#[test]
fn parallel_divide_matches_serial() {
    let pos = parse_fen(CPW[1].0, false).unwrap();
    let state = GameState::new(pos);
    let d = divide(&state, 3, 2);
    assert_eq!(d.len(), 48);
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
    assert_eq!(perft_parallel(&state, 4, 2), 4_085_603);
}

#[test]
#[ignore = "deep counts: minutes in debug, seconds in release (cargo test --release -- --ignored)"]
fn deep_counts() {
    let mut s = GameState::new(Chess::default());
    assert_eq!(perft(&mut s, 6), 119_060_324);
    let kiwipete = parse_fen(CPW[1].0, false).unwrap();
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

fn check_keys(cases: &[common::PerftCase], chess960: bool, step: usize, depth: u32) -> u64 {
    let mut nodes = 0;
    for case in cases.iter().step_by(step) {
        let pos = parse_fen(&case.fen, chess960).unwrap();
        nodes += walk_keys(&mut GameState::new(pos), depth);
    }
    nodes
}

#[test]
fn incremental_keys_cpw() {
    assert!(check_keys(&cpw_cases(), false, 1, 4) > 1_000_000);
}

#[test]
fn incremental_keys_random_playouts() {
    let (positions, _) = random_positions(0x00c0_ffee, 20);
    let mut nodes = 0;
    let mut chess960 = 0;
    for pos in &positions {
        let mut state = GameState::new(pos.clone());
        chess960 += (state.castling_mode() == CastlingMode::Chess960) as usize;
        nodes += walk_keys(&mut state, 2);
    }
    assert!(chess960 > 200, "{chess960}");
    assert!(nodes > 100_000, "{nodes}");
}

#[test]
fn incremental_keys_perftsuite() {
    if let Some(cases) = perft_suite("incremental_keys_perftsuite", "perftsuite.epd") {
        assert!(check_keys(&cases, false, 1, 3) > 100_000);
    }
}

#[test]
fn incremental_keys_tricky() {
    if let Some(cases) = perft_suite("incremental_keys_tricky", "tricky_pychess.epd") {
        assert!(check_keys(&cases, false, 1, 3) > 10_000);
    }
}

#[test]
fn incremental_keys_chess960() {
    if let Some(cases) = perft_suite("incremental_keys_chess960", "chess960_fischer.epd") {
        assert!(check_keys(&cases, true, 16, 3) > 100_000);
    }
}

#[test]
fn incremental_keys_random() {
    if let Some(cases) = perft_suite("incremental_keys_random", "perft_random_marcel.epd") {
        assert!(check_keys(&cases, false, 40, 3) > 100_000);
    }
}

/// Checks the staged generator at `pos` and, to `depth` plies, below it:
/// the noisy moves are exactly `legal_moves()`'s captures and queen
/// promotions, the quiet ones exactly the rest, each in shakmaty's order.
/// Returns the number of nodes checked.
fn check_staged(pos: &Chess, depth: u32) -> usize {
    let legal = pos.legal_moves();
    let (noisy, quiet) = legal_moves_staged(pos);
    if let (false, Some(pins)) = (pos.is_check(), Pins::of(pos)) {
        // The one-pass generator perft uses: shakmaty's list exactly.
        let mut all = shakmaty::MoveList::new();
        movegen::all_moves(pos, pins, &mut all);
        assert_eq!(all, legal, "all moves of {:?}", pos);
    }
    let want_noisy: Vec<Move> = legal.iter().copied().filter(|&m| is_noisy(m)).collect();
    let want_quiet: Vec<Move> = legal.iter().copied().filter(|&m| !is_noisy(m)).collect();
    let fen = || shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal).to_string();
    assert_eq!(noisy.to_vec(), want_noisy, "noisy moves of {}", fen());
    assert_eq!(quiet.to_vec(), want_quiet, "quiet moves of {}", fen());
    let mut nodes = 1;
    if depth > 0 {
        for &m in &legal {
            let mut child = pos.clone();
            child.play_unchecked(m);
            nodes += check_staged(&child, depth - 1);
        }
    }
    nodes
}

/// Staged generation (noisy, then quiet) gives exactly the legal moves in
/// shakmaty's order, at every node two plies below ~2,000 random positions
/// (standard and Chess960: checks, pins, en passant, promotions, castling).
#[test]
fn staged_generation_matches_legal_moves_on_random_positions() {
    let (positions, cov) = random_positions(0x57a9_ed00, 30);
    assert!(
        cov.checks > 20 && cov.en_passant > 3 && cov.castles > 20,
        "{cov:?}"
    );
    let nodes: usize = positions.iter().map(|p| check_staged(p, 2)).sum();
    assert!(nodes > 500_000, "{nodes}");
}

/// The same on the public perft suites, two plies below every position.
#[test]
fn staged_generation_matches_legal_moves_on_the_perft_suites() {
    for (test, file, chess960) in [
        ("staged_perftsuite", "perftsuite.epd", false),
        ("staged_chess960", "chess960_fischer.epd", true),
        ("staged_tricky", "tricky_pychess.epd", false),
    ] {
        let Some(cases) = perft_suite(test, file) else {
            continue;
        };
        let mut nodes = 0;
        for case in &cases {
            let pos = parse_fen(&case.fen, chess960).unwrap_or_else(|e| panic!("{e}"));
            nodes += check_staged(&pos, 2);
        }
        assert!(nodes > 10 * cases.len(), "{file}: {nodes}");
    }
}

/// Every move the picker hands out, in order.
fn picked(pos: &Chess, mut picker: MovePicker) -> Vec<Move> {
    let history = History::default();
    let mut out = Vec::new();
    while let Some(m) = picker.next(pos, &history) {
        out.push(m);
    }
    out
}

/// The move picker hands out every legal move exactly once, the table
/// move first, whatever its table move, killers and counter-move are:
/// legal here, illegal here (moves of another position), captures or
/// quiets; quiescence hands out only legal noisy moves (all evasions in
/// check), each once.
#[test]
fn move_picker_hands_out_each_legal_move_once_in_every_stage_combination() {
    let (positions, _) = random_positions(0x91c4_e700, 20);
    let mut rng = StdRng::seed_from_u64(7);
    let mut foreign: Vec<Move> = Vec::new();
    let mut combos = [0usize; 4];
    for pos in &positions {
        let legal = pos.legal_moves();
        let mut candidates: Vec<Move> = legal.to_vec();
        candidates.extend(foreign.iter().copied());
        let draw = |rng: &mut StdRng| -> Option<Move> {
            (rng.random_range(0..4) != 0 && !candidates.is_empty())
                .then(|| candidates[rng.random_range(0..candidates.len())])
        };
        for _ in 0..6 {
            let tt = draw(&mut rng).filter(|m| legal.contains(m));
            let killers = [draw(&mut rng), draw(&mut rng)];
            let counter = draw(&mut rng);
            let illegal = killers
                .iter()
                .chain([&counter])
                .filter(|k| k.is_some_and(|m| !legal.contains(&m)))
                .count();
            combos[illegal.min(3)] += 1;
            let threats = attacked_by(pos.board(), !pos.turn());
            let out = picked(
                pos,
                MovePicker::new(tt, killers, counter, [None; 2], threats),
            );
            assert_eq!(out.len(), legal.len(), "{pos:?}");
            for m in &legal {
                assert_eq!(
                    out.iter().filter(|x| *x == m).count(),
                    1,
                    "{m:?} in {pos:?}"
                );
            }
            if let Some(tt) = tt {
                assert_eq!(out[0], tt);
            }
            let q = picked(pos, MovePicker::quiescence(tt, threats));
            let mut seen = std::collections::HashSet::new();
            for m in &q {
                assert!(legal.contains(m), "{m:?} in {pos:?}");
                assert!(pos.is_check() || is_noisy(*m), "{m:?} in {pos:?}");
                assert!(seen.insert(*m), "{m:?} twice in {pos:?}");
            }
            if pos.is_check() {
                assert_eq!(q.len(), legal.len());
            }
        }
        foreign = legal.to_vec();
    }
    assert!(combos.iter().all(|&n| n > 50), "{combos:?}");
}

/// Once the search says that every quiet move still to come would be
/// pruned unless it gives check (`only_checking_quiets`), the picker hands
/// out the same moves as before up to that point, then every remaining
/// legal move except quiets that give no check (killers and counter-moves
/// not yet tried may still come), each once: said after any number of
/// moves, in every stage.
#[test]
fn move_picker_drops_only_non_checking_quiets_after_the_switch() {
    use ferrum::chess::moves::gives_direct_check;
    let (positions, _) = random_positions(0x0c4e_c500, 20);
    let mut rng = StdRng::seed_from_u64(11);
    let history = History::default();
    let (mut dropped, mut checks_kept, mut cases) = (0usize, 0usize, 0usize);
    for pos in positions.iter().filter(|p| !p.is_check()) {
        let legal = pos.legal_moves();
        let quiets: Vec<Move> = legal.iter().copied().filter(|&m| !is_noisy(m)).collect();
        let pick = |rng: &mut StdRng| -> Option<Move> {
            (!quiets.is_empty() && rng.random_range(0..3) != 0)
                .then(|| quiets[rng.random_range(0..quiets.len())])
        };
        for _ in 0..4 {
            let tt = rng
                .random_bool(0.5)
                .then(|| legal[rng.random_range(0..legal.len())]);
            let (killers, counter) = ([pick(&mut rng), pick(&mut rng)], pick(&mut rng));
            let threats = attacked_by(pos.board(), !pos.turn());
            let full = picked(
                pos,
                MovePicker::new(tt, killers, counter, [None; 2], threats),
            );
            let switch = rng.random_range(0..=legal.len());
            let mut picker = MovePicker::new(tt, killers, counter, [None; 2], threats);
            let mut out = Vec::new();
            if switch == 0 {
                picker.only_checking_quiets(pos);
            }
            while let Some(m) = picker.next(pos, &history) {
                out.push(m);
                if out.len() == switch {
                    picker.only_checking_quiets(pos);
                }
            }
            let n = switch.min(out.len());
            assert_eq!(out[..n], full[..n], "{pos:?}");
            let mut seen = std::collections::HashSet::new();
            for m in &out {
                assert!(legal.contains(m), "{m:?} in {pos:?}");
                assert!(seen.insert(*m), "{m:?} twice in {pos:?}");
            }
            for &m in &legal {
                if seen.contains(&m) {
                    if !is_noisy(m)
                        && gives_direct_check(pos, m)
                        && out[..n].iter().all(|&x| x != m)
                    {
                        checks_kept += 1;
                    }
                    continue;
                }
                assert!(
                    !is_noisy(m) && !gives_direct_check(pos, m),
                    "{m:?} dropped in {pos:?}"
                );
                dropped += 1;
            }
            cases += 1;
        }
    }
    assert!(
        cases > 1000 && dropped > 10_000 && checks_kept > 100,
        "{cases} {dropped} {checks_kept}"
    );
}

/// `is_legal` answers as shakmaty's `is_legal`, and `is_legal_quiet` as
/// `!is_noisy(m) && is_legal(m)`, for every legal move of the position and
/// of the positions before it (table moves, killers and counter-moves come
/// from other positions), on random positions not in check.
#[test]
fn legal_move_tests_agree_with_shakmaty() {
    let (positions, _) = random_positions(0x1e9a_1000, 30);
    let mut pool: Vec<Move> = Vec::new();
    let (mut legal_quiets, mut refused) = (0, 0);
    for pos in positions.iter().filter(|p| !p.is_check()) {
        let pins = Pins::of(pos).expect("a king");
        let own = pos.legal_moves();
        for &m in own.iter().chain(&pool) {
            let legal = pos.is_legal(m);
            assert_eq!(movegen::is_legal(pos, pins, m), legal, "{m:?} in {pos:?}");
            let want = !is_noisy(m) && legal;
            assert_eq!(is_legal_quiet(pos, pins, m), want, "{m:?} in {pos:?}");
            if want {
                legal_quiets += 1;
            } else {
                refused += 1;
            }
        }
        pool.extend(own.iter().copied());
        if pool.len() > 400 {
            pool.drain(..200);
        }
    }
    assert!(
        legal_quiets > 20_000 && refused > 100_000,
        "{legal_quiets} {refused}"
    );
}
