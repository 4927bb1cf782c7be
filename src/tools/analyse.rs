//! `ferrum analyse`: every move of a game searched, judged by how much win
//! probability it gave away, and annotated as lichess and python-chess
//! read it.
//!
//! The model (lichess's, so that marks mean what players know from there):
//! win% = 50 + 50 · (2 / (1 + e^(−0.00368208 · cp)) − 1), with cp from the
//! mover's side, clipped to ±1000, and a mate counting as 100% (or 0%).
//! A move that is not the engine's choice and drops the mover's win% by at
//! least 5 points is an inaccuracy (`?!`, `$6`), by 10 a mistake (`?`,
//! `$2`), by 15 a blunder (`??`, `$4`). Accuracy of a move: 103.1668 ·
//! e^(−0.04354 · drop) − 3.1669, clipped to 0–100; a player's accuracy is
//! the mean over their moves. Centipawn loss: the fall of the mover's
//! score, clipped to ±1000 and never below 0.

use std::sync::Arc;

use serde::Serialize;
use shakmaty::{Color, Move, Position};

use crate::chess::score::{MATE, is_mate};
use crate::chess::state::GameState;
use crate::eval::nnue::Network;
use crate::search::syzygy::TbConfig;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, SearchOptions, Signals, Silent, search};
use crate::tools::pgn::{Game, Line, Node};

/// How each position is searched.
#[derive(Clone, Debug)]
pub struct Settings {
    pub limits: Limits,
    pub threads: usize,
    pub hash_mb: usize,
    pub net: Option<Arc<Network>>,
    /// Tablebases to search with.
    pub syzygy: Option<TbConfig>,
}

/// A position's evaluation from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Eval {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves: positive when White mates.
    Mate(i32),
    /// This side is checkmated (the game is over).
    Checkmated(#[serde(serialize_with = "color_name")] Color),
}

fn color_name<S: serde::Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if c.is_white() { "white" } else { "black" })
}

impl Eval {
    /// From a search score (side to move's view) in a position where `turn` moves.
    pub fn from_score(score: i32, turn: Color) -> Eval {
        if score == -MATE {
            return Eval::Checkmated(turn);
        }
        let white = if turn.is_white() { score } else { -score };
        if is_mate(white) {
            let plies = MATE - white.abs();
            let moves = (plies + 1) / 2;
            Eval::Mate(if white > 0 { moves } else { -moves })
        } else {
            Eval::Cp(white)
        }
    }

    /// Centipawns from `side`'s view, mates as ±1000 (clipped to ±1000).
    pub fn cp_for(self, side: Color) -> i32 {
        let white = match self {
            Eval::Cp(cp) => cp.clamp(-1000, 1000),
            Eval::Mate(m) if m > 0 => 1000,
            Eval::Mate(_) => -1000,
            Eval::Checkmated(Color::Black) => 1000,
            Eval::Checkmated(Color::White) => -1000,
        };
        if side.is_white() { white } else { -white }
    }

    /// Win probability in percent for `side`.
    pub fn win_percent(self, side: Color) -> f64 {
        match self {
            Eval::Mate(_) | Eval::Checkmated(_) => {
                if self.cp_for(side) > 0 {
                    100.0
                } else {
                    0.0
                }
            }
            Eval::Cp(_) => win_percent(self.cp_for(side)),
        }
    }

    /// The `[%eval ...]` value: pawns with two decimals, or `#N`.
    pub fn pgn(self) -> String {
        match self {
            Eval::Cp(cp) => format!("{:.2}", f64::from(cp) / 100.0),
            Eval::Mate(m) => format!("#{m}"),
            Eval::Checkmated(_) => "#0".to_string(),
        }
    }

    /// Pawns from White's view for the graph, clipped to ±`clip`; mates at the clip.
    pub fn pawns(self, clip: f64) -> f64 {
        match self {
            Eval::Cp(cp) => (f64::from(cp) / 100.0).clamp(-clip, clip),
            _ if self.cp_for(Color::White) > 0 => clip,
            _ => -clip,
        }
    }
}

/// Win probability in percent of a centipawn score (lichess's model).
pub fn win_percent(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-1000, 1000));
    50.0 + 50.0 * (2.0 / (1.0 + (-0.00368208 * cp).exp()) - 1.0)
}

/// Accuracy of a move that dropped the mover's win% by `drop` points.
pub fn move_accuracy(drop: f64) -> f64 {
    (103.1668 * (-0.04354 * drop.max(0.0)).exp() - 3.1669).clamp(0.0, 100.0)
}

/// How a move is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// The judgement of a move that dropped the mover's win% by `drop`.
    pub fn from_drop(drop: f64) -> Option<Judgement> {
        if drop >= 15.0 {
            Some(Judgement::Blunder)
        } else if drop >= 10.0 {
            Some(Judgement::Mistake)
        } else if drop >= 5.0 {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// Its numeric annotation glyph.
    pub fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// As printed in comments: `?!`, `?`, `??`.
    pub fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }
}

/// One analysed move of the main line.
#[derive(Clone, Debug, Serialize)]
pub struct MoveReport {
    /// Ply of the move, from 1.
    pub ply: usize,
    /// The move in SAN.
    pub san: String,
    pub mover: String,
    /// Evaluation after the move (White's view).
    pub eval: Eval,
    pub cp_loss: i32,
    pub win_drop: f64,
    pub accuracy: f64,
    pub judgement: Option<Judgement>,
    /// The engine's line from the position before the move, in SAN, when
    /// the move was judged.
    pub better: Vec<String>,
    /// The same line as moves, for the annotated PGN.
    #[serde(skip)]
    pub better_moves: Vec<Move>,
}

/// A player's figures over one game.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlayerSummary {
    pub name: String,
    pub moves: usize,
    pub acpl: f64,
    pub accuracy: f64,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
}

/// A game's analysis.
#[derive(Clone, Debug, Serialize)]
pub struct GameReport {
    /// 1-based number of the game in its file.
    pub number: usize,
    pub white: PlayerSummary,
    pub black: PlayerSummary,
    pub moves: Vec<MoveReport>,
    /// Evaluation of the start position.
    pub start_eval: Eval,
}

/// Searches every main-line position of `game` (before each move and after
/// the last) and judges each move; `progress` is called after each position.
pub fn analyse_game(
    game: &Game,
    number: usize,
    settings: &Settings,
    progress: &mut dyn FnMut(),
) -> GameReport {
    let tt = TranspositionTable::new(settings.hash_mb);
    let signals = Signals::default();
    let options = SearchOptions {
        threads: settings.threads.max(1),
        multipv: 1,
        move_overhead: 0,
        net: settings.net.clone(),
        params: crate::search::params::Params::default(),
        syzygy: settings.syzygy.clone(),
    };
    // Each position is searched with the game's history, so repetitions count.
    let mut state = GameState::new(game.start.clone());
    let mut evals = Vec::new();
    let mut lines: Vec<(Option<Move>, Vec<Move>)> = Vec::new();
    let nodes = &game.mainline.nodes;
    for i in 0..=nodes.len() {
        let pos = state.pos().clone();
        let (eval, best) = if pos.legal_moves().is_empty() {
            let score = if pos.is_check() { -MATE } else { 0 };
            (Eval::from_score(score, pos.turn()), (None, Vec::new()))
        } else if pos.is_insufficient_material() || state.is_draw(state.history_len()) {
            (Eval::Cp(0), (None, Vec::new()))
        } else {
            let r = search(&state, &settings.limits, &options, &tt, &signals, &Silent);
            (Eval::from_score(r.score, pos.turn()), (r.best, r.pv))
        };
        evals.push(eval);
        lines.push(best);
        progress();
        if let Some(n) = nodes.get(i) {
            state.play(n.mv);
            state.commit();
        }
    }

    let mut moves = Vec::new();
    let mut white = PlayerSummary {
        name: game.tag("White").unwrap_or("White").to_string(),
        ..PlayerSummary::default()
    };
    let mut black = PlayerSummary {
        name: game.tag("Black").unwrap_or("Black").to_string(),
        ..PlayerSummary::default()
    };
    let mut pos = game.start.clone();
    for (i, node) in nodes.iter().enumerate() {
        let mover = pos.turn();
        let before = evals[i];
        let after = evals[i + 1];
        let win_drop = (before.win_percent(mover) - after.win_percent(mover)).max(0.0);
        let cp_loss = (before.cp_for(mover) - after.cp_for(mover)).max(0);
        let (best, pv) = &lines[i];
        let judgement = if *best == Some(node.mv) {
            None
        } else {
            Judgement::from_drop(win_drop)
        };
        let better_moves = if judgement.is_some() {
            legal_prefix(&pos, pv)
        } else {
            Vec::new()
        };
        let better = san_line(&pos, &better_moves);
        let san = shakmaty::san::SanPlus::from_move(pos.clone(), node.mv).to_string();
        let accuracy = move_accuracy(win_drop);
        let p = if mover.is_white() {
            &mut white
        } else {
            &mut black
        };
        p.moves += 1;
        p.acpl += f64::from(cp_loss);
        p.accuracy += accuracy;
        match judgement {
            Some(Judgement::Inaccuracy) => p.inaccuracies += 1,
            Some(Judgement::Mistake) => p.mistakes += 1,
            Some(Judgement::Blunder) => p.blunders += 1,
            None => {}
        }
        moves.push(MoveReport {
            ply: i + 1,
            san,
            mover: if mover.is_white() { "white" } else { "black" }.to_string(),
            eval: after,
            cp_loss,
            win_drop,
            accuracy,
            judgement,
            better,
            better_moves,
        });
        pos.play_unchecked(node.mv);
    }
    for p in [&mut white, &mut black] {
        if p.moves > 0 {
            p.acpl /= p.moves as f64;
            p.accuracy /= p.moves as f64;
        }
    }
    GameReport {
        number,
        white,
        black,
        moves,
        start_eval: evals[0],
    }
}

/// The longest legal start of `pv` from `pos`.
fn legal_prefix(pos: &shakmaty::Chess, pv: &[Move]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &m in pv {
        if !p.is_legal(m) {
            break;
        }
        p.play_unchecked(m);
        out.push(m);
    }
    out
}

/// A line of legal moves in SAN from `pos`.
fn san_line(pos: &shakmaty::Chess, line: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    line.iter()
        .map(|&m| shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut p, m).to_string())
        .collect()
}

/// The game with the analysis written in: `[%eval]` after every move of
/// the main line (none after a checkmate, as lichess does), the judgement's
/// NAG, and the engine's line as a variation where a move was judged.
/// Earlier `[%eval]` annotations are replaced; other comments, NAGs and
/// variations are kept.
pub fn annotate(game: &Game, report: &GameReport) -> Game {
    let mut out = game.clone();
    let mut pos = game.start.clone();
    for (node, m) in out.mainline.nodes.iter_mut().zip(&report.moves) {
        for c in &mut node.comments {
            *c = strip_eval(c);
        }
        node.comments.retain(|c| !c.is_empty());
        let mut after = pos.clone();
        after.play_unchecked(node.mv);
        let mated = after.is_checkmate();
        let mut text = if mated {
            String::new()
        } else {
            format!("[%eval {}]", m.eval.pgn())
        };
        if let Some(j) = m.judgement {
            node.nags.retain(|n| !(1..=6).contains(n));
            node.nags.push(j.nag());
            if let Some(best) = m.better.first() {
                text.push_str(&format!(" {}. {best} was best.", j.name()));
            }
            if let Some(&first) = m.better_moves.first() {
                // A variation already given for the better move (the
                // annotator's own) is kept as written and put first, not
                // shadowed by a second line with the same move.
                let line = match node
                    .variations
                    .iter()
                    .position(|v| v.nodes.first().is_some_and(|n| n.mv == first))
                {
                    Some(i) => node.variations.remove(i),
                    None => Line {
                        comments: Vec::new(),
                        nodes: m.better_moves.iter().map(|&mv| Node::new(mv)).collect(),
                    },
                };
                node.variations.insert(0, line);
            }
        }
        let text = text.trim().to_string();
        if !text.is_empty() {
            node.comments.insert(0, text);
        }
        pos = after;
    }
    out
}

/// A comment without its `[%eval ...]` commands.
fn strip_eval(comment: &str) -> String {
    let mut out = String::new();
    let mut rest = comment;
    while let Some(i) = rest.find("[%eval") {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_and_marks() {
        assert!((win_percent(0) - 50.0).abs() < 1e-9);
        assert!(win_percent(300) > 70.0 && win_percent(300) < 80.0);
        assert!((win_percent(-300) + win_percent(300) - 100.0).abs() < 1e-9);
        assert_eq!(Judgement::from_drop(4.9), None);
        assert_eq!(Judgement::from_drop(5.0), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::from_drop(12.0), Some(Judgement::Mistake));
        assert_eq!(Judgement::from_drop(40.0), Some(Judgement::Blunder));
        assert!((move_accuracy(0.0) - 100.0).abs() < 0.01);
        assert_eq!(Eval::from_score(MATE - 3, Color::Black), Eval::Mate(-2));
        assert_eq!(
            Eval::from_score(-MATE, Color::White),
            Eval::Checkmated(Color::White)
        );
        assert_eq!(
            Eval::Checkmated(Color::Black).win_percent(Color::White),
            100.0
        );
        assert_eq!(Eval::Cp(-17).pgn(), "-0.17");
        assert_eq!(Eval::Mate(-3).pgn(), "#-3");
        assert_eq!(strip_eval("good [%eval 0.31] move"), "good move");
    }

    /// Judges every move of `pgn` a blunder with `better` (UCI) as the line
    /// that was best before the move of ply `at` (1-based).
    fn annotate_with(pgn: &str, at: usize, better: &[&str]) -> Game {
        let game = crate::tools::pgn::read_games(pgn.as_bytes())
            .unwrap()
            .remove(0)
            .unwrap();
        let mut pos = game.start.clone();
        let mut moves = Vec::new();
        for (i, node) in game.mainline.nodes.iter().enumerate() {
            let mut better_moves = Vec::new();
            if i + 1 == at {
                let mut p = pos.clone();
                for uci in better {
                    let mv = uci
                        .parse::<shakmaty::uci::UciMove>()
                        .unwrap()
                        .to_move(&p)
                        .unwrap();
                    p.play_unchecked(mv);
                    better_moves.push(mv);
                }
            }
            moves.push(MoveReport {
                ply: i + 1,
                san: String::new(),
                mover: String::new(),
                eval: Eval::Cp(0),
                cp_loss: 0,
                win_drop: 0.0,
                accuracy: 100.0,
                judgement: (i + 1 == at).then_some(Judgement::Blunder),
                better: better.iter().map(|s| s.to_string()).collect(),
                better_moves,
            });
            pos.play_unchecked(node.mv);
        }
        let report = GameReport {
            number: 1,
            white: PlayerSummary::default(),
            black: PlayerSummary::default(),
            moves,
            start_eval: Eval::Cp(0),
        };
        annotate(&game, &report)
    }

    #[test]
    fn better_line_goes_first_and_never_duplicates_a_given_variation() {
        let pgn = "1. e4 e5 2. Nf3 Qg5 (2... d6 {Philidor} 3. d4) (2... Nc6) *";
        // The engine's line starts with a move the annotator already gave:
        // that variation, comment and all, comes first, once.
        let out = annotate_with(pgn, 4, &["d7d6", "d2d4", "e5d4"]);
        let vars = &out.mainline.nodes[3].variations;
        assert_eq!(vars.len(), 2);
        assert_eq!(vars[0].nodes.len(), 2);
        assert_eq!(vars[0].nodes[0].comments, vec!["Philidor".to_string()]);
        assert_eq!(vars[1].nodes[0].mv.to_string(), "Nb8-c6");
        assert!(out.mainline.nodes[3].nags.contains(&4));
        // A new better move is added in front of the given ones.
        let out = annotate_with(pgn, 4, &["b8c6", "f1b5"]);
        let vars = &out.mainline.nodes[3].variations;
        assert_eq!(vars.len(), 2);
        assert_eq!(
            vars[0].nodes.len(),
            1,
            "the given 2... Nc6 is kept as written"
        );
        let out = annotate_with(pgn, 4, &["g8f6", "f3e5"]);
        let vars = &out.mainline.nodes[3].variations;
        assert_eq!(vars.len(), 3);
        assert_eq!(vars[0].nodes.len(), 2);
        assert!(vars[0].nodes[0].comments.is_empty());
        assert_eq!(vars[1].nodes[0].comments, vec!["Philidor".to_string()]);
    }
}
