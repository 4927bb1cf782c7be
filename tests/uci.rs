//! Process-level protocol tests: the real binary over pipes. Timeouts are
//! generous: these tests check behaviour, not speed.

mod common;

use std::time::{Duration, Instant};

use common::engine::Engine;
use ferrum::eval::nnue::network::DEFAULT_NAME as DEFAULT_NET;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn handshake_lists_every_option() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    // The version comes from Cargo.toml (CHANGELOG.md says what each one changed).
    assert_eq!(
        lines[0],
        concat!("id name Ferrum ", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    let eval_file = format!("option name EvalFile type string default {DEFAULT_NET}");
    for opt in [
        "option name Hash type spin default 16 min 1 max 32768",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name Ponder type check default false",
        "option name Move Overhead type spin default 10 min 0 max 5000",
        "option name UCI_Chess960 type check default false",
        "option name Use NNUE type check default true",
        eval_file.as_str(),
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1500 min 1350 max 2850",
        "option name Skill Level type spin default 20 min 0 max 20",
        "option name UCI_ShowWDL type check default false",
        "option name UCI_AnalyseMode type check default false",
        "option name OwnBook type check default false",
        "option name BookFile type string default <empty>",
        "option name BookDepth type spin default 20 min 1 max 500",
        "option name Clear Hash type button",
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == opt), "missing {opt}: {lines:?}");
    }
    e.sync();
    e.quit();
}

#[test]
fn go_depth_reports_integer_info_and_legal_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 e7e5");
    e.send("go depth 6");
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let (_, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 6);
    for l in infos {
        let t: Vec<&str> = l.split_whitespace().collect();
        for key in [
            "depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time",
        ] {
            let i = t.iter().position(|x| *x == key).unwrap();
            t[i + 1].parse::<u64>().unwrap();
        }
        let s = t.iter().position(|x| *x == "score").unwrap();
        assert!(t[s + 1] == "cp" || t[s + 1] == "mate");
        t[s + 2].parse::<i64>().unwrap();
        assert!(t.contains(&"pv"));
    }
    e.quit();
}

#[test]
fn isready_and_stop_during_infinite_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let lines = e.sync();
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    // No bestmove on its own during an infinite search.
    let quiet = e.collect_for(Duration::from_millis(500));
    assert!(!quiet.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    e.bestmove_legal(START, CastlingMode::Standard);
    e.quit();
}

#[test]
fn vampirc_faults_do_not_reach_users() {
    let mut e = Engine::start();
    // Depths, mates and movestogo beyond a byte: accepted, no panic.
    for go in ["go depth 256", "go mate 256", "go depth 1000"] {
        e.send("position startpos");
        e.send(go);
        std::thread::sleep(Duration::from_millis(200));
        e.send("stop");
        e.bestmove_legal(START, CastlingMode::Standard);
    }
    e.send("go movestogo 300 wtime 500 btime 500");
    e.bestmove_legal(START, CastlingMode::Standard);
    // Long node counts are not truncated: the search is still running.
    e.send("go nodes 123456789012");
    let early = e.collect_for(Duration::from_millis(700));
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("stop");
    e.bestmove_legal(START, CastlingMode::Standard);
    // movetime next to clock fields is kept.
    let t = Instant::now();
    e.send("go movetime 300 wtime 600000 btime 600000");
    e.bestmove_legal(START, CastlingMode::Standard);
    // The movetime is used in full (less the 10 ms Move Overhead), not cut
    // short by the soft limit of a game clock; a busy machine only adds.
    assert!(
        t.elapsed() >= Duration::from_millis(290),
        "{:?}",
        t.elapsed()
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    // FEN without move counters, and a five-digit fullmove number.
    e.send("position fen 4k3/8/8/8/8/8/4P3/4K3 w - -");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    e.send("position fen 4k3/8/8/8/8/8/4P3/4K3 w - - 3 12345");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/4P3/4K3 w - - 3 12345");
    // Two spaces after "moves".
    e.send("position startpos moves  e2e4  e7e5");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // A null move or a bad token in the move list is an error, not a truncation.
    let before = e.fen();
    e.assert_error("position startpos moves e2e4 0000 e7e5");
    assert_eq!(e.fen(), before);
    e.assert_error("position startpos moves e2e4 xyz e7e5");
    assert_eq!(e.fen(), before);
    // Option values with trailing spaces.
    e.send("setoption name MultiPV value 3   ");
    e.send("position startpos");
    e.send("go depth 3");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 3 ") && l.contains("multipv 3 "))
    );
    e.quit();
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 1000 btime 1000");
    let early = e.collect_for(Duration::from_millis(1500));
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("ponderhit");
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    e.bestmove_legal(fen, CastlingMode::Standard);
    // A ponder miss: stop ends the search with a legal move.
    e.send("go ponder wtime 1000 btime 1000");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    e.bestmove_legal(fen, CastlingMode::Standard);
    e.quit();
}

#[test]
fn clock_edge_cases_return_a_move() {
    let mut e = Engine::start();
    e.send("position startpos");
    for go in [
        "go wtime 0 btime 0",
        "go wtime -100 btime -100",
        "go wtime 100",
        "go btime 100 wtime 50 movestogo 1",
        "go wtime 30 winc 10 btime 30 binc 10",
    ] {
        e.send(go);
        e.bestmove_legal(START, CastlingMode::Standard);
    }
    e.quit();
}

#[test]
fn bad_input_leaves_the_state_unchanged() {
    let mut e = Engine::start();
    e.send("position startpos moves d2d4");
    let fen = e.fen();
    for bad in [
        "foo bar",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
        "position fen 4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K2r b - - 0 1",
        "position fen 4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        "position fen not a fen at all",
        "position startpos moves e2e5",
        "position startpos moves e2e4 e2e4",
        "position",
        "position sideways",
        "setoption name NoSuchOption value 3",
        "setoption name Hash value 0",
        "setoption name Hash value 999999999",
        "setoption name Threads value many",
        "setoption name Ponder value maybe",
        "setoption",
        "go depth banana",
        "go depth 0",
        "go nodes -5",
        "go wtime",
        "go sideways 3",
        "go searchmoves e2e5",
    ] {
        let err = e.assert_error(bad);
        assert!(err.len() < 400, "{err}");
        assert_eq!(e.fen(), fen, "after {bad:?}");
    }
    // A 10,000-character line, NUL bytes and CRLF endings.
    e.assert_error(&"x".repeat(10_000));
    e.send_raw(b"is\0ready\r\n");
    e.until("readyok");
    e.send_raw(b"position startpos moves e2e4\r\n");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    e.send_raw(&[0xff, 0xfe, b'\n']);
    e.sync();
    e.quit();
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    let mut e = Engine::start();
    // Checkmated.
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("go depth 3");
    let lines = e.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    assert!(lines.iter().any(|l| l.contains("score mate 0")));
    // Stalemated.
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go movetime 100");
    let lines = e.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    assert!(lines.iter().any(|l| l.contains("score cp 0")));
    e.quit();
}

#[test]
fn chess960_castling_in_and_out() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Chess960 value true");
    // Shredder-FEN castling rights; White castles king-side as king takes rook.
    let fen = "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9";
    e.send(&format!("position fen {fen} moves f1g1"));
    let after = e.fen();
    assert!(
        after.starts_with("b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRRKB b"),
        "{after}"
    );
    e.send(&format!("position fen {fen}"));
    e.send("go perft 1");
    let lines = e.until("Nodes searched");
    assert!(lines.iter().any(|l| l == "f1g1: 1"), "{lines:?}");
    e.send("go depth 5");
    e.bestmove_legal(fen, CastlingMode::Chess960);
    // Castling through an occupied rook square is refused.
    let blocked = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    e.send(&format!("position fen {blocked}"));
    let before = e.fen();
    e.assert_error(&format!("position fen {blocked} moves g1h1"));
    assert_eq!(e.fen(), before);
    e.quit();
}

#[test]
fn perft_eval_d_bench_and_misc_commands() {
    let mut e = Engine::start();
    e.send("debug on");
    e.send("register later");
    e.send("ucinewgame");
    e.send("go perft 3");
    let lines = e.until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 21);
    // The bare shorthand `perft N` counts the same, and its errors name it.
    e.send("perft 2");
    assert_eq!(
        e.until("Nodes searched").last().unwrap(),
        "Nodes searched: 400"
    );
    for bad in ["perft -1", "perft two", "perft", "perft 3 foo"] {
        let err = e.assert_error(bad);
        assert!(
            err.starts_with("info string error: perft: "),
            "{bad}: {err}"
        );
    }
    e.send("eval");
    let l = e.until("Final evaluation");
    assert!(l.last().unwrap().ends_with("(side to move)"), "{l:?}");
    assert!(
        l.iter().any(|x| x.trim_start().starts_with("King safety")),
        "{l:?}"
    );
    e.send("d");
    let d = e.until("Checkers");
    assert!(
        d.iter().any(|l| l.starts_with("Key: 463B96181691FC9C")),
        "{d:?}"
    );
    e.send("bench 3");
    let b = e.until("");
    let last = b.iter().rev().find(|l| l.contains(" nodes ")).unwrap();
    let t: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(t.len(), 4);
    t[0].parse::<u64>().unwrap();
    assert_eq!(t[1], "nodes");
    t[2].parse::<u64>().unwrap();
    assert_eq!(t[3], "nps");
    e.sync();
    e.quit();
}

#[test]
fn state_changes_during_a_search_are_refused() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.assert_error("position startpos moves e2e4");
    e.assert_error("setoption name Hash value 32");
    e.send("stop");
    e.bestmove_legal(START, CastlingMode::Standard);
    assert_eq!(e.fen(), START);
    e.quit();
}

#[test]
fn eof_and_quit_end_the_process() {
    let mut e = Engine::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.stdin = None; // EOF
    e.wait_exit();
    let mut e = Engine::start();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.quit();
}

#[test]
fn threads_and_hash_options_search_correctly() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 32");
    e.send("setoption name Clear Hash");
    e.send("position startpos");
    e.send("go depth 8");
    e.bestmove_legal(START, CastlingMode::Standard);
    e.quit();
}

/// The `nodes` field of an `info` line.
fn info_nodes(line: &str) -> Option<u64> {
    let mut it = line.split_whitespace();
    it.find(|&w| w == "nodes")?;
    it.next()?.parse().ok()
}

#[test]
fn thread_pool_searches_obeys_limits_and_changes_size() {
    let mut e = Engine::start();
    e.send("position startpos");
    for threads in [1, 2, 8, 64, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        let lines = e.sync();
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        // nodes: the count stops within one batch (512) per thread of the limit.
        e.send("go nodes 20000");
        let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
        let nodes = lines.iter().filter_map(|l| info_nodes(l)).max().unwrap();
        assert!(
            nodes <= 20_000 + 512 * threads,
            "{threads} threads: {nodes} nodes"
        );
        // movetime and depth end on their own; stop ends an infinite search.
        e.send("go movetime 100");
        e.bestmove_legal(START, CastlingMode::Standard);
        e.send("go depth 5");
        let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 5 ")),
            "{lines:?}"
        );
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        e.send("stop");
        e.bestmove_legal(START, CastlingMode::Standard);
        e.send("ucinewgame");
        e.send("position startpos");
    }
    e.quit();
}

#[test]
fn hash_resizes_and_clears_keep_searching() {
    let mut e = Engine::start();
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    for (i, mb) in [1, 64, 2, 256, 16, 1, 128].into_iter().enumerate() {
        e.send(&format!("setoption name Hash value {mb}"));
        if i % 2 == 1 {
            e.send("ucinewgame");
        } else {
            e.send("setoption name Clear Hash");
        }
        e.send(&format!("position fen {fen}"));
        e.send("go depth 6");
        let (mv, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
        // Scholar's mate: every table size finds Qxf7#.
        assert_eq!(mv, "h5f7", "Hash {mb}");
        assert!(
            lines.iter().any(|l| l.contains("score mate 1")),
            "{lines:?}"
        );
    }
    e.quit();
}

#[test]
fn quit_during_a_64_thread_search_exits_cleanly() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 64");
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.quit();
}

#[test]
fn own_book_plays_book_moves_and_refuses_bad_files() {
    let dir = std::env::temp_dir().join(format!("ferrum-uci-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = "[Result \"1-0\"]\n\n1. d4 d5 2. c4 1-0\n\n[Result \"1-0\"]\n\n1. d4 Nf6 2. c4 1-0\n";
    let book = dir.join("book.bin");
    common::write_book(pgn, &book);
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, [1u8, 2, 3]).unwrap();

    let mut e = Engine::start();
    e.send(&format!("setoption name BookFile value {}", book.display()));
    e.send("setoption name OwnBook value true");
    e.sync();
    // The book's only move from the start, at once, said to be from the book.
    e.send("position startpos");
    e.send("go wtime 60000 btime 60000");
    let (mv, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert_eq!(mv, "d2d4");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string book move d2d4")),
        "{lines:?}"
    );
    // Deeper in the book: 2. c4; out of it (1. e4), a search.
    e.send("position startpos moves d2d4 d7d5");
    e.send("go depth 2");
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2";
    let (mv, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    assert_eq!(mv, "c2c4", "{lines:?}");
    e.send("position startpos moves e2e4");
    e.send("go depth 3");
    let (_, lines) = e.bestmove_legal(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        CastlingMode::Standard,
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3")),
        "{lines:?}"
    );
    // A bad file is refused and the loaded book stays.
    let err = e.assert_error(&format!("setoption name BookFile value {}", bad.display()));
    assert!(err.contains("BookFile not loaded"), "{err}");
    e.send("position startpos");
    e.send("go movetime 5000");
    let (mv, _) = e.bestmove_legal(START, CastlingMode::Standard);
    assert_eq!(mv, "d2d4");
    // BookDepth 1: from move 2 on, no book.
    e.send("setoption name BookDepth value 1");
    e.send("position startpos moves d2d4 d7d5");
    e.send("go depth 2");
    let (_, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    e.quit();
}

/// The time `debug on` reports on the line just before `bestmove`.
fn debug_ms(lines: &[String]) -> f64 {
    lines[lines.len() - 2]
        .strip_prefix("info string debug: bestmove ")
        .and_then(|rest| rest.strip_suffix(" ms after go was read"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no debug time before bestmove: {lines:?}"))
}

#[test]
fn debug_mode_reports_the_time_from_go_to_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 3");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert!(!lines.iter().any(|l| l.contains("debug:")), "{lines:?}");
    e.send("debug on");
    e.send("setoption name Move Overhead value 0");
    e.send("go movetime 150");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    // The line just before `bestmove`, with at least the time asked for
    // (all of it: no overhead is kept back).
    assert!(debug_ms(&lines) >= 150.0, "{lines:?}");
    // A refused `go` during a search keeps the running search's time:
    // the stop comes at once after it, yet the time counts from the first.
    // The 200 ms count from the search's first line, which the engine writes
    // after it read `go`: from the test's own send they would race the
    // engine's read of it on a busy machine.
    e.send("go infinite");
    e.until("info depth");
    std::thread::sleep(std::time::Duration::from_millis(200));
    e.assert_error("go depth 1");
    e.send("stop");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert!(debug_ms(&lines) >= 200.0, "{lines:?}");
    e.send("debug off");
    e.send("go depth 3");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert!(!lines.iter().any(|l| l.contains("debug:")), "{lines:?}");
    e.quit();
}

#[test]
fn show_wdl_adds_win_draw_loss_to_info_lines() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 4");
    let (_, lines) = e.bestmove_legal(START, CastlingMode::Standard);
    assert!(!lines.iter().any(|l| l.contains(" wdl ")), "{lines:?}");
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name UCI_AnalyseMode value true");
    // White a queen up: wins most, loses least.
    let fen = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 6");
    let (_, lines) = e.bestmove_legal(fen, CastlingMode::Standard);
    let wdl: Vec<[u32; 3]> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let i = words
                .iter()
                .position(|&w| w == "wdl")
                .expect("wdl in every info line");
            // Stockfish's order: score, wdl, then the bound if any, then nodes.
            assert_eq!(words[i - 3], "score", "{l}");
            [1, 2, 3].map(|k| words[i + k].parse::<u32>().unwrap())
        })
        .collect();
    assert!(!wdl.is_empty());
    for w in &wdl {
        assert_eq!(w.iter().sum::<u32>(), 1000, "{w:?}");
        assert!(w[0] > w[2], "{w:?}");
    }
    e.quit();
}

#[test]
fn limited_strength_plays_legal_games_and_obeys_stop() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1400");
    e.sync();
    for game in 0..3 {
        let mut pos = Chess::default();
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..30 {
            if pos.legal_moves().is_empty() || pos.is_insufficient_material() {
                break;
            }
            e.send(&format!("position startpos moves {}", moves.join(" ")));
            e.send("go wtime 5000 btime 5000 winc 50 binc 50");
            let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string();
            let (mv, lines) = e.bestmove_legal(&fen, CastlingMode::Standard);
            // Several lines are searched to choose from.
            assert!(
                lines.iter().any(|l| l.contains(" multipv 2 ")) || pos.legal_moves().len() < 2,
                "game {game}: {lines:?}"
            );
            let m = mv.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(mv);
        }
    }
    // Skill Level too; an infinite search still waits for stop and answers it.
    e.send("setoption name UCI_LimitStrength value false");
    e.send("setoption name Skill Level value 3");
    e.send("position startpos");
    e.send("go infinite");
    let quiet = e.collect_for(Duration::from_millis(300));
    assert!(!quiet.iter().any(|l| l.starts_with("bestmove")));
    let ready = e.sync();
    assert!(!ready.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    e.bestmove_legal(START, CastlingMode::Standard);
    e.quit();
}

/// The `eval` command's network line.
fn nnue_line(e: &mut Engine) -> String {
    e.send("eval");
    e.send("isready");
    let lines = e.until("readyok");
    lines
        .into_iter()
        .find(|l| l.starts_with("NNUE evaluation"))
        .unwrap_or_default()
}

#[test]
fn eval_file_loads_good_nets_and_refuses_bad_ones() {
    let dir = std::env::temp_dir().join(format!("ferrum-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = ferrum::tools::train::FloatNet::random(8)
        .quantise()
        .to_bytes();
    let good_path = dir.join("other.nnue");
    std::fs::write(&good_path, &good).unwrap();
    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let garbage = dir.join("garbage.nnue");
    std::fs::write(&garbage, b"this is not a network").unwrap();

    let mut e = Engine::start();
    e.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let embedded = nnue_line(&mut e);
    assert!(
        embedded.ends_with(&format!("[{DEFAULT_NET}]")),
        "{embedded}"
    );
    for bad in [&truncated, &garbage, &dir.join("missing.nnue")] {
        let err = e.assert_error(&format!("setoption name EvalFile value {}", bad.display()));
        assert!(err.contains("EvalFile not loaded"), "{err}");
        // The embedded net stays, and the engine still plays.
        assert_eq!(nnue_line(&mut e), embedded);
        e.send("go depth 4");
        e.bestmove_legal(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            CastlingMode::Standard,
        );
    }
    // A good file loads and changes the evaluation; the default name restores.
    e.send(&format!(
        "setoption name EvalFile value {}",
        good_path.display()
    ));
    let other = nnue_line(&mut e);
    assert!(
        other.ends_with(&format!("[{}]", good_path.display())),
        "{other}"
    );
    assert_ne!(other, embedded);
    e.send("go depth 4");
    e.bestmove_legal(
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        CastlingMode::Standard,
    );
    e.send(&format!("setoption name EvalFile value {DEFAULT_NET}"));
    assert_eq!(nnue_line(&mut e), embedded);
    // Without the net, `eval` shows only the hand-crafted evaluation.
    e.send("setoption name Use NNUE value false");
    assert_eq!(nnue_line(&mut e), "");
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Nodes of the last `info` line with a node count.
fn last_nodes(lines: &[String]) -> u64 {
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == "nodes")?;
            words.next()?.parse().ok()
        })
        .expect("an info line with nodes")
}

/// The search parameters are UCI options only when tuning is asked for,
/// their ranges are enforced, and a value set reaches the search.
#[test]
fn search_parameters_are_options_when_tuning() {
    if !cfg!(feature = "tune") {
        let mut e = Engine::start();
        e.send("uci");
        let lines = e.until("uciok");
        assert!(!lines.iter().any(|l| l.contains("rfp_margin")), "{lines:?}");
        e.send("quit");
    }
    let mut e = Engine::start_with(&[("FERRUM_TUNE", "1")]);
    e.send("uci");
    let lines = e.until("uciok");
    for spec in ferrum::search::params::SPECS {
        let want = format!(
            "option name {} type spin default {} min {} max {}",
            spec.name, spec.default, spec.min, spec.max
        );
        assert!(lines.contains(&want), "{want} not in {lines:?}");
    }
    e.send("setoption name rfp_margin value 9999");
    let lines = e.sync();
    assert!(lines[0].starts_with("info string error"), "{lines:?}");

    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8";
    let mut nodes = Vec::new();
    for setting in ["", "", "setoption name lmr_base value 200"] {
        e.send("ucinewgame");
        if !setting.is_empty() {
            e.send(setting);
        }
        e.send(&format!("position fen {fen}"));
        e.send("go depth 9");
        nodes.push(last_nodes(&e.until("bestmove")));
    }
    assert_eq!(nodes[0], nodes[1], "the same settings search the same tree");
    assert_ne!(nodes[0], nodes[2], "lmr_base 200 reaches the search");
    e.send("quit");
}
