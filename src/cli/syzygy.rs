//! `ferrum syzygy`: what the tablebases say about positions (as Fathom
//! prints it): win/draw/loss, distance to zeroing and the moves the engine
//! would keep at the root.

use std::io::BufRead;
use std::process::ExitCode;

use clap::Args;
use shakmaty::{CastlingMode, Position};

use crate::chess::fen::parse_fen;
use crate::search::syzygy::Tablebases;

/// Arguments of `ferrum syzygy`.
#[derive(Args)]
pub(super) struct SyzygyArgs {
    /// Folders of .rtbw/.rtbz files, separated by ':' (';' on Windows).
    #[arg(long, value_name = "DIRS")]
    path: String,
    /// Positions in FEN; read one a line from stdin when none is given.
    fens: Vec<String>,
    /// Count cursed wins and blessed losses as wins and losses when ranking
    /// the root moves (Syzygy50MoveRule false).
    #[arg(long)]
    no_50_move_rule: bool,
}

/// Prints one line a position: `wdl W dtz D moves M1 M2 ... fen FEN`, the
/// WDL (−2 loss … 2 win, for the side to move, as just after a capture or
/// pawn move), the DTZ as the table stores it and the moves that keep the
/// best outcome; `none` where the tables have no answer. Exit code 1 when
/// the tables do not load, 2 when a FEN is bad (the others are answered).
pub(super) fn run(args: &SyzygyArgs) -> ExitCode {
    let tables = match Tablebases::load(&args.path) {
        Ok((t, problems)) => {
            for p in problems {
                eprintln!("ferrum syzygy: left out {p}");
            }
            t
        }
        Err(e) => {
            eprintln!("ferrum syzygy: {e}");
            return ExitCode::from(1);
        }
    };
    eprintln!("Found {}", tables.summary());
    let fens: Box<dyn Iterator<Item = String>> = if args.fens.is_empty() {
        Box::new(std::io::stdin().lock().lines().map_while(Result::ok))
    } else {
        Box::new(args.fens.clone().into_iter())
    };
    let mut code = ExitCode::SUCCESS;
    for fen in fens {
        let fen = fen.trim();
        if fen.is_empty() {
            continue;
        }
        let pos = match parse_fen(fen, false) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ferrum syzygy: '{fen}': {e}");
                code = ExitCode::from(2);
                continue;
            }
        };
        let wdl = tables.probe_wdl(&pos).map(|w| w as i32);
        let dtz = tables.probe_dtz(&pos);
        let legal: Vec<_> = pos.legal_moves().into_iter().collect();
        let keep = if legal.is_empty() {
            None
        } else {
            tables.rank_root(&pos, &legal, !args.no_50_move_rule)
        };
        let show = |v: Option<i32>| v.map_or("none".to_string(), |v| v.to_string());
        let moves = keep.map_or("none".to_string(), |k| {
            k.moves
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        });
        println!(
            "wdl {} dtz {} moves {moves} fen {fen}",
            show(wdl),
            show(dtz)
        );
    }
    code
}
