//! Static evaluation: material and piece-square tables, tapered between a
//! middlegame and an endgame score by the material left on the board, plus
//! a few cheap terms (bishop pair, mobility, side to move).
//!
//! Scores are centipawns from the side to move's point of view, as negamax
//! wants them.

use shakmaty::{Bitboard, Chess, Color, Position, Role, Square, attacks};

/// A middlegame and an endgame value.
#[derive(Clone, Copy)]
struct Score(i32, i32);

/// Material values, middlegame and endgame, indexed by `Role as usize - 1`.
const MATERIAL: [Score; 6] = [
    Score(90, 120),
    Score(320, 300),
    Score(335, 320),
    Score(470, 530),
    Score(980, 960),
    Score(0, 0),
];

/// Game phase weight of each role; 24 is a full board of pieces.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

/// Bonus for the side to move.
const TEMPO: i32 = 12;
const BISHOP_PAIR: Score = Score(30, 45);
/// Per reachable square (not attacked by enemy pawns), for minor and major pieces.
const MOBILITY: [Score; 6] = [
    Score(0, 0),
    Score(4, 4),
    Score(4, 5),
    Score(2, 4),
    Score(1, 2),
    Score(0, 0),
];
/// Mobility counts are centred so that an average piece scores zero.
const MOBILITY_BASE: [i32; 6] = [0, 4, 6, 6, 12, 0];

/// Piece-square tables from White's side, rank 8 first (as the board is
/// printed); `Square as usize ^ 56` indexes them for White.
#[rustfmt::skip]
const PST_MG: [[i32; 64]; 6] = [
    // Pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
      60,  70,  60,  70,  70,  60,  70,  60,
      15,  20,  30,  40,  40,  30,  20,  15,
       2,   8,  12,  25,  25,  12,   8,   2,
      -5,   0,   8,  20,  20,   5,   0,  -5,
      -5,   0,   0,   5,   5,  -5,   5,  -3,
      -8,   0,  -5, -15, -15,  10,  10,  -8,
       0,   0,   0,   0,   0,   0,   0,   0],
    // Knight
    [-70, -40, -30, -25, -25, -30, -40, -70,
     -35, -15,   5,  10,  10,   5, -15, -35,
     -20,  10,  20,  25,  25,  20,  10, -20,
     -15,   5,  18,  25,  25,  18,   5, -15,
     -15,   0,  15,  18,  18,  15,   0, -15,
     -20,   0,  10,  12,  12,  10,   0, -20,
     -30, -15,   0,   5,   5,   0, -15, -30,
     -55, -25, -25, -20, -20, -25, -25, -55],
    // Bishop
    [-20, -10, -10, -10, -10, -10, -10, -20,
     -10,   0,   0,   0,   0,   0,   0, -10,
     -10,   5,  10,  10,  10,  10,   5, -10,
      -5,   5,   8,  15,  15,   8,   5,  -5,
      -5,   8,  10,  15,  15,  10,   8,  -5,
       0,  10,  10,  10,  10,  10,  10,   0,
      -5,  12,   5,   5,   5,   5,  12,  -5,
     -20, -10, -12, -10, -10, -12, -10, -20],
    // Rook
    [ 10,  10,  10,  15,  15,  10,  10,  10,
      20,  25,  25,  25,  25,  25,  25,  20,
      -5,   0,   5,   5,   5,   5,   0,  -5,
     -10,  -5,   0,   0,   0,   0,  -5, -10,
     -15, -10,  -5,   0,   0,  -5, -10, -15,
     -20, -10,  -5,  -5,  -5,  -5, -10, -20,
     -20, -10,  -5,   0,   0,  -5, -10, -25,
      -5,  -5,   5,  10,  10,   5,  -5,  -5],
    // Queen
    [-20, -10, -10,  -5,  -5, -10, -10, -20,
     -10,  -5,   0,   0,   0,   0,  -5, -10,
     -10,   0,   5,   5,   5,   5,   0, -10,
      -5,   0,   5,   5,   5,   5,   0,  -5,
      -5,   0,   5,   5,   5,   5,   0,  -5,
     -10,   5,   5,   5,   5,   5,   0, -10,
     -10,   0,   5,   5,   0,   0,   0, -10,
     -20, -10, -10,   0,  -5, -10, -10, -20],
    // King
    [-60, -60, -60, -70, -70, -60, -60, -60,
     -50, -50, -50, -60, -60, -50, -50, -50,
     -45, -45, -50, -60, -60, -50, -45, -45,
     -40, -45, -50, -60, -60, -50, -45, -40,
     -30, -35, -40, -50, -50, -40, -35, -30,
     -15, -20, -25, -30, -30, -25, -20, -15,
      15,  15,  -5, -20, -20,  -5,  15,  15,
      20,  35,  15, -15,   0, -10,  35,  25],
];

#[rustfmt::skip]
const PST_EG: [[i32; 64]; 6] = [
    // Pawn
    [  0,   0,   0,   0,   0,   0,   0,   0,
     110, 110, 100,  95,  95, 100, 110, 110,
      70,  70,  60,  55,  55,  60,  70,  70,
      35,  30,  25,  20,  20,  25,  30,  35,
      15,  12,   8,   5,   5,   8,  12,  15,
       5,   5,   0,   0,   0,   0,   5,   5,
       5,   5,   5,   5,   5,   5,   5,   5,
       0,   0,   0,   0,   0,   0,   0,   0],
    // Knight
    [-50, -35, -25, -20, -20, -25, -35, -50,
     -30, -15,  -5,   0,   0,  -5, -15, -30,
     -25,  -5,  10,  12,  12,  10,  -5, -25,
     -20,   0,  12,  18,  18,  12,   0, -20,
     -20,   0,  12,  18,  18,  12,   0, -20,
     -25,  -5,   5,  10,  10,   5,  -5, -25,
     -30, -15,  -5,   0,   0,  -5, -15, -30,
     -50, -35, -25, -20, -20, -25, -35, -50],
    // Bishop
    [-15, -10,  -8,  -5,  -5,  -8, -10, -15,
     -10,  -3,   0,   2,   2,   0,  -3, -10,
      -8,   0,   5,   6,   6,   5,   0,  -8,
      -5,   2,   6,  10,  10,   6,   2,  -5,
      -5,   2,   6,  10,  10,   6,   2,  -5,
      -8,   0,   5,   6,   6,   5,   0,  -8,
     -10,  -3,   0,   2,   2,   0,  -3, -10,
     -15, -10,  -8,  -5,  -5,  -8, -10, -15],
    // Rook
    [ 10,  10,  12,  12,  12,  12,  10,  10,
      12,  14,  14,  14,  14,  14,  14,  12,
       6,   6,   6,   6,   6,   6,   6,   6,
       2,   2,   4,   4,   4,   4,   2,   2,
       0,   0,   0,   0,   0,   0,   0,   0,
      -4,  -2,  -2,  -2,  -2,  -2,  -2,  -4,
      -6,  -4,  -4,  -4,  -4,  -4,  -4,  -6,
      -8,  -4,   0,   0,   0,   0,  -4,  -8],
    // Queen
    [-10,  -5,   0,   5,   5,   0,  -5, -10,
      -5,   5,  10,  15,  15,  10,   5,  -5,
       0,  10,  15,  20,  20,  15,  10,   0,
       5,  15,  20,  25,  25,  20,  15,   5,
       5,  15,  20,  25,  25,  20,  15,   5,
       0,  10,  15,  15,  15,  15,  10,   0,
      -5,   0,   5,   5,   5,   5,   0,  -5,
     -15, -10, -10,  -5,  -5, -10, -10, -15],
    // King
    [-50, -30, -20, -15, -15, -20, -30, -50,
     -25,   0,  10,  10,  10,  10,   0, -25,
     -15,  10,  25,  30,  30,  25,  10, -15,
     -15,  10,  30,  40,  40,  30,  10, -15,
     -20,   5,  25,  35,  35,  25,   5, -20,
     -25,  -5,  10,  20,  20,  10,  -5, -25,
     -35, -15,  -5,   0,   0,  -5, -15, -35,
     -55, -40, -30, -25, -25, -30, -40, -55],
];

/// Material value of a role in centipawns (middlegame), for move ordering
/// and exchange evaluation.
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20000,
    }
}

#[inline]
fn pst_index(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize ^ 56,
        Color::Black => sq as usize,
    }
}

/// Middlegame and endgame score of one side, and its phase contribution.
fn side_score(pos: &Chess, color: Color) -> (Score, i32) {
    let board = pos.board();
    let us = board.by_color(color);
    let occupied = board.occupied();
    let their_pawns = board.pawns() & board.by_color(!color);
    let mut pawn_attacked = Bitboard::EMPTY;
    for sq in their_pawns {
        pawn_attacked |= attacks::pawn_attacks(!color, sq);
    }
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for role in Role::ALL {
        let r = role as usize - 1;
        for sq in board.by_role(role) & us {
            let i = pst_index(color, sq);
            mg += MATERIAL[r].0 + PST_MG[r][i];
            eg += MATERIAL[r].1 + PST_EG[r][i];
            phase += PHASE[r];
            if matches!(role, Role::Knight | Role::Bishop | Role::Rook | Role::Queen) {
                let reach = attacks::attacks(sq, role.of(color), occupied) & !us & !pawn_attacked;
                let n = reach.count() as i32 - MOBILITY_BASE[r];
                mg += n * MOBILITY[r].0;
                eg += n * MOBILITY[r].1;
            }
        }
    }
    if (board.bishops() & us).count() >= 2 {
        mg += BISHOP_PAIR.0;
        eg += BISHOP_PAIR.1;
    }
    (Score(mg, eg), phase)
}

/// Static evaluation of `pos` for the side to move, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    let (white, wp) = side_score(pos, Color::White);
    let (black, bp) = side_score(pos, Color::Black);
    let phase = (wp + bp).min(MAX_PHASE);
    let mg = white.0 - black.0;
    let eg = white.1 - black.1;
    let score = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let score = scale_drawish(pos, score);
    match pos.turn() {
        Color::White => score + TEMPO,
        Color::Black => -score + TEMPO,
    }
}

/// Pulls the score towards zero when the side ahead has no pawns and too
/// little material to force mate easily.
fn scale_drawish(pos: &Chess, score: i32) -> i32 {
    let board = pos.board();
    let strong = if score > 0 {
        Color::White
    } else {
        Color::Black
    };
    let ours = board.by_color(strong);
    if (board.pawns() & ours).any() {
        return score;
    }
    let minors = (board.knights() | board.bishops()) & ours;
    let majors = (board.rooks() | board.queens()) & ours;
    if majors.is_empty() && minors.count() <= 1 {
        return score / 16;
    }
    score
}
