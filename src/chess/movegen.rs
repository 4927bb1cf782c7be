//! Staged legal move generation over shakmaty's attack tables, for the
//! move picker: the noisy moves (captures and queen promotions) apart from
//! the quiet ones, so that quiescence never builds a quiet move and the
//! main search builds quiets only when its quiet stage comes.
//!
//! For a position that is not in check, [`noisy_moves`] followed by
//! [`quiet_moves`] gives exactly the moves of shakmaty's `legal_moves`, in
//! the same relative order (tested on the perft suites and random
//! positions), so the search's move order, and its node count, do not
//! change. A position in check takes shakmaty's own evasion generator.
//! Legality follows shakmaty's rules: a pinned piece moves only along its
//! pin, the king only to unattacked squares, en passant only where it does
//! not expose the king.

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Move, MoveList, Position, Role, Square, attacks,
};

/// Whether a move belongs to the "noisy" stages: a capture or a queen promotion.
#[inline]
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.promotion() == Some(Role::Queen)
}

/// What legality needs to know of a position not in check: where the side
/// to move's king stands and which of its pieces are pinned to it. Found
/// once a node and kept by the move picker for every stage.
#[derive(Clone, Copy, Debug)]
pub struct Pins {
    king: Square,
    pinned: Bitboard,
}

impl Pins {
    /// The pins of `pos`; `None` without a king of the side to move (never
    /// in a legal position).
    pub fn of(pos: &Chess) -> Option<Pins> {
        let king = pos.board().king_of(pos.turn())?;
        Some(Pins {
            king,
            pinned: pinned(pos, king),
        })
    }
}

/// What every generator of one position needs: the side to move, its
/// king, and the pieces pinned to that king.
struct Context<'a> {
    pos: &'a Chess,
    us: Color,
    king: Square,
    pinned: Bitboard,
}

impl<'a> Context<'a> {
    fn new(pos: &'a Chess, pins: Pins) -> Context<'a> {
        Context {
            pos,
            us: pos.turn(),
            king: pins.king,
            pinned: pins.pinned,
        }
    }

    /// A move of a non-king piece from `from` to `to` keeps the king safe
    /// (the position is not in check).
    #[inline]
    fn keeps_king_safe(&self, from: Square, to: Square) -> bool {
        !self.pinned.contains(from) || attacks::aligned(from, to, self.king)
    }

    #[inline]
    fn push(&self, moves: &mut MoveList, role: Role, from: Square, to: Square) {
        if self.keeps_king_safe(from, to) {
            moves.push(Move::Normal {
                role,
                from,
                capture: self.pos.board().role_at(to),
                to,
                promotion: None,
            });
        }
    }

    /// Knight, bishop, rook and queen moves to `target`, as shakmaty orders
    /// them (by piece type, then from-square, then to-square).
    fn pieces(&self, target: Bitboard, moves: &mut MoveList) {
        let board = self.pos.board();
        let occupied = board.occupied();
        for from in self.pos.our(Role::Knight) {
            for to in attacks::knight_attacks(from) & target {
                self.push(moves, Role::Knight, from, to);
            }
        }
        for from in self.pos.our(Role::Bishop) {
            for to in attacks::bishop_attacks(from, occupied) & target {
                self.push(moves, Role::Bishop, from, to);
            }
        }
        for from in self.pos.our(Role::Rook) {
            for to in attacks::rook_attacks(from, occupied) & target {
                self.push(moves, Role::Rook, from, to);
            }
        }
        for from in self.pos.our(Role::Queen) {
            for to in attacks::queen_attacks(from, occupied) & target {
                self.push(moves, Role::Queen, from, to);
            }
        }
    }

    /// King moves to unattacked squares of `target`.
    fn king_moves(&self, target: Bitboard, moves: &mut MoveList) {
        let board = self.pos.board();
        for to in attacks::king_attacks(self.king) & target {
            if board.attacks_to(to, !self.us, board.occupied()).is_empty() {
                moves.push(Move::Normal {
                    role: Role::King,
                    from: self.king,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }

    /// Promotions from `from` to `to`: all four pieces, or only the queen
    /// (`noisy`) or only the under-promotions (quiet pushes).
    fn promotions(
        &self,
        moves: &mut MoveList,
        from: Square,
        to: Square,
        roles: &[Role],
        capture: Option<Role>,
    ) {
        if !self.keeps_king_safe(from, to) {
            return;
        }
        for &promotion in roles {
            moves.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: Some(promotion),
            });
        }
    }

    /// Pawn captures of `them` (promotions to every piece included), toward
    /// the a-file first, then toward the h-file.
    #[inline]
    fn pawn_captures(&self, pawns: Bitboard, them: Bitboard, moves: &mut MoveList) {
        let board = self.pos.board();
        let fwd = self.forward();
        for side in [-1, 1] {
            let step = fwd + side;
            let edge = Bitboard::from_file(if side < 0 { File::A } else { File::H });
            let captures = (pawns & !edge).shift(step) & them;
            for to in captures & !Bitboard::BACKRANKS {
                let from = to.offset(-step).expect("a capture comes from the board");
                self.push(moves, Role::Pawn, from, to);
            }
            for to in captures & Bitboard::BACKRANKS {
                let from = to.offset(-step).expect("a capture comes from the board");
                self.promotions(moves, from, to, &ALL_PROMOTIONS, board.role_at(to));
            }
        }
    }

    /// En passant captures that do not expose the king.
    fn en_passant(&self, moves: &mut MoveList) {
        let Some(to) = self.pos.maybe_ep_square() else {
            return;
        };
        let board = self.pos.board();
        for from in board.pawns() & board.by_color(self.us) & attacks::pawn_attacks(!self.us, to) {
            let captured = Square::from_coords(to.file(), from.rank());
            let occupied = board.occupied().toggled(from).toggled(captured).with(to);
            if board
                .attacks_to(self.king, !self.us, occupied)
                .without(captured)
                .is_empty()
            {
                moves.push(Move::EnPassant { from, to });
            }
        }
    }

    /// Castling to `side`, by shakmaty's rule (Chess960 too): the right,
    /// an empty path, and no attack on the king's path or where it lands
    /// (with king and rook off their squares).
    fn castling(&self, side: CastlingSide, moves: &mut MoveList) {
        let castles = self.pos.castles();
        let Some(rook) = castles.rook(self.us, side) else {
            return;
        };
        let board = self.pos.board();
        let occupied = board.occupied();
        if (castles.path(self.us, side) & occupied).any() {
            return;
        }
        let king_to = side.king_to(self.us);
        let landing = occupied ^ self.king ^ rook ^ side.rook_to(self.us);
        if board.attacks_to(king_to, !self.us, landing).any() {
            return;
        }
        let path = attacks::between(self.king, king_to).with(self.king);
        if path
            .into_iter()
            .any(|sq| board.attacks_to(sq, !self.us, occupied ^ self.king).any())
        {
            return;
        }
        moves.push(Move::Castle {
            king: self.king,
            rook,
        });
    }

    /// Where a double step can land: the side to move's half of the board
    /// (shakmaty's mask; only the fourth or fifth rank can be reached).
    #[inline]
    fn double_step_ranks(&self) -> Bitboard {
        if self.us == Color::White {
            Bitboard::SOUTH
        } else {
            Bitboard::NORTH
        }
    }

    /// The squares one step forward for the side to move's pawns.
    #[inline]
    fn forward(&self) -> i32 {
        if self.us == Color::White { 8 } else { -8 }
    }
}

const ALL_PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
const UNDER_PROMOTIONS: [Role; 3] = [Role::Rook, Role::Bishop, Role::Knight];

/// The pieces of the side to move that stand alone between their king and
/// an enemy slider (shakmaty's own rule, which also counts enemy pieces in
/// between: those never move for this side, so it does not matter).
fn pinned(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let them = board.by_color(!pos.turn());
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens());
    let mut pinned = Bitboard(0);
    for sniper in snipers & them {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    pinned
}

/// Appends the legal captures and queen promotions of `pos` (not in check;
/// `pins` are its [`Pins`]) to `moves`, in the order shakmaty's
/// `legal_moves` gives them.
pub fn noisy_moves(pos: &Chess, pins: Pins, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let cx = Context::new(pos, pins);
    let board = pos.board();
    let them = board.by_color(!cx.us);
    let pawns = pos.our(Role::Pawn);
    cx.en_passant(moves);
    cx.pawn_captures(pawns, them, moves);
    let fwd = cx.forward();
    // Pushes to the last rank, as a queen.
    let pushes = pawns.shift(fwd) & !board.occupied() & Bitboard::BACKRANKS;
    for to in pushes {
        let from = to.offset(-fwd).expect("a push comes from the board");
        cx.promotions(moves, from, to, &[Role::Queen], None);
    }
    cx.pieces(them, moves);
    cx.king_moves(them, moves);
}

/// Appends the legal moves of `pos` (not in check; `pins` are its
/// [`Pins`]) that are neither captures nor queen promotions to `moves`, in
/// the order shakmaty's `legal_moves` gives them.
pub fn quiet_moves(pos: &Chess, pins: Pins, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let cx = Context::new(pos, pins);
    let board = pos.board();
    let empty = !board.occupied();
    let fwd = cx.forward();
    let singles = pos.our(Role::Pawn).shift(fwd) & empty;
    for to in singles & !Bitboard::BACKRANKS {
        let from = to.offset(-fwd).expect("a push comes from the board");
        cx.push(moves, Role::Pawn, from, to);
    }
    for to in singles & Bitboard::BACKRANKS {
        let from = to.offset(-fwd).expect("a push comes from the board");
        cx.promotions(moves, from, to, &UNDER_PROMOTIONS, None);
    }
    for to in singles.shift(fwd) & cx.double_step_ranks() & empty {
        let from = to
            .offset(-2 * fwd)
            .expect("a double step comes from the board");
        cx.push(moves, Role::Pawn, from, to);
    }
    cx.pieces(empty, moves);
    cx.king_moves(empty, moves);
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        cx.castling(side, moves);
    }
}

/// Appends every legal move of `pos` (not in check; `pins` are its
/// [`Pins`]) to `moves` in one pass, in exactly the order of shakmaty's
/// `legal_moves`, without finding the checkers again: for perft, where the
/// order of stages does not matter.
pub fn all_moves(pos: &Chess, pins: Pins, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let cx = Context::new(pos, pins);
    let board = pos.board();
    let them = board.by_color(!cx.us);
    let empty = !board.occupied();
    let pawns = pos.our(Role::Pawn);
    cx.en_passant(moves);
    cx.pawn_captures(pawns, them, moves);
    let fwd = cx.forward();
    let singles = pawns.shift(fwd) & empty;
    for to in singles & !Bitboard::BACKRANKS {
        let from = to.offset(-fwd).expect("a push comes from the board");
        cx.push(moves, Role::Pawn, from, to);
    }
    for to in singles & Bitboard::BACKRANKS {
        let from = to.offset(-fwd).expect("a push comes from the board");
        cx.promotions(moves, from, to, &ALL_PROMOTIONS, None);
    }
    for to in singles.shift(fwd) & cx.double_step_ranks() & empty {
        let from = to
            .offset(-2 * fwd)
            .expect("a double step comes from the board");
        cx.push(moves, Role::Pawn, from, to);
    }
    cx.pieces(!board.by_color(cx.us), moves);
    cx.king_moves(!board.by_color(cx.us), moves);
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        cx.castling(side, moves);
    }
}

/// Every legal move, noisy ones first (each group in shakmaty's order):
/// the lists [`noisy_moves`] and [`quiet_moves`] give together, for any
/// position, in check or not. For tests and tools; the picker builds the
/// two stages apart.
pub fn legal_moves_staged(pos: &Chess) -> (MoveList, MoveList) {
    let (mut noisy, mut quiet) = (MoveList::new(), MoveList::new());
    if pos.is_check() {
        for m in pos.legal_moves() {
            if is_noisy(m) {
                noisy.push(m);
            } else {
                quiet.push(m);
            }
        }
    } else if let Some(pins) = Pins::of(pos) {
        noisy_moves(pos, pins, &mut noisy);
        quiet_moves(pos, pins, &mut quiet);
    }
    (noisy, quiet)
}

/// Whether `m` is a legal quiet move of `pos` (not in check; `pins` are its
/// [`Pins`]): the same answer as `!is_noisy(m) && pos.is_legal(m)`, without
/// generating moves. The picker asks it of killers and counter-moves, which
/// come from other positions.
#[inline]
pub fn is_legal_quiet(pos: &Chess, pins: Pins, m: Move) -> bool {
    !is_noisy(m) && is_legal(pos, pins, m)
}

/// Whether `m` is legal in `pos` (not in check; `pins` are its [`Pins`]):
/// the same answer as shakmaty's `pos.is_legal(m)`, without generating a
/// move list. The search asks it of every table move.
pub fn is_legal(pos: &Chess, pins: Pins, m: Move) -> bool {
    debug_assert!(!pos.is_check());
    let cx = Context::new(pos, pins);
    let board = pos.board();
    let us = cx.us;
    let (role, from, capture, to, promotion) = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => (role, from, capture, to, promotion),
        Move::EnPassant { from, to } => {
            if pos.maybe_ep_square() != Some(to) || !pos.our(Role::Pawn).contains(from) {
                return false;
            }
            if !attacks::pawn_attacks(us, from).contains(to) {
                return false;
            }
            let mut ep = MoveList::new();
            cx.en_passant(&mut ep);
            return ep.contains(&m);
        }
        Move::Castle { king, rook } => {
            let side = if king.file() < rook.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            let mut castle = MoveList::new();
            cx.castling(side, &mut castle);
            return castle.contains(&m);
        }
        Move::Put { .. } => return false,
    };
    if !pos.our(role).contains(from) || board.by_color(us).contains(to) {
        return false;
    }
    // The capture the move claims must be the piece on its square.
    if board.role_at(to) != capture {
        return false;
    }
    let occupied = board.occupied();
    let reaches = match role {
        Role::Pawn => {
            let promotes_right = if Bitboard::BACKRANKS.contains(to) {
                matches!(
                    promotion,
                    Some(Role::Queen | Role::Rook | Role::Bishop | Role::Knight)
                )
            } else {
                promotion.is_none()
            };
            let reaches = if capture.is_some() {
                attacks::pawn_attacks(us, from).contains(to)
            } else {
                let fwd = cx.forward();
                let single = from.offset(fwd) == Some(to);
                let start = if us == Color::White {
                    Bitboard::from_rank(shakmaty::Rank::Second)
                } else {
                    Bitboard::from_rank(shakmaty::Rank::Seventh)
                };
                let double = start.contains(from)
                    && from.offset(2 * fwd) == Some(to)
                    && from.offset(fwd).is_some_and(|mid| !occupied.contains(mid));
                single || double
            };
            promotes_right && reaches
        }
        _ if promotion.is_some() => false,
        Role::Knight => attacks::knight_attacks(from).contains(to),
        Role::Bishop => attacks::bishop_attacks(from, occupied).contains(to),
        Role::Rook => attacks::rook_attacks(from, occupied).contains(to),
        Role::Queen => attacks::queen_attacks(from, occupied).contains(to),
        Role::King => {
            return attacks::king_attacks(from).contains(to)
                && board.attacks_to(to, !us, occupied).is_empty();
        }
    };
    reaches && cx.keeps_king_safe(from, to)
}
