//! Perft: counts the leaf nodes of the legal move tree to a fixed depth,
//! the standard check of move generation and of make/unmake.
//!
//! The count goes through [`GameState`], so it also exercises the
//! incremental Zobrist key. The last ply is bulk-counted (the number of
//! legal moves), as `shakmaty::perft` does. Below the root, out of check,
//! the moves come from the engine's own generator
//! ([`crate::chess::movegen::all_moves`]), so perft tests it too. [`divide`] splits the root moves
//! over several threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use shakmaty::{Move, MoveList, Position};

use crate::chess::movegen::{self, Pins};
use crate::chess::state::GameState;

/// Number of leaf nodes `depth` plies below the current position.
pub fn perft(state: &mut GameState, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    legal_moves(state, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in &moves {
        state.play(m);
        nodes += perft(state, depth - 1);
        state.undo();
    }
    nodes
}

/// The legal moves of the current position: out of check, from the
/// engine's generator, which needs no checkers (the game state already
/// knows them); in check, shakmaty's evasions.
/// (Filled in place: a move list is too big to return by value cheaply.)
fn legal_moves(state: &GameState, moves: &mut MoveList) {
    let pos = state.pos();
    if !state.in_check()
        && let Some(pins) = Pins::of(pos)
    {
        movegen::all_moves(pos, pins, moves);
    } else {
        *moves = pos.legal_moves();
    }
}

/// Per-root-move counts (in generation order) for `depth >= 1`, computed
/// on `threads` threads that take root moves from a shared queue.
pub fn divide(state: &GameState, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = state.pos().legal_moves().into_iter().collect();
    let results: Mutex<Vec<Option<u64>>> = Mutex::new(vec![None; moves.len()]);
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, moves.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut local = state.clone();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&m) = moves.get(i) else { break };
                    local.play(m);
                    let n = perft(&mut local, depth.saturating_sub(1));
                    local.undo();
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(n);
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    moves
        .into_iter()
        .zip(results)
        .map(|(m, n)| (m, n.unwrap_or(0)))
        .collect()
}

/// Total perft count on `threads` threads (split at the root).
pub fn perft_parallel(state: &GameState, depth: u32, threads: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide(state, depth, threads).iter().map(|(_, n)| n).sum()
}
