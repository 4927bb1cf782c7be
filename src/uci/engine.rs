//! The engine behind the protocol: the game position, the options, the
//! shared transposition table and the pool of search threads.
//!
//! Every method that changes state validates first and changes nothing on
//! error, so bad input leaves the engine as it was. Searches run on the
//! pool's threads; the caller's thread (the UCI input loop) never waits for
//! one except after asking it to stop.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::chess::fen::parse_fen;
use crate::chess::state::GameState;
use crate::eval::nnue::{Network, default_net, network};
use crate::search::params::{self, Params};
use crate::search::skill::{self, Skill};
use crate::search::syzygy::{self, Tablebases, TbConfig};
use crate::search::threads::ThreadPool;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Limits, Reporter, SearchOptions, SearchResult, Signals};
use crate::uci::book::Book;

/// Receives the progress and the result of searches started by [`Engine::go`].
pub trait Listener: Reporter + Send + Sync {
    /// The search is over: `bestmove` time. `best` is `None` when the
    /// position has no legal move.
    fn finished(&self, best: Option<Move>, ponder: Option<Move>, result: &SearchResult);
    /// A move played from the book: the line shown for it, with no score,
    /// as nothing searched it.
    fn book_line(&self, m: Move);
}

/// Values of the UCI options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead: u64,
    pub chess960: bool,
    /// Evaluate with the network (`Use NNUE`); off: the hand-crafted evaluation.
    pub use_nnue: bool,
    /// The `EvalFile` value: the embedded net's name or a file that loaded.
    pub eval_file: String,
    /// Play from the opening book (`OwnBook`) while the game is at most
    /// `book_depth` moves old (`BookDepth`), from `book_file` (`BookFile`).
    pub own_book: bool,
    pub book_file: String,
    pub book_depth: u32,
    /// `UCI_ShowWDL`: report win/draw/loss per mille with scores.
    pub show_wdl: bool,
    /// `UCI_AnalyseMode`: accepted; the search is the same either way.
    pub analyse_mode: bool,
    /// `UCI_LimitStrength` and `UCI_Elo`, `Skill Level` ([`crate::search::skill`]).
    pub limit_strength: bool,
    pub elo: i64,
    pub skill_level: i64,
    /// Search parameters (UCI options only when tuning, see [`crate::search::params`]).
    pub params: Params,
    /// `SyzygyPath` as set (folders with tables), or [`syzygy::NO_PATH`];
    /// `SyzygyProbeDepth`, `Syzygy50MoveRule`, `SyzygyProbeLimit`.
    pub syzygy_path: String,
    pub syzygy_probe_depth: i32,
    pub syzygy_50_move_rule: bool,
    pub syzygy_probe_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead: 10,
            chess960: false,
            use_nnue: true,
            eval_file: network::DEFAULT_NAME.to_string(),
            own_book: false,
            book_file: NO_BOOK.to_string(),
            book_depth: DEFAULT_BOOK_DEPTH,
            show_wdl: false,
            analyse_mode: false,
            limit_strength: false,
            elo: skill::DEFAULT_ELO,
            skill_level: skill::MAX_LEVEL,
            params: Params::default(),
            syzygy_path: syzygy::NO_PATH.to_string(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
            syzygy_probe_limit: 7,
        }
    }
}

/// Default and largest `Hash` sizes, in megabytes.
pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 32_768;
pub const MAX_THREADS: usize = 256;
pub const MAX_MULTIPV: usize = 256;
pub const MAX_MOVE_OVERHEAD: u64 = 5000;
/// `BookFile` when no book is loaded (the value GUIs show for an empty string).
pub const NO_BOOK: &str = "<empty>";
pub const DEFAULT_BOOK_DEPTH: u32 = 20;

/// The kind and range of one UCI option, for `uci` and for validation.
pub enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    String { default: &'static str },
    Button,
}

/// Every option Ferrum declares, in the order `uci` lists them (the search
/// parameters last, when tuning is enabled).
pub fn option_list() -> Vec<(&'static str, OptionKind)> {
    let mut list = vec![
        (
            "Hash",
            OptionKind::Spin {
                default: DEFAULT_HASH_MB as i64,
                min: 1,
                max: MAX_HASH_MB as i64,
            },
        ),
        (
            "Threads",
            OptionKind::Spin {
                default: 1,
                min: 1,
                max: MAX_THREADS as i64,
            },
        ),
        (
            "MultiPV",
            OptionKind::Spin {
                default: 1,
                min: 1,
                max: MAX_MULTIPV as i64,
            },
        ),
        ("Ponder", OptionKind::Check { default: false }),
        (
            "Move Overhead",
            OptionKind::Spin {
                default: 10,
                min: 0,
                max: MAX_MOVE_OVERHEAD as i64,
            },
        ),
        ("UCI_Chess960", OptionKind::Check { default: false }),
        ("Use NNUE", OptionKind::Check { default: true }),
        (
            "EvalFile",
            OptionKind::String {
                default: network::DEFAULT_NAME,
            },
        ),
        ("UCI_LimitStrength", OptionKind::Check { default: false }),
        (
            "UCI_Elo",
            OptionKind::Spin {
                default: skill::DEFAULT_ELO,
                min: skill::MIN_ELO,
                max: skill::MAX_ELO,
            },
        ),
        (
            "Skill Level",
            OptionKind::Spin {
                default: skill::MAX_LEVEL,
                min: 0,
                max: skill::MAX_LEVEL,
            },
        ),
        ("UCI_ShowWDL", OptionKind::Check { default: false }),
        ("UCI_AnalyseMode", OptionKind::Check { default: false }),
        ("OwnBook", OptionKind::Check { default: false }),
        ("BookFile", OptionKind::String { default: NO_BOOK }),
        (
            "BookDepth",
            OptionKind::Spin {
                default: DEFAULT_BOOK_DEPTH as i64,
                min: 1,
                max: 500,
            },
        ),
        ("Clear Hash", OptionKind::Button),
        (
            "SyzygyPath",
            OptionKind::String {
                default: syzygy::NO_PATH,
            },
        ),
        (
            "SyzygyProbeDepth",
            OptionKind::Spin {
                default: 1,
                min: 1,
                max: 100,
            },
        ),
        ("Syzygy50MoveRule", OptionKind::Check { default: true }),
        (
            "SyzygyProbeLimit",
            OptionKind::Spin {
                default: 7,
                min: 0,
                max: 7,
            },
        ),
    ];
    if params::tuning_enabled() {
        list.extend(params::SPECS.iter().map(|s| {
            (
                s.name,
                OptionKind::Spin {
                    default: i64::from(s.default),
                    min: i64::from(s.min),
                    max: i64::from(s.max),
                },
            )
        }));
    }
    list
}

/// The engine state the protocol drives.
pub struct Engine {
    game: GameState,
    options: Options,
    tt: Arc<TranspositionTable>,
    signals: Arc<Signals>,
    /// The search threads (as many as `Threads`); thread 0 runs the main search.
    pool: Arc<ThreadPool>,
    /// Set by the search just before it reports `bestmove`; `None` when no
    /// search was started since the last wait.
    running: Option<Arc<AtomicBool>>,
    listener: Arc<dyn Listener>,
    /// The net `EvalFile` chose (the embedded one by default).
    net: Option<Arc<Network>>,
    /// The book `BookFile` loaded.
    book: Option<Arc<Book>>,
    /// The tablebases `SyzygyPath` loaded.
    tablebases: Option<Arc<Tablebases>>,
    /// Chooses among book moves.
    rng: StdRng,
}

impl Engine {
    /// A new engine at the start position, reporting to `listener`.
    ///
    /// # Panics
    /// If the system cannot start a single thread.
    pub fn new(listener: Arc<dyn Listener>) -> Engine {
        let pool = ThreadPool::new(1).expect("cannot start the search thread");
        Engine {
            game: GameState::new(Chess::default()),
            options: Options::default(),
            tt: Arc::new(TranspositionTable::new(DEFAULT_HASH_MB)),
            signals: Arc::new(Signals::default()),
            pool: Arc::new(pool),
            running: None,
            listener,
            net: default_net(),
            book: None,
            tablebases: None,
            rng: StdRng::seed_from_u64(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
            ),
        }
    }

    /// The net searches evaluate with: `None` when `Use NNUE` is off.
    pub fn eval_net(&self) -> Option<Arc<Network>> {
        if self.options.use_nnue {
            self.net.clone()
        } else {
            None
        }
    }

    /// The current game position.
    pub fn game(&self) -> &GameState {
        &self.game
    }

    /// Current option values.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The castling notation for moves in and out: Chess960 (king takes
    /// rook) when `UCI_Chess960` is on.
    pub fn castling_mode(&self) -> CastlingMode {
        if self.options.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// Whether a search is running and has not yet reported its best move.
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|done| !done.load(Ordering::Acquire))
    }

    /// Makes sure no search is running before state changes: a finished or
    /// stopping search is joined (a matter of milliseconds); a search still
    /// running is an error, and nothing changes.
    fn idle(&mut self) -> Result<(), String> {
        if let Some(done) = &self.running {
            let stopping = self.signals.stop.load(Ordering::Relaxed);
            if !done.load(Ordering::Acquire) && !stopping {
                return Err("a search is running; send 'stop' first".to_string());
            }
        }
        self.wait();
        Ok(())
    }

    /// Waits for the running search, if any, to end (all its threads).
    pub fn wait(&mut self) {
        if self.running.take().is_some() {
            self.pool.wait_all();
        }
    }

    /// Empties the table with every search thread at once.
    fn clear_table(&self) {
        let tt = Arc::clone(&self.tt);
        self.pool
            .broadcast(move |index, parts, _| tt.clear_part(index, parts));
        self.tt.cleared();
    }

    /// `position`: sets the position from a FEN (or the start position with
    /// `None`) and plays `moves` in UCI notation. On any error the previous
    /// position stays.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        self.idle()?;
        let pos = match fen {
            None => Chess::default(),
            Some(f) => parse_fen(f, self.options.chess960)?,
        };
        let mut game = GameState::new(pos);
        for (i, text) in moves.iter().enumerate() {
            let m = parse_move(game.pos(), text)
                .map_err(|e| format!("move {} '{}': {}", i + 1, text, e))?;
            game.play(m);
        }
        game.commit();
        self.game = game;
        Ok(())
    }

    /// `setoption`: validates and applies one option. Names are matched
    /// without regard to case, as Stockfish does.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let list = option_list();
        let Some((canonical, kind)) = list.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(format!("unknown option '{name}'"));
        };
        let canonical = *canonical;
        enum Value<'v> {
            Int(i64),
            Bool(bool),
            Text(&'v str),
            None,
        }
        let v = match kind {
            OptionKind::Spin { min, max, .. } => {
                let text = value.ok_or_else(|| format!("option '{canonical}' needs a value"))?;
                let n: i64 = text
                    .parse()
                    .map_err(|_| format!("option '{canonical}': '{text}' is not an integer"))?;
                if n < *min || n > *max {
                    return Err(format!(
                        "option '{canonical}': {n} is out of range {min}..{max}"
                    ));
                }
                Value::Int(n)
            }
            OptionKind::Check { .. } => {
                let text = value.ok_or_else(|| format!("option '{canonical}' needs a value"))?;
                match text.to_ascii_lowercase().as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => {
                        return Err(format!(
                            "option '{canonical}': '{text}' is not true or false"
                        ));
                    }
                }
            }
            OptionKind::String { .. } => Value::Text(value.unwrap_or("").trim()),
            OptionKind::Button => Value::None,
        };
        // Options that touch the table or the search wait for it to end.
        self.idle()?;
        match (canonical, v) {
            ("Hash", Value::Int(n)) => {
                let mb = n as usize;
                if mb != self.tt.size_mb() {
                    self.tt =
                        Arc::new(TranspositionTable::try_new(mb).ok_or_else(|| {
                            format!("cannot allocate {mb} MB for the hash table")
                        })?);
                }
                self.options.hash_mb = mb;
            }
            ("Threads", Value::Int(n)) => {
                let n = n as usize;
                if n != self.pool.len() {
                    // The new pool starts before the old one goes, so a
                    // refusal keeps the old threads.
                    self.pool = Arc::new(ThreadPool::new(n)?);
                }
                self.options.threads = n;
            }
            ("MultiPV", Value::Int(n)) => self.options.multipv = n as usize,
            ("Move Overhead", Value::Int(n)) => self.options.move_overhead = n as u64,
            ("Ponder", Value::Bool(b)) => self.options.ponder = b,
            ("UCI_Chess960", Value::Bool(b)) => self.options.chess960 = b,
            ("Use NNUE", Value::Bool(b)) => self.options.use_nnue = b,
            ("EvalFile", Value::Text(path)) => {
                // The embedded net by its name (or nothing); else a file. A
                // file that does not load leaves the current net in place.
                if path.is_empty() || path == network::DEFAULT_NAME || path == "<empty>" {
                    self.net = Some(default_net().ok_or("the embedded network is damaged")?);
                    self.options.eval_file = network::DEFAULT_NAME.to_string();
                } else {
                    let net = Network::load(std::path::Path::new(path)).map_err(|e| {
                        format!(
                            "EvalFile not loaded, keeping {}: {e}",
                            self.options.eval_file
                        )
                    })?;
                    self.net = Some(Arc::new(net));
                    self.options.eval_file = path.to_string();
                }
            }
            ("OwnBook", Value::Bool(b)) => self.options.own_book = b,
            ("UCI_ShowWDL", Value::Bool(b)) => self.options.show_wdl = b,
            ("UCI_LimitStrength", Value::Bool(b)) => self.options.limit_strength = b,
            ("UCI_Elo", Value::Int(n)) => self.options.elo = n,
            ("Skill Level", Value::Int(n)) => self.options.skill_level = n,
            ("UCI_AnalyseMode", Value::Bool(b)) => self.options.analyse_mode = b,
            ("BookDepth", Value::Int(n)) => self.options.book_depth = n as u32,
            ("BookFile", Value::Text(path)) => {
                if path.is_empty() || path == NO_BOOK {
                    self.book = None;
                    self.options.book_file = NO_BOOK.to_string();
                } else {
                    let book = Book::load(std::path::Path::new(path))
                        .map_err(|e| format!("BookFile not loaded: {e}"))?;
                    self.book = Some(Arc::new(book));
                    self.options.book_file = path.to_string();
                }
            }
            ("Clear Hash", _) => self.clear_table(),
            ("SyzygyPath", Value::Text(path)) => self.set_syzygy_path(path)?,
            ("SyzygyProbeDepth", Value::Int(n)) => self.options.syzygy_probe_depth = n as i32,
            ("Syzygy50MoveRule", Value::Bool(b)) => self.options.syzygy_50_move_rule = b,
            ("SyzygyProbeLimit", Value::Int(n)) => self.options.syzygy_probe_limit = n as usize,
            (name, Value::Int(n)) if self.options.params.get(name).is_some() => {
                self.options.params.set(name, n as i32)?
            }
            _ => return Err(format!("option '{canonical}': bad value")),
        }
        Ok(())
    }

    /// `SyzygyPath`: loads the tables of the folders in `path` (or none for
    /// an empty path or `<empty>`) and says how many were found. Files
    /// that cannot be used are reported and left out; when nothing loads
    /// and something was wrong, the tables loaded before stay.
    fn set_syzygy_path(&mut self, path: &str) -> Result<(), String> {
        if path.is_empty() || path == syzygy::NO_PATH {
            self.tablebases = None;
            self.options.syzygy_path = syzygy::NO_PATH.to_string();
            return Ok(());
        }
        let (tables, problems) = Tablebases::load(path).map_err(|e| {
            format!(
                "SyzygyPath not loaded, keeping {}: {e}",
                self.options.syzygy_path
            )
        })?;
        for p in &problems {
            self.listener.message(&format!("SyzygyPath: left out {p}"));
        }
        self.listener
            .message(&format!("Found {}", tables.summary()));
        self.tablebases = (!tables.is_empty()).then(|| Arc::new(tables));
        self.options.syzygy_path = path.to_string();
        Ok(())
    }

    /// The tablebase settings for a search, when tables are loaded.
    pub fn syzygy(&self) -> Option<TbConfig> {
        let tables = self.tablebases.clone()?;
        Some(TbConfig {
            tables,
            probe_depth: self.options.syzygy_probe_depth,
            rule50: self.options.syzygy_50_move_rule,
            probe_limit: self.options.syzygy_probe_limit,
        })
    }

    /// `ucinewgame`: forgets everything learnt (the table and every
    /// thread's histories) and returns to the start position.
    pub fn new_game(&mut self) -> Result<(), String> {
        self.idle()?;
        self.clear_table();
        self.pool.clear();
        self.game = GameState::new(Chess::default());
        Ok(())
    }

    /// `go`: starts a search on its own thread. `ponder` starts it in
    /// ponder mode (the clock starts at `ponderhit`).
    pub fn go(&mut self, limits: Limits, ponder: bool) -> Result<(), String> {
        self.idle()?;
        self.signals.stop.store(false, Ordering::Relaxed);
        self.signals.ponder.store(ponder, Ordering::Relaxed);
        let done = Arc::new(AtomicBool::new(false));
        if !ponder && let Some(m) = self.book_move(&limits) {
            let listener = Arc::clone(&self.listener);
            let done2 = Arc::clone(&done);
            self.pool.run(0, move |_| {
                // No search, no score: the line shown is the book move alone.
                listener.book_line(m);
                done2.store(true, Ordering::Release);
                let result = SearchResult {
                    best: Some(m),
                    pv: vec![m],
                    ..SearchResult::default()
                };
                listener.finished(Some(m), None, &result);
            });
            self.running = Some(done);
            return Ok(());
        }
        let game = self.game.clone();
        let mut options = SearchOptions {
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead: self.options.move_overhead,
            net: self.eval_net(),
            params: self.options.params,
            syzygy: self.syzygy(),
        };
        // A weakened search: a node budget and several lines to choose from.
        let skill = self.skill();
        let asked_lines = self.options.multipv;
        let mut limits = limits;
        let mut skill_rng = StdRng::seed_from_u64(self.rng.random());
        if let Some(skill) = skill {
            let cap = skill.node_limit();
            limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
            options.multipv = options.multipv.max(skill::LINES);
        }
        let tt = Arc::clone(&self.tt);
        let signals = Arc::clone(&self.signals);
        let listener = Arc::clone(&self.listener);
        let done2 = Arc::clone(&done);
        let pool = Arc::clone(&self.pool);
        self.pool.run(0, move |data| {
            let result = search::search_with_pool(
                &pool,
                &mut data.history,
                &game,
                &limits,
                &options,
                &tt,
                &signals,
                &*listener,
            );
            let scored: Vec<(Move, i32)> =
                result.lines.iter().map(|l| (l.pv[0], l.score)).collect();
            let chosen = skill
                .and_then(|s| s.pick(&scored, &mut skill_rng))
                .and_then(|m| result.lines.iter().position(|l| l.pv[0] == m))
                .filter(|&i| i > 0);
            let (best, ponder) = match chosen {
                // A weakened level plays another line on purpose: it says
                // so, and shows that line last, as the one played.
                Some(i) => {
                    let line = &result.lines[i];
                    listener.message(&format!(
                        "limited strength: plays line {} of {}, not the best line",
                        i + 1,
                        result.lines.len()
                    ));
                    search::report_line(&*listener, line, &result, &game, &tt);
                    (line.pv.first().copied(), line.pv.get(1).copied())
                }
                // It plays the best line. When the lines after it are
                // only there for the weakening (the user asked for fewer),
                // the best is shown again, last: tools that read the last
                // line before `bestmove`, whatever its `multipv` (fastchess,
                // python-chess's `play`), then see the line played.
                None => {
                    if skill.is_some()
                        && asked_lines < result.lines.len()
                        && let Some(top) = result.lines.first()
                        && top.pv == result.pv
                    {
                        search::report_line(&*listener, top, &result, &game, &tt);
                    }
                    (result.best, result.ponder)
                }
            };
            done2.store(true, Ordering::Release);
            listener.finished(best, ponder, &result);
        });
        self.running = Some(done);
        Ok(())
    }

    /// The weakening the options ask for, if any.
    pub fn skill(&self) -> Option<Skill> {
        Skill::from_options(
            self.options.limit_strength,
            self.options.elo,
            self.options.skill_level,
        )
    }

    /// A move from the book for `go`, when `OwnBook` is on, a book is loaded,
    /// the game is young enough and the search is an ordinary one (not
    /// infinite, mate or restricted to some moves).
    fn book_move(&mut self, limits: &Limits) -> Option<Move> {
        if !self.options.own_book
            || limits.infinite
            || limits.mate.is_some()
            || !limits.searchmoves.is_empty()
            || self.game.pos().fullmoves().get() > self.options.book_depth
        {
            return None;
        }
        let book = self.book.as_ref()?;
        let (m, weight, total) = book.pick(self.game.pos(), &mut self.rng)?;
        let uci = m.to_uci(self.castling_mode());
        self.listener
            .message(&format!("book move {uci} (weight {weight} of {total})"));
        Some(m)
    }

    /// `stop`: ends the search as soon as possible (it reports `bestmove`).
    pub fn stop(&self) {
        self.signals.stop.store(true, Ordering::Relaxed);
    }

    /// `ponderhit`: the opponent played the expected move; the search goes
    /// on as a normal timed search from now.
    pub fn ponderhit(&self) {
        self.signals.ponder.store(false, Ordering::Relaxed);
    }

    /// Occupancy of the table in per mille.
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.signals.ponder.store(false, Ordering::Relaxed);
        self.wait();
    }
}

/// Parses a move in UCI notation (either castling notation) and checks it
/// is legal in `pos`.
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let uci: UciMove = text
        .parse()
        .map_err(|_| "not a move in UCI notation".to_string())?;
    if matches!(uci, UciMove::Null) {
        return Err("null move is not allowed".to_string());
    }
    // `UciMove::to_move` does not check every castling condition, so the
    // move is checked against the legal moves as well.
    uci.to_move(pos)
        .ok()
        .filter(|&m| pos.is_legal(m))
        .ok_or_else(|| "illegal in this position".to_string())
}
