//! PGN games as trees: read with `pgn-reader` (the PGN parser of shakmaty's
//! author), every move checked legal, and written back with comments, NAGs
//! and variations kept. `ferrum analyse` reads games with it and adds its
//! own annotations.

use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus as San;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// One game: its tags, start position and move tree.
#[derive(Clone, Debug)]
pub struct Game {
    /// Tag pairs in the order read.
    pub tags: Vec<(String, String)>,
    /// The position before the first move (the `FEN` tag or the start).
    pub start: Chess,
    pub mainline: Line,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// A sequence of moves, with the comments written before its first move.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub comments: Vec<String>,
    pub nodes: Vec<Node>,
}

/// One move with what follows it in the PGN.
#[derive(Clone, Debug)]
pub struct Node {
    /// The move, legal in the position before it.
    pub mv: Move,
    /// Numeric annotation glyphs (`$2` is `?`).
    pub nags: Vec<u8>,
    /// Comments after the move.
    pub comments: Vec<String>,
    /// Alternatives to this move, each from the position before it.
    pub variations: Vec<Line>,
}

impl Node {
    pub fn new(mv: Move) -> Node {
        Node {
            mv,
            nags: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        }
    }
}

impl Game {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A game read from a PGN file: the game, or why it was refused.
pub type ReadResult = Result<Game, String>;

/// Reads every game of a PGN text. A game with an illegal move or a bad
/// `FEN` tag comes back as an error; the games after it are still read.
pub fn read_games(input: impl Read) -> io::Result<Vec<ReadResult>> {
    let mut reader = Reader::new(input);
    let mut builder = Builder;
    let mut games = Vec::new();
    while let Some(g) = reader.read_game(&mut builder)? {
        games.push(g);
    }
    Ok(games)
}

struct Builder;

/// Tags as read, before the start position is known.
struct Tags(Vec<(String, String)>);

/// One open line while reading: the line, the position at its end and the
/// position before its last move (where a variation of that move starts).
struct Frame {
    line: Line,
    pos: Chess,
    before_last: Chess,
}

struct Movetext {
    tags: Vec<(String, String)>,
    start: Chess,
    stack: Vec<Frame>,
    result: String,
}

impl Visitor for Builder {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = ReadResult;

    fn begin_tags(&mut self) -> ControlFlow<ReadResult, Tags> {
        ControlFlow::Continue(Tags(Vec::new()))
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<ReadResult> {
        tags.0.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<ReadResult, Movetext> {
        let tags = tags.0;
        let find = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let chess960 = find("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let start = match find("FEN") {
            None => Chess::default(),
            Some(text) => match text
                .parse::<Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| f.into_position(mode).map_err(|e| e.to_string()))
            {
                Ok(pos) => pos,
                Err(e) => return ControlFlow::Break(Err(format!("bad FEN tag '{text}': {e}"))),
            },
        };
        let result = find("Result").unwrap_or_else(|| "*".to_string());
        ControlFlow::Continue(Movetext {
            tags,
            start: start.clone(),
            stack: vec![Frame {
                line: Line::default(),
                pos: start.clone(),
                before_last: start,
            }],
            result,
        })
    }

    fn san(&mut self, mt: &mut Movetext, san: SanPlus) -> ControlFlow<ReadResult> {
        let depth = mt.stack.len();
        let Some(frame) = mt.stack.last_mut() else {
            return ControlFlow::Continue(());
        };
        match san.san.to_move(&frame.pos) {
            Ok(m) => {
                frame.before_last = frame.pos.clone();
                frame.pos.play_unchecked(m);
                frame.line.nodes.push(Node::new(m));
                ControlFlow::Continue(())
            }
            Err(e) => {
                let place = if depth == 1 {
                    format!("move {}", move_number(&frame.pos))
                } else {
                    "in a variation".to_string()
                };
                ControlFlow::Break(Err(format!("illegal move {san} ({place}): {e}")))
            }
        }
    }

    fn nag(&mut self, mt: &mut Movetext, nag: Nag) -> ControlFlow<ReadResult> {
        if let Some(n) = mt.stack.last_mut().and_then(|f| f.line.nodes.last_mut()) {
            n.nags.push(nag.0);
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<ReadResult> {
        let text = String::from_utf8_lossy(comment.as_bytes())
            .trim()
            .to_string();
        if let Some(frame) = mt.stack.last_mut() {
            match frame.line.nodes.last_mut() {
                Some(n) => n.comments.push(text),
                None => frame.line.comments.push(text),
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, mt: &mut Movetext) -> ControlFlow<ReadResult, Skip> {
        // A variation is an alternative to the last move of the open line.
        let Some(frame) = mt.stack.last() else {
            return ControlFlow::Continue(Skip(true));
        };
        if frame.line.nodes.is_empty() {
            return ControlFlow::Continue(Skip(true));
        }
        let from = frame.before_last.clone();
        mt.stack.push(Frame {
            line: Line::default(),
            pos: from.clone(),
            before_last: from,
        });
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, mt: &mut Movetext) -> ControlFlow<ReadResult> {
        if mt.stack.len() > 1
            && let Some(done) = mt.stack.pop()
            && let Some(n) = mt.stack.last_mut().and_then(|f| f.line.nodes.last_mut())
        {
            n.variations.push(done.line);
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: Outcome) -> ControlFlow<ReadResult> {
        mt.result = outcome.as_str().to_string();
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut mt: Movetext) -> ReadResult {
        // Unclosed variations are closed at the end of the game.
        while mt.stack.len() > 1 {
            let _ = self.end_variation(&mut mt);
        }
        let mainline = mt.stack.pop().map(|f| f.line).unwrap_or_default();
        Ok(Game {
            tags: mt.tags,
            start: mt.start,
            mainline,
            result: mt.result,
        })
    }
}

/// The number of the move about to be played in `pos`: "12." or "12...".
fn move_number(pos: &Chess) -> String {
    let n = pos.fullmoves();
    if pos.turn().is_white() {
        format!("{n}.")
    } else {
        format!("{n}...")
    }
}

/// Writes a game as PGN: its tags in the order read, then the movetext
/// (export style: NAGs as `$n`) wrapped at 80 columns.
pub fn write_game(game: &Game) -> String {
    let mut out = String::new();
    for (name, value) in &game.tags {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    out.push('\n');
    let mut tokens = Vec::new();
    line_tokens(&game.mainline, &game.start, &mut tokens);
    tokens.push(game.result.clone());
    let mut col = 0;
    for t in tokens {
        if col > 0 && col + 1 + t.len() > 80 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        col += t.len();
        out.push_str(&t);
    }
    out.push_str("\n\n");
    out
}

/// The tokens of one line from `pos`: move numbers, moves, NAGs,
/// comments and variations.
fn line_tokens(line: &Line, pos: &Chess, out: &mut Vec<String>) {
    for c in &line.comments {
        out.push(comment_token(c));
    }
    let mut pos = pos.clone();
    // After a comment or a variation, a black move repeats its number.
    let mut need_number = true;
    for node in &line.nodes {
        let number = pos.fullmoves();
        if pos.turn().is_white() {
            out.push(format!("{number}."));
        } else if need_number {
            out.push(format!("{number}..."));
        }
        let before = pos.clone();
        let san = San::from_move_and_play_unchecked(&mut pos, node.mv);
        out.push(san.to_string());
        need_number = false;
        for nag in &node.nags {
            out.push(Nag(*nag).to_string());
        }
        for c in &node.comments {
            out.push(comment_token(c));
            need_number = true;
        }
        for v in &node.variations {
            let mut inner = Vec::new();
            line_tokens(v, &before, &mut inner);
            if let Some(first) = inner.first_mut() {
                first.insert(0, '(');
            }
            if let Some(last) = inner.last_mut() {
                last.push(')');
            }
            out.extend(inner);
            need_number = true;
        }
    }
}

fn comment_token(text: &str) -> String {
    // A `}` would end the comment early.
    format!("{{{}}}", text.replace('}', ")"))
}
