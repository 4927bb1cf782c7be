//! The evaluation terms, each written once. They do not compute a score:
//! they tell a [`Sink`] how many times each weight applies to each side
//! (`add(color, index, count)`). The engine's sink multiplies by the
//! weights as it goes; the tuner's sink records the counts (the trace).

use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square, attacks};

use super::layout::*;

/// Receives the coefficient of each weight for one side.
pub trait Sink {
    fn add(&mut self, color: Color, index: usize, count: i32);
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

#[inline]
fn bb(b: Bitboard) -> u64 {
    b.0
}

#[inline]
fn file_mask(file: u32) -> u64 {
    FILE_A << file
}

#[inline]
fn adjacent_files(file: u32) -> u64 {
    let mut m = 0;
    if file > 0 {
        m |= file_mask(file - 1);
    }
    if file < 7 {
        m |= file_mask(file + 1);
    }
    m
}

/// The ranks strictly in front of `rank` for `color`.
#[inline]
fn ranks_ahead(color: Color, rank: u32) -> u64 {
    match color {
        Color::White if rank < 7 => !0u64 << (8 * (rank + 1)),
        Color::Black => (1u64 << (8 * rank)) - 1,
        _ => 0,
    }
}

/// Rank from `color`'s own side: 0 is its back rank.
#[inline]
fn relative_rank(color: Color, sq: Square) -> u32 {
    match color {
        Color::White => sq.rank() as u32,
        Color::Black => 7 - sq.rank() as u32,
    }
}

/// Piece-square index of a square seen from `color`'s side: relative rank
/// times 4 plus the file folded onto a-d.
#[inline]
fn psqt_index(color: Color, sq: Square) -> usize {
    let file = sq.file() as usize;
    relative_rank(color, sq) as usize * 4 + file.min(7 - file)
}

/// Squares attacked by the pawns of one side.
#[inline]
fn pawn_attacks(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !file_mask(0)) << 7) | ((pawns & !file_mask(7)) << 9),
        Color::Black => ((pawns & !file_mask(0)) >> 9) | ((pawns & !file_mask(7)) >> 7),
    }
}

/// Attack maps of both sides, computed once and shared by the terms.
struct Attacks {
    pawn: [u64; 2],
    /// By knights and bishops.
    minor: [u64; 2],
    rook: [u64; 2],
    /// Everything a side attacks, king included.
    all: [u64; 2],
}

/// The side's index into per-colour arrays.
#[inline]
fn ci(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Phase of the position: 24 with every piece on the board, 0 with pawns
/// and kings only.
pub fn phase(board: &Board) -> i32 {
    let n = (board.knights() | board.bishops()).count() as i32;
    let r = board.rooks().count() as i32;
    let q = board.queens().count() as i32;
    (n + 2 * r + 4 * q).min(24)
}

/// Feeds every term of `pos` to `sink`. The tempo goes to the side to move.
pub fn terms<S: Sink>(pos: &Chess, sink: &mut S) {
    let board = pos.board();
    let occ = bb(board.occupied());
    let pawns = [
        bb(board.pawns() & board.white()),
        bb(board.pawns() & board.black()),
    ];
    let mut at = Attacks {
        pawn: [
            pawn_attacks(Color::White, pawns[0]),
            pawn_attacks(Color::Black, pawns[1]),
        ],
        minor: [0; 2],
        rook: [0; 2],
        all: [0; 2],
    };
    let kings = [
        board.king_of(Color::White).unwrap_or(Square::E1),
        board.king_of(Color::Black).unwrap_or(Square::E8),
    ];
    // Mobility, king-zone attacks and safe checks need the enemy's attacks
    // first: collect every piece's attacks, then score.
    let mut piece_attacks: [[(Square, Role, u64); 16]; 2] = [[(Square::A1, Role::Pawn, 0); 16]; 2];
    let mut counts = [0usize; 2];
    for color in Color::ALL {
        let c = ci(color);
        let us = board.by_color(color);
        at.all[c] = at.pawn[c] | bb(attacks::king_attacks(kings[c]));
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for sq in board.by_role(role) & us {
                let a = bb(attacks::attacks(sq, role.of(color), board.occupied()));
                match role {
                    Role::Knight | Role::Bishop => at.minor[c] |= a,
                    Role::Rook => at.rook[c] |= a,
                    _ => {}
                }
                at.all[c] |= a;
                if counts[c] < 16 {
                    piece_attacks[c][counts[c]] = (sq, role, a);
                    counts[c] += 1;
                }
            }
        }
    }

    // Pawn-only terms (a pawn-structure cache keyed by the pawns was tried
    // and gave no measurable speed: see docs/tuning.md).
    let passed = [
        pawn_terms(Color::White, &pawns, &at, sink),
        pawn_terms(Color::Black, &pawns, &at, sink),
    ];

    for color in Color::ALL {
        let c = ci(color);
        let them = !color;
        let t = ci(them);
        let us = bb(board.by_color(color));
        let enemy = bb(board.by_color(them));

        // Material and piece-square tables.
        for role in Role::ALL {
            let r = role as usize - 1;
            for sq in board.by_role(role) & board.by_color(color) {
                if role != Role::King {
                    sink.add(color, MATERIAL + r, 1);
                }
                sink.add(color, PSQT + r * 32 + psqt_index(color, sq), 1);
            }
        }

        // Pieces: mobility, outposts, rooks on files, king attacks, threats.
        let safe = !us & !at.pawn[t];
        let their_zone = bb(attacks::king_attacks(kings[t])) | (1u64 << kings[t] as u32);
        let their_king = kings[t];
        let check_knight = bb(attacks::knight_attacks(their_king));
        let check_bishop = bb(attacks::bishop_attacks(their_king, board.occupied()));
        let check_rook = bb(attacks::rook_attacks(their_king, board.occupied()));
        let safe_check = !us & !at.all[t];
        for &(sq, role, a) in &piece_attacks[c][..counts[c]] {
            let reach = (a & safe).count_ones() as usize;
            let (mob, attacker, checks) = match role {
                Role::Knight => (MOBILITY_KNIGHT + reach.min(8), 0, check_knight),
                Role::Bishop => (MOBILITY_BISHOP + reach.min(13), 1, check_bishop),
                Role::Rook => (MOBILITY_ROOK + reach.min(14), 2, check_rook),
                _ => (MOBILITY_QUEEN + reach.min(27), 3, check_bishop | check_rook),
            };
            sink.add(color, mob, 1);
            let zone = (a & their_zone).count_ones() as i32;
            if zone > 0 {
                sink.add(color, KING_ZONE + attacker, zone);
            }
            let checks = (a & checks & safe_check).count_ones() as i32;
            if checks > 0 {
                sink.add(color, SAFE_CHECK + attacker, checks);
            }
            let file = sq.file() as u32;
            let rank = relative_rank(color, sq);
            match role {
                Role::Knight | Role::Bishop => {
                    let sqb = 1u64 << sq as u32;
                    let no_enemy_pawn_can_attack =
                        pawns[t] & adjacent_files(file) & ranks_ahead(color, sq.rank() as u32) == 0;
                    if (3..=5).contains(&rank) && at.pawn[c] & sqb != 0 && no_enemy_pawn_can_attack
                    {
                        let idx = if role == Role::Knight {
                            KNIGHT_OUTPOST
                        } else {
                            BISHOP_OUTPOST
                        };
                        sink.add(color, idx, 1);
                    }
                }
                Role::Rook => {
                    let f = file_mask(file);
                    if (pawns[0] | pawns[1]) & f == 0 {
                        sink.add(color, ROOK_OPEN_FILE, 1);
                    } else if pawns[c] & f == 0 {
                        sink.add(color, ROOK_SEMI_OPEN_FILE, 1);
                    }
                    if rank == 6 {
                        sink.add(color, ROOK_SEVENTH, 1);
                    }
                }
                _ => {}
            }
        }
        if (board.bishops() & board.by_color(color)).count() >= 2 {
            sink.add(color, BISHOP_PAIR, 1);
        }

        // Threats against the enemy's pieces (pawns excluded as victims of pawns).
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            let victims = bb(board.by_role(role)) & enemy;
            let r = role as usize - 1;
            let n = (victims & at.pawn[c]).count_ones() as i32;
            if n > 0 {
                sink.add(color, THREAT_BY_PAWN + r, n);
            }
            if matches!(role, Role::Rook | Role::Queen) {
                let n = (victims & at.minor[c]).count_ones() as i32;
                if n > 0 {
                    sink.add(color, THREAT_BY_MINOR + r, n);
                }
            }
            if role == Role::Queen {
                let n = (victims & at.rook[c]).count_ones() as i32;
                if n > 0 {
                    sink.add(color, THREAT_BY_ROOK + r, n);
                }
            }
        }
        let hanging = (enemy & !bb(board.kings()) & at.all[c] & !at.all[t]).count_ones() as i32;
        if hanging > 0 {
            sink.add(color, HANGING, hanging);
        }

        passed_pawns(color, passed[c], kings, occ, sink);
        king_shelter(color, &pawns, kings[c], sink);
    }
    sink.add(pos.turn(), TEMPO, 1);
}

/// Doubled, isolated, backward, phalanx and supported pawns, passed pawns
/// by rank and candidates: terms of the pawns alone. Returns the passed pawns.
fn pawn_terms<S: Sink>(color: Color, pawns: &[u64; 2], at: &Attacks, sink: &mut S) -> u64 {
    let c = ci(color);
    let t = ci(!color);
    let ours = pawns[c];
    let theirs = pawns[t];
    let mut passed = 0u64;
    let mut rest = ours;
    while rest != 0 {
        let sq = Square::new(rest.trailing_zeros());
        rest &= rest - 1;
        let file = sq.file() as u32;
        let rank = sq.rank() as u32;
        let rel = relative_rank(color, sq) as usize;
        let ahead = ranks_ahead(color, rank);
        let same_file = file_mask(file);
        let adjacent = adjacent_files(file);
        let front = ahead & same_file;

        if ours & front != 0 {
            sink.add(color, DOUBLED, 1);
        }
        if ours & adjacent == 0 {
            sink.add(color, ISOLATED, 1);
        } else {
            // Backward: no own pawn beside or behind on the adjacent files,
            // and the square in front is held by an enemy pawn.
            let behind_or_level = !ahead & adjacent;
            let stop = match color {
                Color::White if rank < 7 => 1u64 << (sq as u32 + 8),
                Color::Black if rank > 0 => 1u64 << (sq as u32 - 8),
                _ => 0,
            };
            if ours & behind_or_level == 0 && stop & at.pawn[t] != 0 {
                sink.add(color, BACKWARD, 1);
            }
        }
        let rank_mask = 0xffu64 << (8 * rank);
        if ours & adjacent & rank_mask != 0 {
            sink.add(color, PHALANX + rel, 1);
        }
        if at.pawn[c] & (1u64 << sq as u32) != 0 {
            sink.add(color, SUPPORTED + rel, 1);
        }

        let span = ahead & (same_file | adjacent);
        if theirs & span == 0 {
            sink.add(color, PASSED + rel, 1);
            passed |= 1u64 << sq as u32;
        } else if theirs & front == 0 {
            // Candidate: a half-open file and at least as many helpers
            // beside or behind as enemy pawns in front on the adjacent files.
            let helpers = (ours & adjacent & !ahead).count_ones();
            let stoppers = (theirs & adjacent & ahead).count_ones();
            if helpers >= stoppers {
                sink.add(color, CANDIDATE + rel, 1);
            }
        }
    }
    passed
}

/// Passed pawns with a free path, and the kings' distances to the square
/// in front of each.
fn passed_pawns<S: Sink>(color: Color, passed: u64, kings: [Square; 2], occ: u64, sink: &mut S) {
    let c = ci(color);
    let t = ci(!color);
    let mut rest = passed;
    while rest != 0 {
        let sq = Square::new(rest.trailing_zeros());
        rest &= rest - 1;
        let rel = relative_rank(color, sq) as usize;
        let front = ranks_ahead(color, sq.rank() as u32) & file_mask(sq.file() as u32);
        if occ & front == 0 {
            sink.add(color, PASSED_FREE + rel, 1);
        }
        let stop = match color {
            Color::White => Square::new((sq as u32 + 8).min(63)),
            Color::Black => Square::new((sq as u32).saturating_sub(8)),
        };
        sink.add(color, PASSED_OWN_KING + rel, kings[c].distance(stop) as i32);
        sink.add(
            color,
            PASSED_ENEMY_KING + rel,
            kings[t].distance(stop) as i32,
        );
    }
}

/// Pawn shield, pawn storm and open files on the king's file and the files
/// beside it.
fn king_shelter<S: Sink>(color: Color, pawns: &[u64; 2], king: Square, sink: &mut S) {
    let c = ci(color);
    let t = ci(!color);
    let kfile = king.file() as u32;
    let krank = king.rank() as u32;
    let ahead = ranks_ahead(color, krank);
    let lo = kfile.saturating_sub(1);
    let hi = (kfile + 1).min(7);
    for file in lo..=hi {
        let f = file_mask(file);
        let ours = pawns[c] & f & ahead;
        let theirs = pawns[t] & f & ahead;
        // Nearest own pawn in front of the king on this file.
        let nearest = |m: u64| -> Option<u32> {
            if m == 0 {
                return None;
            }
            let sq = match color {
                Color::White => m.trailing_zeros(),
                Color::Black => 63 - m.leading_zeros(),
            };
            Some((sq / 8).abs_diff(krank))
        };
        match nearest(ours) {
            Some(1) => sink.add(color, SHIELD, 1),
            Some(2) => sink.add(color, SHIELD + 1, 1),
            _ => sink.add(color, SHIELD + 2, 1),
        }
        if let Some(d) = nearest(theirs)
            && (1..=4).contains(&d)
        {
            sink.add(color, STORM + d as usize - 1, 1);
        }
        if (pawns[c] | pawns[t]) & f == 0 {
            sink.add(color, KING_OPEN_FILE, 1);
        } else if pawns[c] & f == 0 {
            sink.add(color, KING_SEMI_OPEN_FILE, 1);
        }
    }
}
