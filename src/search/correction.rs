//! Static-evaluation correction history: how far the searched score of
//! positions with the same pawn structure, and with the same placement of
//! one side's pieces, has been from their static evaluation, as running
//! averages per side to move. The search adds the averages to the static
//! evaluation it prunes with, so that an evaluation that is wrong about a
//! structure is corrected by what the search found.

use shakmaty::{Board, Color};

use crate::chess::state::pawn_hash;
use crate::search::params::Params;

/// Index bits per side to move: the top bits of a hash pick the entry.
const BITS: u32 = 14;
/// Entries per side to move.
const SIZE: usize = 1 << BITS;
/// Fixed-point scale of the stored averages.
const GRAIN: i32 = 256;
/// The largest average one table holds, in centipawns (the correction adds
/// the pawn table twice and each side's table once, halved: up to twice this).
const MAX_CORRECTION: i32 = 64;
/// Weights are out of this; a search of depth `d` weighs `min(d + 1, 16)`.
const WEIGHT_SCALE: i32 = 256;
/// The correction's weights (`corr_pawn_weight`, `corr_non_pawn_weight`) are out of this.
const CORRECTION_WEIGHT_SCALE: i32 = 64;

/// Per-thread correction tables, keyed by side to move and by the pawn
/// structure, White's pieces (pawns aside) and Black's pieces.
pub struct CorrectionHistory {
    pawn: Vec<i32>,
    non_pawn: [Vec<i32>; 2],
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            pawn: vec![0; 2 * SIZE],
            non_pawn: [vec![0; 2 * SIZE], vec![0; 2 * SIZE]],
        }
    }
}

/// A hash of both sides' pawns.
#[inline]
fn pawn_index(board: &Board, turn: Color) -> usize {
    turn as usize * SIZE + (pawn_hash(board) >> (64 - BITS)) as usize
}

/// A hash of where `color`'s pieces other than pawns stand (king included).
#[inline]
fn non_pawn_index(board: &Board, color: Color, turn: Color) -> usize {
    let ours = board.by_color(color);
    let mut h = 0u64;
    for (i, bb) in [
        board.knights(),
        board.bishops(),
        board.rooks(),
        board.queens(),
        board.kings(),
    ]
    .into_iter()
    .enumerate()
    {
        h ^= (bb & ours).0.wrapping_add(i as u64).wrapping_mul(KEYS[i]);
    }
    turn as usize * SIZE + (h >> (64 - BITS)) as usize
}

/// Odd multipliers for [`non_pawn_index`], one per piece kind.
const KEYS: [u64; 5] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0xD6E8_FEB8_6659_FD93,
    0xFF51_AFD7_ED55_8CCD,
];

/// Moves one running average towards `diff` with `weight` (out of `WEIGHT_SCALE`).
#[inline]
fn blend(entry: &mut i32, diff: i32, weight: i32) {
    *entry = (*entry * (WEIGHT_SCALE - weight) + diff * weight) / WEIGHT_SCALE;
    *entry = (*entry).clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN);
}

impl CorrectionHistory {
    /// Empties the tables in place.
    pub fn clear(&mut self) {
        self.pawn.fill(0);
        for t in &mut self.non_pawn {
            t.fill(0);
        }
    }

    /// The correction to add to the static evaluation of `board` with `turn`
    /// to move: the averages weighted by `params`' `corr_pawn_weight` and
    /// `corr_non_pawn_weight` (out of 64; by default the pawn average counts
    /// in full, each side's non-pawn average half).
    #[inline]
    pub fn correction(&self, board: &Board, turn: Color, params: &Params) -> i32 {
        let pawn = self.pawn[pawn_index(board, turn)];
        let white = self.non_pawn[0][non_pawn_index(board, Color::White, turn)];
        let black = self.non_pawn[1][non_pawn_index(board, Color::Black, turn)];
        (params.corr_pawn_weight * pawn + params.corr_non_pawn_weight * (white + black))
            / (CORRECTION_WEIGHT_SCALE * GRAIN)
    }

    /// Moves the average towards `score - eval`, the error a search of
    /// `depth` found in the static evaluation `eval`.
    pub fn update(&mut self, board: &Board, turn: Color, depth: i32, score: i32, eval: i32) {
        let diff = (score - eval).clamp(-4 * MAX_CORRECTION, 4 * MAX_CORRECTION) * GRAIN;
        let weight = (depth + 1).min(16);
        blend(&mut self.pawn[pawn_index(board, turn)], diff, weight);
        blend(
            &mut self.non_pawn[0][non_pawn_index(board, Color::White, turn)],
            diff,
            weight,
        );
        blend(
            &mut self.non_pawn[1][non_pawn_index(board, Color::Black, turn)],
            diff,
            weight,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;
    use shakmaty::Position;

    #[test]
    fn corrections_follow_the_search_and_stay_bounded() {
        let pos = parse_fen("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1", false).unwrap();
        // Other pawns, the same pieces.
        let other_pawns = parse_fen("4k3/p7/8/8/8/8/PP6/4K3 w - - 0 1", false).unwrap();
        // Other pawns and another white king square: only Black's pieces match.
        let other_white = parse_fen("4k3/p7/8/8/8/8/PP6/3K4 w - - 0 1", false).unwrap();
        let d = Params::default();
        let mut c = CorrectionHistory::default();
        assert_eq!(c.correction(pos.board(), Color::White, &d), 0);
        for _ in 0..200 {
            c.update(pos.board(), Color::White, 10, 500, 0);
        }
        // Pawn table (weight 64 of 64) and both sides' piece tables (32 each), each at its bound.
        assert_eq!(
            c.correction(pos.board(), Color::White, &d),
            2 * MAX_CORRECTION
        );
        assert_eq!(c.correction(pos.board(), Color::Black, &d), 0);
        assert_eq!(
            c.correction(other_pawns.board(), Color::White, &d),
            MAX_CORRECTION
        );
        assert_eq!(
            c.correction(other_white.board(), Color::White, &d),
            MAX_CORRECTION / 2
        );
        for _ in 0..200 {
            c.update(pos.board(), Color::White, 10, -30, 0);
        }
        let v = c.correction(pos.board(), Color::White, &d);
        assert!((-60..=-56).contains(&v), "{v}");
        // The weights are parameters: without the pawn average only each
        // side's piece average counts, and doubled weights double it
        // (to within rounding).
        let mut w = d;
        w.set("corr_pawn_weight", 0).unwrap();
        assert_eq!(c.correction(other_pawns.board(), Color::White, &w), v / 2);
        w.set("corr_pawn_weight", 128).unwrap();
        w.set("corr_non_pawn_weight", 64).unwrap();
        let doubled = c.correction(pos.board(), Color::White, &w);
        assert!((2 * v - 1..=2 * v + 1).contains(&doubled), "{doubled} {v}");
        assert!(pos.turn() == Color::White);
    }
}
