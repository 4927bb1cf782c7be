//! Game state for the search: a shakmaty position, its Zobrist key kept
//! incrementally on every move, and the key history needed to detect
//! repetitions.
//!
//! The key uses shakmaty's (Polyglot's) Zobrist numbers with the en passant
//! file hashed only when an en passant capture is legal
//! (`EnPassantMode::Legal`), so it always equals
//! `pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal)`. Quiet moves and
//! captures go through `Position::update_zobrist_hash`; the moves it declines
//! (king moves, castling, en passant, double pushes, moves touching castling
//! squares, any move from a position with an en passant square) are hashed
//! here, so the search never recomputes a key from scratch.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Move, Position, Role,
    Square,
};

/// A hash of both sides' pawns (not of the side to move), for the search's
/// tables learnt per pawn structure (evaluation corrections, the pawn
/// history); they index by its top bits.
#[inline]
pub fn pawn_hash(board: &shakmaty::Board) -> u64 {
    let white = (board.pawns() & board.white()).0;
    let black = (board.pawns() & board.black()).0;
    white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// One saved ply, restored by [`GameState::undo`].
#[derive(Clone)]
struct Undo {
    pos: Chess,
    checkers: Bitboard,
    key: u64,
    ep_file: Option<File>,
    reversible: u32,
}

/// A position with its incremental Zobrist key and the keys of the positions
/// before it (since the start of the game or the last `position` command).
#[derive(Clone)]
pub struct GameState {
    pos: Chess,
    /// The pieces giving check to the side to move, found once a move
    /// (the search asks several times a node).
    checkers: Bitboard,
    key: u64,
    /// The en passant file hashed into `key`, if any.
    ep_file: Option<File>,
    /// Plies since the last move that makes a repetition impossible
    /// (capture, pawn move, null move).
    reversible: u32,
    /// Keys of all positions before the current one, oldest first.
    keys: Vec<u64>,
    undo: Vec<Undo>,
}

impl GameState {
    /// Wraps a position; the key is computed from scratch once here.
    pub fn new(pos: Chess) -> GameState {
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let ep_file = pos.ep_square(EnPassantMode::Legal).map(Square::file);
        let reversible = pos.halfmoves();
        GameState {
            checkers: pos.checkers(),
            pos,
            key,
            ep_file,
            reversible,
            keys: Vec::with_capacity(256),
            undo: Vec::with_capacity(256),
        }
    }

    /// The current position.
    #[inline]
    pub fn pos(&self) -> &Chess {
        &self.pos
    }

    /// The position before the last move played, if one was.
    #[inline]
    pub fn previous_pos(&self) -> Option<&Chess> {
        self.undo.last().map(|u| &u.pos)
    }

    /// The Zobrist key of the current position.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.pos.turn()
    }

    /// The castling mode (standard or Chess960) of the position.
    pub fn castling_mode(&self) -> CastlingMode {
        self.pos.castles().mode()
    }

    /// Number of positions in the history (game moves plus search moves).
    #[inline]
    pub fn history_len(&self) -> usize {
        self.keys.len()
    }

    /// Halfmove clock for the fifty-move rule.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }

    /// XORs the pieces that `m` moves, captures and promotes, the side to
    /// move and the old en passant file out of `key` (before `m` is played).
    fn moved_pieces_key(&self, m: Move) -> Zobrist64 {
        let us = self.pos.turn();
        let mut k = Zobrist64(self.key);
        k ^= Zobrist64::zobrist_for_white_turn();
        if let Some(file) = self.ep_file {
            k ^= Zobrist64::zobrist_for_en_passant_file(file);
        }
        let d = crate::chess::moves::delta(us, m);
        for &(piece, square) in d.sub.iter().chain(&d.add) {
            k ^= Zobrist64::zobrist_for_piece(square, piece);
        }
        k
    }

    /// Plays a legal move (legality is the caller's promise, as with
    /// `Position::play_unchecked`) and updates the key incrementally.
    pub fn play(&mut self, m: Move) {
        self.play_with_key(m, |_| ());
    }

    /// [`play`](Self::play), calling `on_key` with the new position's key as
    /// soon as it is known, before the position itself is updated (the
    /// search prefetches the child's table entry with it, so that the
    /// memory access overlaps the rest of the move).
    #[inline]
    pub fn play_with_key(&mut self, m: Move, on_key: impl FnMut(u64)) {
        self.play_and_hash(m, on_key);
        self.checkers = self.pos.checkers();
    }

    /// [`play_with_key`](Self::play_with_key) but for the checkers.
    #[inline]
    fn play_and_hash(&mut self, m: Move, mut on_key: impl FnMut(u64)) {
        // shakmaty only updates moves that leave no en passant square.
        let quick = self
            .pos
            .update_zobrist_hash(Zobrist64(self.key), m, EnPassantMode::Legal);
        if let Some(k) = quick {
            on_key(k.0);
        }
        self.undo.push(Undo {
            pos: self.pos.clone(),
            checkers: self.checkers,
            key: self.key,
            ep_file: self.ep_file,
            reversible: self.reversible,
        });
        self.keys.push(self.key);
        self.reversible = if m.is_zeroing() {
            0
        } else {
            self.reversible + 1
        };
        if let Some(k) = quick {
            self.pos.play_unchecked(m);
            self.key = k.0;
            self.ep_file = None;
            return;
        }
        let mut k = self.moved_pieces_key(m);
        self.pos.play_unchecked(m);
        if let Some(prev) = self.undo.last() {
            let before = prev.pos.castles();
            let now = self.pos.castles();
            if before.castling_rights() != now.castling_rights() {
                for color in Color::ALL {
                    for side in CastlingSide::ALL {
                        if before.has(color, side) != now.has(color, side) {
                            k ^= Zobrist64::zobrist_for_castling_right(color, side);
                        }
                    }
                }
            }
        }
        self.ep_file = if self.pos.maybe_ep_square().is_some() {
            self.pos.ep_square(EnPassantMode::Legal).map(Square::file)
        } else {
            None
        };
        if let Some(file) = self.ep_file {
            k ^= Zobrist64::zobrist_for_en_passant_file(file);
        }
        self.key = k.0;
        on_key(self.key);
    }

    /// Passes the move to the opponent (for null-move pruning). Returns
    /// false, changing nothing, when the side to move is in check.
    pub fn play_null(&mut self) -> bool {
        if self.in_check() {
            return false;
        }
        let mut setup = self.pos.to_setup(EnPassantMode::Always);
        setup.swap_turn();
        setup.ep_square = None;
        let Ok(after) = setup.position::<Chess>(self.castling_mode()) else {
            return false;
        };
        let mut k = Zobrist64(self.key) ^ Zobrist64::zobrist_for_white_turn();
        if let Some(file) = self.ep_file {
            k ^= Zobrist64::zobrist_for_en_passant_file(file);
        }
        let before = std::mem::replace(&mut self.pos, after);
        self.undo.push(Undo {
            pos: before,
            checkers: std::mem::replace(&mut self.checkers, self.pos.checkers()),
            key: self.key,
            ep_file: self.ep_file,
            reversible: self.reversible,
        });
        self.keys.push(self.key);
        self.key = k.0;
        self.ep_file = None;
        self.reversible = 0;
        true
    }

    /// Takes back the last move or null move. Returns false when there is
    /// nothing to take back.
    pub fn undo(&mut self) -> bool {
        let Some(u) = self.undo.pop() else {
            return false;
        };
        self.keys.pop();
        self.pos = u.pos;
        self.checkers = u.checkers;
        self.key = u.key;
        self.ep_file = u.ep_file;
        self.reversible = u.reversible;
        true
    }

    /// Forgets the undo stack (not the key history): game moves played by
    /// the `position` command need no undo, only their keys.
    pub fn commit(&mut self) {
        self.undo.clear();
    }

    /// Whether the current position repeats an earlier one. A repetition of
    /// a position reached after the search root (`root_len` is the history
    /// length at the root) is enough; positions from the game before the
    /// root must occur twice (threefold repetition).
    pub fn is_repetition(&self, root_len: usize) -> bool {
        let n = self.keys.len();
        let reach = (self.reversible as usize).min(n);
        let mut seen = 0;
        let mut back = 4;
        while back <= reach {
            let idx = n - back;
            if self.keys[idx] == self.key {
                if idx >= root_len {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    /// Draw by the fifty-move rule, insufficient material or repetition.
    /// A fifty-move count that ends in checkmate is not a draw.
    pub fn is_draw(&self, root_len: usize) -> bool {
        if self.pos.halfmoves() >= 100 && !(self.in_check() && self.pos.legal_moves().is_empty()) {
            return true;
        }
        self.is_repetition(root_len) || self.pos.is_insufficient_material()
    }

    /// The role of the piece on a square, if any.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.pos.board().role_at(sq)
    }
}
