//! Move-ordering memory gathered during a search: killer moves (quiet moves
//! that caused a cutoff at the same ply), counter-moves (the quiet reply
//! that refuted the opponent's last move) and the butterfly history (how
//! often a quiet move from-to caused a cutoff, with a bonus/malus update and
//! gravity so that old results fade).

use shakmaty::{Color, Move, Square};

use crate::score::MAX_PLY;

/// History values stay within plus or minus this bound.
pub const HISTORY_MAX: i32 = 16_384;

/// Per-thread ordering tables.
pub struct History {
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
    killers: Vec<[Option<Move>; 2]>,
    counters: Box<[[Option<Move>; 64]; 64]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            killers: vec![[None; 2]; MAX_PLY as usize + 2],
            counters: Box::new([[None; 64]; 64]),
        }
    }
}

fn from_to(m: Move) -> (usize, usize) {
    let to = m.to() as usize;
    (m.from().map_or(to, |s: Square| s as usize), to)
}

/// Bonus for a move at a given depth.
pub fn bonus(depth: i32) -> i32 {
    (depth * depth * 16 + 32 * depth).min(1600)
}

impl History {
    /// Empties every table (for `ucinewgame`).
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Starts a search: killers belong to plies of the last search and are
    /// forgotten; the history and counter-moves carry over.
    pub fn new_search(&mut self) {
        for k in &mut self.killers {
            *k = [None; 2];
        }
    }

    /// History score of a quiet move.
    #[inline]
    pub fn quiet(&self, color: Color, m: Move) -> i32 {
        let (f, t) = from_to(m);
        self.butterfly[color as usize][f][t]
    }

    /// Applies a bonus (positive) or malus (negative) with gravity: the
    /// closer a value is to the bound, the less it moves.
    pub fn update_quiet(&mut self, color: Color, m: Move, delta: i32) {
        let (f, t) = from_to(m);
        let h = &mut self.butterfly[color as usize][f][t];
        let delta = delta.clamp(-HISTORY_MAX, HISTORY_MAX);
        *h += delta - *h * delta.abs() / HISTORY_MAX;
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
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, bonus(20));
        }
        let v = h.quiet(Color::White, m);
        assert!(v > HISTORY_MAX / 2 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.quiet(Color::Black, m), 0);
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, -bonus(20));
        }
        assert!(h.quiet(Color::White, m) < 0);
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
