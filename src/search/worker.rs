//! One search thread's private state ([`Worker`]): its copy of the
//! position and the network's accumulators, its move-ordering memory, node
//! counts, stop checks and the principal variation. The search itself is
//! written as methods of the worker in [`super::negamax`], [`super::qsearch`]
//! and [`super::iterate`].

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::chess::score::{MATE_BOUND, MAX_PLY, NONE};
use crate::chess::state::GameState;
use crate::eval::evaluate;
use crate::eval::nnue::AccumulatorStack;
use crate::search::Line;
use crate::search::history::{Continuations, History, PieceTo};
use crate::search::params::Params;
use crate::search::smp::{Shared, Start};
use crate::search::time::TimeBudget;
use crate::search::tt::Entry;

/// Counts nodes in batches into the shared counter.
pub(super) const NODE_BATCH: u64 = 512;

/// One search thread's private state.
pub(super) struct Worker<'a> {
    pub(super) shared: &'a Shared<'a>,
    pub(super) state: GameState,
    /// The network's accumulators along the current line (with a net).
    pub(super) nnue: Option<AccumulatorStack>,
    pub(super) root_len: usize,
    /// The thread's move-ordering memory, kept between searches by a pool.
    pub(super) history: &'a mut History,
    pub(super) main: bool,
    /// Nodes searched by this thread, and those already added to the shared count.
    pub(super) nodes: u64,
    pub(super) flushed: u64,
    pub(super) seldepth: i32,
    pub(super) stopped: bool,
    /// The deepest completed iteration; stops are ignored before depth 1 completes.
    pub(super) completed: i32,
    pub(super) start: Instant,
    pub(super) budget: Option<TimeBudget>,
    pub(super) pondering: bool,
    /// Per ply: static eval and the move played to reach the next ply.
    pub(super) evals: [i32; MAX_PLY as usize + 4],
    pub(super) played: [Option<Move>; MAX_PLY as usize + 4],
    /// Per ply: the continuation-history key of the move played (`None` for a null move).
    pub(super) piece_to: [Option<PieceTo>; MAX_PLY as usize + 4],
    /// Per ply: the move a singular-extension search leaves out.
    pub(super) singular: [Option<Move>; MAX_PLY as usize + 4],
    /// Per ply: double extensions on the line so far.
    pub(super) double_ext: [i32; MAX_PLY as usize + 4],
    pub(super) pv: Vec<[Option<Move>; MAX_PLY as usize + 1]>,
    pub(super) pv_len: [usize; MAX_PLY as usize + 1],
    /// Root moves allowed this search and excluded in this MultiPV pass.
    pub(super) root_moves: Vec<Move>,
    pub(super) excluded: Vec<Move>,
    /// Whether `root_moves` is every legal move (as `Start` says).
    pub(super) every_root_move: bool,
    /// Nodes spent below each root move in this iteration.
    pub(super) root_nodes: Vec<(Move, u64)>,
    /// Set once the first root move of an iteration has been searched fully.
    pub(super) root_best: Option<Line>,
    /// Late-move reductions by depth and move number, in plies (in 1024ths
    /// of a ply under `lmr_fractional`).
    pub(super) lmr: Box<[[i32; 64]; 64]>,
    /// The search's parameters (a copy, read at every node).
    pub(super) p: Params,
    /// The tablebases' score of the root, if it is in them.
    pub(super) tb_score: Option<i32>,
}

/// `ln(0..64)` (entry 0 unused), computed once per process: a search of a
/// thousand nodes (data generation) would otherwise spend a few percent of
/// its time on the 8,000 logarithms of its reduction table.
fn ln_table() -> &'static [f64; 64] {
    static LN: std::sync::OnceLock<[f64; 64]> = std::sync::OnceLock::new();
    LN.get_or_init(|| std::array::from_fn(|i| (i as f64).ln()))
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        shared: &'a Shared<'a>,
        start: &Start,
        main: bool,
        history: &'a mut History,
    ) -> Self {
        let state = start.state.clone();
        let p = shared.params;
        let mut lmr = Box::new([[0; 64]; 64]);
        let base = f64::from(p.lmr_base) / 100.0;
        let divisor = f64::from(p.lmr_divisor) / 100.0;
        let ln = ln_table();
        // In plies, or in 1024ths of a ply (`lmr_fractional`).
        let unit = f64::from(1 << p.lmr_shift());
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = ((base + ln[d] * ln[m] / divisor) * unit) as i32;
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
            every_root_move: start.every_root_move,
            excluded: Vec::new(),
            root_nodes: Vec::new(),
            root_best: None,
            lmr,
            p,
            tb_score: start.tb_score,
        }
    }

    pub(super) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub(super) fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    /// Counts a node and decides whether to stop: the stop signal for every
    /// thread, the node limit (checked every node by the main thread, every
    /// batch by helpers) and the time limits.
    #[inline]
    pub(super) fn check_stop(&mut self) -> bool {
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

    pub(super) fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    /// After `ponderhit` the clock starts now.
    pub(super) fn check_ponderhit(&mut self) {
        if self.pondering && !self.shared.signals.ponder.load(Ordering::Relaxed) {
            self.pondering = false;
            self.start = Instant::now();
        }
    }

    pub(super) fn stop_all(&mut self) {
        self.stopped = true;
        self.shared.halt.store(true, Ordering::Relaxed);
    }

    pub(super) fn update_pv(&mut self, ply: usize, m: Move) {
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

    pub(super) fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// The uncorrected static evaluation of a node: `NONE` in check, else the
    /// one the table entry stored with the position, else [`Self::evaluate`].
    #[inline]
    pub(super) fn raw_static_eval(&self, entry: Option<Entry>, in_check: bool) -> i32 {
        if in_check {
            NONE
        } else {
            entry
                .map(|e| e.eval)
                .filter(|&e| e != NONE)
                .unwrap_or_else(|| self.evaluate())
        }
    }

    /// Static evaluation of the current position for the side to move:
    /// the network's when there is a net (scaled by the material left when
    /// `eval_material_base` is set), else the hand-crafted evaluation.
    /// Against a lone king the hand-crafted evaluation's mop-up drives the
    /// mate (KBNK above all), which self-play data hardly ever shows a net.
    #[inline]
    pub(super) fn evaluate(&self) -> i32 {
        match &self.nnue {
            Some(acc) if !lone_king(self.state.pos().board()) => {
                debug_assert_eq!(
                    *acc.current(),
                    crate::eval::nnue::Accumulator::refresh(acc.net(), self.state.pos().board())
                );
                crate::eval::nnue::scale_by_material(
                    acc.evaluate(self.state.turn()),
                    self.state.pos().board(),
                    self.p.eval_material_base,
                )
            }
            _ => evaluate(self.state.pos()),
        }
    }

    /// Plays `m` on the position and the accumulators.
    #[inline]
    pub(super) fn make(&mut self, m: Move) {
        // Ask for the child's table entry as soon as its key is known: the
        // rest of the move and the accumulator update hide some of the
        // memory latency.
        let tt = &self.shared.tt;
        self.state.play_with_key(m, |key| tt.prefetch(key));
        if let Some(acc) = &mut self.nnue
            && let Some(before) = self.state.previous_pos()
        {
            acc.push(before, m);
        }
    }

    /// Takes back the last [`make`](Self::make).
    #[inline]
    pub(super) fn unmake(&mut self) {
        if let Some(acc) = &mut self.nnue {
            acc.pop();
        }
        self.state.undo();
    }

    /// A static evaluation plus the correction history's correction (kept
    /// out of the mate range), damped by the fifty-move counter when
    /// `eval_rule50` is set; `NONE` stays `NONE`, and so does the
    /// evaluation of a position with a lone king.
    #[inline]
    pub(super) fn corrected(&self, raw: i32) -> i32 {
        let pos = self.state.pos();
        // Against a lone king the mop-up evaluation's small steps drive the
        // mate; a correction would drown them.
        if raw == NONE || lone_king(pos.board()) {
            return raw;
        }
        let c = self
            .history
            .correction
            .correction(pos.board(), pos.turn(), &self.p);
        let v = (raw + c).clamp(-MATE_BOUND + 1, MATE_BOUND - 1);
        let d = self.p.eval_rule50;
        if d > 0 {
            // Shuffling without progress: drift towards the draw the
            // fifty-move rule will declare.
            let halfmoves = (pos.halfmoves() as i32).min(d);
            v * (d - halfmoves) / d
        } else {
            v
        }
    }

    /// The continuation-history keys of the two moves before ply `p`.
    #[inline]
    pub(super) fn continuations(&self, p: usize) -> Continuations {
        [
            p.checked_sub(1).and_then(|i| self.piece_to[i]),
            p.checked_sub(2).and_then(|i| self.piece_to[i]),
        ]
    }

    /// Whether the side to move has a piece other than pawns and king
    /// (null-move pruning is unsafe in pawn endings: zugzwang).
    pub(super) fn has_pieces(&self) -> bool {
        let b = self.state.pos().board();
        let ours = b.by_color(self.state.turn());
        (ours & !(b.pawns() | b.kings())).any()
    }
}

/// Whether either side has nothing but its king.
#[inline]
pub(super) fn lone_king(board: &shakmaty::Board) -> bool {
    board.white().count() == 1 || board.black().count() == 1
}
