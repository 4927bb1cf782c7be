//! EPD parsing and suite runs: every tactical file parses fully, malformed
//! lines are reported with their line numbers, SAN and UCI moves resolve to
//! the same move, and the suite runner scores records exactly.

mod common;

use ferrum::chess::fen::parse_fen;
use ferrum::search::Limits;
use ferrum::search::tt::TranspositionTable;
use ferrum::tools::epd::{parse_line, parse_text, resolve_move};
use ferrum::tools::suite::{self, Suite, SuiteConfig};
use shakmaty::{Chess, Position};

/// Every tactical file of the shared data folder (`tactical/`), with its
/// number of positions (the shared data's SOURCES.md).
const TACTICAL: [(&str, usize); 7] = [
    ("wac.epd", 300),
    ("wac_revised_arasan.epd", 300),
    ("bratko_kopec.epd", 24),
    ("mate1.fen", 8),
    ("mate2.fen", 212),
    ("mate3.fen", 14),
    ("mate4.fen", 47),
];

#[test]
fn every_tactical_file_parses_fully() {
    let test = "every_tactical_file_parses_fully";
    for (name, count) in TACTICAL {
        let Some(path) = common::suite(test, &format!("tactical/{name}")) else {
            return;
        };
        let suite = Suite::load(&path).unwrap();
        assert!(suite.errors.is_empty(), "{name}: {:?}", suite.errors);
        assert_eq!(suite.records.len(), count, "{name}");
        for rec in &suite.records {
            if name.ends_with(".epd") {
                assert!(!rec.best.is_empty(), "{name} line {}: no bm", rec.line);
                for m in rec.best.iter().chain(&rec.avoid) {
                    assert!(rec.pos.is_legal(*m), "{name} line {}", rec.line);
                }
            } else {
                // Plain FEN: no opcodes at all.
                assert!(rec.best.is_empty() && rec.mate.is_none(), "{name}");
            }
        }
    }
    // The revised WAC has one `am` record; the ids run WAC.001..WAC.300.
    let shared = common::shared_dir().join("tactical");
    let revised = Suite::load(&shared.join("wac_revised_arasan.epd")).unwrap();
    assert_eq!(
        revised
            .records
            .iter()
            .filter(|r| !r.avoid.is_empty())
            .count(),
        1
    );
    let wac = Suite::load(&shared.join("wac.epd")).unwrap();
    for (i, rec) in wac.records.iter().enumerate() {
        assert_eq!(rec.id, format!("WAC.{:03}", i + 1));
    }
}

#[test]
fn malformed_lines_are_reported_with_their_numbers_and_skipped() {
    let text = "\
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"ok.1\";
# a comment

6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd9; id \"bad move\";
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8# id \"unterminated\"
8/8/8 w - - bm e4;
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - dm x; id \"bad dm\";
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - c8 \"Rd8# h3\"; c9 \"10\"; id \"points differ\";
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm d1d8; id \"ok.2\";
";
    let (records, errors) = parse_text(text);
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["ok.1", "ok.2"]);
    assert_eq!(records[1].line, 10);
    let lines: Vec<&str> = errors
        .iter()
        .map(|e| e.split(':').next().unwrap())
        .collect();
    assert_eq!(
        lines,
        ["line 4", "line 5", "line 6", "line 7", "line 8", "line 9"]
    );
}

#[test]
fn san_and_uci_moves_resolve_to_the_same_move() {
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            &[
                ("O-O", "e1g1"),
                ("O-O-O", "e1c1"),
                ("Nxf7", "e5f7"),
                ("Qxf6", "f3f6"),
            ],
        ),
        (
            "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1",
            &[("bxa8=Q+", "b7a8q"), ("bxa8=N", "b7a8n"), ("b8=R", "b7b8r")],
        ),
        (
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            &[("exf6", "e5f6"), ("Nf3", "g1f3"), ("e6", "e5e6")],
        ),
        // Chess960 castling is written king-takes-rook in UCI.
        (
            "1r2k1r1/6p1/8/8/8/8/6P1/1R2K1R1 w GBgb - 0 1",
            &[("O-O", "e1g1"), ("O-O-O", "e1b1")],
        ),
    ];
    for (fen, moves) in cases {
        let pos: Chess = parse_fen(fen, fen.contains("GB")).unwrap();
        for (san, uci) in moves {
            let a = resolve_move(&pos, san).unwrap();
            let b = resolve_move(&pos, uci).unwrap();
            assert_eq!(a, b, "{fen}: {san} vs {uci}");
            assert!(pos.is_legal(a));
        }
        assert!(resolve_move(&pos, "Ke5").is_err());
        assert!(resolve_move(&pos, "a7a5").is_err());
    }
}

#[test]
fn four_and_six_field_positions_and_move_counters() {
    let four = parse_line("4k3/8/8/8/8/8/3R4/4K3 w - - hmvc 7; fmvn 31; bm Rd8+;", 1)
        .unwrap()
        .unwrap();
    let six = parse_line("4k3/8/8/8/8/8/3R4/4K3 w - - 7 31 bm Rd8+;", 1)
        .unwrap()
        .unwrap();
    assert_eq!(four.fen, "4k3/8/8/8/8/8/3R4/4K3 w - - 7 31");
    assert_eq!(four.fen, six.fen);
    assert_eq!(four.pos.halfmoves(), 7);
    assert_eq!(six.best, four.best);
    let c = parse_line(
        "4k3/8/8/8/8/8/3R4/4K3 w - - bm Rd8+; c0 \"a; quoted\"; c3 \"x\"; id \"a b\";",
        3,
    )
    .unwrap()
    .unwrap();
    assert_eq!(c.comments, ["a; quoted", "x"]);
    assert_eq!(c.id, "a b");
}

/// tests/data/cli_suite.epd at 20,000 nodes a position. Each verdict
/// follows from the position: mates in one and two, a hanging queen taken
/// (in SAN and in UCI), a defended rook left alone (`am`), and one record
/// whose `bm` gives the queen for a rook, which no sound search plays.
#[test]
fn small_suite_at_fixed_nodes_scores_exactly() {
    let suite = Suite::load(&common::data("cli_suite.epd")).unwrap();
    assert_eq!(suite.errors.len(), 1);
    assert!(suite.errors[0].starts_with("line 8:"), "{:?}", suite.errors);
    let config = SuiteConfig {
        limits: Limits {
            nodes: Some(20_000),
            ..Limits::default()
        },
        threads: 1,
        default_mate: None,
        params: ferrum::search::params::Params::default(),
        syzygy: None,
    };
    let tt = TranspositionTable::new(16);
    let results: Vec<_> = suite
        .records
        .iter()
        .map(|r| suite::run_record(&suite.name, r, &config, &tt))
        .collect();
    let verdicts: Vec<(&str, bool, &str)> = results
        .iter()
        .map(|r| (r.id.as_str(), r.solved, r.found.as_str()))
        .collect();
    assert_eq!(verdicts[0], ("small.01", true, "Rd8#"));
    assert_eq!(verdicts[1].0, "small.02");
    assert!(verdicts[1].1);
    assert_eq!(results[1].score, "mate 2");
    assert_eq!(verdicts[2], ("small.03", true, "Rxd5"));
    assert!(verdicts[3].1 && verdicts[3].2 != "Qxd5");
    assert!(!verdicts[4].1 && verdicts[4].2 != "Qxd5");
    assert_eq!(verdicts[5], ("small.06", true, "Rd8#"));
    assert_eq!(
        (results[5].points, results[5].max_points),
        (Some(10), Some(10))
    );
    assert_eq!(verdicts[6], ("small.07", true, "Rxd5"));
    let summary = suite::summarize(&results);
    let total = summary.last().unwrap();
    assert_eq!((total.solved, total.total), (6, 7));
    assert_eq!((total.points, total.max_points), (Some(10), Some(10)));
    // The first depth at which a solution appeared is never after the final depth.
    for r in &results {
        if let Some(d) = r.first_depth {
            assert!(r.solved && d <= r.depth, "{}", r.id);
        }
    }
}

#[test]
fn plain_mate_files_solve_with_a_default_mate_length() {
    let test = "plain_mate_files_solve_with_a_default_mate_length";
    let Some(path) = common::suite(test, "tactical/mate1.fen") else {
        return;
    };
    let suite = Suite::load(&path).unwrap();
    let config = SuiteConfig {
        limits: Limits {
            nodes: Some(50_000),
            ..Limits::default()
        },
        threads: 1,
        default_mate: Some(1),
        params: ferrum::search::params::Params::default(),
        syzygy: None,
    };
    let tt = TranspositionTable::new(16);
    for rec in &suite.records {
        let r = suite::run_record(&suite.name, rec, &config, &tt);
        assert!(r.solved, "{} {}", r.id, r.fen);
        assert_eq!(r.score, "mate 1");
        assert!(r.found.ends_with('#'), "{}", r.found);
        assert_eq!(r.expected, "dm 1");
    }
}
