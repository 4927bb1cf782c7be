//! `ferrum datagen`: self-play training data.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;

use crate::chess::fen::parse_fen;
use crate::tools::datagen;

/// Arguments of `ferrum datagen`.
#[derive(Args)]
pub(super) struct DatagenArgs {
    /// Binary output: bulletformat `ChessBoard` records (32 bytes each), appended to.
    #[arg(long, default_value = "data.bin")]
    out: PathBuf,
    /// Also append `FEN | score | result` lines (White's point of view) to this file.
    #[arg(long)]
    text: Option<PathBuf>,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Soft node budget per move (no new iteration beyond it; 20 times it is the hard cap).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Stop after this many games.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// Stop once this many positions are written.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    positions: Option<u64>,
    /// Seed of the random openings; the same seed and limits write the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start from the positions of this EPD/FEN file (one a line) instead of the start position.
    #[arg(long)]
    book: Option<PathBuf>,
    /// Play with this network file instead of the embedded one.
    #[arg(long, conflicts_with = "classical")]
    net: Option<PathBuf>,
    /// Play with the hand-crafted evaluation instead of a network.
    #[arg(long)]
    classical: bool,
    /// Random legal plies played from the opening position (plus 0 or 1).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=40))]
    random_plies: u32,
    /// Transposition table per game thread, in MB (cleared for each game).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    hash: u64,
    /// Syzygy tablebases (folders separated by ':', ';' on Windows): the
    /// search probes them, and a game ends with the tables' result once it
    /// reaches a position in them.
    #[arg(long, value_name = "DIRS")]
    syzygy: Option<String>,
}

/// `ferrum datagen`: exit code 0 when the run ended by a limit or Ctrl-C
/// with everything written, 1 on a file error.
pub(super) fn run(args: &DatagenArgs) -> ExitCode {
    let mut book = Vec::new();
    if let Some(path) = &args.book {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                for (i, line) in text.lines().enumerate() {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    // The board fields of an EPD or FEN line.
                    let fields: Vec<&str> = line.split_whitespace().take(4).collect();
                    let fen = fields.join(" ");
                    match parse_fen(&fen, false) {
                        Ok(_) => book.push(fen),
                        Err(e) => eprintln!("{}: line {}: {e} (skipped)", path.display(), i + 1),
                    }
                }
            }
            Err(e) => {
                eprintln!("ferrum datagen: cannot read {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
        if book.is_empty() {
            eprintln!("ferrum datagen: no position in {}", path.display());
            return ExitCode::from(1);
        }
    }
    let net = if args.classical {
        None
    } else if let Some(p) = &args.net {
        match crate::eval::nnue::Network::load(p) {
            Ok(n) => Some(Arc::new(n)),
            Err(e) => {
                eprintln!("ferrum datagen: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        crate::eval::nnue::default_net()
    };
    let syzygy = match super::load_syzygy(args.syzygy.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ferrum datagen: {e}");
            return ExitCode::from(1);
        }
    };
    let config = datagen::Config {
        threads: args.threads as usize,
        nodes: args.nodes,
        games: args.games,
        positions: args.positions,
        seed: args.seed,
        book,
        random_plies: args.random_plies,
        hash_mb: args.hash as usize,
        out: args.out.clone(),
        text: args.text.clone(),
        net,
        syzygy,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let handler_stop = Arc::clone(&stop);
    if let Err(e) = ctrlc::set_handler(move || handler_stop.store(true, Ordering::Relaxed)) {
        eprintln!("ferrum datagen: Ctrl-C will not stop cleanly: {e}");
    }
    eprintln!(
        "datagen: {} threads, {} nodes a move, seed {}, writing {}",
        config.threads,
        config.nodes,
        config.seed,
        config.out.display()
    );
    match datagen::run(&config, &stop, &|s| eprintln!("{}", s.line())) {
        Ok(summary) => {
            println!("{}", summary.line());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ferrum datagen: cannot write the data: {e}");
            ExitCode::from(1)
        }
    }
}
