//! Static exchange evaluation: the material balance of the capture sequence
//! on one square when both sides always recapture with their least valuable
//! attacker, used to order captures and to skip losing ones.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, attacks};

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

/// Whether the exchange started by `m` gains at least `threshold`
/// centipawns for the side to move. Pins are ignored.
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Normal { from, to, .. } => (from, to),
        // Castling exchanges nothing; en passant wins a pawn at worst evenly.
        Move::Castle { .. } => return threshold <= 0,
        Move::EnPassant { .. } => return threshold <= 0,
        Move::Put { .. } => return threshold <= 0,
    };
    let board = pos.board();
    let captured = m.capture().map_or(0, piece_value);
    let promo_gain = m
        .promotion()
        .map_or(0, |p| piece_value(p) - piece_value(Role::Pawn));
    let mut swap = captured + promo_gain - threshold;
    if swap < 0 {
        return false;
    }
    let moving = m.promotion().unwrap_or(m.role());
    swap = piece_value(moving) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(to);
    let mut stm = pos.turn();
    let mut attackers = attackers_to(pos, to, occupied);
    let bishops = board.bishops() | board.queens();
    let rooks = board.rooks() | board.queens();
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occupied;
        let ours = attackers & board.by_color(stm);
        if ours.is_empty() {
            break;
        }
        res = !res;
        let mut next = None;
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            let bb = ours & board.by_role(role);
            if let Some(sq) = bb.first() {
                next = Some((role, sq));
                break;
            }
        }
        let Some((role, sq)) = next else { break };
        if role == Role::King {
            // The king may only recapture if the opponent has nothing left.
            return if (attackers & board.by_color(!stm)).any() {
                !res
            } else {
                res
            };
        }
        swap = piece_value(role) - swap;
        if swap < i32::from(res) {
            break;
        }
        occupied ^= Bitboard::from(sq);
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= attacks::bishop_attacks(to, occupied) & bishops;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= attacks::rook_attacks(to, occupied) & rooks;
        }
    }
    res
}

/// Every piece of either colour that attacks `sq` through `occupied`: one
/// lookup per kind of attack, shared by both colours (shakmaty's
/// `attacks_to` answers for one colour at a time).
fn attackers_to(pos: &Chess, sq: shakmaty::Square, occupied: Bitboard) -> Bitboard {
    let board = pos.board();
    let pawns = board.pawns();
    (attacks::rook_attacks(sq, occupied) & (board.rooks() | board.queens()))
        | (attacks::bishop_attacks(sq, occupied) & (board.bishops() | board.queens()))
        | (attacks::knight_attacks(sq) & board.knights())
        | (attacks::king_attacks(sq) & board.kings())
        | (attacks::pawn_attacks(Color::Black, sq) & pawns & board.white())
        | (attacks::pawn_attacks(Color::White, sq) & pawns & board.black())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;
    use shakmaty::uci::UciMove;

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    /// The shared lookup finds exactly shakmaty's attackers of both colours.
    #[test]
    fn attackers_agree_with_shakmaty() {
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = parse_fen(fen, false).unwrap();
            let board = pos.board();
            for sq in shakmaty::Square::ALL {
                for occupied in [board.occupied(), board.occupied() & !board.pawns()] {
                    let want = board.attacks_to(sq, Color::White, occupied)
                        | board.attacks_to(sq, Color::Black, occupied);
                    assert_eq!(attackers_to(&pos, sq, occupied), want, "{sq:?} in {fen}");
                }
            }
        }
    }

    #[test]
    fn exchanges() {
        // Rook takes an undefended pawn: wins a pawn.
        let pos = parse_fen("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", false).unwrap();
        let m = mv(&pos, "e1e5");
        assert!(see_ge(&pos, m, 100));
        assert!(!see_ge(&pos, m, 101));
        // Knight takes a pawn defended by a pawn... and by more: loses the knight for a pawn.
        let pos = parse_fen(
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            false,
        )
        .unwrap();
        let m = mv(&pos, "d3e5");
        assert!(!see_ge(&pos, m, 0));
        assert!(see_ge(&pos, m, 100 - 320));
        // A quiet move to a square a pawn guards loses the rook.
        let pos = parse_fen("4k3/8/8/3p4/8/8/8/2R1K3 w - - 0 1", false).unwrap();
        assert!(!see_ge(&pos, mv(&pos, "c1c4"), 0));
        assert!(see_ge(&pos, mv(&pos, "c1c3"), 0));
    }
}
