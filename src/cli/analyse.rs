//! `ferrum analyse`: annotating games with evaluations, marks and graphs.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{PositionSearchArgs, progress_bar};

#[derive(Args, Debug)]
pub(super) struct AnalyseArgs {
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

/// `ferrum analyse`: reads every game, analyses the readable ones, writes
/// the annotated PGN, graphs and summaries; reports unreadable games by
/// number and skips them (exit code 3).
pub(super) fn run(args: &AnalyseArgs) -> ExitCode {
    use crate::tools::analyse::{Settings, analyse_game, annotate};
    let fail = |e: String| {
        eprintln!("ferrum analyse: {e}");
        ExitCode::from(1)
    };
    let file = match std::fs::File::open(&args.pgn) {
        Ok(f) => f,
        Err(e) => return fail(format!("{}: {e}", args.pgn.display())),
    };
    let games = match crate::tools::pgn::read_games(std::io::BufReader::new(file)) {
        Ok(g) => g,
        Err(e) => return fail(format!("{}: {e}", args.pgn.display())),
    };
    if let Some(dir) = &args.graph
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("{}: {e}", dir.display()));
    }
    let syzygy = match args.search.syzygy() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let settings = Settings {
        limits: args.search.limits(),
        threads: args.search.threads as usize,
        hash_mb: args.hash as usize,
        net: crate::eval::nnue::default_net(),
        syzygy,
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
        pgn_out.push_str(&crate::tools::pgn::write_game(&annotate(game, &report)));
        if let Some(dir) = &args.graph {
            let title = format!(
                "Game {number}: {} - {} ({})",
                report.white.name, report.black.name, game.result
            );
            let path = dir.join(format!("game-{number}.svg"));
            if let Err(e) = crate::tools::graph::write_svg(&path, &title, &report) {
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

/// A game's summary: one line per player.
fn summary_text(r: &crate::tools::analyse::GameReport) -> String {
    let mut s = format!("game {}:", r.number);
    for p in [&r.white, &r.black] {
        s.push_str(&format!(
            "\n  {:<24} moves {:3}  acpl {:5.1}  accuracy {:5.1}%  inaccuracies {}  mistakes {}  blunders {}",
            p.name, p.moves, p.acpl, p.accuracy, p.inaccuracies, p.mistakes, p.blunders
        ));
    }
    s
}
