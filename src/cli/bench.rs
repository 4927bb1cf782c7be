//! `ferrum bench`: the search's signature and speed (OpenBench convention).

use std::process::ExitCode;

use clap::Args;

use crate::search::bench;

/// Arguments of `ferrum bench`.
#[derive(Args)]
pub(super) struct BenchArgs {
    /// Search depth.
    #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=60))]
    pub(super) depth: i32,
    /// Search with the hand-crafted evaluation instead of the network.
    #[arg(long)]
    pub(super) classical: bool,
    /// Probe these Syzygy tablebases (folders separated by ':', ';' on
    /// Windows); the signature is the one without them.
    #[arg(long, value_name = "DIRS")]
    pub(super) syzygy: Option<String>,
}

/// `ferrum bench`: each position's node count on stderr, then
/// `<N> nodes <M> nps` (OpenBench reads the last line).
pub(super) fn run(args: &BenchArgs) -> ExitCode {
    let net = if args.classical {
        None
    } else {
        crate::eval::nnue::default_net()
    };
    let syzygy = match super::load_syzygy(args.syzygy.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ferrum bench: {e}");
            return ExitCode::from(1);
        }
    };
    let r = bench::run_with(args.depth, net, syzygy, &|i, n| {
        eprintln!("position {:2}/{}: {n} nodes", i + 1, bench::POSITIONS.len());
    });
    if r.tbhits > 0 {
        eprintln!("{} tablebase hits", r.tbhits);
    }
    println!("{} nodes {} nps", r.nodes, r.nps());
    ExitCode::SUCCESS
}
