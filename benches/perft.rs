//! Perft through Ferrum's game state (with the incremental Zobrist key)
//! against `shakmaty::perft` on the same positions, and Ferrum's perft split
//! over two threads at the root, all in one run so the ratios compare like
//! with like.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ferrum::chess::fen::parse_fen;
use ferrum::chess::perft::{perft, perft_parallel};
use ferrum::chess::state::GameState;

const POSITIONS: [(&str, &str, u32); 3] = [
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        5,
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
    ),
    ("cpw3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6),
];

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    for (name, fen, depth) in POSITIONS {
        let pos = parse_fen(fen, false).expect("bench FEN");
        group.bench_function(format!("{name}/shakmaty"), |b| {
            b.iter(|| shakmaty::perft(black_box(&pos), depth))
        });
        group.bench_function(format!("{name}/ferrum"), |b| {
            let mut state = GameState::new(pos.clone());
            b.iter(|| perft(black_box(&mut state), depth))
        });
        group.bench_function(format!("{name}/ferrum-2-threads"), |b| {
            let state = GameState::new(pos.clone());
            b.iter(|| perft_parallel(black_box(&state), depth, 2))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
