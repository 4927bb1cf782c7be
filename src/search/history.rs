//! Move-ordering memory gathered during a search: killer moves (quiet moves
//! that caused a cutoff at the same ply), counter-moves (the quiet reply
//! that refuted the opponent's last move), the butterfly history (how
//! often a quiet move from-to caused a cutoff, kept apart by whether the
//! opponent attacks its from and to squares), the continuation history
//! (how good a quiet move was as a reply to the piece-to of the move one or
//! two plies before it), the pawn history (how good a quiet piece-to was
//! in the same pawn structure) and the capture history (piece, destination
//! and captured piece). Every history is updated with a bonus/malus and
//! gravity so that old results fade.

use shakmaty::{Bitboard, Color, Move, Role, Square};

use crate::chess::score::MAX_PLY;
use crate::chess::state::pawn_hash;
use crate::search::correction::CorrectionHistory;

/// History values stay within plus or minus this bound.
pub const HISTORY_MAX: i32 = 16_384;

/// A move as the continuation history sees it: the piece that moved
/// (colour and role) and the square it went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    /// The key of `m` played by `color`.
    #[inline]
    pub fn new(color: Color, m: Move) -> PieceTo {
        PieceTo((piece_index(color, m.role()) * 64 + m.to() as usize) as u16)
    }

    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// The moves one and two plies before a node, as keys of the continuation
/// history (`None` at the root, after a null move, or beyond the game's
/// start).
pub type Continuations = [Option<PieceTo>; 2];

/// Number of piece-to keys: 12 pieces on 64 squares.
const PIECE_TO: usize = 12 * 64;

#[inline]
fn piece_index(color: Color, role: Role) -> usize {
    color as usize * 6 + role as usize - 1
}

/// Index bits of the pawn history: the top bits of the pawn hash pick the slot.
const PAWN_BITS: u32 = 9;
/// Slots of the pawn history.
const PAWN_SLOTS: usize = 1 << PAWN_BITS;

/// The pawn-history slot of a position's pawn structure.
#[inline]
pub fn pawn_slot(board: &shakmaty::Board) -> usize {
    (pawn_hash(board) >> (64 - PAWN_BITS)) as usize
}

/// Butterfly history of one colour: `[from attacked][to attacked][from][to]`.
type Butterfly = [[[[i32; 64]; 64]; 2]; 2];

/// One bit per row of a flattened table, set when the row is written, so
/// that a clear zeroes only the rows written since the last one. The
/// continuation and pawn histories are most of a short search's history
/// memory, and of its start-up cost when it begins from empty tables (data
/// generation), while a search of a thousand nodes writes few of their rows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct WrittenRows<const WORDS: usize>([u64; WORDS]);

impl<const WORDS: usize> WrittenRows<WORDS> {
    const NONE: Self = WrittenRows([0; WORDS]);

    #[inline]
    fn mark(&mut self, row: usize) {
        self.0[row / 64] |= 1 << (row % 64);
    }

    /// Zeroes the written rows of `table` (rows of `row_len` values) and
    /// forgets them.
    fn clear(&mut self, table: &mut [i16], row_len: usize) {
        for (word, bits) in self.0.iter_mut().enumerate() {
            while *bits != 0 {
                let row = word * 64 + bits.trailing_zeros() as usize;
                table[row * row_len..(row + 1) * row_len].fill(0);
                *bits &= *bits - 1;
            }
        }
    }
}

/// Per-thread ordering tables.
pub struct History {
    /// One [`Butterfly`] a colour: a quiet move that
    /// takes a piece out of an attack, or puts it into one, is learnt apart
    /// from the same move played without that threat.
    butterfly: Box<[Butterfly; 2]>,
    /// `[previous piece-to][piece-to]`, flattened.
    continuation: Vec<i16>,
    continuation_rows: WrittenRows<{ PIECE_TO / 64 }>,
    /// `[pawn slot][piece-to]`, flattened: how a quiet move fared in
    /// this pawn structure.
    pawn: Vec<i16>,
    pawn_rows: WrittenRows<{ PAWN_SLOTS / 64 }>,
    /// `[piece-to][captured role]`, flattened.
    capture: Vec<i16>,
    killers: Vec<[Option<Move>; 2]>,
    counters: Box<[[Option<Move>; 64]; 64]>,
    /// The thread's static-evaluation corrections (kept and cleared with
    /// the move-ordering tables).
    pub correction: CorrectionHistory,
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[[[0; 64]; 64]; 2]; 2]; 2]),
            continuation: vec![0; PIECE_TO * PIECE_TO],
            continuation_rows: WrittenRows::NONE,
            pawn: vec![0; PAWN_SLOTS * PIECE_TO],
            pawn_rows: WrittenRows::NONE,
            capture: vec![0; PIECE_TO * 6],
            killers: vec![[None; 2]; MAX_PLY as usize + 2],
            counters: Box::new([[None; 64]; 64]),
            correction: CorrectionHistory::default(),
        }
    }
}

/// Gravity update of one history value.
#[inline]
fn gravity(h: i32, delta: i32) -> i32 {
    let delta = delta.clamp(-HISTORY_MAX, HISTORY_MAX);
    h + delta - h * delta.abs() / HISTORY_MAX
}

fn from_to(m: Move) -> (usize, usize) {
    let to = m.to() as usize;
    (m.from().map_or(to, |s: Square| s as usize), to)
}

/// The butterfly key of a quiet move: whether the opponent attacks its
/// from square and its to square, then the squares themselves.
#[inline]
fn butterfly_key(m: Move, threats: Bitboard) -> [usize; 4] {
    let (f, t) = from_to(m);
    let attacked = |sq: usize| ((threats.0 >> sq) & 1) as usize;
    [attacked(f), attacked(t), f, t]
}

impl History {
    /// Empties every table (for `ucinewgame`, and `bench` between
    /// positions), in place: the memory stays mapped and touched.
    pub fn clear(&mut self) {
        self.butterfly
            .as_flattened_mut()
            .as_flattened_mut()
            .as_flattened_mut()
            .as_flattened_mut()
            .fill(0);
        self.continuation_rows
            .clear(&mut self.continuation, PIECE_TO);
        self.capture.fill(0);
        self.pawn_rows.clear(&mut self.pawn, PIECE_TO);
        self.killers.fill([None; 2]);
        self.counters.as_flattened_mut().fill(None);
        self.correction.clear();
    }

    /// Starts a search: killers belong to plies of the last search and are
    /// forgotten; the history and counter-moves carry over.
    pub fn new_search(&mut self) {
        for k in &mut self.killers {
            *k = [None; 2];
        }
    }

    /// History score of a quiet move; `threats` are the squares the
    /// opponent attacks.
    #[inline]
    pub fn quiet(&self, color: Color, m: Move, threats: Bitboard) -> i32 {
        let [tf, tt, f, t] = butterfly_key(m, threats);
        self.butterfly[color as usize][tf][tt][f][t]
    }

    /// Applies a bonus (positive) or malus (negative) with gravity: the
    /// closer a value is to the bound, the less it moves.
    pub fn update_quiet(&mut self, color: Color, m: Move, threats: Bitboard, delta: i32) {
        let [tf, tt, f, t] = butterfly_key(m, threats);
        let h = &mut self.butterfly[color as usize][tf][tt][f][t];
        *h = gravity(*h, delta);
    }

    /// Continuation-history score of a quiet move after the moves in `conts`.
    #[inline]
    pub fn continuation(&self, color: Color, m: Move, conts: &Continuations) -> i32 {
        let key = PieceTo::new(color, m).index();
        conts
            .iter()
            .flatten()
            .map(|c| i32::from(self.continuation[c.index() * PIECE_TO + key]))
            .sum()
    }

    /// Pawn-history score of a quiet move under the pawn structure `pawns`
    /// ([`pawn_slot`]).
    #[inline]
    pub fn pawn(&self, color: Color, m: Move, pawns: usize) -> i32 {
        i32::from(self.pawn[pawns * PIECE_TO + PieceTo::new(color, m).index()])
    }

    /// Ordering score of a quiet move: butterfly, continuation and pawn history.
    #[inline]
    pub fn quiet_score(
        &self,
        color: Color,
        m: Move,
        conts: &Continuations,
        threats: Bitboard,
        pawns: usize,
    ) -> i32 {
        self.quiet(color, m, threats)
            + self.continuation(color, m, conts)
            + self.pawn(color, m, pawns)
    }

    /// Rewards (positive `delta`) or punishes a quiet move in the butterfly
    /// and continuation histories.
    pub fn update_quiet_all(
        &mut self,
        color: Color,
        m: Move,
        conts: &Continuations,
        threats: Bitboard,
        pawns: usize,
        delta: i32,
    ) {
        self.update_quiet(color, m, threats, delta);
        let key = PieceTo::new(color, m).index();
        self.pawn_rows.mark(pawns);
        let h = &mut self.pawn[pawns * PIECE_TO + key];
        *h = gravity(i32::from(*h), delta) as i16;
        for c in conts.iter().flatten() {
            let row = c.index();
            self.continuation_rows.mark(row);
            let h = &mut self.continuation[row * PIECE_TO + key];
            *h = gravity(i32::from(*h), delta) as i16;
        }
    }

    #[inline]
    fn capture_index(color: Color, m: Move) -> usize {
        let captured = m.capture().map_or(0, |r| r as usize - 1);
        PieceTo::new(color, m).index() * 6 + captured
    }

    /// Capture-history score of a noisy move (a capture or a promotion).
    #[inline]
    pub fn capture(&self, color: Color, m: Move) -> i32 {
        i32::from(self.capture[Self::capture_index(color, m)])
    }

    /// Rewards or punishes a noisy move in the capture history.
    pub fn update_capture(&mut self, color: Color, m: Move, delta: i32) {
        let h = &mut self.capture[Self::capture_index(color, m)];
        *h = gravity(i32::from(*h), delta) as i16;
    }

    /// The two killer moves of a ply.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply]
    }

    /// Records a quiet cutoff move as the first killer of its ply.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    /// Forgets the killers of a ply (done for the children of each node).
    pub fn clear_killers(&mut self, ply: usize) {
        if let Some(k) = self.killers.get_mut(ply) {
            *k = [None; 2];
        }
    }

    /// The counter-move to the opponent's previous move.
    #[inline]
    pub fn counter(&self, prev: Option<Move>) -> Option<Move> {
        let (f, t) = from_to(prev?);
        self.counters[f][t]
    }

    /// Records `m` as the refutation of `prev`.
    pub fn set_counter(&mut self, prev: Option<Move>, m: Move) {
        if let Some(p) = prev {
            let (f, t) = from_to(p);
            self.counters[f][t] = Some(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    /// The default cutoff bonus at `depth`.
    fn bonus(depth: i32) -> i32 {
        crate::search::params::Params::default().history_bonus(depth)
    }

    #[test]
    fn gravity_keeps_history_bounded() {
        let mut h = History::default();
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let none = Bitboard::EMPTY;
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, none, bonus(20));
        }
        let v = h.quiet(Color::White, m, none);
        assert!(v > HISTORY_MAX / 2 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.quiet(Color::Black, m, none), 0);
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, none, -bonus(20));
        }
        assert!(h.quiet(Color::White, m, none) < 0);
    }

    #[test]
    fn quiet_history_is_kept_apart_by_the_threats_on_both_squares() {
        let mut h = History::default();
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let from_attacked = Bitboard::from(Square::G1);
        let to_attacked = Bitboard::from(Square::F3);
        // Threats on other squares do not change the key.
        let elsewhere = Bitboard::from(Square::A8) | Bitboard::from(Square::H5);
        h.update_quiet(Color::White, m, from_attacked, bonus(10));
        assert!(h.quiet(Color::White, m, from_attacked) > 0);
        assert_eq!(
            h.quiet(Color::White, m, from_attacked | elsewhere),
            h.quiet(Color::White, m, from_attacked)
        );
        for other in [
            Bitboard::EMPTY,
            to_attacked,
            from_attacked | to_attacked,
            elsewhere,
        ] {
            assert_eq!(h.quiet(Color::White, m, other), 0, "{other:?}");
        }
    }

    #[test]
    fn continuation_and_capture_histories_keep_their_keys() {
        let mut h = History::default();
        let nf3 = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        let e5 = Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E5,
            promotion: None,
        };
        let d5 = Move::Normal {
            role: Role::Pawn,
            from: Square::D7,
            capture: None,
            to: Square::D5,
            promotion: None,
        };
        let after_e5 = [Some(PieceTo::new(Color::Black, e5)), None];
        let after_d5 = [Some(PieceTo::new(Color::Black, d5)), None];
        let threats = Bitboard::from(Square::F3);
        h.update_quiet_all(Color::White, nf3, &after_e5, threats, 7, bonus(8));
        assert!(h.continuation(Color::White, nf3, &after_e5) > 0);
        assert_eq!(h.continuation(Color::White, nf3, &after_d5), 0);
        assert_eq!(h.continuation(Color::White, nf3, &[None, None]), 0);
        // The pawn history keeps the move under its pawn structure only.
        assert!(h.pawn(Color::White, nf3, 7) > 0);
        assert_eq!(h.pawn(Color::White, nf3, 8), 0);
        assert_eq!(h.pawn(Color::Black, nf3, 7), 0);
        assert_eq!(
            h.quiet_score(Color::White, nf3, &after_e5, threats, 7),
            h.quiet(Color::White, nf3, threats)
                + h.continuation(Color::White, nf3, &after_e5)
                + h.pawn(Color::White, nf3, 7)
        );
        // Both plies back count, each with its own table row.
        let both = [after_d5[0], after_e5[0]];
        assert_eq!(
            h.continuation(Color::White, nf3, &both),
            h.continuation(Color::White, nf3, &after_e5)
        );

        let nxe5 = Move::Normal {
            role: Role::Knight,
            from: Square::F3,
            capture: Some(Role::Pawn),
            to: Square::E5,
            promotion: None,
        };
        let nxe5_knight = Move::Normal {
            role: Role::Knight,
            from: Square::F3,
            capture: Some(Role::Knight),
            to: Square::E5,
            promotion: None,
        };
        h.update_capture(Color::White, nxe5, -bonus(8));
        assert!(h.capture(Color::White, nxe5) < 0);
        assert_eq!(h.capture(Color::White, nxe5_knight), 0);
        assert_eq!(h.capture(Color::Black, nxe5), 0);
    }

    #[test]
    fn clear_empties_every_table() {
        // Updates under many previous moves (rows of the continuation
        // table) of both colours, then a clear: all back to zero.
        let mut h = History::default();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut random_move = |capture: Option<Role>| {
            let r = next();
            Move::Normal {
                role: Role::ALL[(r % 6) as usize],
                from: Square::new(((r >> 8) % 64) as u32),
                capture,
                to: Square::new(((r >> 16) % 64) as u32),
                promotion: None,
            }
        };
        for i in 0..2000 {
            let color = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let prev = [
                Some(PieceTo::new(!color, random_move(None))),
                Some(PieceTo::new(color, random_move(None))),
            ];
            let m = random_move(None);
            let threats = Bitboard(m.to() as u64 * 0x0101_0101 + i as u64);
            let delta = bonus(6) * if i % 3 == 0 { -1 } else { 1 };
            h.update_quiet_all(color, m, &prev, threats, i % PAWN_SLOTS, delta);
            h.update_capture(color, random_move(Some(Role::Pawn)), bonus(4));
            h.add_killer(i % 10, m);
            h.set_counter(Some(random_move(None)), m);
        }
        assert!(h.continuation.iter().filter(|&&v| v != 0).count() > 1000);
        assert!(h.pawn.iter().filter(|&&v| v != 0).count() > 1000);
        h.clear();
        assert!(h.continuation.iter().all(|&v| v == 0));
        assert!(
            h.butterfly
                .as_flattened()
                .as_flattened()
                .as_flattened()
                .as_flattened()
                .iter()
                .all(|&v| v == 0)
        );
        assert!(h.capture.iter().all(|&v| v == 0));
        assert!(h.pawn.iter().all(|&v| v == 0));
        assert!(h.killers.iter().all(|k| *k == [None; 2]));
        assert!(h.counters.as_flattened().iter().all(Option::is_none));
        assert_eq!(h.continuation_rows, WrittenRows::NONE);
        assert_eq!(h.pawn_rows, WrittenRows::NONE);
    }

    #[test]
    fn killers_shift() {
        let mut h = History::default();
        let a = Move::Castle {
            king: Square::E1,
            rook: Square::H1,
        };
        let b = Move::EnPassant {
            from: Square::E5,
            to: Square::D6,
        };
        h.add_killer(3, a);
        h.add_killer(3, a);
        assert_eq!(h.killers(3), [Some(a), None]);
        h.add_killer(3, b);
        assert_eq!(h.killers(3), [Some(b), Some(a)]);
    }
}
