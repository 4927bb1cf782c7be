//! `ferrum perft`: counting the move tree.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use shakmaty::{CastlingMode, Chess};

use crate::chess::fen::parse_fen;
use crate::chess::perft;
use crate::chess::state::GameState;

/// Arguments of `ferrum perft`.
#[derive(Args)]
pub(super) struct PerftArgs {
    /// Depth in plies (1 to 12).
    #[arg(value_parser = clap::value_parser!(u32).range(1..=12))]
    pub(super) depth: u32,
    /// Position in FEN (4 or 6 fields); the start position if absent.
    #[arg(long)]
    pub(super) fen: Option<String>,
    /// Read castling rights as Chess960 and print castling as king takes rook.
    #[arg(long)]
    chess960: bool,
    /// Threads to split the root moves over.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(super) threads: u16,
}

/// `ferrum perft`: each root move's count, the total, time and speed.
pub(super) fn run(args: &PerftArgs) -> ExitCode {
    let (depth, fen, chess960, threads) = (
        args.depth,
        args.fen.as_deref(),
        args.chess960,
        args.threads as usize,
    );
    let pos = match fen {
        None => Chess::default(),
        Some(f) => match parse_fen(f, chess960) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ferrum perft: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let mode = CastlingMode::from_chess960(chess960);
    let state = GameState::new(pos);
    let start = Instant::now();
    let divide = perft::divide(&state, depth, threads);
    let elapsed = start.elapsed();
    let mut total = 0;
    for (m, n) in &divide {
        println!("{}: {}", m.to_uci(mode), n);
        total += n;
    }
    println!();
    println!("Nodes: {total}");
    println!("Time: {} ms", elapsed.as_millis());
    println!(
        "NPS: {}",
        (total as f64 / elapsed.as_secs_f64().max(1e-9)) as u64
    );
    ExitCode::SUCCESS
}
