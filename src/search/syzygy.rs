//! Syzygy endgame tablebases, probed through `shakmaty-syzygy` (the prober
//! written for shakmaty by its author, after Ronald de Man's code in
//! Stockfish): loading the tables from the folders `SyzygyPath` names, a
//! WDL probe for the search, and the ranking of the root moves by DTZ that
//! makes a won ending convert within the fifty-move rule.
//!
//! The tables are read through memory maps (as Stockfish reads them): a
//! table file must not be changed while the engine has it open. Anything a
//! file holds gives an error or no answer, never a wrong move: every probe
//! is also guarded against a panic inside the prober, which then counts as
//! no answer.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Tablebase, Wdl};

use crate::chess::score::{MAX_PLY, TB_WIN};

/// Separator of folders in `SyzygyPath`, as Stockfish has it.
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The value of `SyzygyPath` when no tables are loaded.
pub const NO_PATH: &str = "<empty>";

/// A set of tables, shared by every search thread.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tablebases({})", self.summary())
    }
}

impl Tablebases {
    /// Loads every table in the folders of `paths` (separated by
    /// [`PATH_SEPARATOR`]). Returns the tables and one line for each
    /// folder or file that could not be used; an error only when nothing
    /// loaded and something was wrong (a folder that does not exist, say).
    pub fn load(paths: &str) -> Result<(Tablebases, Vec<String>), String> {
        // SAFETY: the tables are only read; the contract of memory maps is
        // that the files are not modified while mapped, which the docs of
        // `SyzygyPath` ask of the user, as every engine that maps them does.
        let mut tables = unsafe { Tablebase::with_mmap_filesystem() };
        let (mut wdl_files, mut dtz_files) = (0, 0);
        let mut problems = Vec::new();
        for dir in paths.split(PATH_SEPARATOR).map(str::trim) {
            if dir.is_empty() {
                continue;
            }
            let entries = match std::fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) => {
                    problems.push(format!("{dir}: {e}"));
                    continue;
                }
            };
            let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            files.sort();
            for file in files {
                let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
                if ext != "rtbw" && ext != "rtbz" {
                    continue;
                }
                match tables.add_file(&file) {
                    Ok(()) if ext == "rtbw" => wdl_files += 1,
                    Ok(()) => dtz_files += 1,
                    Err(e) => problems.push(format!("{}: {e}", file.display())),
                }
            }
        }
        if wdl_files == 0 && !problems.is_empty() {
            return Err(problems.join("; "));
        }
        Ok((
            Tablebases {
                tables,
                wdl_files,
                dtz_files,
            },
            problems,
        ))
    }

    /// Loads the tables of one folder (for the command-line tools).
    pub fn load_dir(dir: &Path) -> Result<Tablebases, String> {
        let text = dir
            .to_str()
            .ok_or("the tablebase path is not valid UTF-8")?;
        Tablebases::load(text).map(|(t, _)| t)
    }

    /// Number of WDL tables (one per material, as Stockfish counts them).
    pub fn len(&self) -> usize {
        self.wdl_files
    }

    /// Whether no table was found.
    pub fn is_empty(&self) -> bool {
        self.wdl_files == 0
    }

    /// Most pieces (kings included) of any table.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// `35 tablebases (35 WDL and 35 DTZ files, up to 4 pieces)`.
    pub fn summary(&self) -> String {
        format!(
            "{} tablebases ({} WDL and {} DTZ files, up to {} pieces)",
            self.wdl_files,
            self.wdl_files,
            self.dtz_files,
            self.max_pieces()
        )
    }

    /// Whether `pos` may be in the tables: no castling rights and at most
    /// `limit` pieces, and no more than the largest table has.
    pub fn covers(&self, pos: &Chess, limit: usize) -> bool {
        pos.castles().is_empty() && {
            let n = pos.board().occupied().count();
            n <= limit && n <= self.max_pieces()
        }
    }

    /// Win, draw or loss for the side to move of a position just after a
    /// capture or pawn move (the fifty-move counter at zero); `None` when
    /// the tables do not answer.
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        if !pos.castles().is_empty() || pos.board().occupied().count() > self.max_pieces() {
            return None;
        }
        catch_unwind(AssertUnwindSafe(|| {
            self.tables.probe_wdl_after_zeroing(pos)
        }))
        .ok()?
        .ok()
    }

    /// Distance to zeroing (plies to the next capture, pawn move or mate,
    /// with best play; positive when the side to move wins), as the table
    /// stores it.
    pub fn probe_dtz(&self, pos: &Chess) -> Option<i32> {
        if !pos.castles().is_empty() || pos.board().occupied().count() > self.max_pieces() {
            return None;
        }
        catch_unwind(AssertUnwindSafe(|| self.tables.probe_dtz(pos)))
            .ok()?
            .ok()
            .map(|d| d.ignore_rounding().0)
    }

    /// Ranks `moves` of a root position in the tables and keeps those with
    /// the best outcome (see [`RootProbe`]); `None` when some move's
    /// result is not in the tables.
    pub fn rank_root(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootProbe> {
        self.rank_root_by_dtz(pos, moves, rule50)
            .or_else(|| self.rank_root_by_wdl(pos, moves, rule50))
    }

    /// DTZ ranking: a win keeps the moves that reach the next capture, pawn
    /// move or mate soonest (following them converts within the fifty-move
    /// rule whatever the defence); a draw keeps every drawing move; a loss
    /// keeps the moves that resist longest.
    fn rank_root_by_dtz(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootProbe> {
        let cnt50 = pos.halfmoves() as i32;
        let mut ranked = Vec::with_capacity(moves.len());
        for &m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            // Plies from the root to the next zeroing move, signed for us.
            let dtz = if after.is_checkmate() {
                1
            } else if after.halfmoves() == 0 {
                // A zeroing move: the result is all that counts.
                match -self.probe_wdl(&after)? {
                    Wdl::Win => 1,
                    Wdl::CursedWin => 101,
                    Wdl::Draw => 0,
                    Wdl::BlessedLoss => -101,
                    Wdl::Loss => -1,
                }
            } else {
                let d = -self.probe_dtz(&after)?;
                d + d.signum()
            };
            let total = if after.halfmoves() == 0 {
                dtz.abs()
            } else {
                dtz.abs() + cnt50
            };
            let in_time = !rule50 || total <= 100;
            // Wins (sooner is better) above cursed wins above draws above
            // blessed losses above losses (longer is better).
            let rank = match dtz.signum() {
                1 if in_time => 100_000 - dtz.min(50_000),
                1 => 10_000 - dtz.min(9_999),
                -1 if in_time => -100_000 - dtz.max(-50_000),
                -1 => -10_000 - dtz.max(-9_999),
                _ => 0,
            };
            ranked.push((m, rank, dtz));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        let dtz = ranked.iter().find(|r| r.1 == best).map_or(0, |r| r.2);
        let score = match best {
            r if r >= 50_000 => TB_WIN - dtz.clamp(1, MAX_PLY),
            r if r > 0 => 2,
            0 => 0,
            r if r > -50_000 => -2,
            _ => -TB_WIN + dtz.abs().clamp(1, MAX_PLY),
        };
        Some(RootProbe {
            moves: ranked.iter().filter(|r| r.1 == best).map(|r| r.0).collect(),
            score,
            by_dtz: true,
        })
    }

    /// WDL ranking (without DTZ tables): keeps the moves of the best
    /// outcome; the search, with its own probes, chooses among them.
    fn rank_root_by_wdl(&self, pos: &Chess, moves: &[Move], rule50: bool) -> Option<RootProbe> {
        let mut ranked = Vec::with_capacity(moves.len());
        for &m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let wdl = if after.is_checkmate() {
                Wdl::Win
            } else {
                -self.probe_wdl(&after)?
            };
            ranked.push((m, wdl_value(wdl, rule50, 0)));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        Some(RootProbe {
            moves: ranked.iter().filter(|r| r.1 == best).map(|r| r.0).collect(),
            score: best,
            by_dtz: false,
        })
    }
}

/// The root moves the tables allow, and the score to show for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProbe {
    /// The moves that keep the best outcome (never empty).
    pub moves: Vec<Move>,
    /// The score shown while the search has not found a mate: a tablebase
    /// win or loss ([`TB_WIN`] less the plies to the next zeroing move), a
    /// cursed win or blessed loss (±2) or a draw (0).
    pub score: i32,
    /// Ranked by DTZ (else by WDL only).
    pub by_dtz: bool,
}

/// The score of a tablebase result `ply` plies from the root: a win just
/// below the mate scores, a cursed win (a win the fifty-move rule makes a
/// draw) a hair above a draw when `rule50` counts it, else as a win.
pub fn wdl_value(wdl: Wdl, rule50: bool, ply: i32) -> i32 {
    match wdl {
        Wdl::Win => TB_WIN - ply,
        Wdl::CursedWin if !rule50 => TB_WIN - ply,
        Wdl::CursedWin => 2,
        Wdl::Draw => 0,
        Wdl::BlessedLoss if rule50 => -2,
        Wdl::BlessedLoss | Wdl::Loss => -TB_WIN + ply,
    }
}

/// The tablebase settings of a search: the tables and the UCI options
/// `SyzygyProbeDepth`, `Syzygy50MoveRule` and `SyzygyProbeLimit`.
#[derive(Clone, Debug)]
pub struct TbConfig {
    pub tables: Arc<Tablebases>,
    /// Probe in the search only at this remaining depth or more.
    pub probe_depth: i32,
    /// Cursed wins and blessed losses are draws (the fifty-move rule).
    pub rule50: bool,
    /// Probe only positions of at most this many pieces.
    pub probe_limit: usize,
}

impl TbConfig {
    /// Settings as Stockfish's defaults have them.
    pub fn new(tables: Arc<Tablebases>) -> TbConfig {
        TbConfig {
            tables,
            probe_depth: 1,
            rule50: true,
            probe_limit: 7,
        }
    }

    /// Most pieces a probed position may have.
    pub fn cardinality(&self) -> usize {
        self.probe_limit.min(self.tables.max_pieces())
    }
}
