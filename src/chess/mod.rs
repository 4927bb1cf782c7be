//! The chess layer: the rules as the engine sees them, over shakmaty.
//!
//! Owns the position with its incrementally kept Zobrist key and repetition
//! history ([`state`]), the 16-bit move encoding and tests on moves
//! ([`moves`]), staged legal move generation ([`movegen`]), FEN reading ([`fen`]), score conventions ([`score`]), static
//! exchange evaluation and the exchange values of pieces ([`see`]), and
//! perft ([`perft`]).
//!
//! Uses: shakmaty only. Every other layer may use this one.

pub mod fen;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod score;
pub mod see;
pub mod state;
