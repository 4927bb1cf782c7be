//! Running EPD test suites: solves every record of one or more files and
//! reports each position and a summary, as text, JSON or CSV. Parsing and
//! solving one record live in [`crate::tools::epd`]; the command line and its
//! progress bar in `cli::epd`.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use shakmaty::san::SanPlus;
use shakmaty::{Move, Position};

use crate::chess::score;
use crate::search::Limits;
use crate::search::params::Params;
use crate::search::syzygy::TbConfig;
use crate::search::tt::TranspositionTable;
use crate::tools::epd::{EpdRecord, parse_text, solve};

/// The records of one EPD file and the lines that could not be read.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The file name, without its directories.
    pub name: String,
    pub records: Vec<EpdRecord>,
    /// One message per malformed line, with its line number.
    pub errors: Vec<String>,
}

impl Suite {
    /// Reads and parses an EPD file. Malformed lines are kept as errors;
    /// only an unreadable file is an error.
    pub fn load(path: &Path) -> io::Result<Suite> {
        let text = std::fs::read_to_string(path)?;
        let (records, errors) = parse_text(&text);
        Ok(Suite {
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            records,
            errors,
        })
    }
}

/// How each position is searched.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    pub limits: Limits,
    pub threads: usize,
    /// Mate length for records without `dm` (for plain-FEN mate files).
    pub default_mate: Option<i32>,
    /// The search parameters (the defaults unless a tuner sets them).
    pub params: Params,
    /// Tablebases to search with.
    pub syzygy: Option<TbConfig>,
}

/// The result for one position, as reported and serialised.
#[derive(Clone, Debug, Serialize)]
pub struct PositionResult {
    pub suite: String,
    pub line: usize,
    pub id: String,
    pub fen: String,
    /// What the record asks, e.g. `bm Qg6` or `dm 3`.
    pub expected: String,
    /// The move played, in SAN (empty when there is no legal move).
    pub found: String,
    pub found_uci: String,
    pub solved: bool,
    /// STS points for the move found and the best the record offers.
    pub points: Option<i32>,
    pub max_points: Option<i32>,
    /// Final score in UCI form (`cp 35`, `mate 3`).
    pub score: String,
    pub depth: i32,
    pub nodes: u64,
    pub time_ms: u64,
    /// Depth and time at which the solution was first found and then held.
    pub first_depth: Option<i32>,
    pub first_time_ms: Option<u64>,
}

/// `m` in SAN with its check or mate sign.
fn san(rec: &EpdRecord, m: Move) -> String {
    SanPlus::from_move(rec.pos.clone(), m).to_string()
}

/// What `rec` asks for, in EPD terms.
pub fn expected(rec: &EpdRecord) -> String {
    let mut parts = Vec::new();
    let list = |ms: &[Move]| {
        ms.iter()
            .map(|&m| san(rec, m))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !rec.best.is_empty() {
        parts.push(format!("bm {}", list(&rec.best)));
    }
    if !rec.avoid.is_empty() {
        parts.push(format!("am {}", list(&rec.avoid)));
    }
    if let Some(n) = rec.mate {
        parts.push(format!("dm {n}"));
    }
    if parts.is_empty() && !rec.points.is_empty() {
        let pts: Vec<String> = rec
            .points
            .iter()
            .map(|&(m, p)| format!("{}={p}", san(rec, m)))
            .collect();
        parts.push(format!("points {}", pts.join(" ")));
    }
    parts.join("; ")
}

/// Solves one record under `config` (with `tt`, cleared first) and
/// describes the outcome.
pub fn run_record(
    suite: &str,
    rec: &EpdRecord,
    config: &SuiteConfig,
    tt: &TranspositionTable,
) -> PositionResult {
    // A record with nothing to solve takes the default mate length.
    let mut rec = rec.clone();
    if rec.mate.is_none() && rec.best.is_empty() && rec.avoid.is_empty() {
        rec.mate = config.default_mate;
    }
    let mut limits = config.limits.clone();
    // A mate record is done once a short enough mate is proven.
    limits.mate = rec.mate.or(limits.mate);
    let s = solve(
        &rec,
        &limits,
        config.threads,
        &config.params,
        config.syzygy.as_ref(),
        tt,
    );
    let mode = rec.pos.castles().mode();
    PositionResult {
        suite: suite.to_string(),
        line: rec.line,
        id: rec.id.clone(),
        fen: rec.fen.clone(),
        expected: expected(&rec),
        found: s.found.map(|m| san(&rec, m)).unwrap_or_default(),
        found_uci: s
            .found
            .map(|m| m.to_uci(mode).to_string())
            .unwrap_or_default(),
        solved: s.solved,
        points: s.points,
        max_points: rec.points.iter().map(|&(_, p)| p).max(),
        score: score::to_uci(s.score),
        depth: s.depth,
        nodes: s.nodes,
        time_ms: s.elapsed.as_millis() as u64,
        first_depth: s.first_depth,
        first_time_ms: s.first_time.map(|t| t.as_millis() as u64),
    }
}

/// One line of text per position.
pub fn format_result(r: &PositionResult) -> String {
    let verdict = if r.solved { "solved" } else { "FAILED" };
    let found = if r.found.is_empty() { "-" } else { &r.found };
    let mut s = format!(
        "{verdict} {:<16} {:<8} ({})  {}, depth {}, {:.2}s",
        r.id,
        found,
        r.expected,
        r.score,
        r.depth,
        r.time_ms as f64 / 1000.0
    );
    if let (Some(d), Some(t)) = (r.first_depth, r.first_time_ms) {
        s.push_str(&format!(
            "; first found at depth {d}, {:.2}s",
            t as f64 / 1000.0
        ));
    }
    if let (Some(p), Some(m)) = (r.points, r.max_points) {
        s.push_str(&format!("; points {p}/{m}"));
    }
    s
}

/// Totals over a group of positions (a file, or one theme of a file).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub name: String,
    pub solved: usize,
    pub total: usize,
    /// STS points, when the positions carry them.
    pub points: Option<i64>,
    pub max_points: Option<i64>,
    pub time_ms: u64,
}

impl Summary {
    fn add(&mut self, r: &PositionResult) {
        self.total += 1;
        self.solved += usize::from(r.solved);
        self.time_ms += r.time_ms;
        if let (Some(p), Some(m)) = (r.points, r.max_points) {
            *self.points.get_or_insert(0) += i64::from(p);
            *self.max_points.get_or_insert(0) += i64::from(m);
        }
    }

    /// `name: solved/total (pct)`, points and time.
    pub fn format(&self) -> String {
        let pct = 100.0 * self.solved as f64 / self.total.max(1) as f64;
        let mut s = format!(
            "{}: {}/{} solved ({pct:.1}%)",
            self.name, self.solved, self.total
        );
        if let (Some(p), Some(m)) = (self.points, self.max_points) {
            s.push_str(&format!(", points {p}/{m}"));
        }
        s.push_str(&format!(
            ", {}",
            format_duration(Duration::from_millis(self.time_ms))
        ));
        s
    }
}

/// The theme of an id such as `STS(v1.0) Undermining.001`: what comes
/// before the last dot. `None` for ids without one.
fn theme(id: &str) -> Option<&str> {
    id.rsplit_once('.')
        .map(|(t, _)| t)
        .filter(|t| !t.is_empty())
}

/// Summaries per file, then per theme inside files that hold more than one
/// theme (STS), then the total.
pub fn summarize(results: &[PositionResult]) -> Vec<Summary> {
    let mut by_suite: Vec<Summary> = Vec::new();
    let mut themes: BTreeMap<(String, String), Summary> = BTreeMap::new();
    let mut total = Summary {
        name: "total".to_string(),
        ..Summary::default()
    };
    for r in results {
        match by_suite.iter_mut().find(|s| s.name == r.suite) {
            Some(s) => s.add(r),
            None => {
                let mut s = Summary {
                    name: r.suite.clone(),
                    ..Summary::default()
                };
                s.add(r);
                by_suite.push(s);
            }
        }
        if let Some(t) = theme(&r.id) {
            themes
                .entry((r.suite.clone(), t.to_string()))
                .or_insert_with(|| Summary {
                    name: format!("{} / {t}", r.suite),
                    ..Summary::default()
                })
                .add(r);
        }
        total.add(r);
    }
    let mut out = Vec::new();
    for s in by_suite {
        let name = s.name.clone();
        out.push(s);
        let inner: Vec<&Summary> = themes
            .iter()
            .filter(|((suite, _), _)| *suite == name)
            .map(|(_, v)| v)
            .collect();
        if inner.len() > 1 {
            out.extend(inner.into_iter().cloned());
        }
    }
    out.push(total);
    out
}

/// `1m05.3s` or `4.21s`.
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 {
        format!("{}m{:04.1}s", (s / 60.0) as u64, s % 60.0)
    } else {
        format!("{s:.2}s")
    }
}

/// The whole run as one JSON document: results, summaries and the
/// malformed lines that were skipped.
pub fn write_json(
    out: &mut dyn Write,
    results: &[PositionResult],
    skipped: &[String],
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Report<'a> {
        results: &'a [PositionResult],
        summary: Vec<Summary>,
        skipped: &'a [String],
    }
    let report = Report {
        results,
        summary: summarize(results),
        skipped,
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}

/// Writes one CSV row per position, with a header row.
pub fn write_csv(out: &mut dyn Write, results: &[PositionResult]) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for r in results {
        w.serialize(r).map_err(io::Error::other)?;
    }
    w.flush()
}
