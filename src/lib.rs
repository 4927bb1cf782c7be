//! Ferrum: a UCI chess engine. Iterative-deepening negamax alpha-beta with
//! move ordering and a lossy Zobrist-hashed transposition table, over
//! shakmaty's move generation.
//!
//! Layers, top to bottom: [`uci`] (protocol in and out) → [`engine`]
//! (position, options, [`threads`]) → [`search`] (iterative deepening,
//! negamax, quiescence) with [`movepick`], [`history`], [`see`] and
//! [`time`] → [`eval`] and [`tt`], over [`state`] (position with
//! incremental Zobrist key). [`cli`] is the command line, served by
//! [`perft`], [`bench`], [`epd`] and [`suite`].

pub mod analyse;
pub mod bench;
pub mod book;
pub mod cli;
pub mod correction;
pub mod datagen;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod fen;
pub mod graph;
pub mod history;
pub mod movepick;
pub mod moves;
pub mod nnue;
pub mod params;
pub mod perft;
pub mod pgn;
pub mod score;
pub mod search;
pub mod see;
pub mod skill;
pub mod state;
pub mod suite;
pub mod threads;
pub mod time;
pub mod train;
pub mod tt;
pub mod tune;
pub mod uci;
pub mod wdl;

/// Engine name and version, as `uci` reports them.
pub const NAME: &str = concat!("Ferrum ", env!("CARGO_PKG_VERSION"));
/// Author line for `id author`.
pub const AUTHOR: &str = "the Ferrum developers";
