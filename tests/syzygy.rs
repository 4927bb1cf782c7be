//! Syzygy tablebases: won endings converted within the fifty-move rule
//! against the tables' best defence, drawn ones held, and the UCI options
//! (scores, `tbhits`, bad paths and damaged files).
//!
//! The tables are read from `$FERRUM_DATA/syzygy`, else
//! `../shared/data/syzygy`; without them each test says so and is counted
//! as skipped. The probes themselves are compared with python-chess's
//! prober on 10,000 positions in `scripts/tests/test_syzygy.py`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::engine::Engine;
use ferrum::chess::fen::parse_fen;
use ferrum::chess::score::{TB_BOUND, TB_WIN};
use ferrum::chess::state::GameState;
use ferrum::search::syzygy::{Tablebases, TbConfig};
use ferrum::search::tt::TranspositionTable;
use ferrum::search::{Limits, SearchOptions, Signals, Silent, search};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{CastlingMode, Chess, Color, Move, Piece, Position, Role, Setup, Square};
use shakmaty_syzygy::{Tablebase, Wdl};

/// Nodes Ferrum searches a move: a small budget, so that the tables and
/// not the search do the converting.
const NODES: u64 = 1000;

/// The tables folder, or `None` after reporting the skip of `test`.
fn tables(test: &str) -> Option<PathBuf> {
    common::suite(test, "syzygy/KQvK.rtbw").map(|p| p.parent().unwrap().to_path_buf())
}

/// The independent referee: shakmaty-syzygy's own prober and best move.
fn referee(dir: &Path) -> Tablebase<Chess> {
    let mut tb = Tablebase::new();
    tb.add_directory(dir).unwrap();
    tb
}

/// A fresh temporary folder holding copies of the tables `names` of `dir`.
fn table_folder(dir: &Path, tag: &str, names: &[&str]) -> PathBuf {
    let tmp = std::env::temp_dir().join(format!("ferrum-syzygy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    for name in names {
        std::fs::copy(dir.join(name), tmp.join(name)).unwrap();
    }
    tmp
}

fn config(dir: &Path) -> TbConfig {
    TbConfig::new(Arc::new(Tablebases::load_dir(dir).unwrap()))
}

/// Ferrum's move at a node budget with the tables.
fn ferrum_move(state: &GameState, tb: &TbConfig, tt: &TranspositionTable) -> Move {
    let limits = Limits {
        nodes: Some(NODES),
        ..Limits::default()
    };
    let options = SearchOptions {
        syzygy: Some(tb.clone()),
        ..SearchOptions::default()
    };
    search(state, &limits, &options, tt, &Signals::default(), &Silent)
        .best
        .expect("a legal move")
}

/// Random positions with the two kings and `extra` pieces whose side to
/// move wins (`want` Win) or draws, halfmove clock zero.
fn random_positions(
    referee: &Tablebase<Chess>,
    extra: &[Piece],
    want: Wdl,
    count: usize,
    seed: u64,
) -> Vec<Chess> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut setup = Setup::empty();
        let mut used = Vec::new();
        let mut square = |rng: &mut StdRng| loop {
            let s = Square::new(rng.random_range(0..64));
            if !used.contains(&s) {
                used.push(s);
                return s;
            }
        };
        setup
            .board
            .set_piece_at(square(&mut rng), Color::White.king());
        setup
            .board
            .set_piece_at(square(&mut rng), Color::Black.king());
        for &p in extra {
            setup.board.set_piece_at(square(&mut rng), p);
        }
        setup.turn = Color::White;
        let Ok(pos) = setup.position::<Chess>(CastlingMode::Standard) else {
            continue;
        };
        if referee.probe_wdl_after_zeroing(&pos).ok() == Some(want) {
            out.push(pos);
        }
    }
    out
}

/// Plays Ferrum (the side to move at the start) against the tables' best
/// defence; returns the plies to mate, failing on anything but a mate by
/// Ferrum within the fifty-move rule.
fn convert(start: &Chess, tb: &TbConfig, referee: &Tablebase<Chess>) -> usize {
    let fen = shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal);
    let us = start.turn();
    let tt = TranspositionTable::new(4);
    let mut state = GameState::new(start.clone());
    for ply in 0..400 {
        let pos = state.pos().clone();
        if pos.is_checkmate() {
            assert_ne!(pos.turn(), us, "{fen}: Ferrum was mated");
            return ply;
        }
        assert!(
            pos.halfmoves() < 100,
            "{fen}: fifty moves without progress at ply {ply}"
        );
        assert!(!pos.is_stalemate(), "{fen}: stalemate at ply {ply}");
        assert!(
            !state.is_draw(state.history_len()),
            "{fen}: drawn at ply {ply}"
        );
        let m = if pos.turn() == us {
            ferrum_move(&state, tb, &tt)
        } else {
            referee.best_move(&pos).unwrap().unwrap().0
        };
        state.play(m);
        state.commit();
    }
    panic!("{fen}: no mate in 400 plies");
}

#[test]
fn won_endings_are_converted_within_the_fifty_move_rule() {
    let Some(dir) = tables("won_endings_are_converted_within_the_fifty_move_rule") else {
        return;
    };
    let (tb, referee) = (config(&dir), referee(&dir));
    let w = |r: Role| r.of(Color::White);
    let b = |r: Role| r.of(Color::Black);
    let mut starts: Vec<Chess> = [
        "8/8/8/8/8/8/3k4/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
        "3k4/8/8/8/8/8/3r4/KQ6 w - - 0 1",
    ]
    .iter()
    .map(|f| parse_fen(f, false).unwrap())
    .collect();
    let materials: [&[Piece]; 6] = [
        &[w(Role::Queen)],
        &[w(Role::Rook)],
        &[w(Role::Bishop), w(Role::Knight)],
        &[w(Role::Pawn)],
        &[w(Role::Queen), b(Role::Rook)],
        &[w(Role::Rook), b(Role::Pawn)],
    ];
    for (i, extra) in materials.iter().enumerate() {
        starts.extend(random_positions(
            &referee,
            extra,
            Wdl::Win,
            3,
            100 + i as u64,
        ));
    }
    for start in &starts {
        assert_eq!(referee.probe_wdl_after_zeroing(start).unwrap(), Wdl::Win);
        let plies = convert(start, &tb, &referee);
        assert!(plies > 0);
        let fen = shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal);
        println!("{fen}: mate after {plies} plies");
    }
    assert_eq!(starts.len(), 5 + 18);
}

#[test]
fn drawn_endings_are_never_lost() {
    let Some(dir) = tables("drawn_endings_are_never_lost") else {
        return;
    };
    let (tb, referee) = (config(&dir), referee(&dir));
    let rook_pawn = parse_fen("8/8/8/8/8/2k5/P7/K7 b - - 0 1", false).unwrap();
    let rooks = [Role::Rook.of(Color::White), Role::Rook.of(Color::Black)];
    let mut starts = vec![rook_pawn];
    starts.extend(random_positions(&referee, &rooks, Wdl::Draw, 4, 7));
    for start in &starts {
        let fen = shakmaty::fen::Fen::from_position(start, shakmaty::EnPassantMode::Legal);
        assert_eq!(referee.probe_wdl_after_zeroing(start).unwrap(), Wdl::Draw);
        let us = start.turn();
        let tt = TranspositionTable::new(4);
        let mut state = GameState::new(start.clone());
        for _ in 0..120 {
            let pos = state.pos().clone();
            if pos.is_game_over() || state.is_draw(state.history_len()) {
                break;
            }
            let m = if pos.turn() == us {
                ferrum_move(&state, &tb, &tt)
            } else {
                referee.best_move(&pos).unwrap().unwrap().0
            };
            state.play(m);
            state.commit();
            if pos.turn() == us {
                // The opponent, to move now, must not be winning.
                let after = state.pos();
                assert!(!after.is_checkmate() || after.turn() != us);
                let wdl = referee.probe_wdl_after_zeroing(after).unwrap();
                assert_ne!(wdl, Wdl::Win, "{fen}: Ferrum's move lost the draw");
            }
        }
        assert!(!state.pos().is_checkmate() || state.pos().turn() != us);
    }
}

/// The score and `tbhits` of the last `info` line before `bestmove`.
fn last_info(lines: &[String]) -> (i32, u64, String) {
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = |key: &str| words.iter().position(|w| *w == key).map(|i| words[i + 1]);
    let score = match at("score") {
        Some("cp") => at("cp").unwrap().parse().unwrap(),
        other => panic!("not a cp score: {other:?} in {info}"),
    };
    (
        score,
        at("tbhits").unwrap().parse().unwrap(),
        info.to_string(),
    )
}

#[test]
fn uci_shows_tablebase_scores_and_tbhits() {
    let Some(dir) = tables("uci_shows_tablebase_scores_and_tbhits") else {
        return;
    };
    let mut e = Engine::start();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        dir.display()
    ));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string Found 35 tablebases")),
        "{lines:?}"
    );
    // KBNvK, won: a tablebase score (not a mate), and every move DTZ-best.
    let fen = "8/8/8/4k3/8/8/8/KBN5 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go nodes 20000");
    let (mv, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    let (score, tbhits, info) = last_info(&lines);
    assert!((TB_BOUND..=TB_WIN).contains(&score), "{info}");
    assert!(tbhits > 0, "{info}");
    let referee = referee(&dir);
    let pos = parse_fen(fen, false).unwrap();
    let root_dtz = referee.probe_dtz(&pos).unwrap().ignore_rounding().0;
    let mut after = pos.clone();
    after.play_unchecked(
        mv.parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap(),
    );
    let dtz = referee.probe_dtz(&after).unwrap().ignore_rounding().0;
    assert_eq!((root_dtz, dtz), (58, -57), "{mv} is not DTZ-best");
    // KRvKR, drawn: score 0.
    let fen = "8/8/3k4/8/8/5r2/8/K1R5 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go nodes 5000");
    let (_, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    assert_eq!(last_info(&lines).0, 0);
    // Syzygy50MoveRule off and probing depth and limit: accepted.
    e.send("setoption name Syzygy50MoveRule value false");
    e.send("setoption name SyzygyProbeDepth value 4");
    e.send("setoption name SyzygyProbeLimit value 3");
    let lines = e.sync();
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    e.quit();
}

#[test]
fn bad_paths_and_damaged_files_leave_the_engine_playing() {
    let Some(dir) = tables("bad_paths_and_damaged_files_leave_the_engine_playing") else {
        return;
    };
    // Good tables, a truncated one, one that is only a header's worth of
    // zeros, and one of noise of a plausible size.
    let tmp = table_folder(&dir, "damaged", &["KRvK.rtbw", "KRvK.rtbz", "KQvK.rtbz"]);
    let kqvk = std::fs::read(dir.join("KQvK.rtbw")).unwrap();
    std::fs::write(tmp.join("KQvK.rtbw"), &kqvk[..kqvk.len() / 2 + 1]).unwrap();
    std::fs::write(tmp.join("KBvK.rtbw"), [0u8; 16]).unwrap();
    let noise: Vec<u8> = (0..64 * 40 + 16).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(tmp.join("KNvK.rtbw"), &noise).unwrap();

    let mut e = Engine::start();
    // A folder that does not exist: an error, and no tables.
    let err = e.assert_error("setoption name SyzygyPath value /no/such/folder");
    assert!(err.contains("SyzygyPath"), "{err}");
    // The damaged folder: the good files load, the bad one is named.
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        tmp.display()
    ));
    let lines = e.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string SyzygyPath: left out") && l.contains("KQvK.rtbw")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info string Found")),
        "{lines:?}"
    );
    // Set twice (the same folder again, then the real one, then the damaged
    // one): each time the engine answers and plays legal moves.
    for path in [tmp.clone(), dir.clone(), tmp.clone()] {
        e.send(&format!(
            "setoption name SyzygyPath value {}",
            path.display()
        ));
        let lines = e.sync();
        assert!(lines.iter().any(|l| l.starts_with("info string Found")));
        for fen in [
            "8/8/8/8/8/8/3k4/KQ6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KB6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KN6 b - - 0 1",
            "8/8/8/8/8/2k5/P7/K7 w - - 0 1",
        ] {
            e.send(&format!("position fen {fen}"));
            e.send("go nodes 3000");
            e.bestmove_legal(fen, CastlingMode::Standard);
        }
    }
    e.send("setoption name SyzygyPath value <empty>");
    let lines = e.sync();
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    e.quit();
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn without_dtz_files_the_root_is_ranked_by_wdl() {
    let Some(dir) = tables("without_dtz_files_the_root_is_ranked_by_wdl") else {
        return;
    };
    let tmp = table_folder(&dir, "wdl", &["KQvK.rtbw", "KRvK.rtbw", "KQvKR.rtbw"]);
    let (tables, problems) = Tablebases::load(tmp.to_str().unwrap()).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(tables.len(), 3);
    assert!(
        tables
            .summary()
            .starts_with("3 tablebases (3 WDL and 0 DTZ files")
    );
    let referee = referee(&dir);
    // KQvKR, won: every move kept wins (by the referee's full tables), and
    // the moves that throw the win away (many do) are left out.
    let pos = parse_fen("3k4/8/8/8/8/8/3r4/KQ6 w - - 0 1", false).unwrap();
    let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
    let probe = tables.rank_root(&pos, &legal, true).unwrap();
    assert!(!probe.by_dtz);
    assert_eq!(probe.score, TB_WIN);
    let wins: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            after.is_checkmate() || referee.probe_wdl_after_zeroing(&after).unwrap() == Wdl::Loss
        })
        .collect();
    assert_eq!(probe.moves, wins);
    assert!(wins.len() < legal.len());
    let _ = std::fs::remove_dir_all(&tmp);
}
