//! Polyglot books: keys, move packing, building from PGN (checked against
//! Debian's `polyglot make-book` where installed) and the UCI options.

use std::path::PathBuf;
use std::process::Command;

use ferrum::chess::state::GameState;
use ferrum::tools::book_build::build;
use ferrum::tools::pgn::read_games;
use ferrum::uci::book::{self, Book, decode_move, encode_move};
use ferrum::uci::engine::parse_move;
use rand::SeedableRng;
use rand::rngs::StdRng;
use shakmaty::{Chess, Position};

/// The test positions of the Polyglot book format's description, with the
/// keys it publishes.
const SPEC_KEYS: &[(&[&str], u64)] = &[
    (&[], 0x463b96181691fc9c),
    (&["e2e4"], 0x823c9b50fd114196),
    (&["e2e4", "d7d5"], 0x0756b94461c50fb0),
    (&["e2e4", "d7d5", "e4e5"], 0x662fafb965db29d4),
    (&["e2e4", "d7d5", "e4e5", "f7f5"], 0x22a48b5a8e47ff78),
    (
        &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
        0x652a607ca3f242c1,
    ),
    (
        &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
        0x00fdd303c946bdd9,
    ),
    (
        &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
        0x3c8123ea7b067637,
    ),
    (
        &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
        0x5c3f9b829b279560,
    ),
];

#[test]
fn keys_are_the_published_polyglot_keys() {
    for (moves, expected) in SPEC_KEYS {
        let mut pos = Chess::default();
        let mut state = GameState::new(pos.clone());
        for m in *moves {
            let mv = parse_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
            state.play(mv);
        }
        assert_eq!(book::key(&pos), *expected, "after {moves:?}");
        // The search's incremental key is the same number.
        assert_eq!(state.key(), *expected, "search key after {moves:?}");
    }
}

#[test]
fn castling_and_promotions_pack_as_polyglot_does() {
    let pos: Chess = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let pack = |uci: &str| encode_move(parse_move(&pos, uci).unwrap());
    let sq = |file: u16, rank: u16| file | (rank << 3);
    // e1g1 is written as the king taking the h1 rook: e1h1.
    assert_eq!(pack("e1g1"), sq(7, 0) | (sq(4, 0) << 6));
    assert_eq!(pack("e1c1"), sq(0, 0) | (sq(4, 0) << 6));
    assert_eq!(pack("b7b8q"), sq(1, 7) | (sq(1, 6) << 6) | (4 << 12));
    assert_eq!(pack("b7a8n"), sq(0, 7) | (sq(1, 6) << 6) | (1 << 12));
    for m in pos.legal_moves() {
        assert_eq!(decode_move(&pos, encode_move(m)), Some(m));
    }
}

/// Games with both castlings, en passant and a promotion.
const PGN: &str = r#"[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0

[Event "b"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Event "c"]
[Result "0-1"]

1. d4 d5 2. c4 e6 0-1

[Event "d"]
[Result "1-0"]

1. e4 c5 2. Nf3 d6 1-0

[Event "e"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O 5. d4 exd4 1-0

[Event "f"]
[Result "1/2-1/2"]

1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O 1/2-1/2

[Event "g"]
[Result "0-1"]

1. e4 Nf6 2. e5 d5 3. exd6 Nc6 4. dxc7 Nd4 5. cxd8=Q+ Kxd8 0-1

[Event "h"]
[Result "*"]

1. h4 h5 *
"#;

fn weights(book: &Book, moves: &[&str]) -> Vec<(String, u16)> {
    let mut pos = Chess::default();
    for m in moves {
        let mv = parse_move(&pos, m).unwrap();
        pos.play_unchecked(mv);
    }
    book.moves(&pos)
        .into_iter()
        .map(|(m, w)| (m.to_uci(shakmaty::CastlingMode::Standard).to_string(), w))
        .collect()
}

#[test]
fn a_book_built_from_games_has_the_expected_moves_and_weights() {
    let games: Vec<_> = read_games(PGN.as_bytes())
        .unwrap()
        .into_iter()
        .map(|g| g.unwrap())
        .collect();
    let book = build(&games, 40, 1);
    // e4: won a, d, e (2 each), drawn b (1); d4: lost c, drawn f (1); h4: unfinished,
    // counted as a draw (1) as make-book does.
    assert_eq!(
        weights(&book, &[]),
        vec![
            ("e2e4".to_string(), 7),
            ("d2d4".to_string(), 1),
            ("h2h4".to_string(), 1)
        ]
    );
    // After 1. e4, black: e5 lost a, e drawn b (1); c5 lost; Nf6 won g (2).
    assert_eq!(
        weights(&book, &["e2e4"]),
        vec![("g8f6".to_string(), 2), ("e7e5".to_string(), 1)]
    );
    // Castling both ways, en passant and the promotion are in the book.
    let castle = ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5"];
    assert_eq!(weights(&book, &castle), vec![("e1g1".to_string(), 2)]);
    let ep = ["e2e4", "g8f6", "e4e5", "d7d5"];
    assert_eq!(
        weights(&book, &ep).len(),
        0,
        "white lost game g: weight 0 is left out"
    );
    let promo = [
        "e2e4", "g8f6", "e4e5", "d7d5", "e5d6", "b8c6", "d6c7", "c6d4", "c7d8q",
    ];
    assert_eq!(weights(&book, &promo), vec![("e8d8".to_string(), 2)]);
    // min-games 2 keeps only moves seen in two games or more.
    let strict = build(&games, 40, 2);
    assert_eq!(
        weights(&strict, &[]),
        vec![("e2e4".to_string(), 7), ("d2d4".to_string(), 1)]
    );
    assert!(weights(&strict, &["e2e4"]).iter().all(|(m, _)| m == "e7e5"));
    // Round trip through bytes; a truncated file is refused.
    let bytes = book.to_bytes();
    assert_eq!(Book::from_bytes(&bytes).unwrap().to_bytes(), bytes);
    assert!(Book::from_bytes(&bytes[..bytes.len() - 3]).is_err());
    // Random choice follows the weights: e4 7 times in 9.
    let mut rng = StdRng::seed_from_u64(1);
    let e4 = (0..8100)
        .filter(|_| {
            let (m, _, _) = book.pick(&Chess::default(), &mut rng).unwrap();
            m.to_uci(shakmaty::CastlingMode::Standard).to_string() == "e2e4"
        })
        .count();
    assert!((5900..6550).contains(&e4), "{e4}");
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrum-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_same_book_as_polyglot_make_book() {
    let pgn = temp("games.pgn");
    std::fs::write(&pgn, PGN).unwrap();
    let ours = temp("ferrum.bin");
    let status = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(["book", "build"])
        .arg(&pgn)
        .args(["--max-ply", "40", "--min-games", "1", "--out"])
        .arg(&ours)
        .status()
        .unwrap();
    assert!(status.success());
    let polyglot = ["/usr/games/polyglot", "/usr/bin/polyglot"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    // Debian's package is the reference; CI installs it when it may (see .ci/run).
    let Some(polyglot) = polyglot else {
        eprintln!("SKIPPED: Debian's polyglot is not installed (apt-get install polyglot)");
        return;
    };
    let theirs = temp("polyglot.bin");
    let out = Command::new(polyglot)
        .args(["make-book", "-pgn"])
        .arg(&pgn)
        .arg("-bin")
        .arg(&theirs)
        .args(["-max-ply", "40", "-min-game", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let a = Book::load(&ours).unwrap();
    let b = Book::load(&theirs).unwrap();
    assert_eq!(a.len(), b.len());
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap()
    );
}
