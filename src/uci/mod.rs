//! The UCI layer: the protocol loop (this file), the [`Engine`] behind it
//! ([`engine`]: position, options, the search threads) and opening-book use
//! ([`book`]).
//!
//! Uses: [`crate::search`], [`crate::eval`], [`crate::chess`]; never a
//! tool. Only the command line (`cli`) uses this layer (and tools may read the book
//! format).
//!
//! The protocol reads commands, drives the [`Engine`], writes replies.
//!
//! Input is read on the caller's thread for the whole session while
//! searches run on their own threads, so `isready` and `stop` are answered
//! at once. Simple commands are recognised with `vampirc-uci`; `go`,
//! `position` and `setoption` are parsed here, because vampirc-uci 0.11
//! mishandles some of their valid forms (large depths panic, `ponder` or
//! `movetime` lost next to clock fields, FENs without move counters,
//! Shredder-FEN castling, moves after two spaces, trailing spaces in
//! option values). Every error is one `info string error: ...` line and
//! leaves the engine as it was. Output lines are written whole and flushed.

pub mod book;
pub mod engine;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, EnPassantMode, Move, Position};
use vampirc_uci::{UciMessage, UciOptionConfig};

use crate::chess::{perft, score};
use crate::eval;
use crate::eval::wdl;
use crate::search::bench;
use crate::search::time::Clock;
use crate::search::tt::Bound;
use crate::search::{Info, Limits, MAX_DEPTH, Reporter, SearchResult};
use crate::uci::engine::{Engine, Listener, OptionKind, option_list, parse_move};

/// Where protocol output goes: stdout for the engine, a buffer in tests.
pub struct Output {
    sink: Mutex<Box<dyn Write + Send>>,
    chess960: AtomicBool,
    /// `UCI_ShowWDL`: add `wdl W D L` to `info` lines.
    show_wdl: AtomicBool,
    /// UCI `debug on`: before each `bestmove`, an `info string` with the
    /// time from reading `go` to the move, the engine's whole share of a
    /// move's time (what a GUI's clock sees, less the pipes).
    debug: AtomicBool,
    /// When the `go` of the running (or last) search was read.
    go_read: Mutex<Option<Instant>>,
}

impl Output {
    /// Output to a writer (stdout for the engine).
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Mutex::new(sink),
            chess960: AtomicBool::new(false),
            show_wdl: AtomicBool::new(false),
            debug: AtomicBool::new(false),
            go_read: Mutex::new(None),
        }
    }

    /// Writes one whole line and flushes it.
    pub fn line(&self, text: &str) {
        if let Ok(mut w) = self.sink.lock() {
            let _ = writeln!(w, "{text}");
            let _ = w.flush();
        }
    }

    /// An `info string` line.
    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }

    fn mode(&self) -> CastlingMode {
        if self.chess960.load(Ordering::Relaxed) {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn mv(&self, m: Move) -> String {
        m.to_uci(self.mode()).to_string()
    }
}

impl Reporter for Output {
    fn info(&self, i: &Info) {
        let bound = match i.bound {
            Some(Bound::Lower) => " lowerbound",
            Some(Bound::Upper) => " upperbound",
            _ => "",
        };
        let mut s = format!(
            "info depth {} seldepth {} multipv {} score {}{}{} nodes {} nps {} hashfull {} tbhits {} time {}",
            i.depth.max(0),
            i.seldepth.max(0),
            i.multipv,
            score::to_uci(i.score),
            if self.show_wdl.load(Ordering::Relaxed) {
                let [w, d, l] = wdl::MODEL.per_mille(i.score, i.material);
                format!(" wdl {w} {d} {l}")
            } else {
                String::new()
            },
            bound,
            i.nodes,
            i.nps,
            i.hashfull,
            i.tbhits,
            i.time_ms
        );
        if !i.pv.is_empty() {
            s.push_str(" pv");
            for &m in i.pv {
                s.push(' ');
                s.push_str(&self.mv(m));
            }
        }
        self.line(&s);
    }

    fn message(&self, text: &str) {
        self.info_string(text);
    }
}

impl Listener for Output {
    fn finished(&self, best: Option<Move>, ponder: Option<Move>, _result: &SearchResult) {
        if self.debug.load(Ordering::Relaxed)
            && let Some(read) = self.go_read.lock().ok().and_then(|g| *g)
        {
            let ms = read.elapsed().as_secs_f64() * 1000.0;
            self.info_string(&format!("debug: bestmove {ms:.1} ms after go was read"));
        }
        match (best, ponder) {
            (Some(b), Some(p)) => {
                self.line(&format!("bestmove {} ponder {}", self.mv(b), self.mv(p)))
            }
            (Some(b), None) => self.line(&format!("bestmove {}", self.mv(b))),
            _ => self.line("bestmove (none)"),
        }
    }

    fn book_line(&self, m: Move) {
        self.line(&format!(
            "info depth 0 seldepth 0 multipv 1 nodes 0 nps 0 time 0 pv {}",
            self.mv(m)
        ));
    }
}

/// A parsed `go` command.
#[derive(Debug, Default, PartialEq)]
pub struct Go {
    pub limits: Limits,
    pub ponder: bool,
    /// `go perft N`: count instead of search.
    pub perft: Option<u32>,
}

const GO_KEYWORDS: [&str; 13] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

fn number<T: std::str::FromStr>(key: &str, tokens: &[&str], i: usize) -> Result<T, String> {
    let text = tokens
        .get(i + 1)
        .ok_or_else(|| format!("go: '{key}' needs a value"))?;
    text.parse()
        .map_err(|_| format!("go: '{key}' value '{text}' is not a valid number"))
}

/// Parses the words after `go`, in any order and combination. Times may be
/// negative (meaning no time left); depths beyond the search's reach are
/// clamped; `searchmoves` takes the moves up to the next keyword.
pub fn parse_go(args: &[&str], pos: &shakmaty::Chess) -> Result<Go, String> {
    let mut go = Go::default();
    let (mut wtime, mut btime, mut winc, mut binc, mut mtg) = (None, None, 0i64, 0i64, None);
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let mut used = 2;
        match key {
            "wtime" => wtime = Some(number::<i64>(key, args, i)?),
            "btime" => btime = Some(number::<i64>(key, args, i)?),
            "winc" => winc = number::<i64>(key, args, i)?,
            "binc" => binc = number::<i64>(key, args, i)?,
            "movestogo" => {
                let n = number::<i64>(key, args, i)?;
                mtg = Some(n.clamp(1, u32::MAX as i64) as u32);
            }
            "depth" => {
                let d = number::<i64>(key, args, i)?;
                if d < 1 {
                    return Err(format!("go: depth {d} must be at least 1"));
                }
                go.limits.depth = Some(d.min(MAX_DEPTH as i64) as i32);
            }
            "nodes" => go.limits.nodes = Some(number::<u64>(key, args, i)?),
            "mate" => {
                let n = number::<i64>(key, args, i)?;
                if n < 1 {
                    return Err(format!("go: mate {n} must be at least 1"));
                }
                go.limits.mate = Some(n.min(MAX_DEPTH as i64) as i32);
            }
            "movetime" => {
                let t = number::<i64>(key, args, i)?;
                go.limits.movetime = Some(t.max(0) as u64);
            }
            "perft" => {
                let d = number::<u32>(key, args, i)?;
                go.perft = Some(d);
            }
            "infinite" => {
                go.limits.infinite = true;
                used = 1;
            }
            "ponder" => {
                go.ponder = true;
                used = 1;
            }
            "searchmoves" => {
                let mut j = i + 1;
                while j < args.len() && !GO_KEYWORDS.contains(&args[j]) {
                    let m = parse_move(pos, args[j])
                        .map_err(|e| format!("go searchmoves '{}': {}", args[j], e))?;
                    go.limits.searchmoves.push(m);
                    j += 1;
                }
                used = j - i;
            }
            other => return Err(format!("go: unknown parameter '{other}'")),
        }
        i += used;
    }
    let (time, inc) = match pos.turn() {
        shakmaty::Color::White => (wtime, winc),
        shakmaty::Color::Black => (btime, binc),
    };
    if let Some(t) = time {
        go.limits.clock = Some(Clock {
            time: t,
            inc,
            movestogo: mtg,
        });
    } else if wtime.is_some() || btime.is_some() {
        // Only the opponent's clock was given: treat ours as unknown but
        // finite by using theirs, so that the search still ends.
        let t = wtime.or(btime).unwrap_or(0);
        go.limits.clock = Some(Clock {
            time: t,
            inc,
            movestogo: mtg,
        });
    }
    Ok(go)
}

/// A parsed `position` command: FEN (or start position) and move texts.
#[derive(Debug, PartialEq, Eq)]
pub struct PositionCommand<'a> {
    pub fen: Option<String>,
    pub moves: Vec<&'a str>,
}

/// Parses the words after `position`.
pub fn parse_position<'a>(args: &[&'a str]) -> Result<PositionCommand<'a>, String> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&args[..i], args[i + 1..].to_vec()),
        None => (args, Vec::new()),
    };
    match head.first() {
        Some(&"startpos") if head.len() == 1 => Ok(PositionCommand { fen: None, moves }),
        Some(&"startpos") => Err(format!("position: unexpected '{}' after startpos", head[1])),
        Some(&"fen") => {
            let fields = &head[1..];
            if !(4..=6).contains(&fields.len()) {
                return Err(format!(
                    "position: a FEN has 4 to 6 fields, got {}",
                    fields.len()
                ));
            }
            Ok(PositionCommand {
                fen: Some(fields.join(" ")),
                moves,
            })
        }
        Some(other) => Err(format!(
            "position: expected 'startpos' or 'fen', got '{other}'"
        )),
        None => Err("position: expected 'startpos' or 'fen'".to_string()),
    }
}

/// Parses `setoption name <name> [value <value>]`; names and values may
/// contain spaces, surrounding spaces are dropped.
pub fn parse_setoption(args: &[&str]) -> Result<(String, Option<String>), String> {
    if args.first() != Some(&"name") {
        return Err("setoption: expected 'name'".to_string());
    }
    let rest = &args[1..];
    let value_at = rest.iter().position(|&t| t == "value");
    let (name, value) = match value_at {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    if name.is_empty() {
        return Err("setoption: missing option name".to_string());
    }
    Ok((name, value))
}

/// The protocol session: an engine and its output.
pub struct Uci {
    engine: Engine,
    out: Arc<Output>,
}

impl Uci {
    /// A session writing to `out`.
    pub fn new(out: Arc<Output>) -> Uci {
        let listener: Arc<dyn Listener> = out.clone();
        Uci {
            engine: Engine::new(listener),
            out,
        }
    }

    /// The engine (for tests).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Stops any running search and waits for it to end.
    pub fn stop_and_wait(&mut self) {
        self.engine.stop();
        self.engine.ponderhit();
        self.engine.wait();
    }

    fn error(&self, text: &str) {
        self.out.info_string(&format!("error: {text}"));
    }

    /// Handles one input line. Returns false on `quit`.
    pub fn handle(&mut self, raw: &str) -> bool {
        let cleaned: String = raw.chars().filter(|&c| c != '\0' && c != '\r').collect();
        let tokens: Vec<&str> = cleaned.split_whitespace().collect();
        let Some(&cmd) = tokens.first() else {
            return true;
        };
        let args = &tokens[1..];
        match cmd {
            "uci" | "debug" | "isready" | "register" | "ucinewgame" | "stop" | "ponderhit"
            | "quit" => return self.simple(&tokens.join(" ")),
            "position" => {
                let result = parse_position(args)
                    .and_then(|p| self.engine.set_position(p.fen.as_deref(), &p.moves));
                if let Err(e) = result {
                    self.error(&e);
                }
            }
            "setoption" => {
                let result = parse_setoption(args).and_then(|(name, value)| {
                    self.engine.set_option(&name, value.as_deref())?;
                    if name.eq_ignore_ascii_case("UCI_Chess960") {
                        self.out
                            .chess960
                            .store(self.engine.options().chess960, Ordering::Relaxed);
                    }
                    if name.eq_ignore_ascii_case("UCI_ShowWDL") {
                        self.out
                            .show_wdl
                            .store(self.engine.options().show_wdl, Ordering::Relaxed);
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    self.error(&e);
                }
            }
            "go" => self.go(args),
            "d" => self.display(),
            "eval" => {
                for line in eval::explain(self.engine.game().pos()).lines() {
                    self.out.line(line);
                }
                if let Some(net) = self.engine.eval_net() {
                    let name = &self.engine.options().eval_file;
                    let base = self.engine.options().params.eval_material_base;
                    let line =
                        crate::eval::nnue::describe(&net, self.engine.game().pos(), name, base);
                    self.out.line(&line);
                }
            }
            "bench" => self.bench(args),
            // `perft N` as a shorthand for `go perft N`; its errors name
            // `perft`, the command the user typed, not `go`.
            "perft" => match args {
                [] => self.error("perft: needs a depth, as in 'perft 5'"),
                [d, rest @ ..] => match d.parse::<u32>() {
                    Err(_) => self.error(&format!(
                        "perft: depth '{}' is not a whole number from 0 up",
                        truncate(d, 40)
                    )),
                    Ok(_) if !rest.is_empty() => self.error(&format!(
                        "perft: unexpected '{}' after the depth",
                        truncate(rest[0], 40)
                    )),
                    Ok(depth) => self.perft(depth),
                },
            },
            _ => self.error(&format!("unknown command '{}'", truncate(cmd, 40))),
        }
        true
    }

    /// Commands `vampirc-uci` parses correctly.
    fn simple(&mut self, line: &str) -> bool {
        match vampirc_uci::parse_one(line) {
            UciMessage::Uci => self.uci(),
            UciMessage::Debug(on) => self.out.debug.store(on, Ordering::Relaxed),
            UciMessage::IsReady => self.out.line(&UciMessage::ReadyOk.to_string()),
            UciMessage::Register { .. } => {}
            UciMessage::UciNewGame => {
                if let Err(e) = self.engine.new_game() {
                    self.error(&e);
                }
            }
            UciMessage::Stop => self.engine.stop(),
            UciMessage::PonderHit => self.engine.ponderhit(),
            UciMessage::Quit => {
                self.engine.stop();
                self.engine.ponderhit();
                self.engine.wait();
                return false;
            }
            _ => self.error(&format!("malformed command '{}'", truncate(line, 60))),
        }
        true
    }

    fn uci(&self) {
        self.out.line(&UciMessage::id_name(crate::NAME).to_string());
        self.out
            .line(&UciMessage::id_author(crate::AUTHOR).to_string());
        for (name, kind) in option_list() {
            let name = name.to_string();
            let config = match kind {
                OptionKind::Spin { default, min, max } => UciOptionConfig::Spin {
                    name,
                    default: Some(default),
                    min: Some(min),
                    max: Some(max),
                },
                OptionKind::Check { default } => UciOptionConfig::Check {
                    name,
                    default: Some(default),
                },
                OptionKind::String { default } => UciOptionConfig::String {
                    name,
                    default: Some(default.to_string()),
                },
                OptionKind::Button => UciOptionConfig::Button { name },
            };
            self.out.line(&UciMessage::Option(config).to_string());
        }
        self.out.line(&UciMessage::UciOk.to_string());
    }

    fn go(&mut self, args: &[&str]) {
        let read = Instant::now();
        let go = match parse_go(args, self.engine.game().pos()) {
            Ok(g) => g,
            Err(e) => return self.error(&e),
        };
        if let Some(depth) = go.perft {
            return self.perft(depth);
        }
        // Set before the search starts (it may end at once); a refused `go`
        // leaves the running search's time as it was.
        let before = self
            .out
            .go_read
            .lock()
            .ok()
            .and_then(|mut g| g.replace(read));
        if let Err(e) = self.engine.go(go.limits, go.ponder) {
            if let Ok(mut g) = self.out.go_read.lock() {
                *g = before;
            }
            self.error(&e);
        }
    }

    fn perft(&mut self, depth: u32) {
        if self.engine.is_searching() {
            return self.error("a search is running; send 'stop' first");
        }
        if depth == 0 || depth > 12 {
            return self.error(&format!("perft depth {depth} must be 1 to 12"));
        }
        let start = Instant::now();
        let divide = perft::divide(self.engine.game(), depth, self.engine.options().threads);
        let mut total = 0;
        for (m, n) in &divide {
            self.out.line(&format!("{}: {}", self.out.mv(*m), n));
            total += n;
        }
        let ms = start.elapsed().as_millis() as u64;
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
        self.out.info_string(&format!(
            "perft time {ms} ms, {} nps",
            total * 1000 / ms.max(1)
        ));
    }

    fn bench(&mut self, args: &[&str]) {
        if self.engine.is_searching() {
            return self.error("a search is running; send 'stop' first");
        }
        let depth = match args.first().map(|d| d.parse::<i32>()) {
            None => bench::DEFAULT_DEPTH,
            Some(Ok(d)) if (1..=MAX_DEPTH).contains(&d) => d,
            Some(_) => return self.error("bench: depth must be a number from 1 to 120"),
        };
        let r = bench::run_with(depth, self.engine.eval_net(), None, &|_, _| {});
        self.out.line(&format!("{} nodes {} nps", r.nodes, r.nps()));
    }

    fn display(&self) {
        let game = self.engine.game();
        let pos = game.pos();
        let board = pos.board();
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push_str(" +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                s.push_str(&format!(" | {c}"));
            }
            s.push_str(&format!(" | {}\n", rank + 1));
        }
        s.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n");
        for l in s.lines() {
            self.out.line(l);
        }
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        self.out.line(&format!("Fen: {fen}"));
        self.out.line(&format!("Key: {:016X}", game.key()));
        let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
        self.out.line(&format!("Checkers: {}", checkers.join(" ")));
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n).collect();
        format!("{t}...")
    }
}

/// Runs the protocol on stdin and stdout until `quit` or end of input.
pub fn run() {
    let out = Arc::new(Output::new(Box::new(std::io::stdout())));
    let mut uci = Uci::new(out);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if !uci.handle(&line) {
                    return;
                }
            }
        }
    }
    // End of input: stop any search and leave cleanly.
    uci.handle("quit");
}
