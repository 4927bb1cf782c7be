//! Win/draw/loss from a score: the model behind `UCI_ShowWDL`, fitted to
//! the results of Ferrum's own games (`ferrum wdl DATA...`).
//!
//! Model (the form Stockfish uses): with `v` the score in centipawns from
//! the side to move and `x` the material on the board (pawn 1, knight and
//! bishop 3, rook 5, queen 9, both sides; clamped to 10..78) divided by 58,
//!
//!   a = a0 + a1·x,  b = b0 + b1·x,
//!   P(win) = σ((v − a) / b),  P(loss) = σ((−v − a) / b),
//!   P(draw) = 1 − P(win) − P(loss),
//!
//! so `a` is the score at which a win becomes as likely as not and `b` how
//! fast it gets there. Fitted by maximum likelihood on positions labelled
//! with their game's result.

use shakmaty::{Board, Role};

use crate::score::{MATE_BOUND, is_mate};

/// Parameters of the model (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 2],
    pub b: [f64; 2],
}

/// The model `UCI_ShowWDL` uses: fitted with `ferrum wdl` on the 108,358
/// positions (1,091 games) of round d6 of docs/nets.md (self-play at 5000
/// nodes a move with net n2, bench 734226); docs/strength.md has the fit
/// and its table.
pub const MODEL: WdlModel = WdlModel {
    a: [431.8, -269.4],
    b: [153.6, -34.8],
};

/// Material on the board as the model counts it.
pub fn material(board: &Board) -> u32 {
    let count = |role: Role| board.by_role(role).count() as u32;
    count(Role::Pawn)
        + 3 * (count(Role::Knight) + count(Role::Bishop))
        + 5 * count(Role::Rook)
        + 9 * count(Role::Queen)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    fn ab(&self, material: u32) -> (f64, f64, f64) {
        let x = f64::from(material.clamp(10, 78)) / 58.0;
        let a = self.a[0] + self.a[1] * x;
        let b = (self.b[0] + self.b[1] * x).max(1.0);
        (a, b, x)
    }

    /// Win, draw and loss probabilities for the side to move.
    pub fn probabilities(&self, score: i32, material: u32) -> [f64; 3] {
        let (a, b, _) = self.ab(material);
        let v = f64::from(score);
        let w = sigmoid((v - a) / b);
        let l = sigmoid((-v - a) / b);
        [w, (1.0 - w - l).max(0.0), l]
    }

    /// Per mille, summing to 1000, for a search score (mates are certain).
    pub fn per_mille(&self, score: i32, material: u32) -> [u32; 3] {
        if is_mate(score) || score.abs() >= MATE_BOUND {
            return if score > 0 {
                [1000, 0, 0]
            } else {
                [0, 0, 1000]
            };
        }
        let [w, _, l] = self.probabilities(score, material);
        let w = (w * 1000.0).round() as u32;
        let l = ((l * 1000.0).round() as u32).min(1000 - w);
        [w, 1000 - w - l, l]
    }
}

/// One position for fitting: score (side to move, centipawns), material,
/// and the game's result for the side to move (0 loss, 1 draw, 2 win).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub score: i32,
    pub material: u32,
    pub result: u8,
}

/// Mean negative log-likelihood of `samples` under `model`.
pub fn loss(model: &WdlModel, samples: &[Sample]) -> f64 {
    let mut total = 0.0;
    for s in samples {
        let p = model.probabilities(s.score, s.material)[2 - s.result.min(2) as usize];
        total -= p.max(1e-9).ln();
    }
    total / samples.len().max(1) as f64
}

/// Fits the model by maximum likelihood (Adam, full batch, `iterations`
/// steps) from `start`.
pub fn fit(samples: &[Sample], start: WdlModel, iterations: usize) -> WdlModel {
    // Parameters in units of 100 cp, so one learning rate suits all four.
    let mut p = [
        start.a[0] / 100.0,
        start.a[1] / 100.0,
        start.b[0] / 100.0,
        start.b[1] / 100.0,
    ];
    let (mut m, mut v) = ([0.0f64; 4], [0.0f64; 4]);
    let (lr, b1, b2) = (0.02, 0.9, 0.999);
    let model = |p: &[f64; 4]| WdlModel {
        a: [100.0 * p[0], 100.0 * p[1]],
        b: [100.0 * p[2], 100.0 * p[3]],
    };
    for t in 1..=iterations {
        let cur = model(&p);
        let mut g = [0.0f64; 4];
        for s in samples {
            let (a, b, x) = cur.ab(s.material);
            let val = f64::from(s.score);
            let (zw, zl) = ((val - a) / b, (-val - a) / b);
            let (pw, pl) = (sigmoid(zw), sigmoid(zl));
            // Derivatives of P(win) and P(loss) with respect to a and b.
            let (dw_da, dw_db) = (-pw * (1.0 - pw) / b, -pw * (1.0 - pw) * zw / b);
            let (dl_da, dl_db) = (-pl * (1.0 - pl) / b, -pl * (1.0 - pl) * zl / b);
            let (p_obs, da, db) = match s.result {
                2 => (pw, dw_da, dw_db),
                0 => (pl, dl_da, dl_db),
                _ => (
                    (1.0 - pw - pl).max(1e-9),
                    -(dw_da + dl_da),
                    -(dw_db + dl_db),
                ),
            };
            // d(−ln p) = −dp / p; parameters are in units of 100.
            let k = -100.0 / p_obs.max(1e-9);
            g[0] += k * da;
            g[1] += k * da * x;
            g[2] += k * db;
            g[3] += k * db * x;
        }
        let n = samples.len().max(1) as f64;
        for i in 0..4 {
            let gi = g[i] / n;
            m[i] = b1 * m[i] + (1.0 - b1) * gi;
            v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            p[i] -= lr * mh / (vh.sqrt() + 1e-12);
        }
    }
    model(&p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn per_mille_sums_to_1000_and_is_monotone() {
        for material in [10, 30, 58, 78] {
            let mut last = MODEL.per_mille(-3000, material);
            for score in (-2999..3000).step_by(7) {
                let w = MODEL.per_mille(score, material);
                assert_eq!(w.iter().sum::<u32>(), 1000, "{score} {material}");
                assert!(w.iter().all(|&x| x <= 1000));
                assert!(
                    w[0] >= last[0] && w[2] <= last[2],
                    "{score}: {last:?} -> {w:?}"
                );
                last = w;
            }
        }
        assert_eq!(MODEL.per_mille(crate::score::mate_in(3), 40), [1000, 0, 0]);
        assert_eq!(MODEL.per_mille(crate::score::mated_in(2), 40), [0, 0, 1000]);
        let even = MODEL.per_mille(0, 58);
        assert_eq!(even[0], even[2]);
    }

    #[test]
    fn fitting_recovers_a_known_model() {
        let truth = WdlModel {
            a: [120.0, 140.0],
            b: [60.0, 50.0],
        };
        let mut rng = StdRng::seed_from_u64(7);
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let score = rng.random_range(-600..600);
                let material = rng.random_range(10..79);
                let [w, d, _] = truth.probabilities(score, material);
                let r: f64 = rng.random_range(0.0..1.0);
                let result = if r < w {
                    2
                } else if r < w + d {
                    1
                } else {
                    0
                };
                Sample {
                    score,
                    material,
                    result,
                }
            })
            .collect();
        let start = WdlModel {
            a: [200.0, 0.0],
            b: [100.0, 0.0],
        };
        let fitted = fit(&samples, start, 1500);
        assert!(loss(&fitted, &samples) <= loss(&truth, &samples) + 0.002);
        for at in [17u32, 58, 75] {
            let (a, b, _) = fitted.ab(at);
            let (ta, tb, _) = truth.ab(at);
            assert!((a - ta).abs() < 25.0, "a at {at}: {a} vs {ta}");
            assert!((b - tb).abs() < 15.0, "b at {at}: {b} vs {tb}");
        }
    }
}
