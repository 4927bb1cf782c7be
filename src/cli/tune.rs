//! `ferrum tune`: Texel tuning of the hand-crafted evaluation weights.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::fraction;
use crate::tools::tune;

/// Where `ferrum tune` starts.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(super) enum TuneStart {
    /// The engine's current weights.
    Current,
    /// Material only (100/300/300/500/900), everything else zero.
    Zero,
}

/// Arguments of `ferrum tune`.
#[derive(Args)]
pub(super) struct TuneArgs {
    /// Datagen files (bulletformat ChessBoard records).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Full passes over the data.
    #[arg(long, default_value_t = 500)]
    epochs: usize,
    /// Adam step size in centipawns.
    #[arg(long, default_value_t = 2.0)]
    lr: f64,
    /// Weight of the game result in the target (0 to 1); the rest is the search score.
    #[arg(long, default_value_t = 0.5, value_parser = fraction, allow_negative_numbers = true)]
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

/// `ferrum tune`: loads and traces the data, fits K, tunes, prints the
/// held-out loss before and after and the weights.
pub(super) fn run(args: &TuneArgs) -> ExitCode {
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
        wdl: args.wdl,
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
