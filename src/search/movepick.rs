//! The staged move picker: hands out the moves of a node best-first, doing
//! as little work as possible before a cutoff.
//!
//! Stages, in order:
//! 1. the transposition-table move, verified legal without generating moves;
//! 2. good captures and queen promotions by MVV (most valuable victim) plus
//!    capture history, a capture that loses material by static exchange
//!    evaluation being put aside (only the noisy moves are generated here,
//!    by [`crate::chess::movegen`]);
//! 3. the two killer moves and the counter-move, if legal here (tested one
//!    by one, without a move list);
//! 4. the remaining quiet moves by butterfly plus continuation history
//!    (generated only now);
//! 5. the captures put aside in stage 2.
//!
//! Once the search tells it that late-move or futility pruning holds for
//! the rest of the node ([`MovePicker::only_checking_quiets`]), the quiet
//! moves that give no check are dropped unselected: those prunings would
//! skip each of them anyway, and selecting them one by one was the picker's
//! largest cost.
//!
//! In check every evasion is generated at once (shakmaty's generator). In
//! quiescence search (not in check) only stages 1 and 2 run, and losing
//! captures are dropped.

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position};

use crate::chess::movegen::{self, Pins};
use crate::chess::moves;
use crate::chess::see::piece_value;
use crate::chess::see::see_ge;
use crate::search::history::{Continuations, History};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    Generate,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    ScoreQuiets,
    Quiets,
    BadNoisy,
    Done,
}

pub use crate::chess::movegen::is_noisy;

/// Order score of a noisy move: the victim's value first, then how often
/// the move was good before (capture history).
#[inline]
fn noisy_score(m: Move, color: Color, history: &History) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let promo = m.promotion().map_or(0, piece_value);
    victim * 16 + promo + history.capture(color, m) / 16 - m.role() as i32
}

/// Hands out the moves of one node in stages (see the module docs).
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    refutations: [Option<Move>; 3],
    conts: Continuations,
    /// The squares the opponent attacks, a key of the quiet history.
    threats: Bitboard,
    /// The pawn-structure slot of the pawn history.
    pawns: usize,
    moves: MoveList,
    /// Order scores, one per move of `moves`.
    scores: ArrayVec<i32, 256>,
    noisy_end: usize,
    cur: usize,
    /// Captures put aside in stage 2 are moved to `moves[..bad_end]`
    /// (over moves already handed out), in the order they were found.
    bad_end: usize,
    bad_cur: usize,
    /// Quiescence mode: only good noisy moves.
    quiescence: bool,
    /// Whether `moves[noisy_end..]` holds the quiet moves yet (generated
    /// with the noisy ones in check, else when the quiet stage comes).
    quiets_ready: bool,
    /// The node's king and pins (not in check), found when the noisy moves
    /// are generated and kept for the later stages.
    pins: Option<Pins>,
    skip_quiets: bool,
    /// Destination squares of the table move and refutations, already
    /// handed out: a quiet move is compared with them only if its
    /// destination is among these (a cheap filter before the full test).
    handed_out_to: u64,
    /// Set once every quiet move still to come that does not give check
    /// would be pruned (see [`MovePicker::only_checking_quiets`]).
    checks_only: bool,
}

impl MovePicker {
    /// A picker for the main search. `tt_move` must be legal in the
    /// position; `conts` are the previous moves and `threats` the squares
    /// the opponent attacks, the keys quiets are scored by.
    pub fn new(
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
        conts: Continuations,
        threats: Bitboard,
    ) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            refutations: [killers[0], killers[1], counter],
            conts,
            threats,
            pawns: 0,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            noisy_end: 0,
            cur: 0,
            bad_end: 0,
            bad_cur: 0,
            quiescence: false,
            quiets_ready: false,
            pins: None,
            skip_quiets: false,
            handed_out_to: 0,
            checks_only: false,
        }
    }

    /// Scores quiets under the pawn structure `pawns` ([`crate::search::history::pawn_slot`]).
    pub fn with_pawns(mut self, pawns: usize) -> MovePicker {
        self.pawns = pawns;
        self
    }

    /// A picker for quiescence search: good captures and queen promotions
    /// only (the table move too, if it is one of those); in check, every
    /// evasion, the quiet ones scored with `threats` as in the main search.
    pub fn quiescence(tt_move: Option<Move>, threats: Bitboard) -> MovePicker {
        let mut p = MovePicker::new(
            tt_move.filter(|&m| is_noisy(m)),
            [None; 2],
            None,
            [None; 2],
            threats,
        );
        p.quiescence = true;
        p.skip_quiets = true;
        p
    }

    /// A quiescence picker that after the good noisy moves also hands out
    /// the quiet moves that give check (out of check only).
    pub fn quiescence_checks(tt_move: Option<Move>, threats: Bitboard) -> MovePicker {
        let mut p = MovePicker::quiescence(tt_move, threats);
        p.skip_quiets = false;
        p.checks_only = true;
        p
    }

    /// The next move, or `None` when the node has no more.
    pub fn next(&mut self, pos: &Chess, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::Generate;
                    if self.tt_move.is_some() {
                        return self.tt_move;
                    }
                }
                Stage::Generate => {
                    self.generate(pos, history);
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.cur < self.noisy_end {
                        let m = self.pick(self.noisy_end);
                        if Some(m) == self.tt_move {
                            continue;
                        }
                        if !see_ge(pos, m, 0) {
                            if !self.quiescence {
                                // `m` sits at `cur - 1`, at or after `bad_end`.
                                self.moves[self.bad_end] = m;
                                self.bad_end += 1;
                            }
                            continue;
                        }
                        return Some(m);
                    }
                    // Quiescence ends here unless it takes quiet checks.
                    self.stage = if self.quiescence && self.skip_quiets {
                        Stage::Done
                    } else {
                        Stage::Killer1
                    };
                }
                Stage::Killer1 | Stage::Killer2 | Stage::Counter => {
                    let i = self.stage as usize - Stage::Killer1 as usize;
                    self.stage = match self.stage {
                        Stage::Killer1 => Stage::Killer2,
                        Stage::Killer2 => Stage::Counter,
                        _ => Stage::ScoreQuiets,
                    };
                    if self.skip_quiets {
                        continue;
                    }
                    let Some(m) = self.refutations[i] else {
                        continue;
                    };
                    if Some(m) == self.tt_move || self.refutations[..i].contains(&Some(m)) {
                        continue;
                    }
                    let legal = match self.pins {
                        Some(pins) if !self.quiets_ready => movegen::is_legal_quiet(pos, pins, m),
                        _ => self.moves[self.noisy_end..].contains(&m),
                    };
                    if legal {
                        return Some(m);
                    }
                    // Not legal here: do not skip it later either.
                    self.refutations[i] = None;
                }
                Stage::ScoreQuiets => {
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    if let (false, Some(pins)) = (self.quiets_ready, self.pins) {
                        let start = self.moves.len();
                        movegen::quiet_moves(pos, pins, &mut self.moves);
                        // Scored just below.
                        self.scores.extend((start..self.moves.len()).map(|_| 0));
                        self.quiets_ready = true;
                    }
                    if self.checks_only {
                        self.keep_checking_quiets(pos);
                    }
                    let color = pos.turn();
                    self.score_quiets(color, history);
                    self.handed_out_to = self
                        .refutations
                        .iter()
                        .chain(std::iter::once(&self.tt_move))
                        .flatten()
                        .fold(0, |mask, m| mask | 1u64 << u32::from(m.to()));
                    self.cur = self.noisy_end;
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if !self.skip_quiets && self.cur < self.moves.len() {
                        let m = self.pick(self.moves.len());
                        if self.handed_out_to & 1u64 << u32::from(m.to()) != 0
                            && (Some(m) == self.tt_move || self.refutations.contains(&Some(m)))
                        {
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_cur < self.bad_end {
                        self.bad_cur += 1;
                        return Some(self.moves[self.bad_cur - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Tells the picker that the search will prune every quiet move still to
    /// come unless it gives check (late-move or futility pruning, which hold
    /// for the rest of a node once they hold for one quiet move): the other
    /// quiets are dropped at once, so they are never selected. The moves the
    /// search goes on to see are the same; only checking quiets of equal
    /// score may come in another order.
    pub fn only_checking_quiets(&mut self, pos: &Chess) {
        if self.checks_only {
            return;
        }
        self.checks_only = true;
        if self.stage == Stage::Quiets {
            self.keep_checking_quiets(pos);
        }
    }

    /// Keeps, of the quiet moves not yet handed out, those that give check
    /// (in their order, with their scores).
    fn keep_checking_quiets(&mut self, pos: &Chess) {
        let from = if self.stage == Stage::Quiets {
            self.cur
        } else {
            self.noisy_end
        };
        let mut kept = from;
        for i in from..self.moves.len() {
            let m = self.moves[i];
            if moves::gives_direct_check(pos, m) {
                self.moves[kept] = m;
                self.scores[kept] = self.scores[i];
                kept += 1;
            }
        }
        self.moves.truncate(kept);
        self.scores.truncate(kept);
    }

    /// Generates the noisy moves, scored; in check, every legal move (the
    /// evasions), noisy ones first.
    fn generate(&mut self, pos: &Chess, history: &History) {
        self.moves.clear();
        self.scores.clear();
        let color = pos.turn();
        if !pos.is_check()
            && let Some(pins) = Pins::of(pos)
        {
            self.pins = Some(pins);
            movegen::noisy_moves(pos, pins, &mut self.moves);
            for &m in &self.moves {
                self.scores.push(noisy_score(m, color, history));
            }
            self.noisy_end = self.moves.len();
            self.cur = 0;
            return;
        }
        let all = pos.legal_moves();
        for &m in all.iter().filter(|&&m| is_noisy(m)) {
            self.scores.push(noisy_score(m, color, history));
            self.moves.push(m);
        }
        self.noisy_end = self.moves.len();
        for &m in all.iter().filter(|&&m| !is_noisy(m)) {
            // Scored when the quiet stage comes (`score_quiets`).
            self.scores.push(0);
            self.moves.push(m);
        }
        self.quiets_ready = true;
        if self.quiescence {
            // Evasions in quiescence: every move is needed.
            self.quiescence = false;
            self.skip_quiets = false;
        }
        self.cur = 0;
    }

    fn score_quiets(&mut self, color: Color, history: &History) {
        for i in self.noisy_end..self.moves.len() {
            self.scores[i] =
                history.quiet_score(color, self.moves[i], &self.conts, self.threats, self.pawns);
        }
    }

    /// Selection step: swaps the best-scored move of `cur..end` to `cur`
    /// and returns it.
    fn pick(&mut self, end: usize) -> Move {
        // The first best score (ties go to the earlier move).
        let mut best = self.cur;
        let mut best_score = self.scores[self.cur];
        for (i, &s) in self.scores[self.cur + 1..end].iter().enumerate() {
            if s > best_score {
                best_score = s;
                best = self.cur + 1 + i;
            }
        }
        self.moves.swap(self.cur, best);
        self.scores.swap(self.cur, best);
        self.cur += 1;
        self.moves[self.cur - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    fn all_moves(pos: &Chess, mut picker: MovePicker) -> Vec<Move> {
        let h = History::default();
        let mut out = Vec::new();
        while let Some(m) = picker.next(pos, &h) {
            out.push(m);
        }
        out
    }

    #[test]
    fn hands_out_each_legal_move_once_tt_move_first() {
        let pos = parse_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        )
        .unwrap();
        let legal = pos.legal_moves();
        let tt = legal[7];
        let killer = legal.iter().copied().find(|m| !is_noisy(*m) && *m != tt);
        let out = all_moves(
            &pos,
            MovePicker::new(Some(tt), [killer, None], None, [None; 2], Bitboard::EMPTY),
        );
        assert_eq!(out[0], tt);
        assert_eq!(out.len(), legal.len());
        for m in &legal {
            assert_eq!(out.iter().filter(|x| *x == m).count(), 1, "{m:?}");
        }
    }

    #[test]
    fn quiescence_in_check_gives_every_evasion() {
        // Black is in check from the queen; king moves are the evasions.
        let pos = parse_fen("8/8/5pp1/6k1/6pQ/6K1/8/8 b - - 0 1", false).unwrap();
        assert!(pos.is_check());
        let out = all_moves(&pos, MovePicker::quiescence(None, Bitboard::EMPTY));
        assert_eq!(out.len(), pos.legal_moves().len());
        assert!(!out.is_empty());
    }

    #[test]
    fn quiescence_gives_good_captures_by_mvv_lva() {
        // White can take a queen with a pawn, or a defended pawn with the queen.
        let pos = parse_fen("4k3/2p5/3p4/2q5/1P6/8/8/3QK3 w - - 0 1", false).unwrap();
        let out = all_moves(&pos, MovePicker::quiescence(None, Bitboard::EMPTY));
        let uci: Vec<String> = out
            .iter()
            .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(uci, vec!["b4c5"]);
    }
}
