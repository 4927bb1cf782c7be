//! Static-evaluation correction history: how far the searched score of
//! positions with the same pawn structure has been from their static
//! evaluation, as a running average per side to move. The search adds the
//! average to the static evaluation it prunes with, so that an evaluation
//! that is wrong about a structure is corrected by what the search found.

use shakmaty::{Board, Color};

/// Entries per side to move (a power of two).
const SIZE: usize = 16_384;
/// Fixed-point scale of the stored averages.
const GRAIN: i32 = 256;
/// The largest correction, in centipawns.
const MAX_CORRECTION: i32 = 64;
/// Weights are out of this; a search of depth `d` weighs `min(d + 1, 16)`.
const WEIGHT_SCALE: i32 = 256;

/// Per-thread correction table, keyed by side to move and pawn structure.
pub struct CorrectionHistory {
    table: Vec<i32>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            table: vec![0; 2 * SIZE],
        }
    }
}

/// A hash of both sides' pawns.
#[inline]
fn pawn_index(board: &Board, turn: Color) -> usize {
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    let h = white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    turn as usize * SIZE + (h >> 50) as usize % SIZE
}

impl CorrectionHistory {
    /// The correction to add to the static evaluation of `board` with `turn` to move.
    #[inline]
    pub fn correction(&self, board: &Board, turn: Color) -> i32 {
        self.table[pawn_index(board, turn)] / GRAIN
    }

    /// Moves the average towards `score - eval`, the error a search of
    /// `depth` found in the static evaluation `eval`.
    pub fn update(&mut self, board: &Board, turn: Color, depth: i32, score: i32, eval: i32) {
        let entry = &mut self.table[pawn_index(board, turn)];
        let diff = (score - eval).clamp(-4 * MAX_CORRECTION, 4 * MAX_CORRECTION) * GRAIN;
        let weight = (depth + 1).min(16);
        *entry = (*entry * (WEIGHT_SCALE - weight) + diff * weight) / WEIGHT_SCALE;
        *entry = (*entry).clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_fen;
    use shakmaty::Position;

    #[test]
    fn corrections_follow_the_search_and_stay_bounded() {
        let pos = parse_fen("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1", false).unwrap();
        let other = parse_fen("4k3/p7/8/8/8/8/PP6/4K3 w - - 0 1", false).unwrap();
        let mut c = CorrectionHistory::default();
        assert_eq!(c.correction(pos.board(), Color::White), 0);
        for _ in 0..200 {
            c.update(pos.board(), Color::White, 10, 500, 0);
        }
        assert_eq!(c.correction(pos.board(), Color::White), MAX_CORRECTION);
        assert_eq!(c.correction(pos.board(), Color::Black), 0);
        assert_eq!(c.correction(other.board(), Color::White), 0);
        for _ in 0..200 {
            c.update(pos.board(), Color::White, 10, -30, 0);
        }
        let v = c.correction(pos.board(), Color::White);
        assert!((-30..=-28).contains(&v), "{v}");
        assert!(pos.turn() == Color::White);
    }
}
