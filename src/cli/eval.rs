//! `ferrum eval`: the evaluation of a position term by term, and the network's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use shakmaty::Chess;

use crate::chess::fen::parse_fen;

/// Arguments of `ferrum eval`.
#[derive(Args)]
pub(super) struct EvalArgs {
    /// Position in FEN; the start position if absent.
    #[arg(long)]
    pub(super) fen: Option<String>,
    /// The network file to show (the embedded net if absent).
    #[arg(long)]
    pub(super) net: Option<PathBuf>,
}

/// Prints the hand-crafted evaluation's terms and the network's output.
pub(super) fn run(args: &EvalArgs) -> ExitCode {
    let pos = match &args.fen {
        None => Chess::default(),
        Some(f) => match parse_fen(f, false) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ferrum eval: {e}");
                return ExitCode::from(2);
            }
        },
    };
    println!("{}", crate::eval::explain(&pos));
    let (net, name) = match &args.net {
        Some(p) => match crate::eval::nnue::Network::load(p) {
            Ok(n) => (Some(Arc::new(n)), p.display().to_string()),
            Err(e) => {
                eprintln!("ferrum eval: {e}");
                return ExitCode::from(1);
            }
        },
        None => (
            crate::eval::nnue::default_net(),
            crate::eval::nnue::network::DEFAULT_NAME.to_string(),
        ),
    };
    if let Some(net) = net {
        println!(
            "{}",
            crate::eval::nnue::describe(
                &net,
                &pos,
                &name,
                crate::search::params::Params::default().eval_material_base
            )
        );
    }
    ExitCode::SUCCESS
}
