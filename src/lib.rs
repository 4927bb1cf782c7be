//! Ferrum: a UCI chess engine. Iterative-deepening negamax alpha-beta with
//! move ordering and a lossy Zobrist-hashed transposition table, over
//! shakmaty's move generation.
//!
//! The source tree is one folder per layer; each layer uses only the layers
//! below it (docs/ARCHITECTURE.md):
//!
//! - [`cli`]: the command line, one file per subcommand;
//! - [`tools`]: what the engine does not need to play a game (datagen,
//!   tuning, training, analysis, EPD suites, book building);
//! - [`uci`]: the protocol loop and the [`uci::engine::Engine`] behind it;
//! - [`search`]: iterative deepening, negamax, quiescence, Lazy SMP, the
//!   move picker, histories, the transposition table, time, parameters;
//! - [`eval`]: the hand-crafted evaluation and the network ([`eval::nnue`]);
//! - [`chess`]: the position and its key, moves, FEN, scores, SEE, perft.

pub mod chess;
pub mod cli;
pub mod eval;
pub mod search;
pub mod tools;
pub mod uci;

/// Engine name and version, as `uci` reports them (the version is
/// Cargo.toml's; CHANGELOG.md says what each version changed).
pub const NAME: &str = concat!("Ferrum ", env!("CARGO_PKG_VERSION"));
/// Author line for `id author`.
pub const AUTHOR: &str = "the Ferrum developers";
