//! Trains the NNUE network (see [`crate::eval::nnue`]) in 32-bit floats on datagen
//! output and writes it quantised, in the format the engine loads.
//!
//! Loss: the squared difference between sigmoid(output) and a target that
//! blends sigmoid(score / 400) with the game result (`wdl` is the result's
//! share). Mini-batches are split between threads, each summing gradients
//! into its own buffers; the threads then add the buffers together and
//! AdamW with a cosine learning-rate schedule updates every weight, each
//! thread a share of them (the same result at any split), clipped to ±[`WEIGHT_CLIP`] so the quantised net
//! cannot overflow. A share of the shuffled data is held out and never
//! trained on: its loss is the validation loss printed after every epoch.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bulletformat::ChessBoard;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use crate::eval::nnue::{
    FINE_KING_BUCKETS, FINE_TO_COARSE, HIDDEN, INPUTS, KING_BUCKETS, Network, OUTPUT_BUCKETS, QA,
    QB, RawNet, SCALE, WEIGHT_CLIP, mirror_features, output_bucket, record_features,
};

/// Float weights in the same shape as [`Network`] (feature weights row-major,
/// one row of `HIDDEN` per input, `INPUTS` rows per king bucket; output
/// weights: for each output bucket, `HIDDEN` for the side to move, then
/// `HIDDEN` for the other side).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    pub ft_w: Vec<f32>,
    pub ft_b: Vec<f32>,
    pub out_w: Vec<f32>,
    /// One bias per output bucket (its length is the bucket count).
    pub out_b: Vec<f32>,
    /// The net mirrors (see [`crate::eval::nnue::mirrors`]).
    pub mirror: bool,
    /// Input weight sets (1, [`KING_BUCKETS`] or [`FINE_KING_BUCKETS`], see
    /// [`crate::eval::nnue::king_bucket`]).
    pub king_buckets: usize,
    /// The factoriser: one set of `INPUTS` rows shared by every king bucket
    /// (empty when the net has none). A bucket's weights are its own rows
    /// plus these, so what one bucket learns of a piece on a square reaches
    /// them all; nets are saved merged ([`FloatNet::merged`]), in the shape
    /// the engine loads.
    pub ft_f: Vec<f32>,
}

impl FloatNet {
    /// All zeros, one output layer.
    pub fn zeros() -> FloatNet {
        FloatNet::zeros_with(1, 1)
    }

    /// All zeros with `buckets` output layers and `king_buckets` input sets.
    fn zeros_with(buckets: usize, king_buckets: usize) -> FloatNet {
        FloatNet {
            ft_w: vec![0.0; king_buckets * INPUTS * HIDDEN],
            ft_b: vec![0.0; HIDDEN],
            out_w: vec![0.0; buckets * 2 * HIDDEN],
            out_b: vec![0.0; buckets],
            mirror: false,
            king_buckets,
            ft_f: Vec::new(),
        }
    }

    /// All zeros in this net's shape (a gradient or an optimiser moment).
    pub fn zeros_like(&self) -> FloatNet {
        FloatNet {
            mirror: self.mirror,
            ft_f: vec![0.0; self.ft_f.len()],
            ..FloatNet::zeros_with(self.buckets(), self.king_buckets)
        }
    }

    /// The same net with a factoriser (zero, so it evaluates exactly as
    /// before), when it has king buckets and none yet.
    pub fn with_factoriser(mut self) -> FloatNet {
        if self.king_buckets > 1 && self.ft_f.is_empty() {
            self.ft_f = vec![0.0; INPUTS * HIDDEN];
        }
        self
    }

    /// Whether the net trains a factoriser.
    pub fn factorised(&self) -> bool {
        !self.ft_f.is_empty()
    }

    /// The net with its factoriser added into every king bucket's rows
    /// (each weight clipped to ±[`WEIGHT_CLIP`]): the same evaluations, in
    /// the engine's shape.
    pub fn merged(&self) -> FloatNet {
        let mut out = FloatNet {
            ft_w: Vec::new(),
            ft_f: Vec::new(),
            ..self.clone()
        };
        self.merge_into(&mut out);
        out
    }

    /// [`FloatNet::merged`] written into `dst` (reusing its buffers).
    fn merge_into(&self, dst: &mut FloatNet) {
        dst.ft_w.clone_from(&self.ft_w);
        dst.ft_b.clone_from(&self.ft_b);
        dst.out_w.clone_from(&self.out_w);
        dst.out_b.clone_from(&self.out_b);
        dst.mirror = self.mirror;
        dst.king_buckets = self.king_buckets;
        dst.ft_f.clear();
        if self.factorised() {
            for set in dst.ft_w.chunks_exact_mut(INPUTS * HIDDEN) {
                set.iter_mut()
                    .zip(&self.ft_f)
                    .for_each(|(w, f)| *w = (*w + f).clamp(-WEIGHT_CLIP, WEIGHT_CLIP));
            }
        }
    }

    /// The same net with [`KING_BUCKETS`] input weight sets, each a copy of
    /// this one's: it evaluates every position exactly as before, and
    /// training then lets the sets diverge.
    pub fn with_king_buckets(mut self) -> FloatNet {
        if self.king_buckets == 1 {
            self.ft_w = self.ft_w.repeat(KING_BUCKETS);
            self.king_buckets = KING_BUCKETS;
        }
        self
    }

    /// The same net with [`FINE_KING_BUCKETS`] input weight sets, each a
    /// copy of the set it refines ([`FINE_TO_COARSE`]; a net without king
    /// buckets is given them first): it evaluates every position exactly as
    /// before. A net that has them already is returned as it is.
    pub fn with_fine_king_buckets(self) -> FloatNet {
        let mut net = self.with_king_buckets();
        if net.king_buckets == KING_BUCKETS {
            let set = INPUTS * HIDDEN;
            net.ft_w = FINE_TO_COARSE
                .iter()
                .flat_map(|&c| net.ft_w[c * set..(c + 1) * set].iter().copied())
                .collect();
            net.king_buckets = FINE_KING_BUCKETS;
        }
        net
    }

    /// Output layers (1, or [`OUTPUT_BUCKETS`]).
    pub fn buckets(&self) -> usize {
        self.out_b.len()
    }

    /// The same net with [`OUTPUT_BUCKETS`] output layers, each a copy of
    /// this one's first: it evaluates every position exactly as before, and
    /// training then lets the buckets diverge.
    pub fn with_output_buckets(mut self) -> FloatNet {
        let layer = self.out_w[..2 * HIDDEN].to_vec();
        let bias = self.out_b[0];
        self.out_w = layer.repeat(OUTPUT_BUCKETS);
        self.out_b = vec![bias; OUTPUT_BUCKETS];
        self
    }

    /// A net of this build's width that evaluates exactly as `narrow` (a
    /// net of fewer neurons): its weights fill the first neurons, and each
    /// new neuron gets zero bias, zero output weights and small random input
    /// weights (uniform in ±1/√768, from `seed`), so it starts silent and
    /// training grows it from there (net-to-net widening, as Net2Net).
    pub fn widen(narrow: &RawNet, seed: u64) -> Result<FloatNet, String> {
        let h = narrow.hidden;
        if h >= HIDDEN {
            return Err(format!(
                "a {h}-neuron net cannot be widened to {HIDDEN} neurons (this build's width)"
            ));
        }
        let mut net = FloatNet::dequantise(&Network::from_raw(narrow.clone())?);
        let mut rng = StdRng::seed_from_u64(seed);
        let a = 1.0 / (INPUTS as f32).sqrt();
        for row in net.ft_w.chunks_exact_mut(HIDDEN) {
            row[h..]
                .iter_mut()
                .for_each(|w| *w = rng.random_range(-a..a));
        }
        Ok(net)
    }

    /// Uniform in ±1/√fan-in for each layer, from `seed`.
    pub fn random(seed: u64) -> FloatNet {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut net = FloatNet::zeros();
        let a = 1.0 / (INPUTS as f32).sqrt();
        net.ft_w
            .iter_mut()
            .for_each(|w| *w = rng.random_range(-a..a));
        let b = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        net.out_w
            .iter_mut()
            .for_each(|w| *w = rng.random_range(-b..b));
        net
    }

    /// Every parameter as one slice each, in a fixed order (for the optimiser).
    /// (The factoriser comes last: empty in a net without one, so a
    /// checkpoint's bytes are those of its merged form.)
    fn params_mut(&mut self) -> [&mut [f32]; 5] {
        [
            &mut self.ft_w,
            &mut self.ft_b,
            &mut self.out_w,
            &mut self.out_b,
            &mut self.ft_f,
        ]
    }

    fn params(&self) -> [&[f32]; 5] {
        [&self.ft_w, &self.ft_b, &self.out_w, &self.out_b, &self.ft_f]
    }

    fn clear(&mut self) {
        for p in self.params_mut() {
            p.fill(0.0);
        }
    }

    /// Hidden sums (before activation) of one perspective.
    fn accumulate(&self, features: &[u16], acc: &mut [f32; HIDDEN]) {
        acc.copy_from_slice(&self.ft_b);
        for &f in features {
            let row = &self.ft_w[f as usize * HIDDEN..][..HIDDEN];
            acc.iter_mut().zip(row).for_each(|(a, w)| *a += w);
            if self.factorised() {
                let shared = &self.ft_f[f as usize % INPUTS * HIDDEN..][..HIDDEN];
                acc.iter_mut().zip(shared).for_each(|(a, w)| *a += w);
            }
        }
    }

    /// The raw output (centipawns / [`SCALE`]) for the side to move's and the
    /// other side's inputs (one per piece: their count picks the bucket).
    pub fn forward(&self, stm: &[u16], nstm: &[u16]) -> f32 {
        let mut a = [0.0; HIDDEN];
        let mut b = [0.0; HIDDEN];
        self.accumulate(stm, &mut a);
        self.accumulate(nstm, &mut b);
        self.output(&a, &b, self.bucket(stm))
    }

    /// The output bucket of a position with these inputs.
    fn bucket(&self, stm: &[u16]) -> usize {
        output_bucket(stm.len() as u32, self.buckets())
    }

    fn output(&self, a: &[f32; HIDDEN], b: &[f32; HIDDEN], bucket: usize) -> f32 {
        let (w0, w1) = self.out_w[bucket * 2 * HIDDEN..][..2 * HIDDEN].split_at(HIDDEN);
        let dot = |x: &[f32; HIDDEN], w: &[f32]| -> f32 {
            x.iter().zip(w).map(|(&v, &w)| screlu(v) * w).sum()
        };
        dot(a, w0) + dot(b, w1) + self.out_b[bucket]
    }

    /// The evaluation of a record for its side to move, in centipawns.
    pub fn eval_record(&self, rec: &ChessBoard) -> f32 {
        let (mut s, mut n) = (Vec::new(), Vec::new());
        record_features(rec, self.mirror, self.king_buckets, &mut s, &mut n);
        self.forward(&s, &n) * SCALE as f32
    }

    /// Rounds to the engine's integers (a factorised net merged first).
    pub fn quantise(&self) -> Network {
        if self.factorised() {
            return self.merged().quantise();
        }
        let q = |v: f32, scale: i32| -> i16 { (v * scale as f32).round() as i16 };
        let row =
            |s: &[f32], scale: i32| -> [i16; HIDDEN] { std::array::from_fn(|i| q(s[i], scale)) };
        Network {
            ft_weights: self.ft_w.chunks_exact(HIDDEN).map(|r| row(r, QA)).collect(),
            ft_bias: row(&self.ft_b, QA),
            out_weights: self
                .out_w
                .chunks_exact(2 * HIDDEN)
                .map(|l| [row(&l[..HIDDEN], QB), row(&l[HIDDEN..], QB)])
                .collect(),
            out_bias: self
                .out_b
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
            mirror: self.mirror,
            king_buckets: self.king_buckets,
        }
    }

    /// The float net that [`FloatNet::quantise`] turns into `net` (to within
    /// half a quantisation step), so a shipped net can be trained further
    /// without its checkpoint.
    pub fn dequantise(net: &Network) -> FloatNet {
        let f = |v: i16, scale: i32| f32::from(v) / scale as f32;
        let mut out = FloatNet::zeros_with(net.out_bias.len(), net.king_buckets);
        for (dst, row) in out.ft_w.chunks_exact_mut(HIDDEN).zip(&net.ft_weights) {
            dst.iter_mut().zip(row).for_each(|(d, &v)| *d = f(v, QA));
        }
        out.ft_b
            .iter_mut()
            .zip(&net.ft_bias)
            .for_each(|(d, &v)| *d = f(v, QA));
        for (layer, w) in out.out_w.chunks_exact_mut(2 * HIDDEN).zip(&net.out_weights) {
            let (us, them) = layer.split_at_mut(HIDDEN);
            us.iter_mut().zip(&w[0]).for_each(|(d, &v)| *d = f(v, QB));
            them.iter_mut().zip(&w[1]).for_each(|(d, &v)| *d = f(v, QB));
        }
        for (d, &b) in out.out_b.iter_mut().zip(&net.out_bias) {
            *d = b as f32 / (QA * QB) as f32;
        }
        out.mirror = net.mirror;
        out
    }

    /// Reads a float checkpoint ([`FloatNet::to_bytes`]) or, failing that, a
    /// quantised engine net (dequantised).
    pub fn from_checkpoint_or_net(bytes: &[u8]) -> Result<FloatNet, String> {
        if bytes.starts_with(b"FRCK") {
            FloatNet::from_bytes(bytes)
        } else {
            Network::from_bytes(bytes).map(|n| FloatNet::dequantise(&n))
        }
    }

    /// Raw little-endian floats with a small header (`FRCK`, then the hidden
    /// size, the output layers less one in bits 16–23, the king buckets less
    /// one in bits 24–27 and the mirror flag in bit 31), for `--resume`.
    /// A factorised net is written merged: a resumed run starts from the
    /// same evaluations, with a new (zero) factoriser if asked for one.
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.factorised() {
            return self.merged().to_bytes();
        }
        let mut out = b"FRCK".to_vec();
        let shape = HIDDEN as u32
            | ((self.buckets() as u32 - 1) << 16)
            | ((self.king_buckets as u32 - 1) << 24)
            | u32::from(self.mirror) << 31;
        out.extend_from_slice(&shape.to_le_bytes());
        for p in self.params() {
            for v in p {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// Reads what [`FloatNet::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<FloatNet, String> {
        if bytes.len() < 8 || &bytes[..4] != b"FRCK" {
            return Err("not a checkpoint (no FRCK header)".into());
        }
        let shape = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let buckets = (shape >> 16 & 0xff) as usize + 1;
        if buckets != 1 && buckets != OUTPUT_BUCKETS {
            return Err(format!("checkpoint with {buckets} output layers"));
        }
        let king_buckets = (shape >> 24 & 0xf) as usize + 1;
        if ![1, KING_BUCKETS, FINE_KING_BUCKETS].contains(&king_buckets) {
            return Err(format!("checkpoint with {king_buckets} king buckets"));
        }
        let mut net = FloatNet::zeros_with(buckets, king_buckets);
        let count: usize = net.params().iter().map(|p| p.len()).sum();
        if bytes.len() != 8 + 4 * count {
            return Err(format!(
                "not a checkpoint of a {INPUTS}->{HIDDEN} net ({} bytes)",
                bytes.len()
            ));
        }
        let mut floats = bytes[8..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        for p in net.params_mut() {
            for v in p.iter_mut() {
                *v = floats.next().unwrap_or(0.0);
            }
        }
        if shape & 0xffff != HIDDEN as u32 {
            return Err(format!("checkpoint of a {}-neuron net", shape & 0xffff));
        }
        net.mirror = shape >> 31 == 1;
        Ok(net)
    }
}

#[inline]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record: score and result blended, from the side
/// to move's point of view.
#[inline]
pub fn target(rec: &ChessBoard, wdl: f32) -> f32 {
    let score = sigmoid(f32::from(rec.score) / SCALE as f32);
    let result = f32::from(rec.result) / 2.0;
    score * (1.0 - wdl) + result * wdl
}

/// Adds the gradient of one record's loss to `grad`; returns the loss.
fn backprop(net: &FloatNet, stm: &[u16], nstm: &[u16], t: f32, grad: &mut FloatNet) -> f32 {
    let mut a = [0.0; HIDDEN];
    let mut b = [0.0; HIDDEN];
    net.accumulate(stm, &mut a);
    net.accumulate(nstm, &mut b);
    let bucket = net.bucket(stm);
    let p = sigmoid(net.output(&a, &b, bucket));
    let err = p - t;
    let g = 2.0 * err * p * (1.0 - p);
    grad.out_b[bucket] += g;
    let (w0, w1) = net.out_w[bucket * 2 * HIDDEN..][..2 * HIDDEN].split_at(HIDDEN);
    let (g0, g1) = grad.out_w[bucket * 2 * HIDDEN..][..2 * HIDDEN].split_at_mut(HIDDEN);
    for (acc, w, gw, feats) in [(&mut a, w0, g0, stm), (&mut b, w1, g1, nstm)] {
        // acc becomes d(loss)/d(hidden sum).
        for i in 0..HIDDEN {
            let x = acc[i];
            gw[i] += g * screlu(x);
            acc[i] = if x > 0.0 && x < 1.0 {
                g * w[i] * 2.0 * x
            } else {
                0.0
            };
        }
        grad.ft_b
            .iter_mut()
            .zip(acc.iter())
            .for_each(|(gb, d)| *gb += d);
        for &f in feats {
            let row = &mut grad.ft_w[f as usize * HIDDEN..][..HIDDEN];
            row.iter_mut().zip(acc.iter()).for_each(|(gw, d)| *gw += d);
        }
    }
    err * err
}

/// Settings of a training run.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch_size: usize,
    /// Starting learning rate; it falls along a cosine to `lr_end`.
    pub lr: f32,
    pub lr_end: f32,
    /// AdamW weight decay (decoupled: each step takes `lr · decay` of every
    /// weight's distance from its anchor off).
    pub weight_decay: f32,
    /// Decay toward the starting net instead of toward zero (L2-SP): a
    /// fine-tune on a few new positions then stays near what its parent
    /// learnt from data that may no longer exist.
    pub anchor: bool,
    /// The game result's share of the target.
    pub wdl: f32,
    pub threads: usize,
    /// Share of the data held out for the validation loss.
    pub validation: f64,
    pub seed: u64,
    /// Where each epoch's quantised net and the float checkpoint go.
    pub out_dir: PathBuf,
    /// Print progress lines (to stderr) during epochs.
    pub verbose: bool,
    /// Show each training position mirrored left-right half of the time (a
    /// coin per position and epoch; nets that mirror already are left as
    /// they are): chess is the same game mirrored, castling aside, so this
    /// is twice the patterns from the same data.
    pub augment_mirror: bool,
}

impl TrainConfig {
    /// Whether training `net` flips positions: asked for, and the net does
    /// not mirror already.
    pub fn mirror_augments(&self, net: &FloatNet) -> bool {
        self.augment_mirror && !net.mirror
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 20,
            batch_size: 16384,
            lr: 0.001,
            lr_end: 0.00001,
            weight_decay: 0.01,
            wdl: 0.25,
            threads: 2,
            validation: 0.02,
            seed: 1,
            out_dir: PathBuf::from("nets/train"),
            verbose: true,
            augment_mirror: false,
            anchor: false,
        }
    }
}

/// One epoch's figures.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    pub positions_per_second: f64,
    pub lr: f32,
}

/// Mean loss of `net` on `data` (no training), on `threads` threads.
pub fn mean_loss(net: &FloatNet, data: &[ChessBoard], wdl: f32, threads: usize) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let chunk = data.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut st, mut nst) = (Vec::with_capacity(32), Vec::with_capacity(32));
                    part.iter()
                        .map(|rec| {
                            record_features(rec, net.mirror, net.king_buckets, &mut st, &mut nst);
                            let e = sigmoid(net.forward(&st, &nst)) - target(rec, wdl);
                            f64::from(e * e)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / data.len() as f64
}

/// AdamW state: first and second moments, and the step count.
struct Adam {
    m: FloatNet,
    v: FloatNet,
    t: i32,
}

/// The settings of one AdamW step.
#[derive(Clone, Copy)]
struct StepSettings {
    /// Multiplies each summed gradient (1 / batch size: the batch mean).
    scale: f32,
    lr: f32,
    /// Decoupled weight decay.
    decay: f32,
}

/// What one AdamW step applies to every weight alike.
#[derive(Clone, Copy)]
struct AdamStep {
    settings: StepSettings,
    /// Bias corrections of the two moments.
    c1: f32,
    c2: f32,
}

impl AdamStep {
    /// Updates the weights `p` from their gradients `g` and moments `m`,
    /// `v`; the decay pulls toward `anchor` (toward zero without one).
    fn apply(self, p: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], anchor: Option<&[f32]>) {
        let StepSettings { scale, lr, decay } = self.settings;
        for i in 0..p.len() {
            let g = g[i] * scale;
            m[i] = Adam::B1 * m[i] + (1.0 - Adam::B1) * g;
            v[i] = Adam::B2 * v[i] + (1.0 - Adam::B2) * g * g;
            let update = (m[i] / self.c1) / ((v[i] / self.c2).sqrt() + Adam::EPS);
            let from = anchor.map_or(0.0, |a| a[i]);
            p[i] -= lr * (update + decay * (p[i] - from));
            p[i] = p[i].clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

/// Parameter slices shorter than this are handled on one thread (a thread
/// costs more than they do).
const PARALLEL_MIN: usize = 1 << 15;

/// The length of the pieces a slice of `len` weights is split into for
/// `threads` threads (the whole slice when it is short).
fn piece_len(len: usize, threads: usize) -> usize {
    if threads <= 1 || len < PARALLEL_MIN {
        len.max(1)
    } else {
        len.div_ceil(threads)
    }
}

impl Adam {
    const B1: f32 = 0.9;
    const B2: f32 = 0.999;
    const EPS: f32 = 1e-8;

    /// One AdamW step on `threads` threads, with the gradient `grad` times
    /// the settings' `scale`; the decay pulls each weight toward its value in `anchor`
    /// (toward zero without one). Each weight's update depends on that
    /// weight alone, so the split changes nothing in the result.
    fn step(
        &mut self,
        net: &mut FloatNet,
        grad: &FloatNet,
        settings: StepSettings,
        anchor: Option<&FloatNet>,
        threads: usize,
    ) {
        self.t += 1;
        let step = AdamStep {
            settings,
            c1: 1.0 - Self::B1.powi(self.t),
            c2: 1.0 - Self::B2.powi(self.t),
        };
        let params = net.params_mut();
        let ms = self.m.params_mut();
        let vs = self.v.params_mut();
        let anchors = anchor.map(FloatNet::params);
        for (k, (((p, g), m), v)) in params
            .into_iter()
            .zip(grad.params())
            .zip(ms)
            .zip(vs)
            .enumerate()
        {
            let a = anchors.as_ref().map(|a| a[k]);
            let n = piece_len(p.len(), threads);
            if n >= p.len() {
                step.apply(p, g, m, v, a);
                continue;
            }
            std::thread::scope(|s| {
                let pieces = p
                    .chunks_mut(n)
                    .zip(g.chunks(n))
                    .zip(m.chunks_mut(n))
                    .zip(v.chunks_mut(n));
                for (j, (((p, g), m), v)) in pieces.enumerate() {
                    let a = a.map(|a| &a[j * n..][..p.len()]);
                    s.spawn(move || step.apply(p, g, m, v, a));
                }
            });
        }
    }
}

/// Adds the gradients of `others` into `sum`, on `threads` threads: each
/// weight gets the others' values added in their order, as one thread
/// would add them, so the split changes nothing in the result.
fn sum_gradients(sum: &mut FloatNet, others: &[FloatNet], threads: usize) {
    if others.is_empty() {
        return;
    }
    for (k, dst) in sum.params_mut().into_iter().enumerate() {
        let n = piece_len(dst.len(), threads);
        let add = |j: usize, d: &mut [f32]| {
            for g in others {
                let src = &g.params()[k][j * n..][..d.len()];
                d.iter_mut().zip(src).for_each(|(x, y)| *x += y);
            }
        };
        if n >= dst.len() {
            add(0, dst);
            continue;
        }
        std::thread::scope(|s| {
            for (j, d) in dst.chunks_mut(n).enumerate() {
                s.spawn(move || add(j, d));
            }
        });
    }
}

/// Learning rate at `progress` (0 at the start, 1 at the end): cosine.
fn learning_rate(cfg: &TrainConfig, progress: f64) -> f32 {
    let c = 0.5 * (1.0 + (std::f64::consts::PI * progress.clamp(0.0, 1.0)).cos());
    (f64::from(cfg.lr_end) + (f64::from(cfg.lr) - f64::from(cfg.lr_end)) * c) as f32
}

/// Shuffles `data` with the config's seed and splits off the held-out part
/// (at the end): returns (training, validation).
pub fn split(mut data: Vec<ChessBoard>, cfg: &TrainConfig) -> (Vec<ChessBoard>, Vec<ChessBoard>) {
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    data.shuffle(&mut rng);
    let held = ((data.len() as f64) * cfg.validation).round() as usize;
    let validation = data.split_off(data.len() - held.min(data.len()));
    (data, validation)
}

/// Trains `net` on `train` for `cfg.epochs` epochs, reporting each epoch to
/// `on_epoch` (which may write checkpoints). Returns the reports.
pub fn train(
    net: &mut FloatNet,
    mut train: Vec<ChessBoard>,
    validation: &[ChessBoard],
    cfg: &TrainConfig,
    on_epoch: &mut dyn FnMut(&FloatNet, &EpochReport),
) -> Vec<EpochReport> {
    let threads = cfg.threads.max(1);
    let batch = cfg.batch_size.max(1);
    let mut adam = Adam {
        m: net.zeros_like(),
        v: net.zeros_like(),
        t: 0,
    };
    let mut grads: Vec<FloatNet> = (0..threads).map(|_| net.zeros_like()).collect();
    // A factorised net is evaluated through its merged form, refreshed
    // before every batch; the factoriser's gradient is then the sum of the
    // buckets' (see below).
    let mut view = if net.factorised() {
        net.merged()
    } else {
        FloatNet::zeros()
    };
    let anchor = cfg.anchor.then(|| net.clone());
    let mut rng = StdRng::seed_from_u64(cfg.seed ^ 0x9e37_79b9_7f4a_7c15);
    let batches_per_epoch = train.len().div_ceil(batch).max(1);
    let total_batches = (batches_per_epoch * cfg.epochs).max(1);
    let mut reports = Vec::new();
    for epoch in 1..=cfg.epochs {
        train.shuffle(&mut rng);
        let start = Instant::now();
        let mut loss_sum = 0.0f64;
        let mut lr = cfg.lr;
        for (b, chunk) in train.chunks(batch).enumerate() {
            let done = (epoch - 1) * batches_per_epoch + b;
            lr = learning_rate(cfg, done as f64 / total_batches as f64);
            let per_thread = chunk.len().div_ceil(threads);
            let net_ref: &FloatNet = if net.factorised() {
                net.merge_into(&mut view);
                &view
            } else {
                net
            };
            let wdl = cfg.wdl;
            let augment = cfg.mirror_augments(net);
            let seed = cfg.seed;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = chunk
                    .chunks(per_thread)
                    .zip(grads.iter_mut())
                    .enumerate()
                    .map(|(t, (part, grad))| {
                        s.spawn(move || {
                            grad.clear();
                            let (mut st, mut nst) =
                                (Vec::with_capacity(32), Vec::with_capacity(32));
                            let mut loss = 0.0f64;
                            let first = b * batch + t * per_thread;
                            for (i, rec) in part.iter().enumerate() {
                                record_features(
                                    rec,
                                    net_ref.mirror,
                                    net_ref.king_buckets,
                                    &mut st,
                                    &mut nst,
                                );
                                if augment && coin(seed, epoch, first + i) {
                                    mirror_features(&mut st);
                                    mirror_features(&mut nst);
                                }
                                loss +=
                                    f64::from(backprop(net_ref, &st, &nst, target(rec, wdl), grad));
                            }
                            loss
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(0.0))
                    .collect()
            });
            let used = chunk.len().div_ceil(per_thread);
            let (first, rest) = grads.split_at_mut(1);
            sum_gradients(&mut first[0], &rest[..used - 1], threads);
            if net.factorised() {
                let g = &mut first[0];
                g.ft_f.fill(0.0);
                for set in g.ft_w.chunks_exact(INPUTS * HIDDEN) {
                    g.ft_f.iter_mut().zip(set).for_each(|(f, w)| *f += w);
                }
            }
            // Gradient of the batch mean.
            let settings = StepSettings {
                scale: 1.0 / chunk.len() as f32,
                lr,
                decay: cfg.weight_decay,
            };
            adam.step(net, &first[0], settings, anchor.as_ref(), threads);
            loss_sum += losses.iter().sum::<f64>();
            if cfg.verbose && (b + 1) % 50 == 0 {
                let seen = ((b + 1) * batch).min(train.len());
                eprint!(
                    "\repoch {epoch} {:5.1}%  loss {:.6}  {:.0} pos/s   ",
                    100.0 * seen as f64 / train.len() as f64,
                    loss_sum / seen as f64,
                    seen as f64 / start.elapsed().as_secs_f64()
                );
                let _ = std::io::stderr().flush();
            }
        }
        let secs = start.elapsed().as_secs_f64();
        let report = EpochReport {
            epoch,
            train_loss: loss_sum / train.len().max(1) as f64,
            validation_loss: mean_loss(net, validation, cfg.wdl, threads),
            positions_per_second: train.len() as f64 / secs.max(1e-9),
            lr,
        };
        if cfg.verbose {
            eprint!("\r");
        }
        on_epoch(net, &report);
        reports.push(report);
    }
    reports
}

/// A fair coin for position `index` of `epoch` (splitmix64 of the three),
/// so that a run repeats whatever the thread count.
fn coin(seed: u64, epoch: usize, index: usize) -> bool {
    let mut z = seed
        .wrapping_add((epoch as u64) << 40)
        .wrapping_add(index as u64)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) & 1 == 1
}

/// Writes `net` quantised (the engine's format) to `path`.
pub fn save_quantised(net: &FloatNet, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, net.quantise().to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splitting the gradient sum and the AdamW step between threads gives
    /// the same weights, bit for bit, as one thread does.
    #[test]
    fn threads_change_nothing_in_a_step() {
        let start = FloatNet::random(1);
        assert!(start.ft_w.len() > 2 * PARALLEL_MIN);
        let grads: Vec<FloatNet> = (2..5).map(FloatNet::random).collect();
        let anchor = FloatNet::random(9);
        let run = |threads: usize| {
            let mut sum = grads[0].clone();
            sum_gradients(&mut sum, &grads[1..], threads);
            let mut net = start.clone();
            let mut adam = Adam {
                m: net.zeros_like(),
                v: net.zeros_like(),
                t: 0,
            };
            for _ in 0..3 {
                let settings = StepSettings {
                    scale: 0.25,
                    lr: 0.001,
                    decay: 0.01,
                };
                adam.step(&mut net, &sum, settings, Some(&anchor), threads);
            }
            (sum, net)
        };
        let (sum1, net1) = run(1);
        // The sum is the elementwise one, and the step moved the weights.
        assert_eq!(
            sum1.ft_w[7],
            grads[0].ft_w[7] + grads[1].ft_w[7] + grads[2].ft_w[7]
        );
        assert_ne!(net1, start);
        for threads in [2, 3] {
            let (sum, net) = run(threads);
            assert_eq!(sum, sum1);
            assert_eq!(net, net1);
        }
    }
}
