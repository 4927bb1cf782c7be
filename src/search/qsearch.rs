//! Quiescence search: at the horizon, only moves that change the material
//! are searched until the position is quiet, so that the static evaluation
//! is never taken in the middle of an exchange.

use crate::chess::moves;
use crate::chess::score::{INFINITE, MAX_PLY, mated_in};
use crate::chess::see::see_ge;
use crate::search::history::pawn_slot;
use crate::search::movepick::{MovePicker, is_noisy};
use crate::search::tt::{Bound, value_to_tt};
use crate::search::worker::Worker;
use shakmaty::{Bitboard, Position};

impl Worker<'_> {
    /// Quiescence search: stand pat on the static evaluation, then only
    /// captures and queen promotions that do not lose material; all
    /// evasions when in check. With `checks` (the first quiescence ply,
    /// when the `qs_checks` parameter asks), also the quiet moves that
    /// give check without losing material.
    pub(super) fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: i32, checks: bool) -> i32 {
        if self.check_stop() {
            return 0;
        }
        let p = ply as usize;
        self.pv_len[p.min(MAX_PLY as usize)] = 0;
        self.seldepth = self.seldepth.max(ply);
        let in_check = self.state.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate() };
        }
        if self.state.is_draw(self.root_len) {
            return 0;
        }

        let key = self.state.key();
        let entry = self.shared.tt.probe(key);
        if let Some(e) = entry
            && let Some(v) = e.cutoff(-1, alpha, beta, ply)
        {
            return v;
        }
        let tt_move = entry.and_then(|e| moves::unpack(self.state.pos(), e.mv));

        let raw_eval = self.raw_static_eval(entry, in_check);
        let stand_pat = if in_check {
            -INFINITE
        } else {
            let eval = self.corrected(raw_eval);
            if eval >= beta {
                return eval;
            }
            eval
        };
        alpha = alpha.max(stand_pat);
        let original_alpha = alpha;
        let mut best = stand_pat;
        let mut best_move = None;
        // Evasions are the only quiet moves quiescence searches, so their
        // history keys are needed in check only.
        let (threats, pawns) = if in_check {
            let board = self.state.pos().board();
            (
                moves::attacked_by(board, !self.state.turn()),
                pawn_slot(board),
            )
        } else {
            (Bitboard::EMPTY, 0)
        };
        let mut picker = if checks && !in_check {
            MovePicker::quiescence_checks(tt_move, threats)
        } else {
            MovePicker::quiescence(tt_move, threats)
        }
        .with_pawns(pawns);
        let mut legal = 0;
        while let Some(m) = picker.next(self.state.pos(), self.history) {
            legal += 1;
            // A quiet check (first ply only) that loses material is not tried.
            if checks && !in_check && !is_noisy(m) && !see_ge(self.state.pos(), m, 0) {
                continue;
            }
            // Delta pruning: even winning the piece cannot reach alpha.
            if !in_check && m.promotion().is_none() {
                let futile = stand_pat
                    + m.capture().map_or(0, crate::chess::see::piece_value)
                    + self.p.delta_margin;
                if futile <= alpha {
                    // The move is taken to be worth at most `futile`: a
                    // fail-soft bound must not claim less.
                    best = best.max(futile);
                    continue;
                }
            }
            self.make(m);
            let v = -self.quiescence(-beta, -alpha, ply + 1, false);
            self.unmake();
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = Some(m);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && legal == 0 {
            return mated_in(ply);
        }
        let bound = Bound::of_result(best, original_alpha, beta);
        self.shared.tt.store(
            key,
            best_move.map_or(0, moves::pack),
            value_to_tt(best, ply),
            raw_eval,
            -1,
            bound,
        );
        best
    }
}
