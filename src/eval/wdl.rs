//! Win/draw/loss from a score: the model behind `UCI_ShowWDL`, fitted to
//! the results of Ferrum's own games by `ferrum wdl DATA...` (`tools::wdl_fit`).
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

use crate::chess::score::{MATE_BOUND, is_mate};

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

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// The model's `a` and `b` at `material`, and the material fraction `x`.
    pub fn ab(&self, material: u32) -> (f64, f64, f64) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            MODEL.per_mille(crate::chess::score::mate_in(3), 40),
            [1000, 0, 0]
        );
        assert_eq!(
            MODEL.per_mille(crate::chess::score::mated_in(2), 40),
            [0, 0, 1000]
        );
        let even = MODEL.per_mille(0, 58);
        assert_eq!(even[0], even[2]);
    }
}
