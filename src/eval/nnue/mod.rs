//! Neural-network evaluation (NNUE): a perspective network, 768 inputs
//! (colour relative to the perspective, piece type, square, with the board
//! flipped for Black) → [`HIDDEN`] neurons per perspective, squared clipped
//! ReLU (SCReLU) → one output, in quantised integers.
//!
//! - [`network`]: the weights, the file format, the embedded default net and
//!   the output layer;
//! - [`accumulator`]: the hidden layer before activation, kept incrementally
//!   as moves are made and unmade (a stack, one entry per ply);
//! - `simd`: the vector kernels both use, in AVX2 where the processor has it;
//! - `tools::train` (a tool, outside the engine) trains a net in floats and
//!   writes it in this format.
//!
//! The input indexing is the one shared by the trainer and the engine:
//! [`feature`] for a board square and [`record_features`] for a
//! bulletformat record (which stores the side to move as White). A net may
//! be *mirrored* (a flag in its file): each perspective then also flips the
//! board left-right whenever its own king stands on files e–h, so that
//! what is learnt on one wing serves the other. A net may also have
//! *output buckets* (another flag): [`OUTPUT_BUCKETS`] output layers, the
//! one used chosen by the number of pieces on the board
//! ([`output_bucket`]), so that the middlegame and the endgame weigh the
//! same hidden features differently. And a net may have *king buckets*
//! (a third flag): [`KING_BUCKETS`] sets of input weights, each
//! perspective using the set of the rank its own king stands on
//! ([`king_bucket`]), so that a piece on a square can mean one thing with
//! the king at home and another with the king up the board; or
//! [`FINE_KING_BUCKETS`] sets (a fourth flag), the rank bands split by the
//! king's wing.

pub mod accumulator;
pub mod network;
mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use network::{Network, RawNet, default_net};

use shakmaty::{Board, Chess, Color, Piece, Position, Square};

/// Inputs: 2 colours (own, other) × 6 piece types × 64 squares.
pub const INPUTS: usize = 768;
/// Hidden neurons per perspective: 256, or 128 in a build with the
/// `hidden128` feature (for training and measuring narrower nets), or 512
/// with `hidden512` (for training and measuring wider ones). A build loads
/// a narrower net padded with silent neurons: the same evaluations, at the
/// wider net's cost.
pub const HIDDEN: usize = if cfg!(feature = "hidden128") {
    128
} else if cfg!(feature = "hidden512") {
    512
} else {
    256
};

#[cfg(all(feature = "hidden128", feature = "hidden512"))]
compile_error!("the features hidden128 and hidden512 choose different widths: pick one");
/// Quantisation of the feature transformer (weights and biases × `QA`);
/// activations are clipped to `0..=QA`.
pub const QA: i32 = 255;
/// Quantisation of the output weights (× `QB`).
pub const QB: i32 = 256;
/// Centipawns per unit of the network's output (the trainer's sigmoid scale).
pub const SCALE: i32 = 400;
/// Largest weight magnitude the trainer allows (so `QB` × it fits the
/// output-layer arithmetic and `QA` × it an `i16`).
pub const WEIGHT_CLIP: f32 = 1.98;

/// Input weight sets of a net with king buckets (one without has one).
pub const KING_BUCKETS: usize = 4;

/// Input weight sets of a net with *fine* king buckets: the
/// [`KING_BUCKETS`] rank bands, the lower three split by the king's wing
/// (see [`king_bucket`]), so that a king castled short, one castled long
/// and one still in the centre each read the pawns in front of them with
/// weights of their own.
pub const FINE_KING_BUCKETS: usize = 8;

/// The input weight set a perspective uses, for a net with `buckets` sets
/// (1, [`KING_BUCKETS`] or [`FINE_KING_BUCKETS`]), by the square of its own
/// king counted from its own side. Four sets: the first rank, the second,
/// the third and fourth, the rest. Eight: the first rank split into files
/// a–c, d–e and f–h; the second into a–d and e–h; the third and fourth
/// into a–d and e–h; the rest one set ([`FINE_TO_COARSE`] maps each back).
#[inline]
pub fn king_bucket(buckets: usize, perspective: Color, king: Option<Square>) -> usize {
    if buckets <= 1 {
        return 0;
    }
    let Some(k) = king else {
        return 0;
    };
    let rank = match perspective {
        Color::White => k.rank() as usize,
        Color::Black => 7 - k.rank() as usize,
    };
    if buckets == FINE_KING_BUCKETS {
        let file = k.file() as usize;
        match rank {
            0 => [0, 0, 0, 1, 1, 2, 2, 2][file],
            1 => 3 + usize::from(file >= 4),
            2 | 3 => 5 + usize::from(file >= 4),
            _ => 7,
        }
    } else {
        KING_RANK_BUCKET[rank]
    }
}

/// [`king_bucket`] by relative rank (0 = the own first rank).
const KING_RANK_BUCKET: [usize; 8] = [0, 1, 2, 2, 3, 3, 3, 3];

/// The [`KING_BUCKETS`] set each of the [`FINE_KING_BUCKETS`] sets refines:
/// a net given fine buckets starts with each a copy of this one, so that
/// it evaluates exactly as before.
pub const FINE_TO_COARSE: [usize; FINE_KING_BUCKETS] = [0, 0, 0, 1, 1, 2, 2, 3];

/// Output layers of a net with output buckets (one without has one).
pub const OUTPUT_BUCKETS: usize = 8;

/// The output layer used for a position with `pieces` pieces on the board
/// (kings included) by a net with `buckets` output layers (1 or
/// [`OUTPUT_BUCKETS`]): 2–5 pieces use the first, 30–32 the last.
#[inline]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    if buckets <= 1 {
        return 0;
    }
    (pieces.saturating_sub(2) as usize / 4).min(buckets - 1)
}

/// Index into `[0, 2)` for a colour, the same order everywhere in this module.
#[inline]
pub fn side_index(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The input index of `piece` on `square` seen from `perspective`: own
/// pieces first, then the other side's; squares flipped vertically for
/// Black, and left-right too when `mirror` (see [`mirrors`]).
#[inline]
pub fn feature(perspective: Color, piece: Piece, square: Square, mirror: bool) -> usize {
    let own = usize::from(piece.color != perspective);
    let sq = match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    } ^ if mirror { 7 } else { 0 };
    own * 384 + (piece.role as usize - 1) * 64 + sq
}

/// Whether a perspective whose king stands on `king` sees the board
/// mirrored left-right, for a net that mirrors.
#[inline]
pub fn mirrors(net_mirrors: bool, king: Option<Square>) -> bool {
    net_mirrors && king.is_some_and(|k| k.file() >= shakmaty::File::E)
}

/// Inputs of a bulletformat record for the side to move and for the other
/// side, through the same indexing as [`feature`] and [`king_bucket`]
/// (`mirror`: the net mirrors; `king_buckets`: its input weight sets). The
/// record's pieces are already from the side to move's point of view (code
/// bit 3 set: the other side's piece; bits 0–2: pawn..king).
pub fn record_features(
    rec: &bulletformat::ChessBoard,
    mirror: bool,
    king_buckets: usize,
    stm: &mut Vec<u16>,
    nstm: &mut Vec<u16>,
) {
    stm.clear();
    nstm.clear();
    // Files are the same from both sides: only the flip differs.
    let (mut flip_stm, mut flip_nstm) = (0, 0);
    let (mut base_stm, mut base_nstm) = (0, 0);
    for (piece, square) in *rec {
        if piece & 7 != 5 {
            continue;
        }
        let file_flip = if mirror && square % 8 >= 4 { 7 } else { 0 };
        let sq = Square::new(u32::from(square));
        if piece & 8 == 0 {
            flip_stm = file_flip;
            base_stm = king_bucket(king_buckets, Color::White, Some(sq)) * INPUTS;
        } else {
            flip_nstm = file_flip;
            // The other side's own view is the board flipped vertically.
            base_nstm = king_bucket(king_buckets, Color::Black, Some(sq)) * INPUTS;
        }
    }
    for (piece, square) in *rec {
        let other = usize::from(piece >> 3 & 1);
        let role = usize::from(piece & 7);
        let sq = usize::from(square);
        if role > 5 {
            continue;
        }
        stm.push((base_stm + other * 384 + role * 64 + (sq ^ flip_stm)) as u16);
        nstm.push((base_nstm + (1 - other) * 384 + role * 64 + (sq ^ 56 ^ flip_nstm)) as u16);
    }
}

/// Turns the inputs of a position ([`record_features`] of a net that does
/// not mirror) into those of its left-right mirror image: the file of every
/// square flips, which is the low three bits of every input. The trainer's
/// `--augment-mirror` uses it to show the net each position both ways.
#[inline]
pub fn mirror_features(features: &mut [u16]) {
    features.iter_mut().for_each(|f| *f ^= 7);
}

/// The material of the start position in centipawns, as
/// [`scale_by_material`] counts it ([`crate::eval::wdl::material`]: pawn 1,
/// minor 3, rook 5, queen 9, both sides): 7,800.
pub const START_MATERIAL: i32 = 7800;

/// The constant of [`scale_by_material`] that was measured in games (the
/// search's `eval_material_base` parameter, off by default): the larger it
/// is, the less the material left changes the evaluation. At 20,000 the
/// start position is scaled by exactly 1 and bare kings by about 0.72.
pub const MATERIAL_SCALE_BASE: i32 = 20_000;

/// The network's evaluation `v` as the search uses it: scaled by the
/// material left (centipawns, [`crate::eval::wdl::material`] × 100),
/// `v × (base + material) / (base + START_MATERIAL)`, so
/// that an edge counts for more while there are pieces to press it with
/// and for less as the board empties (the side ahead keeps material, the
/// side behind seeks trades). `base` 0 leaves `v` as it is. Many engines
/// scale their net so; for Ferrum it won at fixed nodes but read level at
/// a clock (docs/strength.md, 2026-12-01), so the search has it off.
#[inline]
pub fn scale_by_material(v: i32, board: &Board, base: i32) -> i32 {
    if base <= 0 {
        return v;
    }
    let material = 100 * i64::from(crate::eval::wdl::material(board));
    let base = i64::from(base);
    (i64::from(v) * (base + material) / (base + i64::from(START_MATERIAL))) as i32
}

/// The `eval` line for the network: its evaluation of `pos` from White's
/// side in pawns and for the side to move in centipawns, that evaluation
/// scaled by material as the search uses it (`base`, see
/// [`scale_by_material`]), and the net's name.
pub fn describe(net: &Network, pos: &Chess, name: &str, base: i32) -> String {
    let acc = Accumulator::refresh(net, pos.board());
    let v = net.evaluate(&acc, pos.turn());
    let white = if pos.turn() == Color::White { v } else { -v };
    let scaled = if base > 0 {
        format!(
            ", {} cp scaled by material for the search",
            scale_by_material(v, pos.board(), base)
        )
    } else {
        String::new()
    };
    format!(
        "NNUE evaluation: {:+.2} (White side), {v} cp for the side to move{scaled} [{name}]",
        f64::from(white) / 100.0
    )
}
