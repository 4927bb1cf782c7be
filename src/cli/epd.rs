//! `ferrum epd`: solving EPD test suites.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{PositionSearchArgs, progress_bar};
use crate::search::tt::TranspositionTable;
use crate::tools::suite::{self, PositionResult, Suite, SuiteConfig};

/// Arguments of `ferrum epd`.
#[derive(Args)]
pub(super) struct EpdArgs {
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
    crate::search::params::Params::default().set(name, value)?;
    Ok((name.to_string(), value))
}

/// `ferrum epd`: exit code 0 when every file was read and every position
/// searched (malformed lines are reported and skipped), 1 otherwise.
pub(super) fn run(args: &EpdArgs) -> ExitCode {
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
    let mut params = crate::search::params::Params::default();
    for (name, value) in &args.params {
        // Checked when the arguments were parsed.
        let _ = params.set(name, *value);
    }
    let syzygy = match args.search.syzygy() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ferrum epd: {e}");
            return ExitCode::from(1);
        }
    };
    let config = SuiteConfig {
        limits: args.search.limits(),
        threads: args.search.threads as usize,
        default_mate: args.dm,
        params,
        syzygy,
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
