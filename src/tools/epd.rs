//! EPD test suites: parsing records (`bm`, `am`, `id`, `dm`, `c0`-`c9`,
//! `hmvc`, `fmvn`; SAN or UCI moves; 4- or 6-field positions) and solving
//! them with the search.

use std::time::{Duration, Instant};

use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use crate::chess::fen::parse_fen;
use crate::chess::score::{MATE, MATE_BOUND};
use crate::chess::state::GameState;
use crate::search::params::Params;
use crate::search::syzygy::TbConfig;
use crate::search::tt::TranspositionTable;
use crate::search::{Info, Limits, Reporter, SearchOptions, Signals, search};

/// One EPD record.
#[derive(Clone, Debug)]
pub struct EpdRecord {
    /// 1-based line number in its file.
    pub line: usize,
    pub id: String,
    pub pos: Chess,
    pub fen: String,
    /// Best moves (`bm`).
    pub best: Vec<Move>,
    /// Moves to avoid (`am`).
    pub avoid: Vec<Move>,
    /// Direct mate in N moves (`dm`).
    pub mate: Option<i32>,
    /// STS-style points: moves (`c8`) and their points (`c9`).
    pub points: Vec<(Move, i32)>,
    /// Comments `c0` to `c7`.
    pub comments: Vec<String>,
}

/// A move in SAN or UCI notation, resolved in `pos`.
pub fn resolve_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    if let Ok(san) = t.parse::<San>()
        && let Ok(m) = san.to_move(pos)
        && pos.is_legal(m)
    {
        return Ok(m);
    }
    if let Ok(uci) = t.parse::<UciMove>()
        && let Ok(m) = uci.to_move(pos)
        && pos.is_legal(m)
    {
        return Ok(m);
    }
    Err(format!("'{text}' is not a legal move here"))
}

/// Splits the operation part of an EPD line into (opcode, operand) pairs,
/// honouring double quotes.
fn operations(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut ops = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (opcode, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if opcode.ends_with(';') {
            ops.push((opcode.trim_end_matches(';').to_string(), String::new()));
            rest = after.trim_start();
            continue;
        }
        let mut operand = String::new();
        let mut in_quotes = false;
        let mut end = None;
        for (i, c) in after.char_indices() {
            match c {
                '"' => in_quotes = !in_quotes,
                ';' if !in_quotes => {
                    end = Some(i);
                    break;
                }
                _ => operand.push(c),
            }
        }
        let Some(end) = end else {
            return Err(format!("operation '{opcode}' is not closed by ';'"));
        };
        ops.push((opcode.to_string(), operand.trim().to_string()));
        rest = after[end + 1..].trim_start();
    }
    Ok(ops)
}

/// Parses one EPD line (line number `line` for messages). Blank lines and
/// `#` comments give `Ok(None)`.
pub fn parse_line(text: &str, line: usize) -> Result<Option<EpdRecord>, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("line {line}: too few fields for a position"));
    }
    // Six-field FEN when fields 5 and 6 are numbers.
    let numeric = |s: &&str| s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty();
    let n_fen = if fields.len() >= 6 && numeric(&fields[4]) && numeric(&fields[5]) {
        6
    } else {
        4
    };
    let mut fen_fields: Vec<String> = fields[..n_fen].iter().map(|s| s.to_string()).collect();
    let ops_text = {
        // Everything after the position fields.
        let mut rest = text;
        for f in &fields[..n_fen] {
            rest = rest.trim_start();
            rest = &rest[f.len()..];
        }
        rest.to_string()
    };
    let ops = operations(&ops_text).map_err(|e| format!("line {line}: {e}"))?;
    let mut hmvc = "0".to_string();
    let mut fmvn = "1".to_string();
    for (op, val) in &ops {
        match op.as_str() {
            "hmvc" => hmvc = val.clone(),
            "fmvn" => fmvn = val.clone(),
            _ => {}
        }
    }
    if n_fen == 4 {
        fen_fields.push(hmvc);
        fen_fields.push(fmvn);
    }
    let fen = fen_fields.join(" ");
    let pos = parse_fen(&fen, false).map_err(|e| format!("line {line}: {e}"))?;
    let mut rec = EpdRecord {
        line,
        id: format!("line {line}"),
        pos,
        fen,
        best: Vec::new(),
        avoid: Vec::new(),
        mate: None,
        points: Vec::new(),
        comments: Vec::new(),
    };
    let mut c8: Vec<Move> = Vec::new();
    let mut c9: Vec<i32> = Vec::new();
    for (op, val) in ops {
        let moves = |v: &str| -> Result<Vec<Move>, String> {
            v.split_whitespace()
                .map(|t| resolve_move(&rec.pos, t).map_err(|e| format!("line {line}: {op}: {e}")))
                .collect()
        };
        match op.as_str() {
            "bm" => rec.best = moves(&val)?,
            "am" => rec.avoid = moves(&val)?,
            "id" => rec.id = val,
            "dm" => {
                rec.mate = Some(
                    val.parse()
                        .map_err(|_| format!("line {line}: dm '{val}' is not a number"))?,
                )
            }
            "c8" => c8 = moves(&val)?,
            "c9" => {
                c9 = val
                    .split_whitespace()
                    .map(|t| {
                        t.parse()
                            .map_err(|_| format!("line {line}: c9 '{t}' is not a number"))
                    })
                    .collect::<Result<_, _>>()?
            }
            c if c.len() == 2 && c.starts_with('c') => rec.comments.push(val),
            _ => {}
        }
    }
    if !c8.is_empty() {
        if c8.len() != c9.len() {
            return Err(format!("line {line}: c8 and c9 differ in length"));
        }
        rec.points = c8.into_iter().zip(c9).collect();
    }
    Ok(Some(rec))
}

/// Parses a whole file: the records, and the errors of the lines skipped.
pub fn parse_text(text: &str) -> (Vec<EpdRecord>, Vec<String>) {
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for (i, l) in text.lines().enumerate() {
        match parse_line(l, i + 1) {
            Ok(Some(r)) => records.push(r),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (records, errors)
}

/// The outcome of solving one record.
#[derive(Clone, Debug)]
pub struct Solution {
    pub found: Option<Move>,
    pub solved: bool,
    /// Points for the move found (STS), if the record has points.
    pub points: Option<i32>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    /// Depth and time at which the solution was first found and then held.
    pub first_depth: Option<i32>,
    pub first_time: Option<Duration>,
    pub elapsed: Duration,
}

impl EpdRecord {
    /// Whether `m` with `score` solves the record.
    pub fn is_solution(&self, m: Option<Move>, score: i32) -> bool {
        if let Some(n) = self.mate {
            return score >= MATE_BOUND && (MATE - score + 1) / 2 <= n;
        }
        let Some(m) = m else { return false };
        if !self.best.is_empty() && !self.best.contains(&m) {
            return false;
        }
        if self.avoid.contains(&m) {
            return false;
        }
        !self.best.is_empty() || !self.avoid.is_empty() || self.points.iter().any(|(p, _)| *p == m)
    }
}

/// Watches iteration reports for the first depth at which the solution
/// appears and stays.
struct Tracker<'a> {
    rec: &'a EpdRecord,
    start: Instant,
    first: std::sync::Mutex<Option<(i32, Duration)>>,
}

impl Reporter for Tracker<'_> {
    fn info(&self, i: &Info) {
        if i.multipv != 1 || i.bound.is_some() {
            return;
        }
        let ok = self.rec.is_solution(i.pv.first().copied(), i.score);
        if let Ok(mut f) = self.first.lock() {
            if !ok {
                *f = None;
            } else if f.is_none() {
                *f = Some((i.depth, self.start.elapsed()));
            }
        }
    }
}

/// Solves one record with `limits` on `threads` threads and the search
/// parameters `params`. The table is cleared first, so each record is
/// searched as if alone.
pub fn solve(
    rec: &EpdRecord,
    limits: &Limits,
    threads: usize,
    params: &Params,
    syzygy: Option<&TbConfig>,
    tt: &TranspositionTable,
) -> Solution {
    tt.clear();
    let signals = Signals::default();
    // A suite runner has no network or GUI lag to allow for.
    let options = SearchOptions {
        threads,
        move_overhead: 0,
        params: *params,
        syzygy: syzygy.cloned(),
        ..SearchOptions::default()
    };
    let tracker = Tracker {
        rec,
        start: Instant::now(),
        first: std::sync::Mutex::new(None),
    };
    let r = search(
        &GameState::new(rec.pos.clone()),
        limits,
        &options,
        tt,
        &signals,
        &tracker,
    );
    let solved = rec.is_solution(r.best, r.score);
    let first = if solved {
        tracker.first.lock().ok().and_then(|f| *f)
    } else {
        None
    };
    let points = if rec.points.is_empty() {
        None
    } else {
        Some(
            rec.points
                .iter()
                .find(|(m, _)| Some(*m) == r.best)
                .map_or(0, |(_, p)| *p),
        )
    };
    Solution {
        found: r.best,
        solved,
        points,
        score: r.score,
        depth: r.depth,
        nodes: r.nodes,
        first_depth: first.map(|f| f.0),
        first_time: first.map(|f| f.1),
        elapsed: r.elapsed,
    }
}
