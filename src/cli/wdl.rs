//! `ferrum wdl`: fitting the win/draw/loss model to datagen output.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::tools::datagen;

/// Arguments of `ferrum wdl`.
#[derive(Args)]
pub(super) struct WdlArgs {
    /// Datagen files (bulletformat records).
    #[arg(required = true)]
    pub(super) data: Vec<PathBuf>,
    /// Use at most this many positions (evenly spread over the files).
    #[arg(long, default_value_t = 2_000_000)]
    pub(super) limit: usize,
    /// Adam steps.
    #[arg(long, default_value_t = 1500)]
    pub(super) iterations: usize,
}

/// `ferrum wdl`: fits the WDL model to datagen records and prints it.
pub(super) fn run(args: &WdlArgs) -> ExitCode {
    let (paths, limit, iterations) = (&args.data, args.limit, args.iterations);
    use crate::eval::wdl::MODEL;
    use crate::tools::wdl_fit::{Sample, fit, loss};
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
