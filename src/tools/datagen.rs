//! Self-play data generation (`ferrum datagen`): Ferrum plays itself from
//! random openings at a fixed soft node budget per move and keeps quiet
//! positions with the search score and the final game result, the data the
//! evaluation tuner and a neural network learn from.
//!
//! Output is the `bulletformat` crate's `ChessBoard` record (32 bytes, from
//! the side to move's point of view), the format the bullet trainer reads,
//! and optionally text lines `FEN | score | result` (White's point of view,
//! result 1.0 / 0.5 / 0.0), the same crate's text format.
//!
//! Each game is a function of the seed and its number only (its own random
//! opening, a cleared table, one search thread, each search from empty
//! history tables), and games are written in
//! number order, so a run with the same seed and limits writes the same
//! bytes whatever the thread count. Files are opened for appending and every
//! finished game is written and flushed whole: a stopped run keeps all it
//! wrote, and a later run with another seed appends to it.

use shakmaty_syzygy::Wdl;

use crate::search::syzygy::TbConfig;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bulletformat::ChessBoard;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Position, Role};

use crate::chess::fen::parse_fen;
use crate::chess::score::MATE_BOUND;
use crate::chess::state::GameState;
use crate::search::history::History;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchOptions, Signals, Silent, search_in};

/// Win adjudication: a side's score at least this large ...
pub const WIN_SCORE: i32 = 2000;
/// ... for this many plies in a row (both sides agreeing).
pub const WIN_PLIES: u32 = 4;
/// Draw adjudication: after this many plies of play ...
pub const DRAW_AFTER: u32 = 80;
/// ... a score within this margin of zero ...
pub const DRAW_SCORE: i32 = 10;
/// ... for this many plies in a row.
pub const DRAW_PLIES: u32 = 10;
/// A game this long is scored a draw.
pub const MAX_PLIES: u32 = 400;
/// Openings whose first search scores beyond this are replaced.
pub const MAX_OPENING_SCORE: i32 = 1000;

/// What a run does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games played at once, one search thread each.
    pub threads: usize,
    /// Soft node budget per move: no new iteration starts beyond it.
    pub nodes: u64,
    /// Stop after this many games (counted from 0 in this run).
    pub games: Option<u64>,
    /// Stop once this many positions are written.
    pub positions: Option<u64>,
    pub seed: u64,
    /// Opening positions (FEN) to start from; the start position if empty.
    pub book: Vec<String>,
    /// Random legal plies played from the opening position (plus 0 or 1 more,
    /// so that both colours move first).
    pub random_plies: u32,
    /// Transposition table per game thread, in MB.
    pub hash_mb: usize,
    /// The binary output (`ChessBoard` records), appended to.
    pub out: PathBuf,
    /// The text output, appended to, if wanted.
    pub text: Option<PathBuf>,
    /// The network the games are played with; `None`: hand-crafted evaluation.
    pub net: Option<std::sync::Arc<crate::eval::nnue::Network>>,
    /// Tablebases: searched with, and a game that reaches them ends with
    /// their result (cleaner labels than a search's adjudication).
    pub syzygy: Option<TbConfig>,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    /// Results from White's point of view.
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Games ended by the tablebases' verdict.
    pub tb_adjudicated: u64,
    pub elapsed: Duration,
}

impl Summary {
    /// Positions written per second.
    pub fn rate(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The progress line: games, positions, positions/s, W/D/L.
    pub fn line(&self) -> String {
        let tb = if self.tb_adjudicated > 0 {
            format!("  tablebase-ended {}", self.tb_adjudicated)
        } else {
            String::new()
        };
        format!(
            "games {}  positions {}  {:.0} pos/s  W/D/L {}/{}/{}{tb}  ({:.0} s)",
            self.games,
            self.positions,
            self.rate(),
            self.white_wins,
            self.draws,
            self.black_wins,
            self.elapsed.as_secs_f64()
        )
    }
}

/// One kept position: the position, the search score for the side to move.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Chess,
    pub score: i32,
}

/// A finished game: its kept positions and its result for White
/// (1.0 win, 0.5 draw, 0.0 loss).
#[derive(Clone, Debug)]
pub struct Game {
    pub samples: Vec<Sample>,
    pub result: f32,
    /// The game ended in the tablebases, with their result.
    pub tb_adjudicated: bool,
}

/// The random generator of game `index`: a function of the seed and the
/// game number only.
fn game_rng(seed: u64, index: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ index.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// A random opening: a book position (or the start position), then
/// `random_plies` (+0 or 1) random legal moves; none that ends the game.
fn random_opening(config: &Config, rng: &mut StdRng) -> Chess {
    loop {
        let mut pos = if config.book.is_empty() {
            Chess::default()
        } else {
            let fen = &config.book[rng.random_range(0..config.book.len())];
            match parse_fen(fen, false) {
                Ok(p) => p,
                Err(_) => continue,
            }
        };
        let plies = config.random_plies + rng.random_range(0..2);
        let mut ok = true;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if ok && !pos.legal_moves().is_empty() && !pos.is_insufficient_material() {
            return pos;
        }
    }
}

/// Plays game `index` to the end, or returns `None` when `stop` is raised.
/// `tt` and `history` are the thread's, cleared here before use: the table
/// once a game, the history tables before every search (they are reused,
/// not reallocated, which spares a search of a thousand nodes a few
/// percent of its time).
pub fn play_game(
    config: &Config,
    index: u64,
    tt: &TranspositionTable,
    history: &mut History,
    stop: &AtomicBool,
) -> Option<Game> {
    let mut rng = game_rng(config.seed, index);
    let limits = Limits {
        nodes: Some(config.nodes.saturating_mul(20)),
        soft_nodes: Some(config.nodes),
        ..Limits::default()
    };
    let options = SearchOptions {
        threads: 1,
        multipv: 1,
        move_overhead: 0,
        net: config.net.clone(),
        // Never with the material scale or the fifty-move damping,
        // whatever their defaults: the scores label what the net itself
        // sees, as every round before them did, and an engine that scales
        // or damps does so to a net trained on them too.
        params: crate::search::params::Params {
            eval_material_base: 0,
            eval_rule50: 0,
            ..crate::search::params::Params::default()
        },
        syzygy: config.syzygy.clone(),
    };
    let signals = Signals::default();
    let think = |state: &GameState, history: &mut History| {
        history.clear();
        search_in(state, &limits, &options, tt, &signals, &Silent, history)
    };
    // An opening the first search finds lopsided is replaced.
    let mut state = loop {
        tt.clear();
        let state = GameState::new(random_opening(config, &mut rng));
        if think(&state, history).score.abs() <= MAX_OPENING_SCORE {
            break state;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
    };
    tt.clear();
    let mut samples = Vec::new();
    let (mut win_run, mut loss_run, mut draw_run) = (0u32, 0u32, 0u32);
    let mut ply = 0u32;
    let mut tb_adjudicated = false;
    let result = loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let pos = state.pos().clone();
        let white = pos.turn() == Color::White;
        if pos.is_checkmate() {
            break if white { 0.0 } else { 1.0 };
        }
        if pos.is_stalemate() || state.is_draw(state.history_len()) || ply >= MAX_PLIES {
            break 0.5;
        }
        // In the tablebases (just after a capture or pawn move): their
        // result under the fifty-move rule ends the game.
        if let Some(tb) = &config.syzygy
            && pos.halfmoves() == 0
            && tb.tables.covers(&pos, tb.cardinality())
            && let Some(wdl) = tb.tables.probe_wdl(&pos)
        {
            tb_adjudicated = true;
            let stm = match wdl {
                Wdl::Win => 1.0,
                Wdl::Loss => 0.0,
                _ => 0.5,
            };
            break if white { stm } else { 1.0 - stm };
        }
        let r = think(&state, history);
        let Some(best) = r.best else {
            break 0.5;
        };
        let score = r.score;
        // Adjudication on the score from White's point of view.
        let white_score = if white { score } else { -score };
        win_run = if white_score >= WIN_SCORE {
            win_run + 1
        } else {
            0
        };
        loss_run = if white_score <= -WIN_SCORE {
            loss_run + 1
        } else {
            0
        };
        draw_run = if ply >= DRAW_AFTER && score.abs() <= DRAW_SCORE {
            draw_run + 1
        } else {
            0
        };
        if win_run >= WIN_PLIES {
            break 1.0;
        }
        if loss_run >= WIN_PLIES {
            break 0.0;
        }
        if draw_run >= DRAW_PLIES {
            break 0.5;
        }
        // Kept: quiet positions with a quiet best move and no mate score.
        if !pos.is_check() && !best.is_capture() && !best.is_promotion() && score.abs() < MATE_BOUND
        {
            samples.push(Sample { pos, score });
        }
        state.play(best);
        state.commit();
        ply += 1;
    };
    Some(Game {
        samples,
        result,
        tb_adjudicated,
    })
}

/// The side-to-move record of one sample (bulletformat flips the board when
/// Black is to move).
pub fn to_record(sample: &Sample, white_result: f32) -> ChessBoard {
    let board = sample.pos.board();
    let bb = |b: Bitboard| b.0;
    let bbs = [
        bb(board.by_color(Color::White)),
        bb(board.by_color(Color::Black)),
        bb(board.by_role(Role::Pawn)),
        bb(board.by_role(Role::Knight)),
        bb(board.by_role(Role::Bishop)),
        bb(board.by_role(Role::Rook)),
        bb(board.by_role(Role::Queen)),
        bb(board.by_role(Role::King)),
    ];
    let white = sample.pos.turn() == Color::White;
    let score = sample.score.clamp(-32000, 32000);
    let white_score = if white { score } else { -score };
    let stm = usize::from(!white);
    // A board from a legal position has a piece on every occupied square.
    ChessBoard::from_raw(bbs, stm, white_score as i16, white_result).unwrap_or_default()
}

/// The text line of one sample: `FEN | score | result`, White's view.
pub fn to_text(sample: &Sample, white_result: f32) -> String {
    let fen = Fen::from_position(&sample.pos, EnPassantMode::Legal);
    let score = if sample.pos.turn() == Color::White {
        sample.score
    } else {
        -sample.score
    };
    format!("{fen} | {score} | {white_result:.1}")
}

/// The board of a record as it stores it: the side to move is White (the
/// board is mirrored when Black was to move); no castling rights, no en
/// passant square. Fails on a record that holds no legal position.
pub fn record_position(rec: &ChessBoard) -> Result<Chess, String> {
    let mut board = Board::empty();
    for (piece, square) in *rec {
        let color = if piece & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = match piece & 7 {
            0 => Role::Pawn,
            1 => Role::Knight,
            2 => Role::Bishop,
            3 => Role::Rook,
            4 => Role::Queen,
            5 => Role::King,
            other => return Err(format!("bad piece code {other}")),
        };
        let sq = shakmaty::Square::new(u32::from(square));
        board.set_piece_at(sq, role.of(color));
    }
    let setup = shakmaty::Setup {
        board,
        ..shakmaty::Setup::empty()
    };
    setup
        .position(shakmaty::CastlingMode::Standard)
        .map_err(|e| format!("illegal record position: {e}"))
}

/// Reads every record of a bulletformat file.
pub fn read_records(path: &Path) -> std::io::Result<Vec<ChessBoard>> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let size = std::mem::size_of::<ChessBoard>();
    if bytes.len() % size != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{}: {} bytes is not a whole number of {size}-byte records",
                path.display(),
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(size)
        .map(|c| {
            let mut pcs = [0u8; 16];
            pcs.copy_from_slice(&c[8..24]);
            ChessBoard {
                occ: u64::from_le_bytes(c[0..8].try_into().unwrap_or_default()),
                pcs,
                score: i16::from_le_bytes([c[24], c[25]]),
                result: c[26],
                ksq: c[27],
                opp_ksq: c[28],
                extra: [c[29], c[30], c[31]],
            }
        })
        .collect())
}

/// The bytes of one record, as the bullet trainer reads them (`#[repr(C)]`,
/// little-endian).
pub fn record_bytes(rec: &ChessBoard) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[0..8].copy_from_slice(&rec.occ.to_le_bytes());
    b[8..24].copy_from_slice(&rec.pcs);
    b[24..26].copy_from_slice(&rec.score.to_le_bytes());
    b[26] = rec.result;
    b[27] = rec.ksq;
    b[28] = rec.opp_ksq;
    b[29..32].copy_from_slice(&rec.extra);
    b
}

/// Output files, appended to and flushed after every game.
struct Output {
    bin: BufWriter<File>,
    text: Option<BufWriter<File>>,
}

impl Output {
    fn open(config: &Config) -> std::io::Result<Output> {
        let open = |p: &Path| OpenOptions::new().create(true).append(true).open(p);
        Ok(Output {
            bin: BufWriter::new(open(&config.out)?),
            text: match &config.text {
                Some(p) => Some(BufWriter::new(open(p)?)),
                None => None,
            },
        })
    }

    fn write(&mut self, game: &Game) -> std::io::Result<()> {
        for s in &game.samples {
            self.bin
                .write_all(&record_bytes(&to_record(s, game.result)))?;
            if let Some(t) = &mut self.text {
                writeln!(t, "{}", to_text(s, game.result))?;
            }
        }
        self.bin.flush()?;
        if let Some(t) = &mut self.text {
            t.flush()?;
        }
        Ok(())
    }
}

/// Runs data generation until a limit or `stop` (raised by Ctrl-C in the
/// command line). `progress` gets a summary now and then.
pub fn run(
    config: &Config,
    stop: &AtomicBool,
    progress: &dyn Fn(&Summary),
) -> std::io::Result<Summary> {
    let mut out = Output::open(config)?;
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<(u64, Option<Game>)>();
    let mut summary = Summary::default();
    let mut result = Ok(());
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let tt = TranspositionTable::new(config.hash_mb);
                let mut history = History::default();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if stop.load(Ordering::Relaxed) || config.games.is_some_and(|g| index >= g) {
                        break;
                    }
                    let game = play_game(config, index, &tt, &mut history, stop);
                    let aborted = game.is_none();
                    if tx.send((index, game)).is_err() || aborted {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Games are written in number order; those that finish early wait.
        let mut pending: BTreeMap<u64, Option<Game>> = BTreeMap::new();
        let mut next_write = 0u64;
        let mut last_report = Instant::now();
        let mut write = |game: &Game, summary: &mut Summary| -> std::io::Result<()> {
            out.write(game)?;
            summary.games += 1;
            summary.positions += game.samples.len() as u64;
            summary.tb_adjudicated += u64::from(game.tb_adjudicated);
            match game.result {
                r if r > 0.75 => summary.white_wins += 1,
                r if r < 0.25 => summary.black_wins += 1,
                _ => summary.draws += 1,
            }
            Ok(())
        };
        loop {
            let msg = rx.recv_timeout(Duration::from_millis(200));
            match msg {
                Ok((index, game)) => {
                    pending.insert(index, game);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Some(game) = pending.remove(&next_write) {
                next_write += 1;
                if let Some(g) = game
                    && let Err(e) = write(&g, &mut summary)
                {
                    result = Err(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            if config.positions.is_some_and(|p| summary.positions >= p) {
                stop.store(true, Ordering::Relaxed);
            }
            summary.elapsed = start.elapsed();
            if last_report.elapsed() >= Duration::from_secs(10) {
                progress(&summary);
                last_report = Instant::now();
            }
        }
        // Stopped: what finished is still written, in number order.
        for (_, game) in std::mem::take(&mut pending) {
            if let Some(g) = game
                && result.is_ok()
                && let Err(e) = write(&g, &mut summary)
            {
                result = Err(e);
            }
        }
    });
    summary.elapsed = start.elapsed();
    result.map(|_| summary)
}
