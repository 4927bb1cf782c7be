//! `ferrum train`: training a network on datagen output.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{fraction, held_out_share, non_negative};
use crate::tools::datagen;

/// Arguments of `ferrum train`.
#[derive(Args)]
pub(super) struct TrainArgs {
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
    #[arg(long, default_value_t = 0.001, value_parser = non_negative, allow_negative_numbers = true)]
    lr: f64,
    /// Learning rate at the end of the last epoch.
    #[arg(long, default_value_t = 0.00001, value_parser = non_negative, allow_negative_numbers = true)]
    lr_end: f64,
    /// Weight of the game result in the target (0 to 1); the rest is sigmoid(score / 400).
    #[arg(long, default_value_t = 0.25, value_parser = fraction, allow_negative_numbers = true)]
    wdl: f64,
    /// Share of the (shuffled) data held out for the validation loss (0 to 0.5).
    #[arg(long, default_value_t = 0.02, value_parser = held_out_share, allow_negative_numbers = true)]
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
    /// Give the net 4 input weight sets chosen by the rank of each perspective's king; a
    /// resumed net with one starts with 4 copies of it (evaluating exactly as before).
    #[arg(long)]
    king_buckets: bool,
    /// Give the net 8 input weight sets chosen by the rank and wing of each perspective's
    /// king; a resumed net with 1 or 4 starts with copies of them (evaluating exactly as
    /// before).
    #[arg(long, conflicts_with = "king_buckets")]
    fine_king_buckets: bool,
    /// Train the king buckets' weights as one set shared by all of them plus each
    /// bucket's own (a factoriser): what one bucket learns of a piece on a square reaches
    /// the others. The net written is merged, the engine's format; a resumed net starts
    /// with a zero shared set, evaluating exactly as before.
    #[arg(long)]
    factorise: bool,
    /// Show each training position mirrored left-right half of the time (a net that
    /// mirrors already is trained as it is).
    #[arg(long)]
    augment_mirror: bool,
    /// AdamW's decoupled weight decay (0 or more).
    #[arg(long, default_value_t = 0.01, value_parser = non_negative, allow_negative_numbers = true)]
    weight_decay: f64,
    /// Decay the weights toward the `--resume` net instead of toward zero (L2-SP), so a
    /// fine-tune on a few new positions keeps near what its parent learnt.
    #[arg(long, requires = "resume")]
    anchor: bool,
    /// Start from a `--resume` net with fewer hidden neurons than this build
    /// has (the default 256-neuron build widening a 128-neuron net, a
    /// `hidden512` build a 256-neuron one): the new neurons start silent, so
    /// training begins exactly where that net is.
    #[arg(long, requires = "resume")]
    widen: bool,
    /// Train nothing: print the loss of the `--resume` net on all the data, against the
    /// scores alone (`--wdl 0`), the results alone (`--wdl 1`) and the `--wdl` blend: a
    /// measure for comparing nets on data none of them saw, not a substitute for games.
    #[arg(long, requires = "resume")]
    loss_only: bool,
}

/// `ferrum train`: loads and splits the data, trains, writes a net after
/// every epoch and the final one to `--out`.
pub(super) fn run(args: &TrainArgs) -> ExitCode {
    use crate::tools::train::{self, FloatNet, TrainConfig};
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
        lr: args.lr as f32,
        lr_end: args.lr_end as f32,
        wdl: args.wdl as f32,
        validation: args.validation,
        threads: args.threads as usize,
        seed: args.seed,
        out_dir: args.checkpoints.clone(),
        augment_mirror: args.augment_mirror,
        weight_decay: args.weight_decay as f32,
        anchor: args.anchor,
        ..TrainConfig::default()
    };
    let mut net = match &args.resume {
        Some(p) => match std::fs::read(p).map_err(|e| e.to_string()).and_then(|b| {
            if args.widen {
                crate::eval::nnue::RawNet::from_bytes(&b)
                    .and_then(|raw| FloatNet::widen(&raw, args.seed))
            } else {
                FloatNet::from_checkpoint_or_net(&b)
            }
        }) {
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
    if args.loss_only {
        let threads = usize::from(args.threads);
        let wdl = cfg.wdl;
        println!(
            "{} positions: loss {:.6} (scores, wdl 0)  {:.6} (results, wdl 1)  {:.6} (wdl {wdl})",
            records.len(),
            train::mean_loss(&net, &records, 0.0, threads),
            train::mean_loss(&net, &records, 1.0, threads),
            train::mean_loss(&net, &records, wdl, threads),
        );
        return ExitCode::SUCCESS;
    }
    if args.output_buckets && net.buckets() == 1 {
        net = net.with_output_buckets();
    }
    if args.king_buckets {
        net = net.with_king_buckets();
    }
    if args.fine_king_buckets {
        net = net.with_fine_king_buckets();
    }
    if args.factorise {
        if net.king_buckets == 1 {
            eprintln!(
                "ferrum train: --factorise needs king buckets (--king-buckets, --fine-king-buckets or a resumed net with them)"
            );
            return ExitCode::from(2);
        }
        net = net.with_factoriser();
    }
    if let Err(e) = std::fs::create_dir_all(&cfg.out_dir) {
        eprintln!("ferrum train: cannot create {}: {e}", cfg.out_dir.display());
        return ExitCode::from(1);
    }
    let (training, validation) = train::split(records, &cfg);
    println!(
        "{} training and {} held-out positions, {}->{}x2->1 SCReLU{}{}{}{}{}, {} epochs, batch {}, lr {} -> {}, wdl {}",
        training.len(),
        validation.len(),
        crate::eval::nnue::INPUTS,
        crate::eval::nnue::HIDDEN,
        if net.mirror { " (mirrored)" } else { "" },
        if net.buckets() > 1 {
            format!(", {} output buckets", net.buckets())
        } else {
            String::new()
        },
        if net.king_buckets > 1 {
            format!(", {} king buckets", net.king_buckets)
        } else {
            String::new()
        },
        if net.factorised() { ", factorised" } else { "" },
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
