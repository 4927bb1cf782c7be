//! The search layer: iterative deepening over a fail-soft negamax
//! alpha-beta with principal variation search and aspiration windows, a
//! quiescence search at the horizon, and a shared transposition table.
//! Several threads search the same tree through the shared table (Lazy
//! SMP); the main thread reports and decides when to stop.
//!
//! This file is the search's public face: its limits, options, signals,
//! reports and results, and [`search`]. Then, one concept a file:
//! [`iterate`] (iterative deepening, aspiration, reporting), [`negamax`]
//! (the numbered steps), [`qsearch`], [`worker`] (one thread's state),
//! [`smp`] (helpers and the threads' vote) over the pool of [`threads`],
//! [`movepick`] with [`history`], [`correction`] (static-evaluation
//! correction), [`tt`], [`time`], [`params`] (every tunable number),
//! [`skill`] (weakened play), [`syzygy`] (endgame tablebases) and
//! [`bench`] (the search's signature).
//!
//! Uses: [`crate::eval`] and [`crate::chess`]; never the protocol or a
//! tool.

pub mod bench;
pub mod correction;
pub mod history;
pub mod iterate;
pub mod movepick;
pub mod negamax;
pub mod params;
pub mod qsearch;
pub mod skill;
pub mod smp;
pub mod syzygy;
pub mod threads;
pub mod time;
pub mod tt;
pub mod worker;

pub use smp::best_thread;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::{Move, Position};

use crate::chess::score::{MAX_PLY, mated_in};
use crate::chess::state::GameState;
use crate::eval::nnue::{Network, default_net};
use crate::search::history::History;
use crate::search::params::Params;
use crate::search::smp::{
    Owned, Shared, Start, choose_result, run_helper, run_main, shown_score, wait_while_pondering,
};
use crate::search::syzygy::TbConfig;
use crate::search::threads::ThreadPool;
use crate::search::time::{Clock, TimeBudget};
use crate::search::tt::{Bound, TranspositionTable};

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
    /// Endgame tablebases and how to probe them (`SyzygyPath` and its
    /// options); `None`: none.
    pub syzygy: Option<TbConfig>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            multipv: 1,
            move_overhead: 10,
            net: default_net(),
            params: Params::default(),
            syzygy: None,
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
    /// Positions the tablebases answered (`tbhits`).
    pub tbhits: u64,
    pub time_ms: u64,
    pub pv: &'a [Move],
    /// Material at the root, for the win/draw/loss model ([`crate::eval::wdl`]).
    pub material: u32,
}

/// How the search tells the world about its progress. The protocol prints
/// it; the EPD solver and `bench` record it.
pub trait Reporter: Sync {
    /// A line of analysis after an iteration (or a bound during one).
    fn info(&self, info: &Info);
    /// Free text (`info string` in UCI).
    fn message(&self, _text: &str) {}
    /// Whether [`Reporter::info`] shows anything: a reporter that drops
    /// every line spares the search gathering its counts (the table's fill
    /// is a scan), which is a few percent of a thousand-node search.
    fn wants_info(&self) -> bool {
        true
    }
}

/// A reporter that reports nothing.
pub struct Silent;

impl Reporter for Silent {
    fn info(&self, _info: &Info) {}

    fn wants_info(&self) -> bool {
        false
    }
}

/// One principal variation of a search's result (a MultiPV line), as its
/// `info ... pv` line shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    pub pv: Vec<Move>,
    pub score: i32,
    /// The iteration that searched it (one more than the result's `depth`
    /// when that iteration was cut short after this line's first move).
    pub depth: i32,
    pub seldepth: i32,
    /// `Some(Lower)` for a line of an iteration cut short whose first move
    /// failed high: its score is only a bound.
    pub bound: Option<Bound>,
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
    /// Positions the tablebases answered.
    pub tbhits: u64,
    pub pv: Vec<Move>,
    pub elapsed: Duration,
    /// The lines last reported, best first (for MultiPV and
    /// [`crate::search::skill`]); the first is the one played.
    pub lines: Vec<Line>,
}

/// Runs a whole search: iterative deepening on `options.threads` threads
/// sharing `tt`, reporting through `reporter`, until a limit or `stop`.
/// Returns the best move of the main thread. The threads are started for
/// this search and start with empty histories (for suites and analysis;
/// `bench` and data generation give their own through [`search_in`]); the
/// engine uses [`search_with_pool`]. The search ends its helpers with a
/// flag of its own and never raises `signals.stop`, so the same `signals`
/// serve the next search.
pub fn search(
    state: &GameState,
    limits: &Limits,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
    reporter: &dyn Reporter,
) -> SearchResult {
    let mut history = History::default();
    search_in(state, limits, options, tt, signals, reporter, &mut history)
}

/// [`search`] with the main thread's history tables given, used as they
/// are (`bench` and data generation clear them first: reusing one set
/// spares a short search the allocation).
pub fn search_in(
    state: &GameState,
    limits: &Limits,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signals: &Signals,
    reporter: &dyn Reporter,
    history: &mut History,
) -> SearchResult {
    let start = match prepare(state, limits, options, tt, signals, reporter) {
        Ok(start) => start,
        Err(result) => return result,
    };
    let reporter = &Shown::new(reporter);
    let nodes = AtomicU64::new(0);
    let tbhits = AtomicU64::new(start.root_tbhits);
    let halt = AtomicBool::new(false);
    let helper_results = Mutex::new(Vec::new());
    let shared = Shared {
        tt,
        signals,
        nodes: &nodes,
        tbhits: &tbhits,
        syzygy: start.probing.then(|| options.syzygy.clone()).flatten(),
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
                .stack_size(crate::search::threads::STACK_SIZE)
                .spawn_scoped(scope, move || {
                    run_helper(shared, start, i, &mut History::default())
                });
        }
        run_main(&shared, &start, history, reporter)
    });
    let result = choose_result(result, &shared, &start);
    finish(
        SearchResult {
            nodes: nodes.load(Ordering::Relaxed),
            tbhits: tbhits.load(Ordering::Relaxed),
            elapsed: start.start.elapsed(),
            ..result
        },
        &start,
        tt,
        reporter,
    )
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
    let reporter = &Shown::new(reporter);
    let owned = Arc::new(Owned {
        tt: Arc::clone(tt),
        signals: Arc::clone(signals),
        nodes: AtomicU64::new(0),
        tbhits: AtomicU64::new(start.root_tbhits),
        syzygy: start.probing.then(|| options.syzygy.clone()).flatten(),
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
    let result = choose_result(result, &owned.shared(), &owned.start);
    finish(
        SearchResult {
            nodes: owned.nodes.load(Ordering::Relaxed),
            tbhits: owned.tbhits.load(Ordering::Relaxed),
            elapsed: owned.start.start.elapsed(),
            ..result
        },
        &owned.start,
        tt,
        reporter,
    )
}

/// A reporter that remembers the last line it showed for MultiPV line 1,
/// so that [`finish`] can tell whether that line is the one played.
struct Shown<'a> {
    inner: &'a dyn Reporter,
    /// The PV and shown score of the last `multipv 1` line.
    last: Mutex<Option<(Vec<Move>, i32)>>,
}

impl<'a> Shown<'a> {
    fn new(inner: &'a dyn Reporter) -> Shown<'a> {
        Shown {
            inner,
            last: Mutex::new(None),
        }
    }
}

impl Reporter for Shown<'_> {
    fn info(&self, info: &Info) {
        if info.multipv == 1
            && let Ok(mut last) = self.last.lock()
        {
            *last = Some((info.pv.to_vec(), info.score));
        }
        self.inner.info(info);
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }

    fn wants_info(&self) -> bool {
        self.inner.wants_info()
    }
}

/// The end of every search that had a move to play: a one-move PV gets the
/// table's reply as its ponder move (as Stockfish takes it), and unless the
/// last `multipv 1` line shown is already the line played (its moves and
/// score), that line is reported now. So the last line before `bestmove`
/// always leads with the move played, whether the result came from an
/// iteration cut short or from a helper thread.
fn finish(
    mut result: SearchResult,
    start: &Start,
    tt: &TranspositionTable,
    reporter: &Shown,
) -> SearchResult {
    if result.pv.len() == 1
        && let Some(reply) = ponder_from_tt(&start.state, tt, result.pv[0])
    {
        result.pv.push(reply);
        result.ponder = Some(reply);
        if let Some(top) = result.lines.first_mut() {
            top.pv = result.pv.clone();
        }
    }
    let score = shown_score(result.score, start.tb_score);
    let shown = reporter
        .last
        .lock()
        .map(|last| {
            last.as_ref()
                .is_some_and(|(pv, s)| *pv == result.pv && *s == score)
        })
        .unwrap_or(false);
    if !shown && !result.pv.is_empty() {
        let top = result.lines.first();
        let line = Line {
            pv: result.pv.clone(),
            score,
            depth: top.map_or(result.depth, |l| l.depth),
            seldepth: result.seldepth,
            bound: top.and_then(|l| l.bound),
        };
        report_line(reporter, &line, &result, &start.state, tt);
    }
    result
}

/// Reports `line` of a finished search as MultiPV line 1, with the
/// search's counts: the line played, when it was not the last one shown
/// ([`finish`], or a weakened level's choice).
pub fn report_line(
    reporter: &dyn Reporter,
    line: &Line,
    result: &SearchResult,
    state: &GameState,
    tt: &TranspositionTable,
) {
    if !reporter.wants_info() {
        return;
    }
    let ms = result.elapsed.as_millis() as u64;
    reporter.info(&Info {
        depth: line.depth,
        seldepth: line.seldepth.max(1),
        multipv: 1,
        score: line.score,
        bound: line.bound,
        nodes: result.nodes,
        nps: result.nodes * 1000 / ms.max(1),
        hashfull: tt.hashfull(),
        tbhits: result.tbhits,
        time_ms: ms,
        pv: &line.pv,
        material: crate::eval::wdl::material(state.pos().board()),
    });
}

/// The table's best reply to `best` in `state`, if it is legal: the ponder
/// move when the principal variation has only one move.
fn ponder_from_tt(state: &GameState, tt: &TranspositionTable, best: Move) -> Option<Move> {
    let mut after = state.pos().clone();
    after.play_unchecked(best);
    let g = GameState::new(after);
    let e = tt.probe(g.key())?;
    crate::chess::moves::unpack(g.pos(), e.mv)
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
            tbhits: 0,
            time_ms: 0,
            pv: &[],
            material: crate::eval::wdl::material(state.pos().board()),
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
    // A root position in the tablebases: only the moves that keep its
    // outcome are searched (ranked by DTZ, converting within the fifty-move
    // rule), and the tables' verdict is the score shown until a mate is
    // found. Probing goes on in the search only when DTZ could not rank
    // the moves, as in Stockfish.
    let mut tb_score = None;
    let mut probing = options.syzygy.is_some();
    let mut root_tbhits = 0;
    if let Some(tb) = &options.syzygy
        && tb.tables.covers(state.pos(), tb.cardinality())
        && let Some(r) = tb.tables.rank_root(state.pos(), &root_moves, tb.rule50)
    {
        root_tbhits = root_moves.len() as u64;
        root_moves = r.moves;
        tb_score = Some(r.score);
        probing = !r.by_dtz;
    }
    let multipv = options.multipv.clamp(1, root_moves.len());
    Ok(Start {
        state: state.clone(),
        every_root_move: root_moves.len() == legal.len(),
        root_moves,
        budget,
        start,
        multipv,
        tb_score,
        probing,
        root_tbhits,
    })
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
    let mut history = History::default();
    search_fixed_depth_in(
        state,
        depth,
        &TranspositionTable::new(hash_mb),
        &mut history,
        net,
        None,
    )
}

/// [`search_fixed_depth_with`] in a given table, with given (empty)
/// history tables.
pub fn search_fixed_depth_in(
    state: &GameState,
    depth: i32,
    tt: &TranspositionTable,
    history: &mut History,
    net: Option<Arc<Network>>,
    syzygy: Option<TbConfig>,
) -> SearchResult {
    let signals = Signals::default();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let options = SearchOptions {
        net,
        syzygy,
        ..SearchOptions::default()
    };
    search_in(state, &limits, &options, tt, &signals, &Silent, history)
}
