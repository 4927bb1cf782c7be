//! Score conventions shared by the search, the table and the protocol:
//! centipawns, with mate scores counted in plies from the root.

/// Deepest ply the search reaches.
pub const MAX_PLY: i32 = 128;
/// Score of being checkmated at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31_000;
/// Scores at or beyond this magnitude are mates.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY;
/// A tablebase win `ply` plies from the root scores `TB_WIN - ply`: a band
/// of its own just below the mate scores, so a won ending found in the
/// tables is never shown (or taken) as a mate.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this magnitude are tablebase wins or mates.
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY;
/// Larger than any real score.
pub const INFINITE: i32 = 32_000;
/// "No value" (for example a static eval not computed while in check).
pub const NONE: i32 = 32_500;

/// Score of delivering mate `ply` plies from the root.
#[inline]
pub const fn mate_in(ply: i32) -> i32 {
    MATE - ply
}

/// Score of being mated `ply` plies from the root.
#[inline]
pub const fn mated_in(ply: i32) -> i32 {
    -MATE + ply
}

/// Whether a score is a mate score.
#[inline]
pub const fn is_mate(v: i32) -> bool {
    v.abs() >= MATE_BOUND && v.abs() <= MATE
}

/// A score as UCI reports it: `cp N` or `mate N` with N in moves, positive
/// when the side to move mates.
pub fn to_uci(v: i32) -> String {
    if is_mate(v) {
        if v > 0 {
            format!("mate {}", (MATE - v + 1) / 2)
        } else {
            // Checkmated at the root is "mate 0", as Stockfish reports it.
            format!("mate {}", -((MATE + v) / 2))
        }
    } else {
        format!("cp {v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_mate_scores_count_moves() {
        assert_eq!(to_uci(mate_in(1)), "mate 1");
        assert_eq!(to_uci(mate_in(3)), "mate 2");
        assert_eq!(to_uci(mated_in(2)), "mate -1");
        assert_eq!(to_uci(mated_in(0)), "mate 0");
        assert_eq!(to_uci(35), "cp 35");
    }
}
