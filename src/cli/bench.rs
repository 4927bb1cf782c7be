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
}

/// `ferrum bench`: each position's node count on stderr, then
/// `<N> nodes <M> nps` (OpenBench reads the last line).
pub(super) fn run(args: &BenchArgs) -> ExitCode {
    let net = if args.classical {
        None
    } else {
        crate::eval::nnue::default_net()
    };
    let r = bench::run_with(args.depth, net, &|i, n| {
        eprintln!("position {:2}/{}: {n} nodes", i + 1, bench::POSITIONS.len());
    });
    println!("{} nodes {} nps", r.nodes, r.nps());
    ExitCode::SUCCESS
}
