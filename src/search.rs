//! The search: iterative deepening over a fail-soft negamax alpha-beta
//! with principal variation search and aspiration windows, a quiescence
//! search at the horizon, and a shared transposition table. Several
//! threads search the same tree through the shared table (Lazy SMP); the
//! main thread reports and decides when to stop.
//!
//! The steps of [`Worker::negamax`] are numbered, so each heuristic can be
//! found at once. Tunable constants live in [`params`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use shakmaty::{Move, Position};

use crate::eval::evaluate;
use crate::history::{Continuations, History, PieceTo, bonus};
use crate::movepick::{MovePicker, is_noisy};
use crate::moves;
use crate::nnue::{AccumulatorStack, Network, default_net};
use crate::params::Params;
use crate::score::{INFINITE, MATE, MATE_BOUND, MAX_PLY, NONE, is_mate, mate_in, mated_in};
use crate::see::see_ge;
use crate::state::GameState;
use crate::threads::ThreadPool;
use crate::time::{Clock, TimeBudget};
use crate::tt::{Bound, TranspositionTable, value_from_tt, value_to_tt};

/// Deepest iteration a search will start.
pub const MAX_DEPTH: i32 = MAX_PLY - 8;

/// What limits a search. Empty limits mean "search until stopped".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Start no new iteration once this many nodes are searched (a soft
    /// budget, as self-play data generation uses; `nodes` stays the hard one).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    /// The side to move's clock.
    pub clock: Option<Clock>,
    pub infinite: bool,
    /// Root moves to consider (`searchmoves`); empty means all.
    pub searchmoves: Vec<Move>,
}

/// Settings that apply to every search (from UCI options).
#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    /// The network to evaluate with; `None` uses the hand-crafted evaluation.
    pub net: Option<Arc<Network>>,
    /// Margins, depths and divisors of the search.
    pub params: Params,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            net: default_net(),
            params: Params::default(),
        }
    }
}

/// Signals from the protocol to a running search.
#[derive(Default)]
pub struct Signals {
    /// Stop as soon as possible.
    pub stop: AtomicBool,
    /// The search is pondering: ignore the clock until this clears
    /// (`ponderhit`), and then start it.
    pub ponder: AtomicBool,
}

/// One principal variation, as reported after an iteration.
pub struct Info<'a> {
    pub depth: i32,
    pub seldepth: i32,
    /// 1-based line number for MultiPV.
    pub multipv: usize,
    pub score: i32,
    /// `Some` when the score is only a bound (aspiration fail high or low).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub time_ms: u64,
    pub pv: &'a [Move],
    /// Material at the root, for the win/draw/loss model ([`crate::wdl`]).
    pub material: u32,
}

/// How the search tells the world about its progress. The protocol prints
/// it; the EPD solver and `bench` record it.
pub trait Reporter: Sync {
    /// A line of analysis after an iteration (or a bound during one).
    fn info(&self, info: &Info);
    /// Free text (`info string` in UCI).
    fn message(&self, _text: &str) {}
}

/// A reporter that reports nothing.
pub struct Silent;

impl Reporter for Silent {
    fn info(&self, _info: &Info) {}
}

/// The outcome of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// `None` only when there is no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub pv: Vec<Move>,
    pub elapsed: Duration,
    /// Each MultiPV line's first move and score, best first (for
    /// [`crate::skill`]).
    pub lines: Vec<(Move, i32)>,
}

/// Counts nodes in batches into the shared counter.
const NODE_BATCH: u64 = 512;

/// One root move's line from the last finished search of it.
#[derive(Clone, Debug)]
struct RootLine {
    score: i32,
    pv: Vec<Move>,
    seldepth: i32,
}

/// What every thread of one search shares (each thread's view of it).
struct Shared<'a> {
    tt: &'a TranspositionTable,
    signals: &'a Signals,
    nodes: &'a AtomicU64,
    /// Raised by the main thread when the search is over (its limits, or
    /// the end of its last iteration): every thread stops. Unlike
    /// `signals.stop` it is the search's own, so a limit reached while
    /// pondering or in an infinite search does not end the wait for
    /// `ponderhit` or `stop`.
    halt: &'a AtomicBool,
    limits: &'a Limits,
    net: Option<Arc<Network>>,
    params: Params,
    /// The helper threads' results, for [`best_thread`].
    helper_results: &'a Mutex<Vec<SearchResult>>,
}

/// Where every thread of one search starts from.
struct Start {
    state: GameState,
    root_moves: Vec<Move>,
    budget: Option<TimeBudget>,
    start: Instant,
    multipv: usize,
}

/// One search thread's private state.
struct Worker<'a> {
    shared: &'a Shared<'a>,
    state: GameState,
    /// The network's accumulators along the current line (with a net).
    nnue: Option<AccumulatorStack>,
    root_len: usize,
    /// The thread's move-ordering memory, kept between searches by a pool.
    history: &'a mut History,
    main: bool,
    /// Nodes searched by this thread, and those already added to the shared count.
    nodes: u64,
    flushed: u64,
    seldepth: i32,
    stopped: bool,
    /// The deepest completed iteration; stops are ignored before depth 1 completes.
    completed: i32,
    start: Instant,
    budget: Option<TimeBudget>,
    pondering: bool,
    /// Per ply: static eval and the move played to reach the next ply.
    evals: [i32; MAX_PLY as usize + 4],
    played: [Option<Move>; MAX_PLY as usize + 4],
    /// Per ply: the continuation-history key of the move played (`None` for a null move).
    piece_to: [Option<PieceTo>; MAX_PLY as usize + 4],
    /// Per ply: the move a singular-extension search leaves out.
    singular: [Option<Move>; MAX_PLY as usize + 4],
    /// Per ply: double extensions on the line so far.
    double_ext: [i32; MAX_PLY as usize + 4],
    pv: Vec<[Option<Move>; MAX_PLY as usize + 1]>,
    pv_len: [usize; MAX_PLY as usize + 1],
    /// Root moves allowed this search and excluded in this MultiPV pass.
    root_moves: Vec<Move>,
    excluded: Vec<Move>,
    /// Nodes spent below each root move in this iteration.
    root_nodes: Vec<(Move, u64)>,
    /// Set once the first root move of an iteration has been searched fully.
    root_best: Option<RootLine>,
    lmr: Box<[[i32; 64]; 64]>,
    /// The search's parameters (a copy, read at every node).
    p: Params,
}

impl<'a> Worker<'a> {
    fn new(shared: &'a Shared<'a>, start: &Start, main: bool, history: &'a mut History) -> Self {
        let state = start.state.clone();
        let p = shared.params;
        let mut lmr = Box::new([[0; 64]; 64]);
        let base = f64::from(p.lmr_base) / 100.0;
        let divisor = f64::from(p.lmr_divisor) / 100.0;
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as i32;
            }
        }
        let root_len = state.history_len();
        let pondering = shared.signals.ponder.load(Ordering::Relaxed);
        let nnue = shared
            .net
            .as_ref()
            .map(|n| AccumulatorStack::new(Arc::clone(n), state.pos().board()));
        history.new_search();
        Worker {
            shared,
            nnue,
            state,
            root_len,
            history,
            main,
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            stopped: false,
            completed: 0,
            start: start.start,
            budget: start.budget,
            pondering,
            evals: [NONE; MAX_PLY as usize + 4],
            played: [None; MAX_PLY as usize + 4],
            piece_to: [None; MAX_PLY as usize + 4],
            singular: [None; MAX_PLY as usize + 4],
            double_ext: [0; MAX_PLY as usize + 4],
            pv: vec![[None; MAX_PLY as usize + 1]; MAX_PLY as usize + 1],
            pv_len: [0; MAX_PLY as usize + 1],
            root_moves: start.root_moves.clone(),
            excluded: Vec::new(),
            root_nodes: Vec::new(),
            root_best: None,
            lmr,
            p,
        }
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    /// Counts a node and decides whether to stop: the stop signal for every
    /// thread, the node limit (checked every node by the main thread, every
    /// batch by helpers) and the time limits.
    #[inline]
    fn check_stop(&mut self) -> bool {
        self.nodes += 1;
        if self.stopped {
            return true;
        }
        if self.completed == 0 {
            // Depth 1 always completes, so there is always a move to play.
            return false;
        }
        if let Some(limit) = self.shared.limits.nodes
            && self.main
            && self.total_nodes() >= limit
        {
            self.stop_all();
            return true;
        }
        if self.nodes - self.flushed >= NODE_BATCH {
            self.flush_nodes();
            if self.shared.signals.stop.load(Ordering::Relaxed)
                || self.shared.halt.load(Ordering::Relaxed)
            {
                self.stopped = true;
                return true;
            }
            if self.main {
                self.check_ponderhit();
            }
            // Helpers watch the node limit too: with many more threads than
            // cores the main thread may be off the CPU while they pass it.
            if let Some(limit) = self.shared.limits.nodes
                && self.shared.nodes.load(Ordering::Relaxed) >= limit
            {
                self.stop_all();
                return true;
            }
            // Every thread watches the hard limit: with many more threads
            // than cores the main thread may be off the CPU when it passes.
            // A helper of a search started as a ponder search never clears
            // `pondering` (the clock starts at ponderhit, which only the
            // main thread sees), so it leaves the clock to the main thread.
            if !self.pondering
                && let Some(b) = self.budget
                && self.elapsed().as_millis() as u64 >= b.hard
            {
                self.stop_all();
                return true;
            }
        }
        false
    }

    fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// After `ponderhit` the clock starts now.
    fn check_ponderhit(&mut self) {
        if self.pondering && !self.shared.signals.ponder.load(Ordering::Relaxed) {
            self.pondering = false;
            self.start = Instant::now();
        }
    }

    fn stop_all(&mut self) {
        self.stopped = true;
        self.shared.halt.store(true, Ordering::Relaxed);
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = if ply < MAX_PLY as usize {
            self.pv_len[ply + 1]
        } else {
            0
        };
        self.pv[ply][0] = Some(m);
        for i in 0..child_len.min(MAX_PLY as usize - 1) {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// Static evaluation of the current position for the side to move:
    /// the network when there is one, else the hand-crafted evaluation.
    /// Against a lone king the hand-crafted evaluation's mop-up drives the
    /// mate (KBNK above all), which self-play data hardly ever shows a net.
    #[inline]
    fn evaluate(&self) -> i32 {
        match &self.nnue {
            Some(acc) if !lone_king(self.state.pos().board()) => {
                debug_assert_eq!(
                    *acc.current(),
                    crate::nnue::Accumulator::refresh(acc.net(), self.state.pos().board())
                );
                acc.evaluate(self.state.turn())
            }
            _ => evaluate(self.state.pos()),
        }
    }

    /// Plays `m` on the position and the accumulators.
    #[inline]
    fn make(&mut self, m: Move) {
        self.state.play(m);
        // Ask for the child's table entry now: the accumulator update below
        // hides some of the memory latency.
        self.shared.tt.prefetch(self.state.key());
        if let Some(acc) = &mut self.nnue
            && let Some(before) = self.state.previous_pos()
        {
            acc.push(before, m);
        }
    }

    /// Takes back the last [`make`](Self::make).
    #[inline]
    fn unmake(&mut self) {
        if let Some(acc) = &mut self.nnue {
            acc.pop();
        }
        self.state.undo();
    }

    /// Quiescence search: stand pat on the static evaluation, then only
    /// captures and queen promotions that do not lose material; all
    /// evasions when in check.
    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: i32) -> i32 {
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

        let raw_eval = if in_check {
            NONE
        } else {
            entry
                .map(|e| e.eval)
                .filter(|&e| e != NONE)
                .unwrap_or_else(|| self.evaluate())
        };
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
        let mut picker = MovePicker::quiescence(tt_move);
        let mut legal = 0;
        while let Some(m) = picker.next(self.state.pos(), self.history) {
            legal += 1;
            // Delta pruning: even winning the piece cannot reach alpha.
            if !in_check && m.promotion().is_none() {
                let futile = stand_pat
                    + m.capture().map_or(0, crate::eval::piece_value)
                    + self.p.delta_margin;
                if futile <= alpha {
                    // The move is taken to be worth at most `futile`: a
                    // fail-soft bound must not claim less.
                    best = best.max(futile);
                    continue;
                }
            }
            self.make(m);
            let v = -self.quiescence(-beta, -alpha, ply + 1);
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
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
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

    /// Fail-soft negamax alpha-beta with principal variation search.
    fn negamax(
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
            return self.quiescence(alpha, beta, ply);
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

        // Step 5. Static evaluation (as the table has it, when it does),
        // corrected by what searches found in this pawn structure.
        let raw_eval = if in_check {
            NONE
        } else {
            entry
                .map(|e| e.eval)
                .filter(|&e| e != NONE)
                .unwrap_or_else(|| self.evaluate())
        };
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
                && eval >= beta
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
                        return if v >= MATE_BOUND { beta } else { v };
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
        let mut picker = MovePicker::new(tt_move, self.history.killers(p), counter, conts);
        let original_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut searched = 0usize;
        // Quiets searched before a cutoff get a history malus (at most 64).
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut noisy_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let us = self.state.turn();

        while let Some(m) = picker.next(self.state.pos(), self.history) {
            if root && (!self.root_moves.contains(&m) || self.excluded.contains(&m)) {
                continue;
            }
            if Some(m) == excluded {
                continue;
            }
            let quiet = !is_noisy(m);
            let killer = self.history.killers(p).contains(&Some(m));
            let hist = if quiet {
                self.history.quiet_score(us, m, &conts)
            } else {
                0
            };

            // Step 10. Shallow-depth pruning once a move has been found that avoids mate.
            if prune && !root && best > -MATE_BOUND && searched > 0 {
                if quiet && !in_check && !moves::gives_direct_check(self.state.pos(), m) {
                    // Late-move pruning.
                    let lmp = (self.p.lmp_base + depth * depth) as usize;
                    if depth <= self.p.lmp_depth && searched >= lmp / (2 - usize::from(improving)) {
                        continue;
                    }
                    // Futility pruning.
                    let futile = eval + self.p.futility_base + self.p.futility_margin * depth;
                    if depth <= self.p.futility_depth && futile <= alpha {
                        // As in quiescence: the bound returned covers the pruned move.
                        best = best.max(futile);
                        continue;
                    }
                    // History pruning: quiets that have failed here again and again.
                    if depth <= self.p.history_prune_depth
                        && !killer
                        && hist < -self.p.history_prune_margin * depth
                    {
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
                    r = self.lmr[depth.min(63) as usize][searched.min(63)];
                    r -= i32::from(pv_node);
                    r += i32::from(cut);
                    r -= i32::from(gives_check);
                    if quiet {
                        r += i32::from(!improving);
                        r += i32::from(tt_move.is_some_and(is_noisy));
                        r -= i32::from(killer);
                        r -= hist / self.p.lmr_history_divisor;
                        // A piece joining an attack on the king: the threat
                        // behind a sacrifice shows only at full depth.
                        if self
                            .state
                            .previous_pos()
                            .is_some_and(|before| moves::attacks_king_zone(before, m))
                        {
                            r -= self.p.lmr_king_zone;
                        }
                    } else {
                        // Late captures and promotions: less, and less
                        // still for those that have often refuted here.
                        r -= 1 + self.history.capture(us, m) / self.p.lmr_capture_divisor;
                    }
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
                        self.root_best = Some(RootLine {
                            score: v,
                            pv: self.root_pv(),
                            seldepth: self.seldepth,
                        });
                    }
                    if v >= beta {
                        // Step 14. Cutoff: reward the move, punish the moves of its
                        // kind tried before it (and the captures, when a quiet refuted).
                        let b = bonus(depth);
                        if quiet {
                            self.history.add_killer(p, m);
                            self.history.set_counter(prev, m);
                            self.history.update_quiet_all(us, m, &conts, b);
                            for &q in &quiets_tried {
                                self.history.update_quiet_all(us, q, &conts, -b);
                            }
                        } else {
                            self.history.update_capture(us, m, b);
                        }
                        for &c in &noisy_tried {
                            self.history.update_capture(us, c, -b);
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
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
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

    /// A static evaluation plus the correction history's correction (kept
    /// out of the mate range); `NONE` stays `NONE`, and so does the
    /// evaluation of a position with a lone king.
    #[inline]
    fn corrected(&self, raw: i32) -> i32 {
        let pos = self.state.pos();
        // Against a lone king the mop-up evaluation's small steps drive the
        // mate; a correction would drown them.
        if raw == NONE || lone_king(pos.board()) {
            return raw;
        }
        let c = self.history.correction.correction(pos.board(), pos.turn());
        (raw + c).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// The continuation-history keys of the two moves before ply `p`.
    #[inline]
    fn continuations(&self, p: usize) -> Continuations {
        [
            p.checked_sub(1).and_then(|i| self.piece_to[i]),
            p.checked_sub(2).and_then(|i| self.piece_to[i]),
        ]
    }

    /// Whether the side to move has a piece other than pawns and king
    /// (null-move pruning is unsafe in pawn endings: zugzwang).
    fn has_pieces(&self) -> bool {
        let b = self.state.pos().board();
        let ours = b.by_color(self.state.turn());
        (ours & !(b.pawns() | b.kings())).any()
    }
}

/// Whether either side has nothing but its king.
#[inline]
fn lone_king(board: &shakmaty::Board) -> bool {
    board.white().count() == 1 || board.black().count() == 1
}

/// Runs a whole search: iterative deepening on `options.threads` threads
/// sharing `tt`, reporting through `reporter`, until a limit or `stop`.
/// Returns the best move of the main thread. The threads are started for
/// this search and start with empty histories (for `bench`, suites and
/// data generation); the engine uses [`search_with_pool`]. The search
/// ends its helpers with a flag of its own and never raises
/// `signals.stop`, so the same `signals` serve the next search.
pub fn search(
    state: &GameState,
    limits: &Limits,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
    reporter: &dyn Reporter,
) -> SearchResult {
    let start = match prepare(state, limits, options, tt, signals, reporter) {
        Ok(start) => start,
        Err(result) => return result,
    };
    let nodes = AtomicU64::new(0);
    let halt = AtomicBool::new(false);
    let helper_results = Mutex::new(Vec::new());
    let shared = Shared {
        tt,
        signals,
        nodes: &nodes,
        halt: &halt,
        limits,
        net: options.net.clone(),
        params: options.params,
        helper_results: &helper_results,
    };
    let result = std::thread::scope(|scope| {
        for i in 1..options.threads.max(1) {
            let (shared, start) = (&shared, &start);
            let _ = std::thread::Builder::new()
                .stack_size(crate::threads::STACK_SIZE)
                .spawn_scoped(scope, move || {
                    run_helper(shared, start, i, &mut History::default())
                });
        }
        run_main(&shared, &start, &mut History::default(), reporter)
    });
    let result = choose_result(result, &shared, &start, reporter);
    SearchResult {
        nodes: nodes.load(Ordering::Relaxed),
        elapsed: start.start.elapsed(),
        ..result
    }
}

/// What the helper threads of a pool search hold: the search's shared
/// state, owned, since pool threads outlive any one search.
struct Owned {
    tt: Arc<TranspositionTable>,
    signals: Arc<Signals>,
    nodes: AtomicU64,
    halt: AtomicBool,
    limits: Limits,
    net: Option<Arc<Network>>,
    params: Params,
    start: Start,
    helper_results: Mutex<Vec<SearchResult>>,
}

impl Owned {
    fn shared(&self) -> Shared<'_> {
        Shared {
            tt: &self.tt,
            signals: &self.signals,
            nodes: &self.nodes,
            halt: &self.halt,
            limits: &self.limits,
            net: self.net.clone(),
            params: self.params,
            helper_results: &self.helper_results,
        }
    }
}

/// [`search`] on the threads of `pool`, called from its thread 0 (whose
/// `history` this is); threads 1.. are the helpers. Each thread keeps its
/// history tables from one search to the next. The number of threads is
/// the pool's; `options.threads` is not used.
#[allow(clippy::too_many_arguments)]
pub fn search_with_pool(
    pool: &ThreadPool,
    history: &mut History,
    state: &GameState,
    limits: &Limits,
    options: &SearchOptions,
    tt: &Arc<TranspositionTable>,
    signals: &Arc<Signals>,
    reporter: &dyn Reporter,
) -> SearchResult {
    let start = match prepare(state, limits, options, tt, signals, reporter) {
        Ok(start) => start,
        Err(result) => return result,
    };
    let owned = Arc::new(Owned {
        tt: Arc::clone(tt),
        signals: Arc::clone(signals),
        nodes: AtomicU64::new(0),
        halt: AtomicBool::new(false),
        limits: limits.clone(),
        net: options.net.clone(),
        params: options.params,
        start,
        helper_results: Mutex::new(Vec::new()),
    });
    for i in 1..pool.len() {
        let o = Arc::clone(&owned);
        pool.run(i, move |data| {
            run_helper(&o.shared(), &o.start, i, &mut data.history)
        });
    }
    let result = run_main(&owned.shared(), &owned.start, history, reporter);
    for i in 1..pool.len() {
        pool.wait(i);
    }
    let result = choose_result(result, &owned.shared(), &owned.start, reporter);
    SearchResult {
        nodes: owned.nodes.load(Ordering::Relaxed),
        elapsed: owned.start.start.elapsed(),
        ..result
    }
}

/// The root moves, time budget and start time of a search; or, when the
/// position has no legal move, the finished result (reported at once,
/// or once pondering ends).
fn prepare(
    state: &GameState,
    limits: &Limits,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
    reporter: &dyn Reporter,
) -> Result<Start, SearchResult> {
    let start = Instant::now();
    let legal: Vec<Move> = state.pos().legal_moves().into_iter().collect();
    let mut root_moves: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .collect();
    if root_moves.is_empty() {
        root_moves = legal.clone();
    }
    if root_moves.is_empty() {
        // Checkmate or stalemate: nothing to search.
        wait_while_pondering(limits, signals);
        let score = if state.in_check() { mated_in(0) } else { 0 };
        reporter.info(&Info {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score,
            bound: None,
            nodes: 0,
            nps: 0,
            hashfull: tt.hashfull(),
            time_ms: 0,
            pv: &[],
            material: crate::wdl::material(state.pos().board()),
        });
        return Err(SearchResult {
            score,
            ..SearchResult::default()
        });
    }
    tt.new_search();
    let budget = if let Some(mt) = limits.movetime {
        Some(TimeBudget::fixed(mt, options.move_overhead))
    } else {
        limits
            .clock
            .map(|c| TimeBudget::from_clock(c, options.move_overhead))
    };
    let multipv = options.multipv.clamp(1, root_moves.len());
    Ok(Start {
        state: state.clone(),
        root_moves,
        budget,
        start,
        multipv,
    })
}

/// A helper thread's search: iterative deepening until stopped, silent.
fn run_helper(shared: &Shared, start: &Start, index: usize, history: &mut History) {
    let mut w = Worker::new(shared, start, false, history);
    let result = iterate(&mut w, 1, &Silent, index);
    w.flush_nodes();
    if let Ok(mut results) = shared.helper_results.lock() {
        results.push(result);
    }
}

/// The result a search returns once every thread has stopped: the main
/// thread's, or a helper's that [`best_thread`] prefers (reported with an
/// `info` line of its own, so that the last line shown is the line played).
/// Only for a plain single-line search: MultiPV and strength limiting read
/// the main thread's lines, and a depth limit asks for that depth's answer.
fn choose_result(
    main: SearchResult,
    shared: &Shared,
    start: &Start,
    reporter: &dyn Reporter,
) -> SearchResult {
    let Ok(mut helpers) = shared.helper_results.lock() else {
        return main;
    };
    if start.multipv != 1 || shared.limits.depth.is_some() || helpers.is_empty() {
        return main;
    }
    let mut all = vec![main];
    all.append(&mut helpers);
    let best = best_thread(&all);
    let chosen = all.swap_remove(best);
    if best != 0 {
        let elapsed = start.start.elapsed();
        let nodes = shared.nodes.load(Ordering::Relaxed);
        let ms = elapsed.as_millis() as u64;
        reporter.info(&Info {
            depth: chosen.depth,
            seldepth: chosen.seldepth,
            multipv: 1,
            score: chosen.score,
            bound: None,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: shared.tt.hashfull(),
            time_ms: ms,
            pv: &chosen.pv,
            material: crate::wdl::material(start.state.pos().board()),
        });
    }
    chosen
}

/// Which thread's result to play (index into `results`, the main thread's
/// first), by the vote Stockfish's Lazy SMP takes: each thread votes for
/// its best move with weight (score − lowest score + 14) × completed
/// depth, and the thread whose move has the most votes wins, the deeper
/// thread on a tie; a proven win goes to the shortest mate found, and no
/// thread that sees itself mated displaces one that does not.
pub fn best_thread(results: &[SearchResult]) -> usize {
    let usable = |r: &SearchResult| r.best.is_some() && r.depth > 0 && !r.pv.is_empty();
    let Some(min_score) = results.iter().filter(|r| usable(r)).map(|r| r.score).min() else {
        return 0;
    };
    let votes = |m: Option<Move>| -> i64 {
        results
            .iter()
            .filter(|r| usable(r) && r.best == m)
            .map(|r| i64::from(r.score - min_score + 14) * i64::from(r.depth))
            .sum()
    };
    let mut best = 0;
    for (i, r) in results.iter().enumerate().skip(1) {
        if !usable(r) {
            continue;
        }
        let b = &results[best];
        if !usable(b) {
            best = i;
            continue;
        }
        let better = if is_mate(b.score) {
            // Shortest mate, or the longest resistance.
            r.score > b.score
        } else {
            r.score >= MATE_BOUND
                || (r.score > -MATE_BOUND
                    && (votes(r.best) > votes(b.best)
                        || (votes(r.best) == votes(b.best) && r.depth > b.depth)))
        };
        if better {
            best = i;
        }
    }
    best
}

/// The main thread's search: it reports, applies the limits, waits out
/// pondering and an infinite search, then stops the helpers.
fn run_main(
    shared: &Shared,
    start: &Start,
    history: &mut History,
    reporter: &dyn Reporter,
) -> SearchResult {
    let mut w = Worker::new(shared, start, true, history);
    let r = iterate(&mut w, start.multipv, reporter, 0);
    w.flush_nodes();
    wait_while_pondering(shared.limits, shared.signals);
    shared.halt.store(true, Ordering::Relaxed);
    r
}

/// UCI forbids `bestmove` while pondering or in an infinite search until
/// `ponderhit` or `stop`.
fn wait_while_pondering(limits: &Limits, signals: &Signals) {
    while (limits.infinite || signals.ponder.load(Ordering::Relaxed))
        && !signals.stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// Iterative deepening for one thread; the main thread (index 0) reports
/// and applies the soft time limit.
fn iterate(w: &mut Worker, multipv: usize, reporter: &dyn Reporter, index: usize) -> SearchResult {
    let limits = w.shared.limits;
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut lines: Vec<RootLine> = Vec::new();
    let mut best = SearchResult {
        best: w.root_moves.first().copied(),
        ..SearchResult::default()
    };
    let mut stability = 0u32;
    let mut prev_score = NONE;
    let mut depth = 1;
    // Helper threads start some iterations at other depths, for diversity.
    if index > 0 && index % 2 == 1 {
        depth = 2;
    }
    while depth <= max_depth {
        w.root_nodes.clear();
        w.excluded.clear();
        let mut new_lines: Vec<RootLine> = Vec::new();
        for pv_idx in 0..multipv {
            w.root_best = None;
            w.seldepth = 0;
            let prev = lines.get(pv_idx).map(|l| l.score);
            let line = aspiration(w, depth, prev, pv_idx + 1, reporter);
            match line {
                Some(l) => {
                    w.excluded.push(l.pv[0]);
                    new_lines.push(l);
                }
                None => break,
            }
            if w.stopped {
                break;
            }
        }
        // A partial iteration counts if its first line's first move was searched fully
        // (a helper's does not: its result goes to the threads' vote, which
        // compares finished iterations, not a bound from one cut short).
        let complete = !w.stopped;
        if !complete && index != 0 {
            break;
        }
        if complete {
            // Later MultiPV lines can outscore earlier ones (the window and
            // the table differ); report them best first, as Stockfish does.
            new_lines.sort_by_key(|l| std::cmp::Reverse(l.score));
            lines = new_lines;
        } else if let Some(first) = new_lines.into_iter().next() {
            if lines.is_empty() {
                lines.push(first);
            } else {
                lines[0] = first;
            }
        }
        if let Some(top) = lines.first() {
            let changed = best.best != Some(top.pv[0]);
            stability = if changed { 0 } else { stability + 1 };
            best.best = Some(top.pv[0]);
            best.ponder = top.pv.get(1).copied();
            best.score = top.score;
            best.pv = top.pv.clone();
            best.lines = lines.iter().map(|l| (l.pv[0], l.score)).collect();
            best.seldepth = top.seldepth;
            best.depth = if complete { depth } else { depth - 1 };
        }
        if !complete {
            break;
        }
        w.completed = depth;
        if index == 0 {
            report_lines(w, &lines, depth, reporter);
        }
        if index != 0 {
            depth += 1;
            if w.shared.signals.stop.load(Ordering::Relaxed)
                || w.shared.halt.load(Ordering::Relaxed)
            {
                break;
            }
            continue;
        }
        // Mate limit: a mate in at most N moves was found.
        if let Some(n) = limits.mate
            && best.score >= MATE_BOUND
            && (MATE - best.score + 1) / 2 <= n
        {
            break;
        }
        // A forced mate is not improved by searching deeper than its length.
        if is_mate(best.score)
            && depth > 2 * (MATE - best.score.abs()) + 4
            && limits.depth.is_none()
            && limits.mate.is_none()
            && !limits.infinite
            && !w.pondering
        {
            break;
        }
        // Soft node limit.
        if let Some(soft) = limits.soft_nodes
            && w.total_nodes() >= soft
        {
            break;
        }
        // Soft time limit.
        w.check_ponderhit();
        if let Some(b) = w.budget
            && !w.pondering
        {
            let total: u64 = w.root_nodes.iter().map(|(_, n)| n).sum();
            let best_nodes = w
                .root_nodes
                .iter()
                .find(|(m, _)| Some(*m) == best.best)
                .map_or(0, |(_, n)| *n);
            let frac = if total > 0 {
                best_nodes as f64 / total as f64
            } else {
                0.5
            };
            let drop = if prev_score == NONE {
                0
            } else {
                prev_score - best.score
            };
            if w.elapsed() >= b.adjusted_soft(stability, drop, frac) {
                break;
            }
        }
        prev_score = best.score;
        depth += 1;
    }
    if index == 0 {
        w.stopped = true;
    }
    best
}

/// Searches one MultiPV line at `depth` with an aspiration window around
/// the previous score, widening it on fail high or low.
fn aspiration(
    w: &mut Worker,
    depth: i32,
    prev: Option<i32>,
    multipv: usize,
    reporter: &dyn Reporter,
) -> Option<RootLine> {
    let mut delta = w.p.aspiration_delta;
    let (mut alpha, mut beta) = match prev {
        Some(s) if depth >= w.p.aspiration_depth && !is_mate(s) => {
            ((s - delta).max(-INFINITE), (s + delta).min(INFINITE))
        }
        _ => (-INFINITE, INFINITE),
    };
    loop {
        let v = w.negamax(alpha, beta, depth, 0, false);
        if w.stopped {
            return w.root_best.take();
        }
        if v <= alpha {
            beta = (alpha + beta) / 2;
            alpha = (v - delta).max(-INFINITE);
            report_bound(w, depth, multipv, v, Bound::Upper, reporter);
        } else if v >= beta {
            beta = (v + delta).min(INFINITE);
            report_bound(w, depth, multipv, v, Bound::Lower, reporter);
        } else {
            return Some(RootLine {
                score: v,
                pv: {
                    let pv = w.root_pv();
                    if pv.is_empty() {
                        w.root_best.as_ref().map(|l| l.pv.clone())?
                    } else {
                        pv
                    }
                },
                seldepth: w.seldepth,
            });
        }
        delta += delta / 2;
    }
}

fn report_bound(
    w: &Worker,
    depth: i32,
    multipv: usize,
    v: i32,
    bound: Bound,
    reporter: &dyn Reporter,
) {
    let pv = w.root_pv();
    if !w.main || pv.is_empty() || w.elapsed() < Duration::from_secs(2) {
        return;
    }
    let nodes = w.total_nodes();
    let ms = w.elapsed().as_millis() as u64;
    reporter.info(&Info {
        depth,
        seldepth: w.seldepth,
        multipv,
        score: v,
        bound: Some(bound),
        nodes,
        nps: nodes * 1000 / ms.max(1),
        hashfull: w.shared.tt.hashfull(),
        time_ms: ms,
        pv: &pv,
        material: crate::wdl::material(w.state.pos().board()),
    });
}

fn report_lines(w: &Worker, lines: &[RootLine], depth: i32, reporter: &dyn Reporter) {
    let nodes = w.total_nodes();
    let ms = w.elapsed().as_millis() as u64;
    let hashfull = w.shared.tt.hashfull();
    let material = crate::wdl::material(w.state.pos().board());
    for (i, l) in lines.iter().enumerate() {
        reporter.info(&Info {
            depth,
            seldepth: l.seldepth.max(1),
            multipv: i + 1,
            score: l.score,
            bound: None,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull,
            time_ms: ms,
            pv: &l.pv,
            material,
        });
    }
}

/// Searches `state` to a fixed depth with one thread and a fresh table of
/// `hash_mb`; the node count is deterministic (used by `bench` and tests).
pub fn search_fixed_depth(state: &GameState, depth: i32, hash_mb: usize) -> SearchResult {
    search_fixed_depth_with(state, depth, hash_mb, default_net())
}

/// [`search_fixed_depth`] with the given network (`None`: the hand-crafted
/// evaluation).
pub fn search_fixed_depth_with(
    state: &GameState,
    depth: i32,
    hash_mb: usize,
    net: Option<Arc<Network>>,
) -> SearchResult {
    let tt = TranspositionTable::new(hash_mb);
    let signals = Signals::default();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let options = SearchOptions {
        net,
        ..SearchOptions::default()
    };
    search(state, &limits, &options, &tt, &signals, &Silent)
}
