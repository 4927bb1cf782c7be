//! What a GUI shows is what Ferrum plays: before every `bestmove`, the
//! last `info ... pv` line for MultiPV line 1 begins with the move played,
//! every move of it is legal, and the `ponder` move is its second move.
//!
//! Thousands of searches through the real binary, from the bench positions,
//! the positions of a game Ferrum plays against itself as the test goes,
//! positions in check, with one legal move and with a mate on the board,
//! each ended a different way (node and depth limits, `movetime`, the
//! clock, `stop` after an infinite search, `ponderhit`, `go mate`) at
//! random points, with Threads 1 and 4 and MultiPV 1 and 3, a weakened
//! level, a book and the tablebases. The random choices are seeded, but
//! where a search stops in time depends on the machine: the property holds
//! for every stop, so the test gives the same verdict everywhere.

mod common;

use std::time::Duration;

use common::engine::Engine;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// Positions in check, with a single legal move, or with a short mate.
const SPECIAL: [&str; 8] = [
    // In check, one legal move (the king takes the queen).
    "8/8/8/8/8/8/6q1/k6K w - - 0 1",
    "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
    // In check: several replies; checkmated (no move: `bestmove (none)`).
    "rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
    // Mate in one and in two.
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "r4kr1/1b2R1n1/pq4p1/4Q3/1p4P1/5P2/PPP4P/1K2R3 w - - 1 1",
    // Mated side to move has few moves; a king and pawn ending.
    "7k/6pp/8/8/8/8/8/R5K1 w - - 0 1",
    "8/8/1k6/8/8/8/1PK5/8 w - - 0 1",
];

/// One search's position: a FEN and moves played from it.
#[derive(Clone)]
struct Setup {
    fen: String,
    moves: Vec<String>,
}

impl Setup {
    fn command(&self) -> String {
        let mut c = format!("position fen {}", self.fen);
        if !self.moves.is_empty() {
            c.push_str(" moves ");
            c.push_str(&self.moves.join(" "));
        }
        c
    }

    fn position(&self) -> Chess {
        let mut pos: Chess = self
            .fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        for m in &self.moves {
            let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        pos
    }
}

/// Where the searches come from: a game the engine plays against itself
/// (its moves are the searches' own best moves), the bench positions and
/// the special ones.
struct Positions {
    game: Setup,
}

impl Positions {
    fn new() -> Positions {
        Positions {
            game: Setup {
                fen: ferrum::search::bench::POSITIONS[0].to_string(),
                moves: Vec::new(),
            },
        }
    }

    fn pick(&mut self, rng: &mut StdRng) -> (Setup, bool) {
        match rng.random_range(0..10) {
            0..5 => (self.game.clone(), true),
            5..8 => {
                let p = ferrum::search::bench::POSITIONS;
                let fen = p[rng.random_range(0..p.len())];
                (setup(fen), false)
            }
            _ => (setup(SPECIAL[rng.random_range(0..SPECIAL.len())]), false),
        }
    }

    /// Plays `mv` in the game, or starts a new one from a bench position
    /// when the game is over or long.
    fn played(&mut self, mv: &str, rng: &mut StdRng) {
        self.game.moves.push(mv.to_string());
        let pos = self.game.position();
        if pos.is_game_over() || self.game.moves.len() > 160 {
            let p = ferrum::search::bench::POSITIONS;
            self.game = setup(p[rng.random_range(0..p.len())]);
        }
    }
}

fn setup(fen: &str) -> Setup {
    Setup {
        fen: fen.to_string(),
        moves: Vec::new(),
    }
}

/// Sends a `go` that ends in one of the ways a search can end, at a random
/// point; returns a description for failure messages.
fn go(e: &mut Engine, rng: &mut StdRng, pos: &Chess) -> String {
    let mated_soon = pos.legal_moves().len() < 40 && rng.random_bool(0.1);
    let clock = |rng: &mut StdRng| {
        let t = rng.random_range(20..3000);
        let inc = rng.random_range(0..50);
        format!("wtime {t} btime {t} winc {inc} binc {inc}")
    };
    let command = match rng.random_range(0..8) {
        0 => format!("go nodes {}", rng.random_range(1..60_000)),
        1 => format!("go depth {}", rng.random_range(1..9)),
        2 => format!("go movetime {}", rng.random_range(1..40)),
        3 => format!("go {}", clock(rng)),
        4 | 5 => {
            e.send(if rng.random_bool(0.5) {
                "go infinite"
            } else {
                "go"
            });
            std::thread::sleep(Duration::from_millis(rng.random_range(0..40)));
            e.send("stop");
            return "go infinite, stop".to_string();
        }
        6 => {
            e.send(&format!("go ponder {}", clock(rng)));
            std::thread::sleep(Duration::from_millis(rng.random_range(0..30)));
            if rng.random_bool(0.7) {
                e.send("ponderhit");
                return "go ponder, ponderhit".to_string();
            }
            e.send("stop");
            return "go ponder, stop".to_string();
        }
        _ if mated_soon => format!("go mate 2 nodes {}", rng.random_range(1..80_000)),
        _ => format!("go nodes {} movetime 30", rng.random_range(1..400_000)),
    };
    e.send(&command);
    command
}

/// Checks the lines of one search, up to and including `bestmove`: the
/// last `multipv 1` line leads with the move played, its moves are legal,
/// and `ponder` is its second move. Returns the move played.
fn check_search(lines: &[String], pos: &Chess, what: &str) -> Option<String> {
    let last = lines.last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words[0], "bestmove", "{what}: {lines:?}");
    if words[1] == "(none)" {
        assert!(pos.legal_moves().is_empty(), "{what}: {lines:?}");
        return None;
    }
    let pv_line = lines
        .iter()
        .rev()
        .find(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.first() == Some(&"info")
                && t.contains(&"pv")
                && t.iter()
                    .position(|w| *w == "multipv")
                    .is_none_or(|i| t[i + 1] == "1")
        })
        .unwrap_or_else(|| panic!("{what}: no line before bestmove: {lines:?}"));
    let t: Vec<&str> = pv_line.split_whitespace().collect();
    let pv = &t[t.iter().position(|w| *w == "pv").unwrap() + 1..];
    assert_eq!(
        pv[0], words[1],
        "{what}: the last line shown does not lead with the move played: {lines:?}"
    );
    let mut p = pos.clone();
    for text in pv {
        let m: Move = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&p).ok())
            .filter(|&m| p.is_legal(m))
            .unwrap_or_else(|| panic!("{what}: illegal {text} in the pv: {pv_line}"));
        p.play_unchecked(m);
    }
    match (words.get(2), words.get(3)) {
        (Some(&"ponder"), Some(ponder)) => {
            assert_eq!(
                pv.get(1),
                Some(ponder),
                "{what}: ponder is not the pv's second move: {lines:?}"
            )
        }
        _ => assert!(
            pv.len() < 2,
            "{what}: no ponder move though the pv has two moves: {lines:?}"
        ),
    }
    Some(words[1].to_string())
}

/// `searches` searches with these options, from a seeded mix of positions
/// and ways to stop.
fn soak(options: &[(&str, &str)], searches: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut e = Engine::start();
    for (name, value) in options {
        e.send(&format!("setoption name {name} value {value}"));
    }
    e.sync();
    let mut positions = Positions::new();
    for i in 0..searches {
        let (s, in_game) = positions.pick(&mut rng);
        e.send(&s.command());
        let pos = s.position();
        let what = format!("search {i} ({}), {options:?}", s.command());
        let how = go(&mut e, &mut rng, &pos);
        let lines = e.until("bestmove");
        let played = check_search(&lines, &pos, &format!("{what}, {how}"));
        if in_game && let Some(m) = played {
            positions.played(&m, &mut rng);
        }
    }
    e.quit();
}

#[test]
fn last_line_is_the_move_played_one_thread() {
    soak(&[("Hash", "16")], 700, 1);
}

#[test]
fn last_line_is_the_move_played_four_threads() {
    soak(&[("Threads", "4")], 500, 2);
}

#[test]
fn last_line_is_the_move_played_multipv() {
    soak(&[("MultiPV", "3")], 500, 3);
}

#[test]
fn last_line_is_the_move_played_four_threads_multipv() {
    soak(&[("Threads", "4"), ("MultiPV", "3")], 300, 4);
}

#[test]
fn a_weakened_level_shows_the_line_it_plays() {
    // Level 3 picks another line than the best one often: the choice is
    // said, and that line is the last one shown.
    let mut rng = StdRng::seed_from_u64(5);
    let mut e = Engine::start();
    e.send("setoption name Skill Level value 3");
    e.sync();
    let mut said = 0;
    for i in 0..150 {
        let fen = ferrum::search::bench::POSITIONS[i % 50];
        e.send(&format!("position fen {fen}"));
        let pos = setup(fen).position();
        let how = go(&mut e, &mut rng, &pos);
        let lines = e.until("bestmove");
        check_search(&lines, &pos, &format!("{fen}, {how}"));
        // One line was asked for (the other three are the weakening's): the
        // very last line shown, whatever its multipv, is the one played, as
        // fastchess and python-chess's `play` read it.
        let last = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info ") && l.contains(" pv "))
            .unwrap_or_else(|| panic!("{fen}, {how}: no line: {lines:?}"));
        let t: Vec<&str> = last.split_whitespace().collect();
        let first = t[t.iter().position(|w| *w == "pv").unwrap() + 1];
        let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        assert_eq!(first, best, "{fen}, {how}: the last line shown: {lines:?}");
        said += usize::from(lines.iter().any(|l| l.contains("not the best line")));
    }
    assert!(said > 0, "level 3 never chose another line in 150 moves");
    e.quit();
}

#[test]
fn a_book_move_is_shown_as_the_line_played() {
    let dir = std::env::temp_dir().join(format!("ferrum-report-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = "[Result \"1-0\"]\n\n1. d4 d5 2. c4 1-0\n";
    let book = dir.join("book.bin");
    common::write_book(pgn, &book);
    let mut e = Engine::start();
    e.send(&format!("setoption name BookFile value {}", book.display()));
    e.send("setoption name OwnBook value true");
    e.send("position startpos");
    e.send("go wtime 10000 btime 10000");
    let lines = e.until("bestmove");
    let start = Chess::default();
    assert_eq!(
        check_search(&lines, &start, "book").as_deref(),
        Some("d2d4")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book move d2d4"))
    );
    e.quit();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn tablebase_roots_show_the_line_played() {
    let Some(syzygy) = common::suite("tablebase_roots_show_the_line_played", "syzygy/KQvK.rtbw")
    else {
        return;
    };
    let dir = syzygy.parent().unwrap().display().to_string();
    let mut rng = StdRng::seed_from_u64(6);
    let mut e = Engine::start();
    e.send(&format!("setoption name SyzygyPath value {dir}"));
    e.sync();
    let roots = [
        "8/8/8/8/8/8/3k4/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
        "8/8/8/8/8/2k5/P7/K7 w - - 0 1",
        "3k4/8/8/8/8/8/3r4/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KBN5 b - - 0 1",
    ];
    for i in 0..150 {
        let fen = roots[i % roots.len()];
        e.send(&format!("position fen {fen}"));
        let pos = setup(fen).position();
        let how = go(&mut e, &mut rng, &pos);
        let lines = e.until("bestmove");
        check_search(&lines, &pos, &format!("{fen}, {how}"));
    }
    e.quit();
}

#[test]
fn special_positions_are_what_they_say() {
    let single = |fen: &str| setup(fen).position().legal_moves().len();
    assert_eq!(single(SPECIAL[0]), 1);
    assert_eq!(single(SPECIAL[1]), 1);
    assert!(setup(SPECIAL[2]).position().is_check());
    assert!(setup(SPECIAL[3]).position().is_check());
    // The FEN of a position after moves is that of the position itself.
    let s = Setup {
        fen: ferrum::search::bench::POSITIONS[0].to_string(),
        moves: vec!["e2e4".to_string()],
    };
    assert_eq!(
        Fen::from_position(&s.position(), EnPassantMode::Legal).to_string(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}
