//! The network's weights, their file format, the embedded default net, and
//! the output layer.
//!
//! File format (little-endian): the magic `FRNN`, then `u32` format
//! version, input count, hidden size and flags (bit 0: the net mirrors,
//! see [`super::mirrors`]; bit 1: it has [`OUTPUT_BUCKETS`] output layers,
//! see [`super::output_bucket`], else one; bit 2: it has [`KING_BUCKETS`]
//! input weight sets, see [`super::king_bucket`]; bit 3: it has
//! [`FINE_KING_BUCKETS`]; neither: one); then `i16`
//! feature weights (`INPUTS` rows of `HIDDEN` for each set, × `QA`), `i16`
//! feature biases (× `QA`), for
//! each output layer `i16` output weights (`HIDDEN` for the side to move,
//! then `HIDDEN` for the other side, × `QB`), and then each output layer's
//! `i32` bias (× `QA·QB`). Anything else, a wrong size above all, is refused.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::simd::screlu_dot;
use super::{
    Accumulator, FINE_KING_BUCKETS, HIDDEN, INPUTS, KING_BUCKETS, OUTPUT_BUCKETS, QA, QB, SCALE,
    WEIGHT_CLIP, output_bucket,
};

/// File magic.
pub const MAGIC: &[u8; 4] = b"FRNN";
/// File format version.
pub const VERSION: u32 = 1;
/// The file name of the embedded net, as `uci` shows it for `EvalFile`
/// (no word `default` in it: python-chess splits option lines on that word).
/// A `hidden128` build embeds n16, the last 128-neuron net; a `hidden512`
/// build embeds n42 too, padded with silent neurons.
#[cfg(not(feature = "hidden128"))]
pub const DEFAULT_NAME: &str = "ferrum-n42.nnue";
#[cfg(feature = "hidden128")]
pub const DEFAULT_NAME: &str = "ferrum-n16.nnue";

#[cfg(not(feature = "hidden128"))]
static EMBEDDED: &[u8] = include_bytes!("../../../nets/ferrum-n42.nnue");
#[cfg(feature = "hidden128")]
static EMBEDDED: &[u8] = include_bytes!("../../../nets/ferrum-n16.nnue");

/// Quantised weights of a 768 → `HIDDEN` ×2 → 1 perspective network.
#[derive(Clone)]
pub struct Network {
    /// One row of `HIDDEN` per input, `INPUTS` rows per king bucket.
    pub ft_weights: Vec<[i16; HIDDEN]>,
    pub ft_bias: [i16; HIDDEN],
    /// One output layer per bucket (1 or [`OUTPUT_BUCKETS`]): `[0]`
    /// multiplies the side to move's activations, `[1]` the other side's.
    pub out_weights: Vec<[[i16; HIDDEN]; 2]>,
    /// One bias per output layer.
    pub out_bias: Vec<i32>,
    /// Each perspective mirrors the board left-right when its king is on files e–h.
    pub mirror: bool,
    /// Input weight sets (1, [`KING_BUCKETS`] or [`FINE_KING_BUCKETS`]),
    /// chosen by the square of the perspective's king ([`super::king_bucket`]).
    pub king_buckets: usize,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = if self.mirror { ", mirrored" } else { "" };
        let b = self.out_bias.len();
        let b = if b > 1 {
            format!(", {b} output buckets")
        } else {
            String::new()
        };
        let k = if self.king_buckets > 1 {
            format!(", {} king buckets", self.king_buckets)
        } else {
            String::new()
        };
        write!(f, "Network({INPUTS}->{HIDDEN}x2->1{m}{b}{k})")
    }
}

/// Header bytes: magic and four `u32`.
const HEADER: usize = 20;

/// Flag bits of the header.
const FLAG_MIRROR: u32 = 1;
const FLAG_BUCKETS: u32 = 2;
const FLAG_KING_BUCKETS: u32 = 4;
const FLAG_FINE_KING_BUCKETS: u32 = 8;

/// Size in bytes of a file holding a net of this build's shape with
/// `buckets` output layers and `king_buckets` input weight sets.
pub const fn file_size(buckets: usize, king_buckets: usize) -> usize {
    file_size_of(HIDDEN, buckets, king_buckets)
}

/// [`file_size`] for a net of `hidden` neurons.
const fn file_size_of(hidden: usize, buckets: usize, king_buckets: usize) -> usize {
    HEADER + 2 * (king_buckets * INPUTS * hidden + hidden) + buckets * (2 * 2 * hidden + 4)
}

/// Hidden sizes a file may declare (a bound so that sizes cannot overflow).
const MAX_HIDDEN: usize = 4096;

/// Reads little-endian values in order, never past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        if let Some(src) = self.bytes.get(self.at..self.at + N) {
            out.copy_from_slice(src);
        }
        self.at += N;
        out
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn i16(&mut self) -> i16 {
        i16::from_le_bytes(self.take())
    }
    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }
    fn i16s(&mut self, n: usize) -> Vec<i16> {
        (0..n).map(|_| self.i16()).collect()
    }
}

/// A net file's weights at whatever hidden size the file declares, in flat
/// rows: what [`Network::from_bytes`] reads before it checks the size
/// against this build's, and what the trainer widens a narrower net from.
#[derive(Clone, Debug, PartialEq)]
pub struct RawNet {
    /// Hidden neurons per perspective.
    pub hidden: usize,
    /// `king_buckets · INPUTS` rows of `hidden`.
    pub ft_weights: Vec<i16>,
    /// `hidden` biases.
    pub ft_bias: Vec<i16>,
    /// Per output layer, `hidden` weights for the side to move, then `hidden` for the other.
    pub out_weights: Vec<i16>,
    /// One bias per output layer.
    pub out_bias: Vec<i32>,
    /// The net mirrors.
    pub mirror: bool,
    /// Input weight sets (1, [`KING_BUCKETS`] or [`FINE_KING_BUCKETS`]).
    pub king_buckets: usize,
}

impl RawNet {
    /// Parses a net file of any hidden size; a clear message says what is
    /// wrong with a bad one.
    pub fn from_bytes(bytes: &[u8]) -> Result<RawNet, String> {
        if bytes.len() < HEADER || &bytes[0..4] != MAGIC {
            return Err("not a Ferrum network file (no FRNN header)".into());
        }
        let mut r = Reader { bytes, at: 4 };
        let (version, inputs, hidden, flags) = (r.u32(), r.u32(), r.u32(), r.u32());
        if version != VERSION {
            return Err(format!(
                "network format version {version}, this build reads {VERSION}"
            ));
        }
        let h = hidden as usize;
        if inputs as usize != INPUTS || h == 0 || h > MAX_HIDDEN || !h.is_multiple_of(8) {
            return Err(format!(
                "network is {inputs}->{hidden}, this build plays {INPUTS}->{HIDDEN}"
            ));
        }
        let known = FLAG_MIRROR | FLAG_BUCKETS | FLAG_KING_BUCKETS | FLAG_FINE_KING_BUCKETS;
        if flags & !known != 0 {
            return Err(format!("unknown network flags {flags:#x}"));
        }
        if flags & FLAG_KING_BUCKETS != 0 && flags & FLAG_FINE_KING_BUCKETS != 0 {
            return Err(format!(
                "network flags {flags:#x} ask for both {KING_BUCKETS} and {FINE_KING_BUCKETS} king buckets"
            ));
        }
        let buckets = if flags & FLAG_BUCKETS != 0 {
            OUTPUT_BUCKETS
        } else {
            1
        };
        let king_buckets = if flags & FLAG_KING_BUCKETS != 0 {
            KING_BUCKETS
        } else if flags & FLAG_FINE_KING_BUCKETS != 0 {
            FINE_KING_BUCKETS
        } else {
            1
        };
        let size = file_size_of(h, buckets, king_buckets);
        if bytes.len() != size {
            return Err(format!(
                "network file has {} bytes, a {INPUTS}->{h} net with {buckets} output layer(s) and {king_buckets} king bucket(s) has {size}",
                bytes.len(),
            ));
        }
        let ft_weights = r.i16s(king_buckets * INPUTS * h);
        let ft_bias = r.i16s(h);
        let out_weights = r.i16s(buckets * 2 * h);
        let out_bias = (0..buckets).map(|_| r.i32()).collect();
        let limit = (WEIGHT_CLIP * QB as f32).ceil() as i16;
        if out_weights.iter().any(|w| w.abs() > limit) {
            return Err(format!(
                "an output weight is outside ±{limit} (the trainer clips to ±{WEIGHT_CLIP})"
            ));
        }
        Ok(RawNet {
            hidden: h,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            mirror: flags & FLAG_MIRROR != 0,
            king_buckets,
        })
    }
}

impl Network {
    /// Parses a net file of this build's shape, or of fewer neurons (a
    /// 128-neuron net in the default 256-neuron build), which it pads with silent
    /// neurons (all weights zero) so that it evaluates exactly as it would
    /// at its own width; a clear message says what is wrong with a bad one.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        Network::from_raw(RawNet::from_bytes(bytes)?)
    }

    /// [`Network::from_bytes`] after the parse: pads a narrower net, refuses a wider one.
    pub fn from_raw(raw: RawNet) -> Result<Network, String> {
        let h = raw.hidden;
        if h > HIDDEN {
            return Err(format!(
                "network is {INPUTS}->{h}, this build plays {INPUTS}->{HIDDEN}"
            ));
        }
        let rows = |v: &[i16]| -> Vec<[i16; HIDDEN]> {
            v.chunks_exact(h)
                .map(|c| std::array::from_fn(|i| c.get(i).copied().unwrap_or(0)))
                .collect()
        };
        let out = rows(&raw.out_weights);
        Ok(Network {
            ft_weights: rows(&raw.ft_weights),
            ft_bias: std::array::from_fn(|i| raw.ft_bias.get(i).copied().unwrap_or(0)),
            out_weights: out.chunks_exact(2).map(|p| [p[0], p[1]]).collect(),
            out_bias: raw.out_bias,
            mirror: raw.mirror,
            king_buckets: raw.king_buckets,
        })
    }

    /// Reads and parses a net file.
    pub fn load(path: &Path) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The file bytes of this net (what [`Network::from_bytes`] reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let buckets = self.out_bias.len();
        let mut out = Vec::with_capacity(file_size(buckets, self.king_buckets));
        out.extend_from_slice(MAGIC);
        let mut flags = if self.mirror { FLAG_MIRROR } else { 0 };
        if buckets > 1 {
            flags |= FLAG_BUCKETS;
        }
        if self.king_buckets == FINE_KING_BUCKETS {
            flags |= FLAG_FINE_KING_BUCKETS;
        } else if self.king_buckets > 1 {
            flags |= FLAG_KING_BUCKETS;
        }
        for v in [VERSION, INPUTS as u32, HIDDEN as u32, flags] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let rows = self
            .ft_weights
            .iter()
            .chain(std::iter::once(&self.ft_bias))
            .chain(self.out_weights.iter().flatten());
        for row in rows {
            for v in row {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for b in &self.out_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// The evaluation in centipawns for `stm`, the side to move.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, stm: shakmaty::Color) -> i32 {
        let us = acc.side(stm);
        let them = acc.side(!stm);
        let b = output_bucket(acc.pieces(), self.out_bias.len());
        let w = &self.out_weights[b];
        let sum = screlu_dot(us, &w[0]) + screlu_dot(them, &w[1]);
        // Activations are × QA², weights × QB: one QA off, then the bias (× QA·QB).
        let out = sum / i64::from(QA) + i64::from(self.out_bias[b]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

/// The embedded default net, parsed once. `None` only if the build embedded
/// a file of the wrong shape (a test guards against that).
pub fn default_net() -> Option<Arc<Network>> {
    static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    NET.get_or_init(|| Network::from_bytes(EMBEDDED).ok().map(Arc::new))
        .clone()
}
