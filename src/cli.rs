//! The command line: with no subcommand `ferrum` is a UCI engine on
//! stdin/stdout; `bench`, `perft` and `epd` serve people and test
//! frameworks (OpenBench runs `ferrum bench`). Built on clap, so every
//! subcommand has `--help` and bad arguments exit with code 2.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use shakmaty::{CastlingMode, Chess};

use crate::fen::parse_fen;
use crate::search::Limits;
use crate::state::GameState;
use crate::suite::{self, PositionResult, Suite, SuiteConfig};
use crate::tt::TranspositionTable;
use crate::{bench, datagen, perft, tune, uci};

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
        /// Search with the hand-crafted evaluation instead of the network.
        #[arg(long)]
        classical: bool,
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
    /// Solve EPD test suites (bm, am, dm, c8/c9 points) and report each position and a summary.
    Epd(EpdArgs),
    /// Generate self-play training data (bulletformat ChessBoard records, optional text).
    Datagen(DatagenArgs),
    /// Tune the evaluation weights on datagen output (Texel method, Adam) and print them as Rust.
    Tune(TuneArgs),
    /// Train an NNUE network on datagen output and write it in the format `EvalFile` loads.
    Train(TrainArgs),
    /// Analyse the games of a PGN file: annotated PGN ([%eval], ?!/?/?? marks, better lines),
    /// a summary per game and player, and evaluation graphs (SVG). Exit code 0: every game
    /// analysed; 3: some games could not be read and were skipped; 1: nothing could be done.
    Analyse(AnalyseArgs),
    /// Fit the win/draw/loss model (UCI_ShowWDL) to datagen output and print its parameters.
    Wdl {
        /// Datagen files (bulletformat records).
        #[arg(required = true)]
        data: Vec<PathBuf>,
        /// Use at most this many positions (evenly spread over the files).
        #[arg(long, default_value_t = 2_000_000)]
        limit: usize,
        /// Adam steps.
        #[arg(long, default_value_t = 1500)]
        iterations: usize,
    },
    /// Build a Polyglot opening book from PGN games, or show a position's book moves.
    Book {
        #[command(subcommand)]
        command: BookCommand,
    },
    /// Print the evaluation of a position term by term, and the network's.
    Eval {
        /// Position in FEN; the start position if absent.
        #[arg(long)]
        fen: Option<String>,
        /// The network file to show (the embedded net if absent).
        #[arg(long)]
        net: Option<PathBuf>,
    },
    /// Print the search parameters in OpenBench's SPSA input format (name, int, default, min,
    /// max, c_end, r_end). The engine offers them as UCI options when built with `--features
    /// tune` or run with FERRUM_TUNE=1.
    Spsa,
}

/// Where `ferrum tune` starts.
#[derive(Clone, Copy, clap::ValueEnum)]
enum TuneStart {
    /// The engine's current weights.
    Current,
    /// Material only (100/300/300/500/900), everything else zero.
    Zero,
}

/// Arguments of `ferrum tune`.
#[derive(Args)]
struct TuneArgs {
    /// Datagen files (bulletformat ChessBoard records).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Full passes over the data.
    #[arg(long, default_value_t = 500)]
    epochs: usize,
    /// Adam step size in centipawns.
    #[arg(long, default_value_t = 2.0)]
    lr: f64,
    /// Weight of the game result in the target; the rest is the search score.
    #[arg(long, default_value_t = 0.5)]
    wdl: f64,
    /// Threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Starting weights.
    #[arg(long, value_enum, default_value_t = TuneStart::Current)]
    from: TuneStart,
    /// Write the weights (Rust source) here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Arguments of `ferrum train`.
#[derive(Args)]
struct TrainArgs {
    /// Datagen files (bulletformat ChessBoard records).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// The trained net (quantised, engine format).
    #[arg(long, default_value = "ferrum.nnue")]
    out: PathBuf,
    /// Each epoch's net (`epoch-N.nnue`) and the float checkpoint (`last.ckpt`) go here.
    #[arg(long, default_value = "nets/train")]
    checkpoints: PathBuf,
    /// Continue from a float checkpoint (`last.ckpt`) or from a quantised net
    /// (`.nnue`, such as the shipped one) instead of random weights.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Full passes over the training data.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10000))]
    epochs: u64,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 16384, value_parser = clap::value_parser!(u64).range(1..))]
    batch_size: u64,
    /// Starting learning rate (AdamW); it falls along a cosine to --lr-end.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Learning rate at the end of the last epoch.
    #[arg(long, default_value_t = 0.00001)]
    lr_end: f32,
    /// Weight of the game result in the target; the rest is sigmoid(score / 400).
    #[arg(long, default_value_t = 0.25)]
    wdl: f32,
    /// Share of the (shuffled) data held out for the validation loss.
    #[arg(long, default_value_t = 0.02)]
    validation: f64,
    /// Threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Seed of the initial weights, the shuffles and the held-out split.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Train a net that mirrors the board left-right when a perspective's king is on files e-h.
    #[arg(long)]
    mirror: bool,
    /// Give the net 8 output layers chosen by the number of pieces on the board; a resumed
    /// net with one starts with 8 copies of it (evaluating exactly as before).
    #[arg(long)]
    output_buckets: bool,
    /// Show each training position mirrored left-right half of the time (a net that
    /// mirrors already is trained as it is).
    #[arg(long)]
    augment_mirror: bool,
}

/// Arguments of `ferrum datagen`.
#[derive(Args)]
struct DatagenArgs {
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
}

/// How each position is searched by `ferrum epd` and `ferrum analyse`.
#[derive(Args, Debug)]
struct PositionSearchArgs {
    /// Time per position in milliseconds (the default is 1000 when no limit is given).
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Depth per position.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(i32).range(1..=100))]
    depth: Option<i32>,
    /// Nodes per position.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
}

impl PositionSearchArgs {
    /// The limits asked for; 1000 ms a position when none is.
    fn limits(&self) -> Limits {
        Limits {
            movetime: self
                .movetime
                .or((self.depth.is_none() && self.nodes.is_none()).then_some(1000)),
            depth: self.depth,
            nodes: self.nodes,
            ..Limits::default()
        }
    }
}

/// Arguments of `ferrum epd`.
#[derive(Args)]
struct EpdArgs {
    /// EPD files (SAN or UCI moves; 4- or 6-field positions).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    search: PositionSearchArgs,
    /// Transposition table size in MB (cleared before each position).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Mate length for positions without a `dm`, `bm` or `am` (plain-FEN mate files).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=100))]
    dm: Option<i32>,
    /// Set a search parameter for the run, NAME=VALUE (repeatable; the names and
    /// ranges are those `ferrum spsa` lists), to measure a change on a suite
    /// without a rebuild.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, i32)>,
    /// Write the results as JSON on stdout instead of text.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Write the results as CSV on stdout instead of text.
    #[arg(long)]
    csv: bool,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build a Polyglot .bin book from the main lines of PGN games, as Polyglot's make-book
    /// does: weight 2 per win and 1 per draw of the side that played the move.
    Build {
        /// PGN file(s) of games (unfinished games, result `*`, are left out).
        #[arg(required = true)]
        pgn: Vec<PathBuf>,
        /// Where to write the book.
        #[arg(long)]
        out: PathBuf,
        /// Plies of each game to take.
        #[arg(long, default_value_t = 40)]
        max_ply: usize,
        /// Leave out moves played in fewer games than this.
        #[arg(long, default_value_t = 3)]
        min_games: u32,
    },
    /// List a position's book moves with their weights.
    Show {
        /// The book file.
        book: PathBuf,
        /// Position in FEN; the start position if absent.
        #[arg(long)]
        fen: Option<String>,
    },
}

#[derive(Args, Debug)]
struct AnalyseArgs {
    /// PGN file with one or more games.
    pgn: PathBuf,
    #[command(flatten)]
    search: PositionSearchArgs,
    /// Transposition table size in MB (kept through a game, cleared between games).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Write the annotated PGN here (default: stdout, unless --json).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write an evaluation graph per game (game-N.svg) into this folder.
    #[arg(long)]
    graph: Option<PathBuf>,
    /// Print the analysis (per game, player and move) as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs the command line; the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run();
            ExitCode::SUCCESS
        }
        Some(Command::Bench { depth, classical }) => {
            let net = if classical {
                None
            } else {
                crate::nnue::default_net()
            };
            let r = bench::run_with(depth, net, &|i, n| {
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
        Some(Command::Epd(args)) => run_epd(&args),
        Some(Command::Datagen(args)) => run_datagen(&args),
        Some(Command::Tune(args)) => run_tune(&args),
        Some(Command::Train(args)) => run_train(&args),
        Some(Command::Analyse(args)) => run_analyse(&args),
        Some(Command::Spsa) => {
            print!("{}", crate::params::spsa_input());
            ExitCode::SUCCESS
        }
        Some(Command::Book { command }) => run_book(command),
        Some(Command::Wdl {
            data,
            limit,
            iterations,
        }) => run_wdl(&data, limit, iterations),
        Some(Command::Eval { fen, net }) => {
            let pos = match fen {
                None => Chess::default(),
                Some(f) => match parse_fen(&f, false) {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("ferrum eval: {e}");
                        return ExitCode::from(2);
                    }
                },
            };
            println!("{}", crate::eval::explain(&pos));
            let (net, name) = match &net {
                Some(p) => match crate::nnue::Network::load(p) {
                    Ok(n) => (Some(Arc::new(n)), p.display().to_string()),
                    Err(e) => {
                        eprintln!("ferrum eval: {e}");
                        return ExitCode::from(1);
                    }
                },
                None => (
                    crate::nnue::default_net(),
                    crate::nnue::network::DEFAULT_NAME.to_string(),
                ),
            };
            if let Some(net) = net {
                println!("{}", crate::nnue::describe(&net, &pos, &name));
            }
            ExitCode::SUCCESS
        }
    }
}

/// `ferrum tune`: loads and traces the data, fits K, tunes, prints the
/// held-out loss before and after and the weights.
fn run_tune(args: &TuneArgs) -> ExitCode {
    let start = Instant::now();
    let data = match tune::load(&args.data, args.threads as usize) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("ferrum tune: {e}");
            return ExitCode::from(1);
        }
    };
    if data.is_empty() {
        eprintln!("ferrum tune: no positions in the data");
        return ExitCode::from(1);
    }
    let cfg = tune::TuneConfig {
        threads: args.threads as usize,
        epochs: args.epochs,
        lr: args.lr,
        wdl: args.wdl.clamp(0.0, 1.0),
        ..tune::TuneConfig::default()
    };
    eprintln!(
        "{} positions traced in {:.1} s",
        data.len(),
        start.elapsed().as_secs_f64()
    );
    let current = tune::current();
    let k = tune::fit_k(&data, &current);
    let initial = match args.from {
        TuneStart::Current => current,
        TuneStart::Zero => tune::material_only(),
    };
    let held_out = Some((cfg.holdout_every, true));
    let before = tune::loss(&data, &initial, k, cfg.wdl, held_out);
    eprintln!("K = {k:.4}; held-out loss before: {before:.6}");
    let tuned = tune::tune(&data, &initial, k, &cfg, &|epoch, l| {
        eprintln!("epoch {epoch}: training loss {l:.6}");
    });
    let after = tune::loss(&data, &tuned, k, cfg.wdl, held_out);
    let rounded = tune::flatten(&tune::unflatten(&tuned));
    let after_rounded = tune::loss(&data, &rounded, k, cfg.wdl, held_out);
    eprintln!(
        "held-out loss after: {after:.6} ({after_rounded:.6} with integer weights); {:.0} s",
        start.elapsed().as_secs_f64()
    );
    let note = format!(
        "{} positions, K {k:.4}, result weight {}, held-out loss {before:.6} -> {after_rounded:.6}.",
        data.len(),
        cfg.wdl
    );
    let source = tune::weights_source(&tune::unflatten(&tuned), &note);
    match &args.out {
        Some(p) => {
            if let Err(e) = std::fs::write(p, source) {
                eprintln!("ferrum tune: cannot write {}: {e}", p.display());
                return ExitCode::from(1);
            }
        }
        None => print!("{source}"),
    }
    ExitCode::SUCCESS
}

/// `ferrum train`: loads and splits the data, trains, writes a net after
/// every epoch and the final one to `--out`.
fn run_train(args: &TrainArgs) -> ExitCode {
    use crate::train::{self, FloatNet, TrainConfig};
    let start = Instant::now();
    let mut records = Vec::new();
    for p in &args.data {
        match datagen::read_records(p) {
            Ok(r) => records.extend(r),
            Err(e) => {
                eprintln!("ferrum train: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if records.is_empty() {
        eprintln!("ferrum train: no positions in the data");
        return ExitCode::from(1);
    }
    let cfg = TrainConfig {
        epochs: args.epochs as usize,
        batch_size: args.batch_size as usize,
        lr: args.lr,
        lr_end: args.lr_end,
        wdl: args.wdl.clamp(0.0, 1.0),
        validation: args.validation.clamp(0.0, 0.5),
        threads: args.threads as usize,
        seed: args.seed,
        out_dir: args.checkpoints.clone(),
        augment_mirror: args.augment_mirror,
        ..TrainConfig::default()
    };
    let mut net = match &args.resume {
        Some(p) => match std::fs::read(p)
            .map_err(|e| e.to_string())
            .and_then(|b| FloatNet::from_checkpoint_or_net(&b))
        {
            Ok(n) => n,
            Err(e) => {
                eprintln!("ferrum train: {}: {e}", p.display());
                return ExitCode::from(1);
            }
        },
        None => FloatNet {
            mirror: args.mirror,
            ..FloatNet::random(args.seed)
        },
    };
    if args.output_buckets && net.buckets() == 1 {
        net = net.with_output_buckets();
    }
    if let Err(e) = std::fs::create_dir_all(&cfg.out_dir) {
        eprintln!("ferrum train: cannot create {}: {e}", cfg.out_dir.display());
        return ExitCode::from(1);
    }
    let (training, validation) = train::split(records, &cfg);
    println!(
        "{} training and {} held-out positions, {}->{}x2->1 SCReLU{}{}{}, {} epochs, batch {}, lr {} -> {}, wdl {}",
        training.len(),
        validation.len(),
        crate::nnue::INPUTS,
        crate::nnue::HIDDEN,
        if net.mirror { " (mirrored)" } else { "" },
        if net.buckets() > 1 {
            format!(", {} output buckets", net.buckets())
        } else {
            String::new()
        },
        if cfg.mirror_augments(&net) {
            ", mirror augmentation"
        } else {
            ""
        },
        cfg.epochs,
        cfg.batch_size,
        cfg.lr,
        cfg.lr_end,
        cfg.wdl
    );
    println!(
        "epoch 0: validation loss {:.6}",
        train::mean_loss(&net, &validation, cfg.wdl, cfg.threads)
    );
    let mut write_error = None;
    train::train(&mut net, training, &validation, &cfg, &mut |n, r| {
        println!(
            "epoch {}: training loss {:.6}  validation loss {:.6}  {:.0} pos/s  lr {:.2e}  {:.0} s",
            r.epoch,
            r.train_loss,
            r.validation_loss,
            r.positions_per_second,
            r.lr,
            start.elapsed().as_secs_f64()
        );
        let _ = std::io::stdout().flush();
        let epoch_net = cfg.out_dir.join(format!("epoch-{}.nnue", r.epoch));
        let ckpt = cfg.out_dir.join("last.ckpt");
        if let Err(e) =
            train::save_quantised(n, &epoch_net).and_then(|()| std::fs::write(&ckpt, n.to_bytes()))
        {
            write_error = Some(e);
        }
    });
    if let Some(e) = write_error {
        eprintln!("ferrum train: cannot write a checkpoint: {e}");
    }
    if let Err(e) = train::save_quantised(&net, &args.out) {
        eprintln!("ferrum train: cannot write {}: {e}", args.out.display());
        return ExitCode::from(1);
    }
    println!("wrote {}", args.out.display());
    ExitCode::SUCCESS
}

/// `ferrum datagen`: exit code 0 when the run ended by a limit or Ctrl-C
/// with everything written, 1 on a file error.
fn run_datagen(args: &DatagenArgs) -> ExitCode {
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
        match crate::nnue::Network::load(p) {
            Ok(n) => Some(Arc::new(n)),
            Err(e) => {
                eprintln!("ferrum datagen: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        crate::nnue::default_net()
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

/// A `--param NAME=VALUE` argument: a search parameter's name and a value
/// in its range.
fn parse_param(arg: &str) -> Result<(String, i32), String> {
    let (name, value) = arg
        .split_once('=')
        .ok_or_else(|| "expected NAME=VALUE".to_string())?;
    let (name, value) = (name.trim(), value.trim());
    let value = value
        .parse::<i32>()
        .map_err(|e| format!("value '{value}': {e}"))?;
    crate::params::Params::default().set(name, value)?;
    Ok((name.to_string(), value))
}

/// `ferrum epd`: exit code 0 when every file was read and every position
/// searched (malformed lines are reported and skipped), 1 otherwise.
fn run_epd(args: &EpdArgs) -> ExitCode {
    let mut complete = true;
    let mut suites = Vec::new();
    let mut skipped = Vec::new();
    for path in &args.files {
        match Suite::load(path) {
            Ok(s) => {
                for e in &s.errors {
                    eprintln!("{}: {e} (skipped)", path.display());
                    skipped.push(format!("{}: {e}", s.name));
                }
                suites.push(s);
            }
            Err(e) => {
                eprintln!("ferrum epd: cannot read {}: {e}", path.display());
                complete = false;
            }
        }
    }
    let Some(tt) = TranspositionTable::try_new(args.hash as usize) else {
        eprintln!("ferrum epd: cannot allocate a {} MB hash table", args.hash);
        return ExitCode::from(1);
    };
    let mut params = crate::params::Params::default();
    for (name, value) in &args.params {
        // Checked when the arguments were parsed.
        let _ = params.set(name, *value);
    }
    let config = SuiteConfig {
        limits: args.search.limits(),
        threads: args.search.threads as usize,
        default_mate: args.dm,
        params,
    };
    let text = !args.json && !args.csv;
    let total: usize = suites.iter().map(|s| s.records.len()).sum();
    let bar = progress_bar(total as u64);
    let start = Instant::now();
    let mut results: Vec<PositionResult> = Vec::with_capacity(total);
    let mut solved = 0;
    for s in &suites {
        for rec in &s.records {
            bar.set_message(format!("{} {}", s.name, rec.id));
            let r = suite::run_record(&s.name, rec, &config, &tt);
            solved += usize::from(r.solved);
            if text {
                let line = suite::format_result(&r);
                bar.suspend(|| println!("{line}"));
            }
            results.push(r);
            bar.set_prefix(format!("solved {solved}"));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        suite::write_json(&mut out, &results, &skipped)
    } else if args.csv {
        suite::write_csv(&mut out, &results)
    } else {
        write_summary(&mut out, &results, skipped.len(), start.elapsed())
    };
    if let Err(e) = written.and_then(|_| out.flush()) {
        eprintln!("ferrum epd: cannot write the results: {e}");
        complete = false;
    }
    if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn write_summary(
    out: &mut dyn Write,
    results: &[PositionResult],
    skipped: usize,
    elapsed: std::time::Duration,
) -> std::io::Result<()> {
    writeln!(out)?;
    for s in suite::summarize(results) {
        writeln!(out, "{}", s.format())?;
    }
    if skipped > 0 {
        let s = if skipped == 1 { "" } else { "s" };
        writeln!(out, "{skipped} malformed line{s} skipped")?;
    }
    writeln!(out, "wall time {}", suite::format_duration(elapsed))
}

/// `ferrum analyse`: reads every game, analyses the readable ones, writes
/// the annotated PGN, graphs and summaries; reports unreadable games by
/// number and skips them (exit code 3).
fn run_analyse(args: &AnalyseArgs) -> ExitCode {
    use crate::analyse::{Settings, analyse_game, annotate};
    let fail = |e: String| {
        eprintln!("ferrum analyse: {e}");
        ExitCode::from(1)
    };
    let file = match std::fs::File::open(&args.pgn) {
        Ok(f) => f,
        Err(e) => return fail(format!("{}: {e}", args.pgn.display())),
    };
    let games = match crate::pgn::read_games(std::io::BufReader::new(file)) {
        Ok(g) => g,
        Err(e) => return fail(format!("{}: {e}", args.pgn.display())),
    };
    if let Some(dir) = &args.graph
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("{}: {e}", dir.display()));
    }
    let settings = Settings {
        limits: args.search.limits(),
        threads: args.search.threads as usize,
        hash_mb: args.hash as usize,
        net: crate::nnue::default_net(),
    };
    let total: usize = games
        .iter()
        .flatten()
        .map(|g| g.mainline.nodes.len() + 1)
        .sum();
    let bar = progress_bar(total as u64);
    bar.set_prefix("positions");
    let mut pgn_out = String::new();
    let mut reports = Vec::new();
    let mut skipped = 0;
    for (i, game) in games.iter().enumerate() {
        let number = i + 1;
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                bar.suspend(|| eprintln!("game {number}: skipped: {e}"));
                skipped += 1;
                continue;
            }
        };
        bar.set_message(format!(
            "game {number}: {} - {}",
            game.tag("White").unwrap_or("?"),
            game.tag("Black").unwrap_or("?")
        ));
        let report = analyse_game(game, number, &settings, &mut || bar.inc(1));
        pgn_out.push_str(&crate::pgn::write_game(&annotate(game, &report)));
        if let Some(dir) = &args.graph {
            let title = format!(
                "Game {number}: {} - {} ({})",
                report.white.name, report.black.name, game.result
            );
            let path = dir.join(format!("game-{number}.svg"));
            if let Err(e) = crate::graph::write_svg(&path, &title, &report) {
                bar.finish_and_clear();
                return fail(e);
            }
        }
        if !args.json {
            bar.suspend(|| eprintln!("{}", summary_text(&report)));
        }
        reports.push(report);
    }
    bar.finish_and_clear();
    if let Some(path) = &args.out {
        if let Err(e) = std::fs::write(path, &pgn_out) {
            return fail(format!("{}: {e}", path.display()));
        }
    } else if !args.json {
        print!("{pgn_out}");
    }
    if args.json {
        let doc = serde_json::json!({
            "games": reports,
            "skipped": skipped,
        });
        match serde_json::to_string_pretty(&doc) {
            Ok(text) => println!("{text}"),
            Err(e) => return fail(e.to_string()),
        }
    }
    if skipped > 0 {
        eprintln!(
            "{} of {} games analysed, {skipped} skipped",
            reports.len(),
            games.len()
        );
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// `ferrum wdl`: fits the WDL model to datagen records and prints it.
fn run_wdl(paths: &[PathBuf], limit: usize, iterations: usize) -> ExitCode {
    use crate::wdl::{MODEL, Sample, fit, loss};
    let mut samples = Vec::new();
    for path in paths {
        let records = match datagen::read_records(path) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("ferrum wdl: {}: {e}", path.display());
                return ExitCode::from(1);
            }
        };
        for rec in records {
            let material = rec
                .into_iter()
                .map(|(piece, _)| match piece & 7 {
                    0 => 1,
                    1 | 2 => 3,
                    3 => 5,
                    4 => 9,
                    _ => 0,
                })
                .sum();
            samples.push(Sample {
                score: i32::from(rec.score),
                material,
                result: rec.result,
            });
        }
    }
    if samples.len() > limit {
        let step = samples.len() as f64 / limit as f64;
        samples = (0..limit)
            .map(|i| samples[(i as f64 * step) as usize])
            .collect();
    }
    if samples.is_empty() {
        eprintln!("ferrum wdl: no positions");
        return ExitCode::from(1);
    }
    eprintln!(
        "{} positions; loss of the current model {:.5}",
        samples.len(),
        loss(&MODEL, &samples)
    );
    let fitted = fit(&samples, MODEL, iterations);
    println!("loss {:.5}", loss(&fitted, &samples));
    println!(
        "pub const MODEL: WdlModel = WdlModel {{ a: [{:.1}, {:.1}], b: [{:.1}, {:.1}] }};",
        fitted.a[0], fitted.a[1], fitted.b[0], fitted.b[1]
    );
    println!("score  material 20: W D L   material 40: W D L   material 60: W D L");
    for score in [0, 50, 100, 150, 200, 300, 500] {
        let row: Vec<String> = [20, 40, 60]
            .iter()
            .map(|&m| {
                let [w, d, l] = fitted.per_mille(score, m);
                format!("{w:4} {d:4} {l:4}")
            })
            .collect();
        println!("{score:5}  {}", row.join("    "));
    }
    ExitCode::SUCCESS
}

/// `ferrum book build` and `ferrum book show`.
fn run_book(command: BookCommand) -> ExitCode {
    let fail = |e: String| {
        eprintln!("ferrum book: {e}");
        ExitCode::from(1)
    };
    match command {
        BookCommand::Build {
            pgn,
            out,
            max_ply,
            min_games,
        } => {
            let mut games = Vec::new();
            let mut skipped = 0;
            for path in &pgn {
                let read = std::fs::File::open(path)
                    .and_then(|f| crate::pgn::read_games(std::io::BufReader::new(f)));
                match read {
                    Ok(list) => {
                        for (i, g) in list.into_iter().enumerate() {
                            match g {
                                Ok(g) => games.push(g),
                                Err(e) => {
                                    eprintln!("{} game {}: skipped: {e}", path.display(), i + 1);
                                    skipped += 1;
                                }
                            }
                        }
                    }
                    Err(e) => return fail(format!("{}: {e}", path.display())),
                }
            }
            let book = crate::book::build(&games, max_ply, min_games);
            if let Err(e) = std::fs::write(&out, book.to_bytes()) {
                return fail(format!("{}: {e}", out.display()));
            }
            eprintln!(
                "{} games ({skipped} skipped), {} entries written to {}",
                games.len(),
                book.len(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        BookCommand::Show { book, fen } => {
            let pos = match fen {
                None => Chess::default(),
                Some(f) => match parse_fen(&f, false) {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("ferrum book: {e}");
                        return ExitCode::from(2);
                    }
                },
            };
            match crate::book::Book::load(&book) {
                Ok(b) => {
                    print!("{}", crate::book::describe(&b, &pos));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
    }
}

/// A game's summary: one line per player.
fn summary_text(r: &crate::analyse::GameReport) -> String {
    let mut s = format!("game {}:", r.number);
    for p in [&r.white, &r.black] {
        s.push_str(&format!(
            "\n  {:<24} moves {:3}  acpl {:5.1}  accuracy {:5.1}%  inaccuracies {}  mistakes {}  blunders {}",
            p.name, p.moves, p.acpl, p.accuracy, p.inaccuracies, p.mistakes, p.blunders
        ));
    }
    s
}

/// A progress bar on stderr, or a hidden one when stderr is not a terminal
/// (pipes, CI logs).
fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(
        "[{elapsed_precise}] {bar:30.cyan/blue} {pos}/{len} {prefix} (eta {eta}) {wide_msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix("solved 0");
    bar
}
