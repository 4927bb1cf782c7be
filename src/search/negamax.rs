//! The main search: fail-soft negamax alpha-beta with principal variation
//! search. Its steps are numbered (table probe, static evaluation, pruning,
//! singular extensions, the move loop with its reductions), so that each
//! heuristic can be found at once; every margin comes from
//! [`super::params`].

use arrayvec::ArrayVec;
use shakmaty::{Move, Position};

use crate::chess::moves;
use std::sync::atomic::Ordering;

use crate::chess::score::{
    INFINITE, MATE_BOUND, MAX_PLY, NONE, TB_BOUND, is_mate, mate_in, mated_in,
};
use crate::chess::see::see_ge;
use crate::search::Line;
use crate::search::history::{PieceTo, pawn_slot};
use crate::search::movepick::{MovePicker, is_noisy};
use crate::search::syzygy::wdl_value;
use crate::search::tt::{Bound, value_from_tt, value_to_tt};
use crate::search::worker::Worker;

impl Worker<'_> {
    /// Fail-soft negamax alpha-beta with principal variation search.
    pub(super) fn negamax(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: i32,
        cut: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        let p = ply as usize;

        // Step 1. Horizon: resolve captures in quiescence search.
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply, self.p.qs_checks != 0);
        }
        if self.check_stop() {
            return 0;
        }
        self.pv_len[p] = 0;
        self.seldepth = self.seldepth.max(ply);
        let in_check = self.state.in_check();

        if !root {
            // Step 2. Draws: repetition, fifty moves, insufficient material.
            if self.state.is_draw(self.root_len) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { 0 } else { self.evaluate() };
            }
            // Step 3. Mate-distance pruning: no line here beats a mate already found nearer the root.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Transposition table lookup (not in a singular-extension
        // search, which asks about this node without its table move).
        let excluded = self.singular[p];
        if root {
            self.double_ext[0] = 0;
        }
        let key = self.state.key();
        let entry = self.shared.tt.probe(key);
        let tt_move = entry.and_then(|e| moves::unpack(self.state.pos(), e.mv));
        if !pv_node
            && excluded.is_none()
            && let Some(e) = entry
            && let Some(v) = e.cutoff(depth, alpha, beta, ply)
        {
            return v;
        }

        // Step 4b. Tablebases: a position just after a capture or pawn move
        // with few enough pieces is scored by the tables' win, draw or
        // loss, stored with the bound it proves.
        if !root
            && excluded.is_none()
            && let Some(tb) = &self.shared.syzygy
            && depth >= tb.probe_depth
            && self.state.pos().halfmoves() == 0
            && tb.tables.covers(self.state.pos(), tb.cardinality())
            && let Some(wdl) = tb.tables.probe_wdl(self.state.pos())
        {
            self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
            let v = wdl_value(wdl, tb.rule50, ply);
            let bound = if v >= TB_BOUND {
                Bound::Lower
            } else if v <= -TB_BOUND {
                Bound::Upper
            } else {
                Bound::Exact
            };
            let cuts = match bound {
                Bound::Exact => true,
                Bound::Lower => v >= beta,
                Bound::Upper => v <= alpha,
            };
            if cuts {
                self.shared.tt.store(
                    key,
                    0,
                    value_to_tt(v, ply),
                    NONE,
                    (depth + 6).min(MAX_PLY - 1),
                    bound,
                );
                return v;
            }
        }

        // Step 5. Static evaluation (as the table has it, when it does),
        // corrected by what searches found in this pawn structure.
        let raw_eval = self.raw_static_eval(entry, in_check);
        let eval = self.corrected(raw_eval);
        self.evals[p] = eval;
        let improving =
            !in_check && p >= 2 && self.evals[p - 2] != NONE && eval > self.evals[p - 2];
        self.history.clear_killers(p + 1);

        // A mate search (`go mate`) prunes nothing forward: it must prove the shortest mate.
        let prune = self.shared.limits.mate.is_none();
        if prune && !pv_node && !in_check && excluded.is_none() {
            // Step 6. Reverse futility pruning: far above beta at low depth,
            // judged on the table value where it bounds the static
            // evaluation on the side that matters (a lower bound above it,
            // an upper bound below it), as the better estimate.
            if depth <= self.p.rfp_depth {
                let rfp_eval = entry.map_or(eval, |e| {
                    let v = value_from_tt(e.value, ply);
                    let fits = match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => v > eval,
                        Bound::Upper => v < eval,
                    };
                    if fits && v.abs() < MATE_BOUND {
                        v
                    } else {
                        eval
                    }
                });
                if rfp_eval - self.p.rfp_margin * (depth - i32::from(improving)) >= beta
                    && rfp_eval < MATE_BOUND
                {
                    return rfp_eval;
                }
            }

            // Step 7. Null-move pruning: passing still fails high.
            if depth >= self.p.nmp_depth
                && eval >= beta + (self.p.nmp_margin - 10 * depth).max(0)
                && self.played[p.saturating_sub(1)].is_some()
                && self.has_pieces()
                && beta > -MATE_BOUND
            {
                let r = self.p.nmp_base
                    + depth / self.p.nmp_divisor
                    + ((eval - beta) / self.p.nmp_eval_divisor).min(3);
                if self.state.play_null() {
                    self.played[p] = None;
                    self.piece_to[p] = None;
                    let v = -self.negamax(-beta, -beta + 1, depth - r, ply + 1, !cut);
                    self.state.undo();
                    if self.stopped {
                        return 0;
                    }
                    if v >= beta {
                        return if v >= TB_BOUND { beta } else { v };
                    }
                }
            }
        }

        // Step 8. Internal iterative reduction: no table move, search shallower
        // (not in a mate search, where a reduction could hide the shortest mate).
        if prune
            && tt_move.is_none()
            && depth >= self.p.iir_depth
            && (pv_node || cut)
            && excluded.is_none()
        {
            depth -= 1;
        }

        // Step 9. The move loop.
        let prev = if p > 0 { self.played[p - 1] } else { None };
        let counter = self.history.counter(prev);
        let conts = self.continuations(p);
        let threats = moves::attacked_by(self.state.pos().board(), !self.state.turn());
        let pawns = pawn_slot(self.state.pos().board());
        let mut picker = MovePicker::new(tt_move, self.history.killers(p), counter, conts, threats)
            .with_pawns(pawns);
        let original_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut searched = 0usize;
        // Quiets searched before a cutoff get a history malus (at most 64).
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut noisy_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let us = self.state.turn();
        // The table move was quiet and singular-extended (`lmr_singular_quiet`).
        let mut singular_quiet = false;

        while let Some(m) = picker.next(self.state.pos(), self.history) {
            if root
                && ((!self.every_root_move && !self.root_moves.contains(&m))
                    || self.excluded.contains(&m))
            {
                continue;
            }
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_noisy(m);
            // Killers are quiet moves: a noisy move is never one.
            let killer = quiet && self.history.killers(p).contains(&Some(m));
            let hist = if quiet {
                self.history.quiet_score(us, m, &conts, threats, pawns)
            } else {
                0
            };

            // Step 10. Shallow-depth pruning once a move has been found that avoids mate.
            if prune && !root && best > -MATE_BOUND && searched > 0 {
                if quiet && !in_check {
                    // Late-move pruning.
                    let lmp = (self.p.lmp_base + depth * depth) as usize;
                    let late =
                        depth <= self.p.lmp_depth && searched >= lmp / (2 - usize::from(improving));
                    // Futility pruning.
                    let futile = eval + self.p.futility_base + self.p.futility_margin * depth;
                    let futility = depth <= self.p.futility_depth && futile <= alpha;
                    // History pruning: quiets that have failed here again and again.
                    let failing = depth <= self.p.history_prune_depth
                        && !killer
                        && hist < -self.p.history_prune_margin * depth;
                    // None of them prunes a check (asked only when one would prune).
                    if (late || futility || failing)
                        && !moves::gives_direct_check(self.state.pos(), m)
                    {
                        if !late && futility {
                            // As in quiescence: the bound returned covers the pruned move.
                            best = best.max(futile);
                        }
                        if late || futility {
                            // Both hold for every quiet move still to come
                            // (`searched` and alpha only grow): of those,
                            // only checks can be searched.
                            picker.only_checking_quiets(self.state.pos());
                        }
                        continue;
                    }
                }
                // SEE pruning of moves that lose too much material.
                let margin = if quiet {
                    self.p.see_quiet_margin * depth
                } else {
                    self.p.see_noisy_margin * depth
                };
                if depth <= self.p.see_depth && !see_ge(self.state.pos(), m, margin) {
                    continue;
                }
            }

            // Step 11. Singular extension: the table move, when every other
            // move fails low against a margin below its value, is searched
            // deeper; when another move also beats beta, the node is cut
            // (multi-cut); a table move above beta that is not singular is
            // searched shallower.
            let mut singular_ext = 0;
            if prune
                && !root
                && excluded.is_none()
                && Some(m) == tt_move
                && depth >= self.p.se_depth
                && let Some(e) = entry
                && e.depth >= depth - 3
                && e.bound != Bound::Upper
                && value_from_tt(e.value, ply).abs() < MATE_BOUND
            {
                let tt_value = value_from_tt(e.value, ply);
                let s_beta = tt_value - self.p.se_margin * depth;
                self.singular[p] = Some(m);
                let v = self.negamax(s_beta - 1, s_beta, (depth - 1) / 2, ply, cut);
                self.singular[p] = None;
                if self.stopped {
                    return 0;
                }
                if v < s_beta {
                    singular_ext = 1;
                    singular_quiet = quiet;
                    if !pv_node
                        && v < s_beta - self.p.se_double_margin
                        && self.double_ext[p] < self.p.se_double_limit
                    {
                        singular_ext = 2;
                    }
                } else if s_beta >= beta {
                    return s_beta;
                } else if tt_value >= beta {
                    singular_ext = -1;
                }
            }

            let nodes_before = self.nodes;
            self.played[p] = Some(m);
            self.piece_to[p] = Some(PieceTo::new(us, m));
            self.make(m);
            let gives_check = self.state.in_check();
            searched += 1;

            // Check extension, unless the singular search extended already.
            let extension = if singular_ext > 0 || !gives_check {
                singular_ext
            } else {
                1
            };
            self.double_ext[p + 1] = self.double_ext[p] + i32::from(extension >= 2);
            let new_depth = depth - 1 + extension;

            // Step 12. Principal variation search with late-move reductions.
            let mut v;
            if searched == 1 {
                v = -self.negamax(-beta, -alpha, new_depth, ply + 1, !pv_node && !cut);
            } else {
                let mut r = 0;
                if prune
                    && depth >= self.p.lmr_depth
                    && searched >= self.p.lmr_moves as usize + usize::from(pv_node)
                {
                    // Every term in `unit`s: plies, or 1024ths of a ply
                    // rounded down once at the end (`lmr_fractional`).
                    let shift = self.p.lmr_shift();
                    let unit = 1 << shift;
                    r = self.lmr[depth.min(63) as usize][searched.min(63)];
                    r -= unit * i32::from(pv_node);
                    r += unit * i32::from(cut);
                    r -= unit * i32::from(gives_check);
                    r -= unit * self.p.lmr_singular_quiet * i32::from(singular_quiet);
                    if quiet {
                        r += unit * i32::from(!improving);
                        r += unit * i32::from(tt_move.is_some_and(is_noisy));
                        r -= unit * i32::from(killer);
                        r -= hist * unit / self.p.lmr_history_divisor;
                        // A piece joining an attack on the king: the threat
                        // behind a sacrifice shows only at full depth
                        // (not looked for when the parameter is 0, its
                        // tuned default).
                        if self.p.lmr_king_zone != 0
                            && self
                                .state
                                .previous_pos()
                                .is_some_and(|before| moves::attacks_king_zone(before, m))
                        {
                            r -= unit * self.p.lmr_king_zone;
                        }
                    } else {
                        // Late captures and promotions: less, and less
                        // still for those that have often refuted here.
                        r -= unit + self.history.capture(us, m) * unit / self.p.lmr_capture_divisor;
                    }
                    r >>= shift;
                    r = r.clamp(0, new_depth - 1);
                }
                let mut new_depth = new_depth;
                let reduced = new_depth - r;
                v = -self.negamax(-alpha - 1, -alpha, reduced, ply + 1, true);
                if v > alpha && r > 0 {
                    // A reduced search that beat alpha by far is re-searched
                    // deeper, one that barely did shallower.
                    let deeper = v > best + self.p.lmr_deeper_margin + 2 * new_depth;
                    let shallower = v < best + self.p.lmr_shallower_margin;
                    new_depth += i32::from(deeper) - i32::from(shallower);
                    if new_depth > reduced {
                        v = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, !cut);
                    }
                }
                if v > alpha && pv_node {
                    v = -self.negamax(-beta, -alpha, new_depth, ply + 1, false);
                }
            }
            self.unmake();
            if self.stopped {
                return 0;
            }
            if root {
                let spent = self.nodes - nodes_before;
                match self.root_nodes.iter_mut().find(|(rm, _)| *rm == m) {
                    Some((_, n)) => *n += spent,
                    None => self.root_nodes.push((m, spent)),
                }
            }

            // Step 13. New best move.
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    alpha = v;
                    if pv_node {
                        self.update_pv(p, m);
                    }
                    if root {
                        self.root_best = Some(Line {
                            score: v,
                            pv: self.root_pv(),
                            seldepth: self.seldepth,
                            depth,
                            bound: (v >= beta).then_some(Bound::Lower),
                        });
                    }
                    if v >= beta {
                        // Step 14. Cutoff: reward the move, punish the moves of its
                        // kind tried before it (and the captures, when a quiet refuted).
                        let b = self.p.history_bonus(depth);
                        let malus = self.p.history_malus(b);
                        if quiet {
                            self.history.add_killer(p, m);
                            self.history.set_counter(prev, m);
                            self.history
                                .update_quiet_all(us, m, &conts, threats, pawns, b);
                            for &q in &quiets_tried {
                                self.history
                                    .update_quiet_all(us, q, &conts, threats, pawns, -malus);
                            }
                        } else {
                            self.history.update_capture(us, m, b);
                        }
                        for &c in &noisy_tried {
                            self.history.update_capture(us, c, -malus);
                        }
                        break;
                    }
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(m);
            } else {
                let _ = noisy_tried.try_push(m);
            }
        }

        // Step 15. Checkmate or stalemate (or, in a singular-extension
        // search, no move besides the one left out).
        if searched == 0 {
            if excluded.is_some() {
                return alpha;
            }
            if root {
                return if in_check { mated_in(0) } else { 0 };
            }
            return if in_check { mated_in(ply) } else { 0 };
        }

        // Step 16. Store the result.
        let bound = Bound::of_result(best, original_alpha, beta);
        if excluded.is_none()
            && (!root || (self.excluded.is_empty() && self.shared.limits.searchmoves.is_empty()))
        {
            self.shared.tt.store(
                key,
                best_move.map_or(0, moves::pack),
                value_to_tt(best, ply),
                raw_eval,
                depth,
                bound,
            );
        }

        // Step 17. Correction history: learn the static evaluation's error
        // from a quiet result that the bound makes informative.
        if !in_check
            && excluded.is_none()
            && best_move.is_none_or(|m| !is_noisy(m))
            && !is_mate(best)
            && !(bound == Bound::Lower && best <= eval)
            && !(bound == Bound::Upper && best >= eval)
        {
            let pos = self.state.pos();
            self.history
                .correction
                .update(pos.board(), pos.turn(), depth, best, raw_eval);
        }
        best
    }
}
