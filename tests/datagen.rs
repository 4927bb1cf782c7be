//! Self-play data generation: records read back to legal positions whose
//! scores and results are those of the games played, text and binary agree,
//! and the same seed writes the same bytes whatever the thread count.

mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ferrum::search::history::History;
use ferrum::search::tt::TranspositionTable;
use ferrum::tools::datagen::{
    self, Config, play_game, read_records, record_bytes, record_position,
};
use shakmaty::{Chess, Color, Position};

fn config(dir: &std::path::Path, name: &str, threads: usize) -> Config {
    Config {
        threads,
        nodes: 300,
        games: Some(6),
        positions: None,
        seed: 7,
        book: Vec::new(),
        random_plies: 8,
        hash_mb: 2,
        out: dir.join(format!("{name}.bin")),
        text: Some(dir.join(format!("{name}.txt"))),
        net: ferrum::eval::nnue::default_net(),
        syzygy: None,
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrum-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn records_are_the_games_played_and_read_back_legal() {
    let dir = temp_dir("records");
    let cfg = config(&dir, "a", 2);
    let stop = AtomicBool::new(false);
    let summary = datagen::run(&cfg, &stop, &|_| {}).unwrap();
    assert_eq!(summary.games, 6);
    assert_eq!(summary.white_wins + summary.draws + summary.black_wins, 6);
    let records = read_records(&cfg.out).unwrap();
    assert_eq!(records.len() as u64, summary.positions);
    assert!(records.len() > 100, "{}", records.len());

    // The same games, replayed one by one: the file holds exactly their
    // kept positions, in game order. One table and one set of history
    // tables serve all six, as a thread of the run keeps them: they are
    // cleared before use, so each game is still a function of its number.
    let tt = TranspositionTable::new(2);
    let mut history = History::default();
    let mut expected = Vec::new();
    let mut samples = Vec::new();
    for i in 0..6 {
        let game = play_game(&cfg, i, &tt, &mut history, &stop).unwrap();
        assert!([0.0, 0.5, 1.0].contains(&game.result));
        for s in &game.samples {
            expected.extend_from_slice(&record_bytes(&datagen::to_record(s, game.result)));
            samples.push((s.clone(), game.result));
        }
    }
    let bytes = std::fs::read(&cfg.out).unwrap();
    assert_eq!(bytes, expected);

    let text = std::fs::read_to_string(cfg.text.as_ref().unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), records.len());
    for ((rec, (sample, result)), line) in records.iter().zip(&samples).zip(&lines) {
        // Kept positions: not in check, no mate score.
        assert!(!sample.pos.is_check());
        assert!(sample.score.abs() < ferrum::chess::score::MATE_BOUND);
        // The record, from the side to move: the board mirrored for Black.
        let back = record_position(rec).unwrap();
        let white = sample.pos.turn() == Color::White;
        let board = if white {
            sample.pos.board().clone()
        } else {
            let mut b = sample.pos.board().clone();
            b.flip_vertical();
            b.swap_colors();
            b
        };
        assert_eq!(back.board(), &board);
        assert_eq!(back.turn(), Color::White);
        assert_eq!(i32::from(rec.score), sample.score);
        let stm_result = if white { *result } else { 1.0 - result };
        assert_eq!(f32::from(rec.result) / 2.0, stm_result);
        // The text line: FEN | score | result, White's point of view.
        let parts: Vec<&str> = line.split(" | ").collect();
        assert_eq!(parts.len(), 3, "{line}");
        let pos: Chess = ferrum::chess::fen::parse_fen(parts[0], false).unwrap();
        assert_eq!(pos.board(), sample.pos.board());
        let white_score: i32 = parts[1].parse().unwrap();
        assert_eq!(
            white_score,
            if white { sample.score } else { -sample.score }
        );
        assert_eq!(parts[2], format!("{result:.1}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn same_seed_same_bytes_and_runs_append() {
    let dir = temp_dir("seed");
    let stop = AtomicBool::new(false);
    let one = config(&dir, "one", 1);
    let two = config(&dir, "two", 2);
    datagen::run(&one, &stop, &|_| {}).unwrap();
    datagen::run(&two, &stop, &|_| {}).unwrap();
    let a = std::fs::read(&one.out).unwrap();
    let b = std::fs::read(&two.out).unwrap();
    assert!(!a.is_empty());
    assert_eq!(a, b);
    // Another seed appends and keeps what was there.
    let other = Config {
        seed: 8,
        ..one.clone()
    };
    let s = datagen::run(&other, &stop, &|_| {}).unwrap();
    let c = std::fs::read(&one.out).unwrap();
    assert_eq!(&c[..a.len()], &a[..]);
    assert_eq!(c.len(), a.len() + 32 * s.positions as usize);
    assert_ne!(&c[a.len()..], &a[..]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_raised_stop_writes_nothing_partial() {
    let dir = temp_dir("stop");
    let cfg = config(&dir, "s", 2);
    let stop = AtomicBool::new(true);
    let s = datagen::run(&cfg, &stop, &|_| {}).unwrap();
    assert_eq!(s.games, 0);
    assert_eq!(std::fs::metadata(&cfg.out).unwrap().len(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn positions_limit_stops_the_run() {
    let dir = temp_dir("limit");
    let cfg = Config {
        games: None,
        positions: Some(200),
        ..config(&dir, "p", 2)
    };
    let stop = AtomicBool::new(false);
    let s = datagen::run(&cfg, &stop, &|_| {}).unwrap();
    assert!(s.positions >= 200);
    let n = read_records(&cfg.out).unwrap().len() as u64;
    assert_eq!(n, s.positions);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn games_that_reach_the_tablebases_end_with_their_result() {
    let Some(kqvk) = common::suite(
        "games_that_reach_the_tablebases_end_with_their_result",
        "syzygy/KQvK.rtbw",
    ) else {
        return;
    };
    let dir = temp_dir("syzygy");
    let tables = ferrum::search::syzygy::Tablebases::load_dir(kqvk.parent().unwrap()).unwrap();
    let mut cfg = config(&dir, "tb", 1);
    cfg.syzygy = Some(ferrum::search::syzygy::TbConfig::new(Arc::new(tables)));
    // Drawn rook-pawn endings, fifty-move counter not at zero: the game
    // goes on until a pawn move, and then the tables end it.
    cfg.book = vec![
        "8/8/8/8/8/2k5/P7/K7 w - - 5 1".to_string(),
        "k7/p7/8/2K5/8/8/8/8 b - - 3 1".to_string(),
    ];
    cfg.random_plies = 0;
    cfg.games = Some(4);
    let stop = AtomicBool::new(false);
    let tt = TranspositionTable::new(2);
    let mut history = History::default();
    for i in 0..4 {
        let game = play_game(&cfg, i, &tt, &mut history, &stop).unwrap();
        assert!(game.tb_adjudicated, "game {i}");
        assert_eq!(game.result, 0.5, "game {i}");
    }
    let summary = datagen::run(&cfg, &stop, &|_| {}).unwrap();
    assert_eq!(
        (summary.games, summary.tb_adjudicated, summary.draws),
        (4, 4, 4)
    );
    assert!(
        summary.line().contains("tablebase-ended 4"),
        "{}",
        summary.line()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn train_loss_only_reports_the_nets_loss_on_all_the_data_and_trains_nothing() {
    use ferrum::tools::train::{FloatNet, mean_loss};
    let dir = temp_dir("loss");
    let cfg = config(&dir, "a", 2);
    datagen::run(&cfg, &AtomicBool::new(false), &|_| {}).unwrap();
    let records = read_records(&cfg.out).unwrap();
    let net_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets/ferrum-n10.nnue");
    let net = FloatNet::from_checkpoint_or_net(&std::fs::read(&net_path).unwrap()).unwrap();
    let out = dir.join("never.nnue");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "train".to_string(),
            cfg.out.display().to_string(),
            "--out".to_string(),
            out.display().to_string(),
            "--checkpoints".to_string(),
            dir.join("ck").display().to_string(),
            "--loss-only".to_string(),
            "--wdl".to_string(),
            "0.5".to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        std::process::Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .args(&args)
            .output()
            .unwrap()
    };

    let o = run(&["--resume", &net_path.display().to_string()]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{text}");
    // "N positions: loss A (scores, wdl 0)  B (results, wdl 1)  C (wdl 0.5)"
    assert!(
        text.starts_with(&format!("{} positions: loss ", records.len())),
        "{text}"
    );
    let numbers: Vec<f64> = text
        .split_whitespace()
        .filter(|w| w.contains('.') && !w.contains(')'))
        .filter_map(|w| w.parse().ok())
        .collect();
    let expected = [0.0, 1.0, 0.5].map(|w| mean_loss(&net, &records, w, 1));
    assert_eq!(numbers.len(), 3, "{text}");
    for (got, want) in numbers.iter().zip(expected) {
        assert!((got - want).abs() < 2e-6, "{got} against {want}: {text}");
    }
    // The three differ (the results are not the scores), and nothing was trained or written.
    assert!((expected[0] - expected[1]).abs() > 1e-4, "{expected:?}");
    assert!(!out.exists() && !dir.join("ck").exists());

    // Without a net to measure, it is refused with a message that names the flag.
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn train_refuses_numbers_out_of_range_naming_the_option() {
    let missing = temp_dir("train-range").join("absent.bin");
    // (exit code, stderr) of `ferrum COMMAND absent.bin OPT VALUE`
    let run = |command: &str, opt: &str, value: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .args([command, &missing.display().to_string(), opt, value])
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // clap's usage error (exit code 2) names the option and the value; nothing is read.
    for (command, opt, value) in [
        ("train", "--weight-decay", "-0.5"),
        ("train", "--weight-decay", "NaN"),
        ("train", "--lr", "-0.001"),
        ("train", "--lr-end", "inf"),
        ("train", "--wdl", "1.5"),
        ("train", "--wdl", "-0.1"),
        ("train", "--validation", "0.9"),
        ("tune", "--wdl", "2"),
    ] {
        let (code, err) = run(command, opt, value);
        assert_eq!(code, Some(2), "{command} {opt} {value}: {err}");
        assert!(
            err.contains(opt) && err.contains(value),
            "{command} {opt} {value}: {err}"
        );
    }
    // The edges are accepted: the run gets past its arguments to the missing data.
    for (opt, value) in [
        ("--weight-decay", "0"),
        ("--wdl", "1"),
        ("--validation", "0.5"),
    ] {
        let (code, err) = run("train", opt, value);
        assert_eq!(code, Some(1), "{opt} {value}: {err}");
        assert!(err.starts_with("ferrum train: "), "{opt} {value}: {err}");
    }
}
