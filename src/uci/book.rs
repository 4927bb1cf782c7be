//! Opening books in the Polyglot `.bin` format: reading and choosing a
//! move (weighted at random), for `OwnBook`. Building one from games is a
//! tool (`tools::book_build`).
//!
//! Format: 16-byte big-endian entries sorted by key: position key (u64,
//! Polyglot's Zobrist hash, which shakmaty computes), move (u16), weight
//! (u16), learn (u32). A move packs to-file (bits 0-2), to-rank (3-5),
//! from-file (6-8), from-rank (9-11) and promotion (12-14: none, knight,
//! bishop, rook, queen); castling is written as the king taking its rook.

use std::path::Path;

use rand::{Rng, RngExt};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role};

/// One book entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub mv: u16,
    pub weight: u16,
    pub learn: u32,
}

/// A book in memory, its entries sorted by key.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: Vec<Entry>,
}

/// The Polyglot key of a position (en passant counts when a pawn stands
/// beside the pawn that just made its double step, as the format says).
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// Packs a move as Polyglot does.
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = match m {
        // King takes its own rook, as in Chess960 notation.
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    };
    let promo = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    (u16::from(to.file()) | (u16::from(to.rank()) << 3))
        | ((u16::from(from.file()) | (u16::from(from.rank()) << 3)) << 6)
        | (promo << 12)
}

/// The legal move of `pos` that packs to `raw`, if any.
pub fn decode_move(pos: &Chess, raw: u16) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .find(|&m| encode_move(m) == raw)
}

impl Book {
    /// A book of `entries`, sorted here by key and, within a key, heaviest
    /// first (as Polyglot's `make-book` writes them).
    pub fn from_entries(mut entries: Vec<Entry>) -> Book {
        entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)));
        Book { entries }
    }

    /// Reads a book file's bytes; refuses a size that is not a whole number
    /// of entries and entries out of key order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if !bytes.len().is_multiple_of(16) {
            return Err(format!(
                "{} bytes is not a whole number of 16-byte Polyglot entries",
                bytes.len()
            ));
        }
        let entries: Vec<Entry> = bytes
            .chunks_exact(16)
            .map(|c| Entry {
                key: u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
                mv: u16::from_be_bytes([c[8], c[9]]),
                weight: u16::from_be_bytes([c[10], c[11]]),
                learn: u32::from_be_bytes([c[12], c[13], c[14], c[15]]),
            })
            .collect();
        if entries.windows(2).any(|w| w[0].key > w[1].key) {
            return Err("entries are not sorted by key: not a Polyglot book".to_string());
        }
        Ok(Book { entries })
    }

    /// Reads a book file.
    pub fn load(path: &Path) -> Result<Book, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Book::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * 16);
        for e in &self.entries {
            out.extend_from_slice(&e.key.to_be_bytes());
            out.extend_from_slice(&e.mv.to_be_bytes());
            out.extend_from_slice(&e.weight.to_be_bytes());
            out.extend_from_slice(&e.learn.to_be_bytes());
        }
        out
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The raw entries of a key.
    pub fn entries(&self, key: u64) -> &[Entry] {
        let from = self.entries.partition_point(|e| e.key < key);
        let to = self.entries.partition_point(|e| e.key <= key);
        &self.entries[from..to]
    }

    /// The book's legal moves in `pos` with their weights, heaviest first.
    pub fn moves(&self, pos: &Chess) -> Vec<(Move, u16)> {
        let mut out: Vec<(Move, u16)> = self
            .entries(key(pos))
            .iter()
            .filter_map(|e| decode_move(pos, e.mv).map(|m| (m, e.weight)))
            .collect();
        out.sort_by_key(|&(_, w)| std::cmp::Reverse(w));
        out
    }

    /// A book move for `pos`, chosen at random in proportion to the
    /// weights; `None` when the book has no legal move of weight above 0.
    pub fn pick(&self, pos: &Chess, rng: &mut impl Rng) -> Option<(Move, u16, u32)> {
        let moves = self.moves(pos);
        let total: u32 = moves.iter().map(|&(_, w)| u32::from(w)).sum();
        if total == 0 {
            return None;
        }
        let mut r = rng.random_range(0..total);
        for (m, w) in moves {
            if r < u32::from(w) {
                return Some((m, w, total));
            }
            r -= u32::from(w);
        }
        None
    }
}

/// A position's book entries as text, for `ferrum book show`.
pub fn describe(book: &Book, pos: &Chess) -> String {
    let moves = book.moves(pos);
    let total: u32 = moves.iter().map(|&(_, w)| u32::from(w)).sum();
    let mut out = format!("key {:016x}: {} book moves\n", key(pos), moves.len());
    for (m, w) in moves {
        let san = shakmaty::san::San::from_move(pos, m);
        let uci = m.to_uci(CastlingMode::Standard);
        out.push_str(&format!(
            "  {:<8} {:<6} weight {:5}  {:5.1}%\n",
            san.to_string(),
            uci.to_string(),
            w,
            100.0 * f64::from(w) / f64::from(total.max(1))
        ));
    }
    out
}
