//! Lazy SMP: what the threads of one search share ([`Shared`]) and start
//! from ([`Start`]), the helper threads' and the main thread's runs, and
//! the vote that chooses which thread's move is played ([`best_thread`]).
//! The threads themselves live in the pool of [`super::threads`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::Move;

use crate::chess::score::{MATE_BOUND, is_mate};
use crate::chess::state::GameState;
use crate::eval::nnue::Network;
use crate::search::history::History;
use crate::search::iterate::iterate;
use crate::search::params::Params;
use crate::search::syzygy::TbConfig;
use crate::search::time::TimeBudget;
use crate::search::tt::TranspositionTable;
use crate::search::worker::Worker;
use crate::search::{Limits, Reporter, SearchResult, Signals, Silent};

/// What every thread of one search shares (each thread's view of it).
pub(super) struct Shared<'a> {
    pub(super) tt: &'a TranspositionTable,
    pub(super) signals: &'a Signals,
    pub(super) nodes: &'a AtomicU64,
    /// Positions the tablebases answered, root moves included.
    pub(super) tbhits: &'a AtomicU64,
    /// The tablebases to probe in the search (`None` also when the root's
    /// DTZ ranking made probing in the tree needless).
    pub(super) syzygy: Option<TbConfig>,
    /// Raised by the main thread when the search is over (its limits, or
    /// the end of its last iteration): every thread stops. Unlike
    /// `signals.stop` it is the search's own, so a limit reached while
    /// pondering or in an infinite search does not end the wait for
    /// `ponderhit` or `stop`.
    pub(super) halt: &'a AtomicBool,
    pub(super) limits: &'a Limits,
    pub(super) net: Option<Arc<Network>>,
    pub(super) params: Params,
    /// The helper threads' results, for [`best_thread`].
    pub(super) helper_results: &'a Mutex<Vec<SearchResult>>,
}

/// Where every thread of one search starts from.
pub(super) struct Start {
    pub(super) state: GameState,
    pub(super) root_moves: Vec<Move>,
    /// Whether `root_moves` holds every legal move (no `searchmoves`, no
    /// tablebase filter): then the root need not look each move up in it.
    pub(super) every_root_move: bool,
    pub(super) budget: Option<TimeBudget>,
    pub(super) start: Instant,
    pub(super) multipv: usize,
    /// The tablebases' score of the root, shown instead of the search's
    /// until it finds a mate.
    pub(super) tb_score: Option<i32>,
    /// Whether the search probes the tablebases.
    pub(super) probing: bool,
    /// Root moves probed to rank them.
    pub(super) root_tbhits: u64,
}

/// What the helper threads of a pool search hold: the search's shared
/// state, owned, since pool threads outlive any one search.
pub(super) struct Owned {
    pub(super) tt: Arc<TranspositionTable>,
    pub(super) signals: Arc<Signals>,
    pub(super) nodes: AtomicU64,
    pub(super) tbhits: AtomicU64,
    pub(super) syzygy: Option<TbConfig>,
    pub(super) halt: AtomicBool,
    pub(super) limits: Limits,
    pub(super) net: Option<Arc<Network>>,
    pub(super) params: Params,
    pub(super) start: Start,
    pub(super) helper_results: Mutex<Vec<SearchResult>>,
}

impl Owned {
    pub(super) fn shared(&self) -> Shared<'_> {
        Shared {
            tt: &self.tt,
            signals: &self.signals,
            nodes: &self.nodes,
            tbhits: &self.tbhits,
            syzygy: self.syzygy.clone(),
            halt: &self.halt,
            limits: &self.limits,
            net: self.net.clone(),
            params: self.params,
            helper_results: &self.helper_results,
        }
    }
}

/// A helper thread's search: iterative deepening until stopped, silent.
pub(super) fn run_helper(shared: &Shared, start: &Start, index: usize, history: &mut History) {
    let mut w = Worker::new(shared, start, false, history);
    let result = iterate(&mut w, 1, &Silent, index);
    w.flush_nodes();
    if let Ok(mut results) = shared.helper_results.lock() {
        results.push(result);
    }
}

/// The result a search returns once every thread has stopped: the main
/// thread's, or a helper's that [`best_thread`] prefers (the search then
/// reports that helper's line, see [`super::finish`]). Only for a plain
/// single-line search: MultiPV and strength limiting read the main
/// thread's lines, and a depth limit asks for that depth's answer.
pub(super) fn choose_result(main: SearchResult, shared: &Shared, start: &Start) -> SearchResult {
    let Ok(mut helpers) = shared.helper_results.lock() else {
        return main;
    };
    if start.multipv != 1 || shared.limits.depth.is_some() || helpers.is_empty() {
        return main;
    }
    let mut all = vec![main];
    all.append(&mut helpers);
    let best = best_thread(&all);
    all.swap_remove(best)
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
pub(super) fn run_main(
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
pub(super) fn wait_while_pondering(limits: &Limits, signals: &Signals) {
    while (limits.infinite || signals.ponder.load(Ordering::Relaxed))
        && !signals.stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// The score to show for a search score `v`: the tablebases' verdict on
/// the root when there is one, unless the search found a mate.
pub(super) fn shown_score(v: i32, tb_score: Option<i32>) -> i32 {
    match tb_score {
        Some(tb) if !is_mate(v) => tb,
        _ => v,
    }
}
