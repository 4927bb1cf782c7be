//! Compact 16-bit move encoding for the transposition table and the
//! history tables, and conversion back to a shakmaty move that is checked
//! legal in the position at hand.
//!
//! Bits 0-5: from square, 6-11: to square, 12-15: kind (0 normal, 1-4
//! promotion to knight, bishop, rook, queen, 5 castling with the king's and
//! the rook's squares, 6 en passant). 0 means "no move" (a1a1 is no move).
//!
//! Also the cheap tests the search asks of a move before playing it
//! ([`gives_direct_check`], [`attacks_king_zone`]), and the squares a side
//! attacks ([`attacked_by`]), which the quiet-move history is keyed by.

use crate::chess::movegen::{self, Pins};
use arrayvec::ArrayVec;
use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, Move, Piece, Position, Role, Square, attacks,
};

/// Packs a move into 16 bits.
pub fn pack(m: Move) -> u16 {
    let (from, to, kind) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            let kind = match promotion {
                None => 0,
                Some(Role::Knight) => 1,
                Some(Role::Bishop) => 2,
                Some(Role::Rook) => 3,
                Some(_) => 4,
            };
            (from, to, kind)
        }
        Move::Castle { king, rook } => (king, rook, 5),
        Move::EnPassant { from, to } => (from, to, 6),
        Move::Put { to, .. } => (to, to, 0),
    };
    from as u16 | (to as u16) << 6 | kind << 12
}

/// Rebuilds a packed move in `pos`; `None` unless it is legal there.
pub fn unpack(pos: &Chess, packed: u16) -> Option<Move> {
    if packed == 0 {
        return None;
    }
    let from = Square::new(u32::from(packed & 63));
    let to = Square::new(u32::from((packed >> 6) & 63));
    let board = pos.board();
    let m = match packed >> 12 {
        5 => Move::Castle {
            king: from,
            rook: to,
        },
        6 => Move::EnPassant { from, to },
        kind => {
            let piece = board.piece_at(from)?;
            if piece.color != pos.turn() {
                return None;
            }
            let promotion = match kind {
                0 => None,
                1 => Some(Role::Knight),
                2 => Some(Role::Bishop),
                3 => Some(Role::Rook),
                4 => Some(Role::Queen),
                _ => return None,
            };
            Move::Normal {
                role: piece.role,
                from,
                capture: board.role_at(to),
                to,
                promotion,
            }
        }
    };
    // Out of check the engine's own test, which builds no move list; in
    // check (rare) shakmaty's.
    let legal = if pos.is_check() {
        pos.is_legal(m)
    } else {
        Pins::of(pos).is_some_and(|pins| movegen::is_legal(pos, pins, m))
    };
    legal.then_some(m)
}

/// The squares the piece `m` moves attacks from its new square (the board
/// after the move), and the enemy king's square; `None` for castling, en
/// passant, drops, or a board without an enemy king.
fn attacks_after(pos: &Chess, m: Move) -> Option<(Bitboard, Square)> {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = m
    else {
        return None;
    };
    let board = pos.board();
    let king = board.king_of(!pos.turn())?;
    let occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
    let piece = promotion.unwrap_or(role).of(pos.turn());
    Some((attacks::attacks(to, piece, occupied), king))
}

/// Every square a piece of `by` attacks (pins and checks aside): the
/// threats the other side's quiet moves step away from or into.
pub fn attacked_by(board: &Board, by: Color) -> Bitboard {
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    const FILE_H: u64 = FILE_A << 7;
    let occupied = board.occupied();
    let ours = board.by_color(by);
    let pawns = (ours & board.pawns()).0;
    let mut out = Bitboard(match by {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_H) >> 7) | ((pawns & !FILE_A) >> 9),
    });
    for sq in ours & board.knights() {
        out |= attacks::knight_attacks(sq);
    }
    for sq in ours & (board.bishops() | board.queens()) {
        out |= attacks::bishop_attacks(sq, occupied);
    }
    for sq in ours & (board.rooks() | board.queens()) {
        out |= attacks::rook_attacks(sq, occupied);
    }
    for sq in ours & board.kings() {
        out |= attacks::king_attacks(sq);
    }
    out
}

/// Whether `m` gives check directly (the moved piece attacks the enemy
/// king); discovered checks are not seen. Cheap enough for pruning
/// decisions before the move is played.
pub fn gives_direct_check(pos: &Chess, m: Move) -> bool {
    attacks_after(pos, m).is_some_and(|(attacked, king)| attacked.contains(king))
}

/// Whether `m` moves a piece (not a pawn or the king) to a square from
/// which it attacks the enemy king or a square next to it: the build-up of
/// a mating attack, which late-move reductions should not hide as they
/// hide ordinary quiet moves. Discovered attacks are not seen.
pub fn attacks_king_zone(pos: &Chess, m: Move) -> bool {
    if matches!(m.role(), Role::Pawn | Role::King) {
        return false;
    }
    attacks_after(pos, m).is_some_and(|(attacked, king)| {
        attacked.intersects(attacks::king_attacks(king) | Bitboard::from(king))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    #[test]
    fn every_legal_move_round_trips() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for m in pos.legal_moves() {
                assert_eq!(unpack(&pos, pack(m)), Some(m), "{fen} {m:?}");
            }
            let _ = EnPassantMode::Legal;
        }
    }

    #[test]
    fn attacked_squares_agree_with_shakmaty_on_every_square() {
        // Positions with pawns on both edge files (the shifts must not
        // wrap), sliders behind blockers, and promotions to come.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/p6p/1P4P1/P6P/p6p/1p4p1/P6P/k6K w - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let board = pos.board();
            for by in Color::ALL {
                let attacked = attacked_by(board, by);
                for sq in Square::ALL {
                    let expected = board.attacks_to(sq, by, board.occupied()).any();
                    assert_eq!(attacked.contains(sq), expected, "{fen} {by:?} {sq:?}");
                }
            }
        }
    }

    #[test]
    fn king_zone_attacks_are_told_from_other_moves() {
        // WAC.055 after 1. Qxg7+ Kxg7 2. Bf6+ Kg8: 3. Rh4 threatens Rh8 mate.
        let pos: Chess = "r3r1k1/pp1q1p2/4bBp1/3p4/5R2/8/PPP3PP/4R1K1 w - - 0 3"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let by_uci = |uci: &str| -> Move {
            uci.parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap()
        };
        // The rook down the open h-file sees h7 and h8; the bishop from e5
        // and e7 sees g7 and f8.
        for uci in ["f4h4", "f6e5", "f6e7"] {
            assert!(attacks_king_zone(&pos, by_uci(uci)), "{uci}");
        }
        // Rooks and bishops elsewhere, a pawn and the king do not count.
        for uci in ["f4f3", "e1e3", "f6d8", "h2h4", "g1f2"] {
            assert!(!attacks_king_zone(&pos, by_uci(uci)), "{uci}");
        }
        // Pawns are left out even when they reach the zone (h6 hits g7),
        // and castling is a king move.
        for (fen, uci) in [
            ("6k1/8/8/7P/8/8/8/6K1 w - - 0 1", "h5h6"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1"),
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            assert!(!attacks_king_zone(&pos, m), "{fen} {uci}");
        }
    }

    #[test]
    fn illegal_and_empty_moves_are_rejected() {
        let pos = Chess::default();
        assert_eq!(unpack(&pos, 0), None);
        // e2e5 is no legal move from the start position.
        let e2e5 = Square::E2 as u16 | (Square::E5 as u16) << 6;
        assert_eq!(unpack(&pos, e2e5), None);
        // A black piece cannot move with White to play.
        let e7e5 = Square::E7 as u16 | (Square::E5 as u16) << 6;
        assert_eq!(unpack(&pos, e7e5), None);
    }
}

/// Pieces a move takes off and puts on the board (for the Zobrist key and
/// the network's accumulators).
#[derive(Default)]
pub struct Delta {
    pub add: ArrayVec<(Piece, Square), 2>,
    pub sub: ArrayVec<(Piece, Square), 2>,
}

/// The pieces `m`, played by `us`, takes off and puts on the board.
#[inline]
pub fn delta(us: Color, m: Move) -> Delta {
    let mut d = Delta::default();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            d.sub.push((role.of(us), from));
            d.add.push((promotion.unwrap_or(role).of(us), to));
            if let Some(captured) = capture {
                d.sub.push((captured.of(!us), to));
            }
        }
        Move::EnPassant { from, to } => {
            d.sub.push((us.pawn(), from));
            d.add.push((us.pawn(), to));
            d.sub
                .push(((!us).pawn(), Square::from_coords(to.file(), from.rank())));
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            let rank = king.rank();
            d.sub.push((us.king(), king));
            d.sub.push((us.rook(), rook));
            d.add
                .push((us.king(), Square::from_coords(side.king_to_file(), rank)));
            d.add
                .push((us.rook(), Square::from_coords(side.rook_to_file(), rank)));
        }
        Move::Put { .. } => {}
    }
    d
}
