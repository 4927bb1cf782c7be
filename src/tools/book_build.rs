//! Building a Polyglot opening book from PGN games the way Polyglot's
//! `make-book` does (`ferrum book build`); the format and reading it are
//! [`crate::uci::book`].

use std::collections::BTreeMap;

use shakmaty::{Color, Position};

use crate::tools::pgn::Game;
use crate::uci::book::{Book, Entry, encode_move, key};

/// Builds a book from games as Polyglot's `make-book` does: every move of
/// the first `max_ply` plies of each game's main line, weighted 2 per game
/// its side won and 1 per draw (or unfinished game); moves seen in fewer than `min_games` games,
/// or that never scored, are left out. Weights are scaled down together if
/// the heaviest would not fit 16 bits.
pub fn build<'g>(
    games: impl IntoIterator<Item = &'g Game>,
    max_ply: usize,
    min_games: u32,
) -> Book {
    // (key, move) -> (games, score in half points for the mover)
    let mut counts: BTreeMap<(u64, u16), (u32, u64)> = BTreeMap::new();
    for game in games {
        // An unfinished game (`*`) counts as a draw, as in make-book.
        let points = match game.result.as_str() {
            "1-0" => Some(Color::White),
            "0-1" => Some(Color::Black),
            _ => None,
        };
        let mut pos = game.start.clone();
        for node in game.mainline.nodes.iter().take(max_ply) {
            let score = match points {
                Some(winner) if winner == pos.turn() => 2,
                Some(_) => 0,
                None => 1,
            };
            let c = counts.entry((key(&pos), encode_move(node.mv))).or_default();
            c.0 += 1;
            c.1 += score;
            pos.play_unchecked(node.mv);
        }
    }
    let kept: Vec<((u64, u16), u64)> = counts
        .into_iter()
        .filter(|&(_, (n, score))| n >= min_games.max(1) && score > 0)
        .map(|(k, (_, score))| (k, score))
        .collect();
    let heaviest = kept.iter().map(|&(_, s)| s).max().unwrap_or(0);
    let scale = heaviest.div_ceil(u64::from(u16::MAX)).max(1);
    let entries: Vec<Entry> = kept
        .into_iter()
        .map(|((key, mv), score)| Entry {
            key,
            mv,
            weight: (score / scale).clamp(1, u64::from(u16::MAX)) as u16,
            learn: 0,
        })
        .collect();
    Book::from_entries(entries)
}
