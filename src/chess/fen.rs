//! Reading positions from FEN text, as users type them: 4 or 6 fields,
//! standard, X-FEN or Shredder-FEN castling, with clear errors for
//! positions that cannot occur (no king, two kings, pawns on the back
//! rank, the side not to move in check).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, PositionError, PositionErrorKinds};

/// Parses `text` into a position. With `chess960` the castling rights are
/// read in Chess960 mode; otherwise the mode is detected from the rook
/// placement (X-FEN `KQkq` with rooks off the corners is read as Chess960).
pub fn parse_fen(text: &str, chess960: bool) -> Result<Chess, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty FEN".to_string());
    }
    let fen: Fen = text
        .parse()
        .map_err(|e| format!("invalid FEN '{text}': {e}"))?;
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::detect(fen.as_setup())
    };
    // Tolerate what GUIs commonly send: stale castling rights or an en
    // passant square without a capturing pawn; refuse what cannot occur.
    let tolerable = PositionErrorKinds::INVALID_CASTLING_RIGHTS
        | PositionErrorKinds::INVALID_EP_SQUARE
        | PositionErrorKinds::IMPOSSIBLE_CHECK;
    match fen.into_position::<Chess>(mode) {
        Ok(pos) => Ok(pos),
        Err(e) if tolerable.contains(e.kinds()) => {
            let kinds = e.kinds();
            let mut result: Result<Chess, Box<PositionError<Chess>>> = Err(Box::new(e));
            if kinds.contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS) {
                result =
                    result.or_else(|e| (*e).ignore_invalid_castling_rights().map_err(Box::new));
            }
            if kinds.contains(PositionErrorKinds::INVALID_EP_SQUARE) {
                result = result.or_else(|e| (*e).ignore_invalid_ep_square().map_err(Box::new));
            }
            if kinds.contains(PositionErrorKinds::IMPOSSIBLE_CHECK) {
                result = result.or_else(|e| (*e).ignore_impossible_check().map_err(Box::new));
            }
            result.map_err(|e| format!("impossible position '{text}': {e}"))
        }
        Err(e) => Err(format!("impossible position '{text}': {e}")),
    }
}
