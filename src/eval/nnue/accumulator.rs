//! The hidden layer before activation ("accumulator"), one per perspective,
//! updated by the few inputs a move changes rather than recomputed: a quiet
//! move subtracts one row and adds one, a capture subtracts two, castling
//! subtracts two and adds two. The search keeps a stack of them, one per
//! ply, so unmaking a move is a pop. With a mirroring net, a king move
//! across the d/e line changes every input of its side's perspective: that
//! perspective is recomputed from the board instead.

use std::sync::Arc;

use shakmaty::{Board, Chess, Color, Move, Piece, Position, Square};

use super::simd::{add_row, add_sub, add_sub2, sub_row};
use super::{HIDDEN, INPUTS, Network, feature, king_bucket, mirrors, side_index};
use crate::chess::moves::{Delta, delta};

/// Hidden-layer sums for both perspectives (White's, then Black's), and the
/// number of pieces on the board (it picks the output bucket).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Accumulator {
    v: [[i16; HIDDEN]; 2],
    pieces: u8,
}

impl Accumulator {
    /// The sums from `perspective`'s point of view.
    #[inline]
    pub fn side(&self, perspective: Color) -> &[i16; HIDDEN] {
        &self.v[side_index(perspective)]
    }

    /// Pieces on the board, kings included.
    #[inline]
    pub fn pieces(&self) -> u32 {
        u32::from(self.pieces)
    }

    /// Computes both perspectives from scratch.
    pub fn refresh(net: &Network, board: &Board) -> Accumulator {
        let mut acc = Accumulator {
            v: [net.ft_bias; 2],
            pieces: board.occupied().count() as u8,
        };
        for c in Color::ALL {
            acc.v[side_index(c)] = refresh_side(net, board, c);
        }
        acc
    }
}

/// One perspective's sums from scratch.
fn refresh_side(net: &Network, board: &Board, c: Color) -> [i16; HIDDEN] {
    let mirror = mirrors(net.mirror, board.king_of(c));
    let base = king_bucket(net.king_buckets, c, board.king_of(c)) * INPUTS;
    let mut v = net.ft_bias;
    for (square, piece) in board {
        add_row(
            &mut v,
            &net.ft_weights[base + feature(c, piece, square, mirror)],
        );
    }
    v
}

/// Whether the mover's king moves to a square where its perspective sees
/// the board otherwise: across the d/e line of a mirroring net, or into
/// another king bucket.
fn changes_view(net: &Network, d: &Delta, us: Color) -> bool {
    if !net.mirror && net.king_buckets <= 1 {
        return false;
    }
    let king = us.king();
    let from = d.sub.iter().find(|&&(p, _)| p == king).map(|&(_, s)| s);
    let to = d.add.iter().find(|&&(p, _)| p == king).map(|&(_, s)| s);
    let (Some(f), Some(t)) = (from, to) else {
        return false;
    };
    mirrors(net.mirror, Some(f)) != mirrors(net.mirror, Some(t))
        || king_bucket(net.king_buckets, us, Some(f)) != king_bucket(net.king_buckets, us, Some(t))
}

/// `dst = src + Σ adds − Σ subs` (castling, or anything else).
fn apply<'a>(
    dst: &mut [i16; HIDDEN],
    src: &[i16; HIDDEN],
    adds: impl Iterator<Item = &'a [i16; HIDDEN]>,
    subs: impl Iterator<Item = &'a [i16; HIDDEN]>,
) {
    *dst = *src;
    for a in adds {
        add_row(dst, a);
    }
    for s in subs {
        sub_row(dst, s);
    }
}

/// The accumulators of the positions along the current line, for one net.
#[derive(Clone)]
pub struct AccumulatorStack {
    net: Arc<Network>,
    /// Slots `..=top` hold the line; slots above it are left from earlier
    /// lines and reused, so a push writes its slot once instead of copying
    /// the parent there first.
    stack: Vec<Accumulator>,
    top: usize,
    /// Where a perspective is recomputed when its king changes view.
    cache: RefreshCache,
}

/// A refresh cache (Stockfish's "Finny table"): for each perspective, king
/// bucket and mirror state, the sums last computed there and the board they
/// were computed for. A perspective whose king changes view starts from its
/// entry and adds and removes only the pieces that differ, instead of
/// summing every piece again; the integer sums come out the same.
#[derive(Clone)]
struct RefreshCache {
    entries: Vec<([i16; HIDDEN], Board)>,
}

impl RefreshCache {
    fn new(net: &Network) -> RefreshCache {
        RefreshCache {
            entries: vec![(net.ft_bias, Board::empty()); 2 * net.king_buckets * 2],
        }
    }

    /// Perspective `c`'s sums for `board`, through its cache entry.
    fn refresh(&mut self, net: &Network, board: &Board, c: Color) -> [i16; HIDDEN] {
        let king = board.king_of(c);
        let mirror = mirrors(net.mirror, king);
        let bucket = king_bucket(net.king_buckets, c, king);
        let index = (side_index(c) * net.king_buckets + bucket) * 2 + usize::from(mirror);
        let Some((sums, seen)) = self.entries.get_mut(index) else {
            return refresh_side(net, board, c);
        };
        let base = bucket * INPUTS;
        for color in Color::ALL {
            for role in shakmaty::Role::ALL {
                let now = board.by_color(color) & board.by_role(role);
                let before = seen.by_color(color) & seen.by_role(role);
                let piece = role.of(color);
                for square in now & !before {
                    add_row(
                        sums,
                        &net.ft_weights[base + feature(c, piece, square, mirror)],
                    );
                }
                for square in before & !now {
                    sub_row(
                        sums,
                        &net.ft_weights[base + feature(c, piece, square, mirror)],
                    );
                }
            }
        }
        *seen = board.clone();
        *sums
    }
}

impl AccumulatorStack {
    /// A stack holding the accumulator of `board`.
    pub fn new(net: Arc<Network>, board: &Board) -> AccumulatorStack {
        let mut stack = Vec::with_capacity(256);
        stack.push(Accumulator::refresh(&net, board));
        let cache = RefreshCache::new(&net);
        AccumulatorStack {
            net,
            stack,
            top: 0,
            cache,
        }
    }

    /// The net these accumulators belong to.
    pub fn net(&self) -> &Network {
        &self.net
    }

    /// The accumulator of the current position.
    #[inline]
    pub fn current(&self) -> &Accumulator {
        // `top` is always a written slot: `new` writes 0 and `push` the next.
        &self.stack[self.top]
    }

    /// The network's evaluation of the current position for `stm`.
    #[inline]
    pub fn evaluate(&self, stm: Color) -> i32 {
        self.net.evaluate(self.current(), stm)
    }

    /// Pushes the accumulator of the position after `m`; `pos` is the
    /// position before it (the move must be legal there).
    pub fn push(&mut self, pos: &Chess, m: Move) {
        let us = pos.turn();
        let d = delta(us, m);
        // The child is written in place in the slot above its parent
        // (the accumulators are hundreds of bytes: no copies). Every
        // branch below writes every sum of both perspectives.
        let top = self.top;
        if self.stack.len() == top + 1 {
            self.stack.push(self.stack[top]);
        }
        self.top = top + 1;
        let (below, above) = self.stack.split_at_mut(top + 1);
        let parent = &below[top];
        let next = &mut above[0];
        // A capture takes one piece off (a promotion swaps one for another).
        next.pieces = (parent.pieces as usize + d.add.len()).saturating_sub(d.sub.len()) as u8;
        for c in Color::ALL {
            let mirror = mirrors(self.net.mirror, pos.board().king_of(c));
            if c == us && changes_view(&self.net, &d, us) {
                let mut after = pos.board().clone();
                for &(_, s) in &d.sub {
                    after.discard_piece_at(s);
                }
                for &(p, s) in &d.add {
                    after.set_piece_at(s, p);
                }
                next.v[side_index(c)] = self.cache.refresh(&self.net, &after, c);
                continue;
            }
            let base = king_bucket(self.net.king_buckets, c, pos.board().king_of(c)) * INPUTS;
            let row =
                |&(p, s): &(Piece, Square)| &self.net.ft_weights[base + feature(c, p, s, mirror)];
            let i = side_index(c);
            let (dst, src) = (&mut next.v[i], &parent.v[i]);
            match (d.add.as_slice(), d.sub.as_slice()) {
                ([a], [s]) => add_sub(dst, src, row(a), row(s)),
                ([a], [s1, s2]) => add_sub2(dst, src, row(a), row(s1), row(s2)),
                _ => apply(dst, src, d.add.iter().map(row), d.sub.iter().map(row)),
            }
        }
    }

    /// Returns to the position before the last [`push`](Self::push).
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }
}
