//! The evaluation layer: what a position is worth to the side to move.
//!
//! Owns the hand-crafted evaluation (this file and the modules below), the
//! network ([`nnue`]: weights, file format, incremental accumulators) and
//! the meaning of a score in wins, draws and losses ([`wdl`]).
//!
//! Uses: [`crate::chess`] only. The search, the protocol and the tools use
//! it.
//!
//! The hand-crafted evaluation is tapered between a middlegame and an endgame score by
//! the material left on the board, from the side to move's point of view.
//!
//! - [`features`]: every term (material, piece squares, mobility, pawn
//!   structure, passed pawns, king safety, pieces, threats, tempo), written
//!   once against a [`features::Sink`];
//! - [`layout`]: where each term's weights live; [`weights`]: their values,
//!   written by `ferrum tune`;
//! - [`endgame`]: scaling toward a draw in drawish material, and mop-up.
//!
//! The engine evaluates with a summing sink; the tuner uses [`trace`], the
//! same terms as coefficients, so engine and tuner cannot disagree.

pub mod endgame;
pub mod features;
pub mod layout;
pub mod nnue;
pub mod wdl;
pub mod weights;

use std::fmt::Write;

use shakmaty::{Board, Chess, Color, Position};

use features::Sink;
use layout::{Group, NUM_WEIGHTS, S, term_of};
pub use weights::WEIGHTS;

/// Sums weights times coefficients, White minus Black.
struct Sum<'a> {
    weights: &'a [S; NUM_WEIGHTS],
    mg: i32,
    eg: i32,
}

impl Sink for Sum<'_> {
    #[inline]
    fn add(&mut self, color: Color, index: usize, count: i32) {
        let w = self.weights[index];
        let n = if color == Color::White { count } else { -count };
        self.mg += w.0 * n;
        self.eg += w.1 * n;
    }
}

/// Blends middlegame and endgame (White's view) by phase, then scales the
/// result toward a draw; `scale` is out of [`endgame::SCALE_MAX`].
#[inline]
fn taper(mg: i32, eg: i32, phase: i32, scale: i32) -> i32 {
    (mg * phase + eg * (24 - phase)) / 24 * scale / endgame::SCALE_MAX
}

/// The endgame scale for a position whose endgame score is `eg` (White's view).
fn scale_for(board: &Board, eg: i32) -> i32 {
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    endgame::scale(board, strong)
}

/// Mop-up, except where the material cannot win.
fn mop_up(board: &Board, scale: i32) -> i32 {
    if scale == 0 {
        0
    } else {
        endgame::mop_up(board)
    }
}

/// Static evaluation of `pos` for the side to move, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    evaluate_with(pos, &WEIGHTS)
}

/// Static evaluation with the given weights.
pub fn evaluate_with(pos: &Chess, weights: &[S; NUM_WEIGHTS]) -> i32 {
    let mut sum = Sum {
        weights,
        mg: 0,
        eg: 0,
    };
    features::terms(pos, &mut sum);
    let board = pos.board();
    let scale = scale_for(board, sum.eg);
    let white = taper(sum.mg, sum.eg, features::phase(board), scale) + mop_up(board, scale);
    match pos.turn() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The evaluation of a position as coefficients of the weights (White
/// minus Black), with what lies outside the weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// (weight index, coefficient), non-zero coefficients only.
    pub coefs: Vec<(u16, i16)>,
    /// 0 (pawn endgame) to 24 (all pieces).
    pub phase: u8,
    /// Endgame scale, out of [`endgame::SCALE_MAX`], as the engine's weights set it.
    pub scale: u8,
    /// Mop-up bonus, White's view.
    pub fixed: i16,
}

/// Dense coefficient collector for [`trace`].
struct Collect {
    coefs: Vec<i32>,
}

impl Sink for Collect {
    fn add(&mut self, color: Color, index: usize, count: i32) {
        self.coefs[index] += if color == Color::White { count } else { -count };
    }
}

/// The trace of `pos` (White's view, whoever is to move).
pub fn trace(pos: &Chess) -> Trace {
    let mut c = Collect {
        coefs: vec![0; NUM_WEIGHTS],
    };
    features::terms(pos, &mut c);
    let board = pos.board();
    let eg: i32 = c.coefs.iter().zip(&WEIGHTS).map(|(n, w)| n * w.1).sum();
    let scale = scale_for(board, eg);
    Trace {
        coefs: c
            .coefs
            .iter()
            .enumerate()
            .filter(|(_, n)| **n != 0)
            .map(|(i, &n)| (i as u16, n.clamp(-32000, 32000) as i16))
            .collect(),
        phase: features::phase(board) as u8,
        scale: scale as u8,
        fixed: mop_up(board, scale).clamp(-32000, 32000) as i16,
    }
}

/// Per group and side, middlegame and endgame, for the `eval` report.
struct Groups {
    weights: &'static [S; NUM_WEIGHTS],
    by: Vec<[[i32; 2]; 2]>,
}

impl Sink for Groups {
    fn add(&mut self, color: Color, index: usize, count: i32) {
        let g = Group::ALL
            .iter()
            .position(|&g| g == term_of(index).group)
            .unwrap_or(0);
        let w = self.weights[index];
        let side = &mut self.by[g][usize::from(color == Color::Black)];
        side[0] += w.0 * count;
        side[1] += w.1 * count;
    }
}

/// The `eval` report: each group of terms for both sides (middlegame,
/// endgame), their difference, and the blended total, in pawns.
pub fn explain(pos: &Chess) -> String {
    let mut g = Groups {
        weights: &WEIGHTS,
        by: vec![[[0; 2]; 2]; Group::ALL.len()],
    };
    features::terms(pos, &mut g);
    let board = pos.board();
    let phase = features::phase(board);
    let p = |v: i32| format!("{:6.2}", v as f64 / 100.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "      Term      |     White     |     Black     |     Total     | Blended"
    );
    let _ = writeln!(
        out,
        "                |   MG     EG   |   MG     EG   |   MG     EG   |"
    );
    let _ = writeln!(out, "{}", "-".repeat(74));
    let (mut mg, mut eg) = (0, 0);
    for (i, group) in Group::ALL.iter().enumerate() {
        let [w, b] = g.by[i];
        let (tm, te) = (w[0] - b[0], w[1] - b[1]);
        mg += tm;
        eg += te;
        let _ = writeln!(
            out,
            "{:>15} | {} {} | {} {} | {} {} | {}",
            group.name(),
            p(w[0]),
            p(w[1]),
            p(b[0]),
            p(b[1]),
            p(tm),
            p(te),
            p(taper(tm, te, phase, endgame::SCALE_MAX))
        );
    }
    let scale = scale_for(board, eg);
    let mop = mop_up(board, scale);
    let white = taper(mg, eg, phase, scale) + mop;
    let _ = writeln!(out, "{}", "-".repeat(74));
    let _ = writeln!(
        out,
        "{:>15} |               |               | {} {} | {}",
        "Total",
        p(mg),
        p(eg),
        p(taper(mg, eg, phase, endgame::SCALE_MAX))
    );
    let _ = writeln!(
        out,
        "Phase {phase}/24, endgame scale {scale}/{}, mop-up {}",
        endgame::SCALE_MAX,
        p(mop).trim()
    );
    let stm = if pos.turn() == Color::White {
        white
    } else {
        -white
    };
    let _ = write!(
        out,
        "Final evaluation: {} (White's view), {} (side to move)",
        p(white).trim(),
        p(stm).trim()
    );
    out
}
