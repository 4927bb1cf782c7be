//! Iterative deepening for one thread: depth after depth, each MultiPV line
//! searched in an aspiration window around its last score, the lines
//! reported after each iteration, and the soft limits (time, nodes, mate)
//! applied between iterations.

use std::sync::atomic::Ordering;
use std::time::Duration;

use shakmaty::Position;

use crate::chess::score::{INFINITE, MATE, MATE_BOUND, NONE, is_mate};
use crate::search::smp::shown_score;
use crate::search::tt::Bound;
use crate::search::worker::Worker;
use crate::search::{Info, Line, MAX_DEPTH, Reporter, SearchResult};

/// Iterative deepening for one thread; the main thread (index 0) reports
/// and applies the soft time limit.
pub(super) fn iterate(
    w: &mut Worker,
    multipv: usize,
    reporter: &dyn Reporter,
    index: usize,
) -> SearchResult {
    let limits = w.shared.limits;
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut lines: Vec<Line> = Vec::new();
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
        let mut new_lines: Vec<Line> = Vec::new();
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
        } else if !new_lines.is_empty() {
            // The lines this iteration finished lead, the last iteration's
            // other lines follow; the main thread shows them at once, as
            // Stockfish does on a stop, so that the last line reported is
            // the one played.
            lines.retain(|old| !new_lines.iter().any(|l| l.pv[0] == old.pv[0]));
            new_lines.append(&mut lines);
            new_lines.truncate(multipv);
            lines = new_lines;
            if index == 0 {
                report_lines(w, &lines, reporter);
            }
        }
        if let Some(top) = lines.first() {
            let changed = best.best != Some(top.pv[0]);
            stability = if changed { 0 } else { stability + 1 };
            best.best = Some(top.pv[0]);
            best.ponder = top.pv.get(1).copied();
            best.score = top.score;
            best.pv = top.pv.clone();
            best.lines = lines.clone();
            best.seldepth = top.seldepth;
            best.depth = if complete { depth } else { depth - 1 };
        }
        if !complete {
            break;
        }
        w.completed = depth;
        if index == 0 {
            report_lines(w, &lines, reporter);
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
            if w.elapsed() >= b.adjusted_soft(stability, drop, frac, &w.p) {
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
pub(super) fn aspiration(
    w: &mut Worker,
    depth: i32,
    prev: Option<i32>,
    multipv: usize,
    reporter: &dyn Reporter,
) -> Option<Line> {
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
            return Some(Line {
                score: v,
                depth,
                bound: None,
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

pub(super) fn report_bound(
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
        score: shown_score(v, w.tb_score),
        bound: Some(bound),
        nodes,
        nps: nodes * 1000 / ms.max(1),
        hashfull: w.shared.tt.hashfull(),
        tbhits: w.shared.tbhits.load(Ordering::Relaxed),
        time_ms: ms,
        pv: &pv,
        material: crate::eval::wdl::material(w.state.pos().board()),
    });
}

/// Reports `lines` as MultiPV lines 1, 2, ..., each at the depth that
/// searched it.
pub(super) fn report_lines(w: &Worker, lines: &[Line], reporter: &dyn Reporter) {
    if !reporter.wants_info() {
        return;
    }
    let nodes = w.total_nodes();
    let ms = w.elapsed().as_millis() as u64;
    let hashfull = w.shared.tt.hashfull();
    let tbhits = w.shared.tbhits.load(Ordering::Relaxed);
    let material = crate::eval::wdl::material(w.state.pos().board());
    for (i, l) in lines.iter().enumerate() {
        reporter.info(&Info {
            depth: l.depth,
            seldepth: l.seldepth.max(1),
            multipv: i + 1,
            score: shown_score(l.score, w.tb_score),
            bound: l.bound,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull,
            tbhits,
            time_ms: ms,
            pv: &l.pv,
            material,
        });
    }
}
