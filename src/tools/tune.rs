//! Texel tuning of the evaluation weights (`ferrum tune`): reads datagen
//! records, traces every position with the engine's own terms
//! ([`crate::eval::trace`]), fits the logistic scale K that maps centipawns
//! to expected score, then fits all weights at once by full-batch gradient
//! descent (Adam) on the squared error between sigmoid(eval) and a target
//! that blends the game result with sigmoid(search score).

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::eval::layout::{NUM_WEIGHTS, S, TERMS};
use crate::eval::{Trace, WEIGHTS, endgame, trace};
use crate::tools::datagen::{read_records, record_position};

/// Traced positions, stored flat for speed.
#[derive(Default)]
pub struct Dataset {
    /// (weight index, coefficient) of every position, one after another.
    coefs: Vec<(u16, i16)>,
    /// Where each position's coefficients start in `coefs` (and one past the end).
    starts: Vec<u32>,
    phase: Vec<u8>,
    scale: Vec<u8>,
    fixed: Vec<i16>,
    /// Game result for the side to move: 0, 0.5 or 1.
    pub result: Vec<f32>,
    /// Search score for the side to move, centipawns.
    pub score: Vec<f32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.result.len()
    }

    pub fn is_empty(&self) -> bool {
        self.result.is_empty()
    }

    /// Adds one position from White's point of view (White to move).
    pub fn push(&mut self, t: &Trace, result: f32, score: f32) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.coefs.extend_from_slice(&t.coefs);
        self.starts.push(self.coefs.len() as u32);
        self.phase.push(t.phase);
        self.scale.push(t.scale);
        self.fixed.push(t.fixed);
        self.result.push(result);
        self.score.push(score);
    }

    /// Appends another dataset.
    pub fn extend(&mut self, other: Dataset) {
        if other.is_empty() {
            return;
        }
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let base = self.coefs.len() as u32;
        self.coefs.extend_from_slice(&other.coefs);
        self.starts
            .extend(other.starts.iter().skip(1).map(|s| s + base));
        self.phase.extend(other.phase);
        self.scale.extend(other.scale);
        self.fixed.extend(other.fixed);
        self.result.extend(other.result);
        self.score.extend(other.score);
    }

    /// The linear evaluation of position `i` with flat weights `w` (White's view).
    pub fn linear_eval(&self, i: usize, w: &[f64]) -> f64 {
        self.eval(i, w).0
    }

    /// The linear evaluation of position `i` with weights `w` (mg, eg pairs,
    /// White's view), and the mg and eg factors of its coefficients.
    #[inline]
    fn eval(&self, i: usize, w: &[f64]) -> (f64, f64, f64) {
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(idx, n) in &self.coefs[a..b] {
            mg += w[2 * idx as usize] * f64::from(n);
            eg += w[2 * idx as usize + 1] * f64::from(n);
        }
        let phase = f64::from(self.phase[i]);
        let scale = f64::from(self.scale[i]) / f64::from(endgame::SCALE_MAX);
        let fm = phase / 24.0 * scale;
        let fe = (24.0 - phase) / 24.0 * scale;
        (mg * fm + eg * fe + f64::from(self.fixed[i]), fm, fe)
    }
}

/// Reads datagen files and traces every record on `threads` threads. The
/// records store the side to move as White, so the trace's White view is
/// the side to move's.
pub fn load(paths: &[PathBuf], threads: usize) -> std::io::Result<Dataset> {
    let mut records = Vec::new();
    for p in paths {
        records.extend(read_records(p)?);
    }
    let chunk = records.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Dataset> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut d = Dataset::default();
                    for rec in part {
                        if let Ok(pos) = record_position(rec) {
                            d.push(
                                &trace(&pos),
                                f32::from(rec.result) / 2.0,
                                f32::from(rec.score),
                            );
                        }
                    }
                    d
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all = Dataset::default();
    for p in parts {
        all.extend(p);
    }
    Ok(all)
}

#[inline]
fn sigmoid(cp: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * cp / 400.0).exp())
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub threads: usize,
    pub epochs: usize,
    /// Adam step size, in centipawns.
    pub lr: f64,
    /// Weight of the game result in the target (the rest is the search score).
    pub wdl: f64,
    /// Every n-th position is held out for validation.
    pub holdout_every: usize,
}

impl Default for TuneConfig {
    fn default() -> Self {
        TuneConfig {
            threads: 2,
            epochs: 500,
            lr: 2.0,
            wdl: 0.5,
            holdout_every: 10,
        }
    }
}

/// The weights as a flat vector of mg, eg pairs.
pub fn flatten(w: &[S; NUM_WEIGHTS]) -> Vec<f64> {
    w.iter()
        .flat_map(|s| [f64::from(s.0), f64::from(s.1)])
        .collect()
}

/// Rounds a flat vector back to weights.
pub fn unflatten(w: &[f64]) -> [S; NUM_WEIGHTS] {
    let mut out = [S(0, 0); NUM_WEIGHTS];
    for (i, s) in out.iter_mut().enumerate() {
        *s = S(w[2 * i].round() as i32, w[2 * i + 1].round() as i32);
    }
    out
}

/// Starting point "from zero": material only (pawn 100, knight and
/// bishop 300, rook 500, queen 900), every other weight zero.
pub fn material_only() -> Vec<f64> {
    let mut w = vec![0.0; 2 * NUM_WEIGHTS];
    for (r, v) in [100.0, 300.0, 300.0, 500.0, 900.0].iter().enumerate() {
        let i = crate::eval::layout::MATERIAL + r;
        w[2 * i] = *v;
        w[2 * i + 1] = *v;
    }
    w
}

/// The engine's current weights, flat.
pub fn current() -> Vec<f64> {
    flatten(&WEIGHTS)
}

/// Which positions train (`false`) and which validate (`true`).
fn is_holdout(i: usize, every: usize) -> bool {
    every > 0 && i % every == every - 1
}

/// Mean squared error over the training or the validation part.
pub fn loss(d: &Dataset, w: &[f64], k: f64, wdl: f64, holdout: Option<(usize, bool)>) -> f64 {
    let mut sum = 0.0;
    let mut n = 0usize;
    for i in 0..d.len() {
        if let Some((every, val)) = holdout
            && is_holdout(i, every) != val
        {
            continue;
        }
        let (e, _, _) = d.eval(i, w);
        let t = wdl * f64::from(d.result[i]) + (1.0 - wdl) * sigmoid(f64::from(d.score[i]), k);
        let err = sigmoid(e, k) - t;
        sum += err * err;
        n += 1;
    }
    sum / n.max(1) as f64
}

/// Fits K: the scale that best predicts game results from the evaluation
/// with weights `w` (golden-section search on 0.1 to 5).
pub fn fit_k(d: &Dataset, w: &[f64]) -> f64 {
    let f = |k: f64| loss(d, w, k, 1.0, None);
    let (mut a, mut b) = (0.1f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut e = a + g * (b - a);
    let (mut fc, mut fe) = (f(c), f(e));
    for _ in 0..40 {
        if fc < fe {
            b = e;
            e = c;
            fe = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = e;
            fc = fe;
            e = a + g * (b - a);
            fe = f(e);
        }
    }
    (a + b) / 2.0
}

/// Gradient of the training loss, summed over the training positions of
/// `range`.
fn gradient_part(
    d: &Dataset,
    w: &[f64],
    k: f64,
    cfg: &TuneConfig,
    range: std::ops::Range<usize>,
) -> (Vec<f64>, usize) {
    let mut g = vec![0.0; w.len()];
    let mut n = 0;
    for i in range {
        if is_holdout(i, cfg.holdout_every) {
            continue;
        }
        let (e, fm, fe) = d.eval(i, w);
        let t =
            cfg.wdl * f64::from(d.result[i]) + (1.0 - cfg.wdl) * sigmoid(f64::from(d.score[i]), k);
        let s = sigmoid(e, k);
        let common = 2.0 * (s - t) * s * (1.0 - s) * k / 400.0;
        let (a, b) = (d.starts[i] as usize, d.starts[i + 1] as usize);
        for &(idx, c) in &d.coefs[a..b] {
            let c = f64::from(c) * common;
            g[2 * idx as usize] += c * fm;
            g[2 * idx as usize + 1] += c * fe;
        }
        n += 1;
    }
    (g, n)
}

/// Runs Adam from `start` for `cfg.epochs` full passes; `report` gets the
/// epoch and training loss now and then. Returns the tuned weights.
pub fn tune(
    d: &Dataset,
    start: &[f64],
    k: f64,
    cfg: &TuneConfig,
    report: &dyn Fn(usize, f64),
) -> Vec<f64> {
    let mut w = start.to_vec();
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let threads = cfg.threads.max(1);
    let chunk = d.len().div_ceil(threads).max(1);
    for epoch in 1..=cfg.epochs {
        let parts: Vec<(Vec<f64>, usize)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let w = &w;
                    let range = (t * chunk).min(d.len())..((t + 1) * chunk).min(d.len());
                    s.spawn(move || gradient_part(d, w, k, cfg, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        let n: usize = parts.iter().map(|p| p.1).sum();
        let mut g = vec![0.0; w.len()];
        for (pg, _) in &parts {
            for (a, b) in g.iter_mut().zip(pg) {
                *a += b;
            }
        }
        let t = epoch as i32;
        for i in 0..w.len() {
            let gi = g[i] / n.max(1) as f64;
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let mh = m[i] / (1.0 - b1.powi(t));
            let vh = v[i] / (1.0 - b2.powi(t));
            w[i] -= cfg.lr * mh / (vh.sqrt() + eps);
        }
        if epoch % 50 == 0 || epoch == cfg.epochs {
            report(
                epoch,
                loss(d, &w, k, cfg.wdl, Some((cfg.holdout_every, false))),
            );
        }
    }
    w
}

/// The weights as the Rust source of `src/eval/weights.rs`.
pub fn weights_source(w: &[S; NUM_WEIGHTS], note: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! The evaluation weights (middlegame, endgame), in the order of\n\
         //! [`super::layout`]. Written by `ferrum tune`; {note}\n\n\
         use super::layout::{{NUM_WEIGHTS, S}};\n\n\
         #[rustfmt::skip]\n\
         pub static WEIGHTS: [S; NUM_WEIGHTS] = ["
    );
    for term in TERMS {
        let _ = writeln!(out, "    // {}", term.name);
        for row in w[term.offset..term.offset + term.len].chunks(8) {
            let cells: Vec<String> = row
                .iter()
                .map(|s| format!("S({}, {}),", s.0, s.1))
                .collect();
            let _ = writeln!(out, "    {}", cells.join(" "));
        }
    }
    out.push_str("];\n");
    out
}
