//! The command line: with no subcommand `ferrum` is a UCI engine on
//! stdin/stdout; each subcommand has a file here with its arguments and its
//! driver (`bench`, `perft`, `epd`, `datagen`, `tune`, `train`, `analyse`,
//! `wdl`, `book`, `eval`; `spsa` is one line below). Built on clap, so every
//! subcommand has `--help` and bad arguments exit with code 2.
//!
//! Uses every other layer; none uses it.

mod analyse;
mod bench;
mod book;
mod datagen;
mod epd;
mod eval;
mod perft;
mod syzygy;
mod train;
mod tune;
mod wdl;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::search::Limits;
use crate::search::syzygy::{Tablebases, TbConfig};
use crate::uci;

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
    Bench(bench::BenchArgs),
    /// Count the leaf nodes of the move tree: each root move's count, the total, time and speed.
    Perft(perft::PerftArgs),
    /// Solve EPD test suites (bm, am, dm, c8/c9 points) and report each position and a summary.
    Epd(epd::EpdArgs),
    /// Generate self-play training data (bulletformat ChessBoard records, optional text).
    Datagen(datagen::DatagenArgs),
    /// Tune the evaluation weights on datagen output (Texel method, Adam) and print them as Rust.
    Tune(tune::TuneArgs),
    /// Train an NNUE network on datagen output and write it in the format `EvalFile` loads.
    Train(train::TrainArgs),
    /// Analyse the games of a PGN file: annotated PGN ([%eval], ?!/?/?? marks, better lines),
    /// a summary per game and player, and evaluation graphs (SVG). Exit code 0: every game
    /// analysed; 3: some games could not be read and were skipped; 1: nothing could be done.
    Analyse(analyse::AnalyseArgs),
    /// Fit the win/draw/loss model (UCI_ShowWDL) to datagen output and print its parameters.
    Wdl(wdl::WdlArgs),
    /// Build a Polyglot opening book from PGN games, or show a position's book moves.
    Book {
        #[command(subcommand)]
        command: book::BookCommand,
    },
    /// Print the evaluation of a position term by term, and the network's.
    Eval(eval::EvalArgs),
    /// Probe Syzygy tablebases: win/draw/loss, distance to zeroing and the moves that keep the
    /// best outcome, for FENs given or read from stdin.
    Syzygy(syzygy::SyzygyArgs),
    /// Print the search parameters in OpenBench's SPSA input format (name, int, default, min,
    /// max, c_end, r_end), less the time manager's (`tm_*`), which act only under a clock. The
    /// engine offers them all as UCI options when built with `--features tune` or run with
    /// FERRUM_TUNE=1.
    Spsa,
}

/// How each position is searched by `ferrum epd` and `ferrum analyse`.
#[derive(Args, Debug)]
pub(super) struct PositionSearchArgs {
    /// Time per position in milliseconds (the default is 1000 when no limit is given).
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) movetime: Option<u64>,
    /// Depth per position.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(i32).range(1..=100))]
    pub(super) depth: Option<i32>,
    /// Nodes per position.
    #[arg(long, group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub(super) threads: u16,
    /// Syzygy tablebases: folders of .rtbw/.rtbz files, separated by ':' (';' on Windows).
    #[arg(long, value_name = "DIRS")]
    pub(super) syzygy: Option<String>,
}

impl PositionSearchArgs {
    /// The limits asked for; 1000 ms a position when none is.
    pub(super) fn limits(&self) -> Limits {
        Limits {
            movetime: self
                .movetime
                .or((self.depth.is_none() && self.nodes.is_none()).then_some(1000)),
            depth: self.depth,
            nodes: self.nodes,
            ..Limits::default()
        }
    }

    /// The tablebases `--syzygy` names, with the engine's default probing.
    pub(super) fn syzygy(&self) -> Result<Option<TbConfig>, String> {
        load_syzygy(self.syzygy.as_deref())
    }
}

/// Loads the tables of a `--syzygy` argument (files that cannot be used are
/// reported on stderr and left out); an error when nothing loads.
pub(super) fn load_syzygy(dirs: Option<&str>) -> Result<Option<TbConfig>, String> {
    let Some(dirs) = dirs else {
        return Ok(None);
    };
    let (tables, problems) = Tablebases::load(dirs).map_err(|e| format!("--syzygy: {e}"))?;
    for p in problems {
        eprintln!("--syzygy: left out {p}");
    }
    if tables.is_empty() {
        return Err(format!("--syzygy: no tablebases found in {dirs}"));
    }
    eprintln!("Found {}", tables.summary());
    Ok(Some(TbConfig::new(std::sync::Arc::new(tables))))
}

/// Runs the command line; the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        None => {
            uci::run();
            ExitCode::SUCCESS
        }
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Perft(args)) => perft::run(&args),
        Some(Command::Epd(args)) => epd::run(&args),
        Some(Command::Syzygy(args)) => syzygy::run(&args),
        Some(Command::Datagen(args)) => datagen::run(&args),
        Some(Command::Tune(args)) => tune::run(&args),
        Some(Command::Train(args)) => train::run(&args),
        Some(Command::Analyse(args)) => analyse::run(&args),
        Some(Command::Spsa) => {
            print!("{}", crate::search::params::spsa_input());
            ExitCode::SUCCESS
        }
        Some(Command::Book { command }) => book::run(command),
        Some(Command::Wdl(args)) => wdl::run(&args),
        Some(Command::Eval(args)) => eval::run(&args),
    }
}

/// A progress bar on stderr, or a hidden one when stderr is not a terminal
/// (pipes, CI logs).
pub(super) fn progress_bar(len: u64) -> ProgressBar {
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

/// Parses a number from `lo` to `hi` for clap, so that an option out of range is refused
/// with its name (a usage error) rather than quietly clamped.
fn number_in(s: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(v)
    } else if hi == f64::MAX {
        Err(format!("{s} is not a finite number of at least {lo}"))
    } else {
        Err(format!("{s} is not between {lo} and {hi}"))
    }
}

/// A finite number of at least 0 (learning rates, weight decay).
pub(super) fn non_negative(s: &str) -> Result<f64, String> {
    number_in(s, 0.0, f64::MAX)
}

/// A number from 0 to 1 (the game result's weight in a training target).
pub(super) fn fraction(s: &str) -> Result<f64, String> {
    number_in(s, 0.0, 1.0)
}

/// A number from 0 to 0.5 (the share of the data held out for validation).
pub(super) fn held_out_share(s: &str) -> Result<f64, String> {
    number_in(s, 0.0, 0.5)
}
