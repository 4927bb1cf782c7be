//! Fitting the win/draw/loss model ([`crate::eval::wdl`]) to the results
//! of Ferrum's own games by maximum likelihood (`ferrum wdl DATA...`).

use crate::eval::wdl::{WdlModel, sigmoid};

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
