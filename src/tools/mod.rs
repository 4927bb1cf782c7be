//! The tools: everything the command line offers that the engine does not
//! need to play a game.
//!
//! Self-play data ([`datagen`]), Texel tuning of the hand-crafted weights
//! ([`tune`]), the network trainer ([`train`]), game analysis ([`analyse`],
//! with [`pgn`] reading and [`graph`] drawing), EPD suites ([`epd`] for one
//! record, [`suite`] for files of them), building opening books
//! ([`book_build`]) and fitting the win/draw/loss model ([`wdl_fit`]).
//!
//! Uses: [`crate::search`], [`crate::eval`], [`crate::chess`] and the
//! book format of [`crate::uci::book`]; a tool may use another tool. No
//! engine layer uses a tool.

pub mod analyse;
pub mod book_build;
pub mod datagen;
pub mod epd;
pub mod graph;
pub mod pgn;
pub mod suite;
pub mod train;
pub mod tune;
pub mod wdl_fit;
