//! The costs a search or evaluation change moves, measured before a match:
//! legal move generation and play/undo through the game state, static
//! evaluation, and search speed (nodes per second) on the `bench`
//! positions. Run with `cargo bench --bench engine`; criterion compares
//! each run with the previous one on the same machine.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferrum::chess::fen::parse_fen;
use ferrum::chess::state::GameState;
use ferrum::eval::evaluate;
use ferrum::eval::nnue::{Accumulator, AccumulatorStack, default_net};
use ferrum::search::bench::POSITIONS;
use ferrum::search::search_fixed_depth;
use shakmaty::{Chess, Position};

fn positions() -> Vec<Chess> {
    POSITIONS
        .iter()
        .map(|f| parse_fen(f, false).expect("bench FEN"))
        .collect()
}

/// Legal moves of every bench position, and each move played and undone.
fn bench_movegen(c: &mut Criterion) {
    let pos = positions();
    let moves: u64 = pos.iter().map(|p| p.legal_moves().len() as u64).sum();
    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements(moves));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            pos.iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum::<usize>()
        })
    });
    group.bench_function("play_undo", |b| {
        let mut states: Vec<GameState> = pos.iter().cloned().map(GameState::new).collect();
        b.iter(|| {
            for s in states.iter_mut() {
                for m in s.pos().legal_moves() {
                    s.play(m);
                    black_box(s.key());
                    s.undo();
                }
            }
        })
    });
    group.finish();
}

/// Static evaluation, per position (throughput counts positions).
fn bench_eval(c: &mut Criterion) {
    let pos = positions();
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(pos.len() as u64));
    group.bench_function("bench_positions", |b| {
        b.iter(|| pos.iter().map(|p| evaluate(black_box(p))).sum::<i32>())
    });
    let Some(net) = default_net() else {
        group.finish();
        return;
    };
    // The network from scratch: both accumulators refreshed, then the output.
    group.bench_function("nnue_refresh", |b| {
        b.iter(|| {
            pos.iter()
                .map(|p| net.evaluate(&Accumulator::refresh(&net, black_box(p).board()), p.turn()))
                .sum::<i32>()
        })
    });
    group.finish();
    // What the search pays per node: the incremental update after a move,
    // the output, and the pop (throughput counts moves).
    let moves: u64 = pos.iter().map(|p| p.legal_moves().len() as u64).sum();
    let mut group = c.benchmark_group("nnue");
    group.throughput(Throughput::Elements(moves));
    group.bench_function("push_evaluate_pop", |b| {
        let mut stacks: Vec<AccumulatorStack> = pos
            .iter()
            .map(|p| AccumulatorStack::new(Arc::clone(&net), p.board()))
            .collect();
        b.iter(|| {
            let mut sum = 0;
            for (p, st) in pos.iter().zip(stacks.iter_mut()) {
                for m in p.legal_moves() {
                    st.push(p, m);
                    sum += st.evaluate(!p.turn());
                    st.pop();
                }
            }
            black_box(sum)
        })
    });
    group.finish();
}

/// Search at a fixed depth over the bench positions; throughput is nodes,
/// so criterion reports nodes per second.
fn bench_search(c: &mut Criterion) {
    const DEPTH: i32 = 7;
    let pos = positions();
    let nodes: u64 = pos
        .iter()
        .map(|p| search_fixed_depth(&GameState::new(p.clone()), DEPTH, 16).nodes)
        .sum();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("bench_positions_depth_{DEPTH}"), |b| {
        b.iter(|| {
            pos.iter()
                .map(|p| search_fixed_depth(&GameState::new(p.clone()), DEPTH, 16).nodes)
                .sum::<u64>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_movegen, bench_eval, bench_search);
criterion_main!(benches);
