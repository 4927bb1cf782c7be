//! Fuzzing the command handler: a million random and mutated command lines,
//! FENs and move lists go through `Uci::handle`; none may panic or hang.
//! (Deterministic seed, so a failure reproduces.) `bench` and `perft` lines
//! are skipped: they are valid and merely long.

use std::io::Write;
use std::sync::{Arc, Mutex};

use ferrum::uci::{Output, Uci};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Counts output bytes without keeping them.
struct Sink(Arc<Mutex<usize>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut n) = self.0.lock() {
            *n += buf.len();
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const WORDS: &[&str] = &[
    "uci",
    "isready",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "stop",
    "ponderhit",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "MultiPV",
    "Move Overhead",
    "UCI_Chess960",
    "Clear Hash",
    "Ponder",
    "true",
    "false",
    "ucinewgame",
    "debug",
    "on",
    "off",
    "register",
    "later",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "d",
    "eval",
    "e2e4",
    "e7e5",
    "g1f3",
    "e1g1",
    "e1h1",
    "0000",
    "a7a8q",
    "b7b8n",
    "h2h1",
    "-1",
    "0",
    "1",
    "2",
    "3",
    "255",
    "256",
    "1000",
    "99999999999",
    "-99999999999",
    "w",
    "b",
    "-",
    "KQkq",
    "HAha",
    "Kk",
    "e3",
    "e6",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "8/8/8/8/8/8/8/8",
    "4k3/8/8/8/8/8/8/4K3",
    "r3k2r/8/8/8/8/8/8/R3K2R",
    "\0",
    "\r",
    "é",
    "🙂",
];

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
];

fn random_line(rng: &mut StdRng) -> String {
    match rng.random_range(0..4) {
        // Random words.
        0 => {
            let n = rng.random_range(0..12);
            (0..n)
                .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                .collect::<Vec<_>>()
                .join(if rng.random_bool(0.9) { " " } else { "  " })
        }
        // A mutated FEN with moves.
        1 => {
            let mut fen: Vec<char> = FENS[rng.random_range(0..FENS.len())].chars().collect();
            for _ in 0..rng.random_range(0..4) {
                let i = rng.random_range(0..fen.len());
                const ALPHABET: &[u8] = b"pnbrqkPNBRQK12345678/ -wbKQkqa-h0";
                let c = ALPHABET[rng.random_range(0..ALPHABET.len())] as char;
                if rng.random_bool(0.5) {
                    fen[i] = c;
                } else {
                    fen.insert(i, c);
                }
            }
            let fen: String = fen.into_iter().collect();
            let mut line = format!("position fen {fen}");
            if rng.random_bool(0.5) {
                line.push_str(" moves");
                for _ in 0..rng.random_range(0..6) {
                    let f = |r: &mut StdRng| {
                        format!(
                            "{}{}",
                            (b'a' + r.random_range(0..8)) as char,
                            (b'1' + r.random_range(0..8)) as char
                        )
                    };
                    line.push(' ');
                    line.push_str(&f(rng));
                    line.push_str(&f(rng));
                }
            }
            line
        }
        // Random bytes.
        2 => {
            let n = rng.random_range(0..64);
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        // A go command with random values.
        _ => {
            let keys = [
                "depth",
                "nodes",
                "movetime",
                "wtime",
                "btime",
                "winc",
                "movestogo",
                "mate",
            ];
            let mut line = "go".to_string();
            for _ in 0..rng.random_range(0..4) {
                let k = keys[rng.random_range(0..keys.len())];
                let v: i64 = match rng.random_range(0..3) {
                    0 => rng.random_range(-10..10),
                    1 => rng.random_range(-100_000..100_000),
                    _ => rng.random(),
                };
                line.push_str(&format!(" {k} {v}"));
            }
            // Keep fuzzed searches short.
            line.push_str(" depth 1");
            line
        }
    }
}

#[test]
fn a_million_random_lines_never_panic() {
    let bytes = Arc::new(Mutex::new(0usize));
    let out = Arc::new(Output::new(Box::new(Sink(Arc::clone(&bytes)))));
    let mut uci = Uci::new(out);
    let mut rng = StdRng::seed_from_u64(0xfe44);
    let mut handled = 0u64;
    for _ in 0..1_000_000 {
        let line = random_line(&mut rng);
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains("bench") || line.contains("perft") || first == "quit" {
            continue;
        }
        assert!(uci.handle(&line), "{line:?} ended the session");
        if uci.engine().is_searching() {
            uci.stop_and_wait();
        }
        handled += 1;
    }
    uci.stop_and_wait();
    assert!(handled > 900_000);
    assert!(*bytes.lock().unwrap() > 0);
}
