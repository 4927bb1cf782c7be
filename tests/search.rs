//! Search tests: mates found with the exact distance, a tactic suite at a
//! fixed node budget, draw detection, and a deterministic bench.

mod common;

use ferrum::chess::fen::parse_fen;
use ferrum::chess::score::to_uci;
use ferrum::chess::state::GameState;
use ferrum::search::tt::TranspositionTable;
use ferrum::search::{Limits, SearchOptions, Signals, Silent, search, search_fixed_depth};
use ferrum::tools::epd::{parse_text, solve};
use ferrum::tools::suite::Suite;
use shakmaty::{Chess, Move, Position};

/// Whether the side to move can force mate in at most `k` moves, by an
/// exhaustive AND-OR search over the legal move tree: an exact proof,
/// independent of Ferrum's search (no pruning, no evaluation).
fn mates_within(pos: &Chess, k: u32) -> bool {
    let mut moves: Vec<(bool, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            (after.is_check(), m)
        })
        .collect();
    // Checks first: a mate is found sooner, the answer is the same.
    moves.sort_by_key(|(check, _)| !check);
    moves.into_iter().any(|(check, m)| {
        if k == 1 && !check {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        after.is_checkmate() || (k > 1 && every_reply_is_mated(&after, k - 1))
    })
}

/// Whether every legal reply of the side to move (not yet mated) leaves the
/// opponent a mate in at most `k`; false on stalemate.
fn every_reply_is_mated(pos: &Chess, k: u32) -> bool {
    let moves = pos.legal_moves();
    !moves.is_empty()
        && moves.iter().all(|&m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            mates_within(&after, k)
        })
}

/// The exact mate distance of `pos` if it is at most `n` moves.
fn mate_distance(pos: &Chess, n: u32) -> Option<u32> {
    (1..=n).find(|&k| mates_within(pos, k))
}

/// The verified mates: every sampled position of the sunfish mate files
/// (all of mate1 and mate3, every 4th of mate2, every 3rd of mate4) whose
/// exact mate distance, proved by [`mate_distance`], is at most what its
/// file claims, with that distance. Several sunfish positions are mates of
/// another length than their file says; those of a longer one are left
/// out. `None` when the shared data is missing.
fn verified_mates(test: &str) -> Option<Vec<(Chess, String, u32)>> {
    let mut jobs = Vec::new();
    for (n, step) in [(1u32, 1usize), (2, 4), (3, 1), (4, 3)] {
        let path = common::suite(test, &format!("tactical/mate{n}.fen"))?;
        let suite = Suite::load(&path).unwrap();
        assert!(suite.errors.is_empty(), "{:?}", suite.errors);
        for rec in suite.records.iter().step_by(step) {
            jobs.push((rec.pos.clone(), format!("mate{n}.fen:{}", rec.line), n));
        }
    }
    // Proving is the slow part: two threads.
    let half = jobs.len() / 2;
    let (a, b) = jobs.split_at(half);
    let prove = |part: &[(Chess, String, u32)]| -> Vec<(Chess, String, u32)> {
        part.iter()
            .filter_map(|(pos, id, n)| Some((pos.clone(), id.clone(), mate_distance(pos, *n)?)))
            .collect()
    };
    let (mut first, second) = std::thread::scope(|s| {
        let h = s.spawn(|| prove(b));
        (prove(a), h.join().unwrap())
    });
    first.extend(second);
    Some(first)
}

/// Searches every verified mate of distance `n` (a `go mate N` search capped
/// at `max_nodes`) and checks the reported score is exactly `mate N` and the
/// move legal. Returns how many were checked.
fn check_mates(mates: &[(Chess, String, u32)], n: u32, max_nodes: u64) -> usize {
    let mut checked = 0;
    for (pos, id, _) in mates.iter().filter(|m| m.2 == n) {
        let state = GameState::new(pos.clone());
        let limits = Limits {
            mate: Some(n as i32),
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
        assert_eq!(to_uci(r.score), format!("mate {n}"), "{id}");
        let best = r.best.expect("a move");
        assert!(pos.is_legal(best), "{id}");
        if n == 1 {
            let mut after = pos.clone();
            after.play_unchecked(best);
            assert!(after.is_checkmate(), "{id}");
        }
        checked += 1;
    }
    checked
}

/// The prover itself, on positions whose answers are known without it.
#[test]
fn mate_prover_is_exact() {
    let pos = |fen| parse_fen(fen, false).unwrap();
    // Back-rank mate in one; not a mate in zero moves of anything else.
    assert_eq!(
        mate_distance(&pos("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), 3),
        Some(1)
    );
    // Doubled rooks: Rc8+ Rxc8 Rxc8# is a mate in two, and there is none in one.
    let two = pos("r5k1/5ppp/8/8/8/8/2R2PPP/2R3K1 w - - 0 1");
    assert_eq!(mate_distance(&two, 3), Some(2));
    // A lone king and rook against a king in the middle: no mate in three.
    assert_eq!(
        mate_distance(&pos("8/8/8/3k4/8/8/8/R3K3 w - - 0 1"), 3),
        None
    );
    // Queen and king against king: a mate in one ...
    assert_eq!(
        mate_distance(&pos("7k/5K2/8/8/8/8/8/6Q1 w - - 0 1"), 2),
        Some(1)
    );
    // ... but a stalemate is not a mate.
    let stalemate = pos("7k/5K2/6Q1/8/8/8/8/8 b - - 0 1");
    assert!(!every_reply_is_mated(&stalemate, 3));
}

/// The sunfish mate positions, each mate distance proved exactly, and
/// Ferrum's search finding exactly that mate: 8 mates in one, 53 in two,
/// 10 in three and 8 in four.
#[test]
fn mates_found_with_the_exact_distance() {
    let Some(mates) = verified_mates("mates_found_with_the_exact_distance") else {
        return;
    };
    assert_eq!(mates.len(), 91);
    assert_eq!(check_mates(&mates, 1, 100_000), 8);
    assert_eq!(check_mates(&mates, 2, 2_000_000), 53);
    assert_eq!(check_mates(&mates, 3, 5_000_000), 14);
    assert_eq!(check_mates(&mates, 4, 5_000_000), 16);
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
    let Some(path) = common::suite("win_at_chess_fixed_nodes", "tactical/wac.epd") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
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
        .filter(|r| {
            solve(
                r,
                &limits,
                1,
                &ferrum::search::params::Params::default(),
                None,
                &tt,
            )
            .solved
        })
        .count();
    println!("WAC solved at 100k nodes: {solved}/300");
    assert!(solved >= WAC_SOLVED_AT_100K, "solved {solved}");
}

/// Raise as the search improves. With the embedded net n2 (bench 734226):
/// 253; the hand-crafted evaluation solves 262 at the same node count (the
/// net wins games yet finds fewer of these tactics at equal nodes). The
/// first #12 search (bench 1198475) solves 258; the second (bench 1147857)
/// 235: its razoring and ProbCut win games (+41 Elo with the LMR changes)
/// but cost these tactics (249 without razoring, 246 without ProbCut, 257
/// without both), which is open work in #12. Net n3 (bench 965027): 233;
/// with ProbCut sparing quiet sacrifices (bench 930094): 233 again. With
/// the correction history keyed by pieces too (bench 955756): 229 (it wins
/// +11.8 ± 12.9 Elo in 1800 fixed-node games). With reverse futility on
/// the table value and fail-soft bounds that cover futility-pruned moves
/// (bench 838640): 236. Without razoring (bench 819347, +41 Elo): 246.
/// Without ProbCut too (bench 901581, level in games): 250. Net n7
/// (bench 880033): 248. Net n9 (bench 894928, +18 Elo over n7 in 1200
/// fixed-node games): 247. Net n10 (bench 893692, +15 over n9 in 1800): 252.
/// One ply less reduction for quiet moves joining an attack on the king
/// (bench 944253, level in 1000 fixed-node games): 249 here, while WAC
/// revised at 1 s goes 294 → 296 (a deeper look at fewer quiet moves costs
/// depth at this small budget). The SPSA-tuned parameters (bench 793007):
/// 254. Net n15 (bench 860157): 254. Net n16 (bench 820546, +46 over n15
/// at 10+0.1): 252.
/// Net n26w, 256 neurons (bench 789923, +22 over n16 at 10+0.1): 249.
/// Quiet history keyed by the threats on a move's squares (bench 778769,
/// +27 at 10+0.1): 257. Net n42, 8 king buckets (bench 799451, +110 over
/// n10 at 10+0.1 where n26w was +57): 251.
const WAC_SOLVED_AT_100K: usize = 251;

fn score_at_depth(fen: &str, moves: &[&str], depth: i32) -> i32 {
    let pos = parse_fen(fen, false).unwrap();
    let mut state = GameState::new(pos);
    for m in moves {
        let mv = ferrum::uci::engine::parse_move(state.pos(), m).unwrap();
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
        let mv = ferrum::uci::engine::parse_move(state.pos(), m).unwrap();
        state.play(mv);
    }
    state.commit();
    state
}

#[test]
fn threefold_repetition_is_taken_when_behind_and_avoided_when_ahead() {
    let c6b8 = |s: &GameState| ferrum::uci::engine::parse_move(s.pos(), "c6b8").unwrap();
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
    let a = ferrum::search::bench::run(5, &|_, _| {});
    let b = ferrum::search::bench::run(5, &|_, _| {});
    assert_eq!(a.nodes, b.nodes);
    assert!(a.nodes > 10_000);
}

#[test]
fn node_limit_and_searchmoves() {
    let state = GameState::new(shakmaty::Chess::default());
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let a2a3 = ferrum::uci::engine::parse_move(state.pos(), "a2a3").unwrap();
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

/// The best move, score and nodes of a depth-`depth` search of `fen` with
/// the search parameter `name` set to `value`.
fn search_with_param(fen: &str, depth: i32, name: &str, value: i32) -> (String, i32, u64) {
    let state = GameState::new(parse_fen(fen, false).unwrap());
    let mut options = SearchOptions::default();
    options.params.set(name, value).unwrap();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let tt = TranspositionTable::new(4);
    let r = search(&state, &limits, &options, &tt, &Signals::default(), &Silent);
    (
        r.best
            .unwrap()
            .to_uci(shakmaty::CastlingMode::Standard)
            .to_string(),
        r.score,
        r.nodes,
    )
}

/// `qs_checks`: at depth 1 the queen that guards the back rank can take a
/// knight; the mate that follows (...Rd1#) is a quiet check, beyond the
/// horizon of a quiescence search of captures, seen by one that also tries
/// quiet checks.
#[test]
fn quiet_checks_in_quiescence_see_a_back_rank_mate() {
    let fen = "3r2k1/1n3ppp/8/8/8/1Q6/5PPP/6K1 w - - 0 1";
    let (best, score, _) = search_with_param(fen, 1, "qs_checks", 0);
    assert_eq!(
        best, "b3b7",
        "without quiet checks the bait is taken ({score})"
    );
    let (best, score, _) = search_with_param(fen, 1, "qs_checks", 1);
    assert_ne!(best, "b3b7");
    assert!(score > -ferrum::chess::score::MATE_BOUND, "{best} {score}");
}

/// `nmp_margin`: null-move pruning asks for a larger lead over beta at low
/// depth, so it cuts less and the same depth takes more nodes.
#[test]
fn null_move_margin_prunes_less() {
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
    let (_, _, plain) = search_with_param(fen, 10, "nmp_margin", 0);
    let (_, _, margin) = search_with_param(fen, 10, "nmp_margin", 400);
    assert!(margin > plain, "{margin} <= {plain}");
}

/// `eval_rule50`: the same position a rook up (its pawns locked, so that
/// no line resets the counter) scores less the longer nothing has been
/// captured or pushed (about half as much at 90 half-moves with the
/// parameter at 200), and exactly the same without it.
#[test]
fn fifty_move_counter_damps_the_evaluation() {
    let fen = |halfmoves: u32| format!("8/6k1/5p2/4pP2/4P3/8/8/3R2K1 w - - {halfmoves} 80");
    let score = |halfmoves, value| search_with_param(&fen(halfmoves), 4, "eval_rule50", value).1;
    assert_eq!(score(0, 0), score(90, 0));
    let (fresh, stale) = (score(0, 200), score(90, 200));
    assert!(fresh > 300, "{fresh}");
    assert!(
        3 * stale > fresh && 3 * stale < 2 * fresh,
        "{stale} against {fresh}"
    );
}

/// A reduction parameter at `value` grows another tree than at 0 on the
/// same middlegame to `depth`, and still finds the doubled rooks' mate in
/// two, exactly: it changes what is searched, not what is proved.
fn assert_changes_the_tree_not_the_mate(name: &str, value: i32, depth: i32) {
    let middlegame = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
    let (_, _, off) = search_with_param(middlegame, depth, name, 0);
    let (_, _, on) = search_with_param(middlegame, depth, name, value);
    assert_ne!(off, on, "{name}={value} searched the same tree");
    let mate = "r5k1/5ppp/8/8/8/8/2R2PPP/2R3K1 w - - 0 1";
    let (best, score, _) = search_with_param(mate, 8, name, value);
    assert_eq!(best, "c2c8");
    assert_eq!(score, ferrum::chess::score::mate_in(3));
}

/// `lmr_fractional`: reductions summed in 1024ths of a ply (the table's
/// fractions and small history scores now count).
#[test]
fn fractional_reductions_change_the_tree_not_the_mate() {
    assert_changes_the_tree_not_the_mate("lmr_fractional", 1, 10);
}

/// `lmr_singular_quiet`: the later moves of a node whose quiet table move
/// was singular-extended are reduced less (singular extensions start at
/// depth 8, so a depth-12 search meets them).
#[test]
fn singular_quiet_reductions_change_the_tree_not_the_mate() {
    assert_changes_the_tree_not_the_mate("lmr_singular_quiet", 2, 12);
}

/// A caller that keeps one `Signals` for many searches (data generation,
/// game analysis) gets full searches every time, not only the first.
#[test]
fn signals_serve_one_search_after_another() {
    let tt = TranspositionTable::new(4);
    let signals = Signals::default();
    let limits = Limits {
        depth: Some(6),
        ..Limits::default()
    };
    let nodes_limits = Limits {
        nodes: Some(30_000),
        ..Limits::default()
    };
    let mut state = GameState::new(shakmaty::Chess::default());
    for i in 0..4 {
        let r = search(
            &state,
            &limits,
            &SearchOptions::default(),
            &tt,
            &signals,
            &Silent,
        );
        assert_eq!(r.depth, 6, "search {i} stopped at depth {}", r.depth);
        let r = search(
            &state,
            &nodes_limits,
            &SearchOptions::default(),
            &tt,
            &signals,
            &Silent,
        );
        assert!(r.nodes >= 29_000, "search {i}: {} nodes", r.nodes);
        state.play(r.best.unwrap());
    }
}

/// Keeps every line a search reports, as a GUI would see them.
struct Recorder(std::sync::Mutex<Vec<(i32, Vec<Move>)>>);

impl ferrum::search::Reporter for Recorder {
    fn info(&self, info: &ferrum::search::Info) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push((info.depth, info.pv.to_vec()));
        }
    }
}

/// A search nobody watches (`Silent`, as data generation runs them) skips
/// gathering its `info` counts and must search exactly what a watched one
/// does: the same move, score, line and node count.
#[test]
fn a_silent_search_searches_what_a_watched_one_does() {
    let fens = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let limits = Limits {
        depth: Some(8),
        ..Limits::default()
    };
    for fen in fens {
        let state = GameState::new(parse_fen(fen, false).unwrap());
        let run = |reporter: &dyn ferrum::search::Reporter| {
            let tt = TranspositionTable::new(4);
            search(
                &state,
                &limits,
                &SearchOptions::default(),
                &tt,
                &Signals::default(),
                reporter,
            )
        };
        let silent = run(&Silent);
        let recorder = Recorder(std::sync::Mutex::new(Vec::new()));
        let watched = run(&recorder);
        assert_eq!(silent.best, watched.best, "{fen}");
        assert_eq!(silent.score, watched.score, "{fen}");
        assert_eq!(silent.pv, watched.pv, "{fen}");
        assert_eq!(silent.nodes, watched.nodes, "{fen}");
        let lines = recorder.0.into_inner().unwrap();
        let (depth, pv) = lines.last().expect("a watched search reports lines");
        assert_eq!(*depth, 8, "{fen}");
        assert_eq!(pv.first(), watched.best.as_ref(), "{fen}");
    }
}
