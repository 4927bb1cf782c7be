//! The `ferrum` binary: with no arguments a UCI engine on stdin/stdout;
//! subcommands for the command line (`bench`, `perft`, `epd`).

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use shakmaty::{CastlingMode, Chess};

use ferrum::fen::parse_fen;
use ferrum::state::GameState;
use ferrum::{bench, perft, uci};

#[derive(Parser)]
#[command(
    name = "ferrum",
    version,
    about = "Ferrum, a UCI chess engine. Without a subcommand it speaks UCI on stdin/stdout."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Search the bench positions to a fixed depth and print `<N> nodes <M> nps` (OpenBench).
    Bench {
        /// Search depth.
        #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=60))]
        depth: i32,
    },
    /// Count the leaf nodes of the move tree: each root move's count, the total, time and speed.
    Perft {
        /// Depth in plies (1 to 12).
        #[arg(value_parser = clap::value_parser!(u32).range(1..=12))]
        depth: u32,
        /// Position in FEN (4 or 6 fields); the start position if absent.
        #[arg(long)]
        fen: Option<String>,
        /// Read castling rights as Chess960 and print castling as king takes rook.
        #[arg(long)]
        chess960: bool,
        /// Threads to split the root moves over.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run();
            ExitCode::SUCCESS
        }
        Some(Command::Bench { depth }) => {
            let r = bench::run(depth, &|i, n| {
                eprintln!("position {:2}/{}: {n} nodes", i + 1, bench::POSITIONS.len());
            });
            println!("{} nodes {} nps", r.nodes, r.nps());
            ExitCode::SUCCESS
        }
        Some(Command::Perft {
            depth,
            fen,
            chess960,
            threads,
        }) => run_perft(depth, fen.as_deref(), chess960, threads as usize),
    }
}

fn run_perft(depth: u32, fen: Option<&str>, chess960: bool, threads: usize) -> ExitCode {
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
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
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
