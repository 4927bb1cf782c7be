//! Endgame knowledge outside the weights: scaling of the endgame score
//! toward a draw in drawish material, and mop-up, which drives a lone king
//! to the edge (to the right corner with bishop and knight) so that the
//! search finds the mate.

use shakmaty::{Bitboard, Board, Color, Square};

/// Full scale of the endgame score.
pub const SCALE_MAX: i32 = 128;

/// Non-pawn material of one side, in rough centipawns.
fn non_pawn_material(board: &Board, color: Color) -> i32 {
    let us = board.by_color(color);
    (board.knights() & us).count() as i32 * 320
        + (board.bishops() & us).count() as i32 * 330
        + (board.rooks() & us).count() as i32 * 500
        + (board.queens() & us).count() as i32 * 950
}

/// How much of the endgame score `strong` (the side it favours) keeps, out
/// of [`SCALE_MAX`].
pub fn scale(board: &Board, strong: Color) -> i32 {
    let weak = !strong;
    let strong_bb = board.by_color(strong);
    let weak_bb = board.by_color(weak);
    let strong_pawns = board.pawns() & strong_bb;
    let strong_npm = non_pawn_material(board, strong);
    let weak_npm = non_pawn_material(board, weak);

    if strong_pawns.is_empty() {
        // A single minor piece cannot mate; being only a minor ahead
        // (KR v KB, KR v KN, KBN v KB, ...) rarely wins.
        if strong_npm <= 330 {
            return 0;
        }
        // Two knights cannot force mate either.
        let only_knights = (board.bishops() | board.rooks() | board.queens()) & strong_bb;
        if only_knights.is_empty() && (board.knights() & strong_bb).count() <= 2 {
            return 0;
        }
        if strong_npm - weak_npm <= 330 {
            return if weak_npm == 0 { 64 } else { 16 };
        }
    }

    // Bishop and rook pawns of the wrong colour: the defending king holds
    // the corner.
    let strong_minors_majors = (board.knights() | board.rooks() | board.queens()) & strong_bb;
    let bishops = board.bishops() & strong_bb;
    if strong_minors_majors.is_empty() && bishops.any() && strong_pawns.any() {
        let on_a = (strong_pawns & Bitboard::from_file(shakmaty::File::A)) == strong_pawns;
        let on_h = (strong_pawns & Bitboard::from_file(shakmaty::File::H)) == strong_pawns;
        if on_a || on_h {
            let corner = match (strong, on_a) {
                (Color::White, true) => Square::A8,
                (Color::White, false) => Square::H8,
                (Color::Black, true) => Square::A1,
                (Color::Black, false) => Square::H1,
            };
            let bishop_fits = bishops
                .into_iter()
                .any(|b| b.is_light() == corner.is_light());
            if let Some(k) = board.king_of(weak)
                && !bishop_fits
                && k.distance(corner) <= 1
            {
                return 0;
            }
        }
    }

    // Opposite-coloured bishops.
    let wb = board.bishops() & strong_bb;
    let bb = board.bishops() & weak_bb;
    if wb.count() == 1 && bb.count() == 1 {
        let light = |b: Bitboard| b.first().is_some_and(|s| s.is_light());
        if light(wb) != light(bb) {
            let others = (board.knights() | board.rooks() | board.queens()).any();
            return if others { 96 } else { 56 };
        }
    }
    SCALE_MAX
}

/// Distance of a square from the centre: 0 in the middle four squares, 6 in
/// a corner.
fn centre_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    let df = (2 * f - 7).abs() / 2;
    let dr = (2 * r - 7).abs() / 2;
    df + dr
}

/// Mop-up bonus for White (negative for Black) when one side has a lone
/// king against mating material; 0 otherwise.
pub fn mop_up(board: &Board) -> i32 {
    for strong in Color::ALL {
        let weak = !strong;
        let weak_bb = board.by_color(weak);
        if weak_bb.count() != 1 {
            continue;
        }
        let strong_bb = board.by_color(strong);
        let knights = (board.knights() & strong_bb).count();
        let bishops = board.bishops() & strong_bb;
        let mating = (board.queens() | board.rooks() | board.pawns()) & strong_bb;
        let bn = bishops.count() == 1 && knights >= 1;
        if mating.is_empty() && !bn && bishops.count() < 2 {
            continue;
        }
        let (Some(sk), Some(wk)) = (board.king_of(strong), board.king_of(weak)) else {
            continue;
        };
        let closeness = 14
            - (sk.file() as i32 - wk.file() as i32).abs()
            - (sk.rank() as i32 - wk.rank() as i32).abs();
        let mut bonus = 400 + 20 * centre_distance(wk) + 10 * closeness;
        if bn && mating.is_empty() {
            // Bishop and knight: the mate is in a corner of the bishop's colour.
            let light = bishops.first().is_some_and(|s| s.is_light());
            let corners = if light {
                [Square::A8, Square::H1]
            } else {
                [Square::A1, Square::H8]
            };
            let d = corners.iter().map(|&c| wk.distance(c)).min().unwrap_or(7) as i32;
            bonus += 40 * (7 - d);
        }
        return if strong == Color::White {
            bonus
        } else {
            -bonus
        };
    }
    0
}
