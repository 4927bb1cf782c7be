//! Search parameters in one place. Every margin, depth limit and divisor
//! the search prunes, reduces or extends with, and the sizes of its history
//! updates and evaluation corrections, is a field of [`Params`];
//! [`SPECS`] gives each one's name, default and range, so that a tuner can
//! set them as UCI options (listed only when tuning is asked for, see
//! [`tuning_enabled`]) and [`spsa_input`] writes them in OpenBench's SPSA
//! input format.
//!
//! The defaults are SPSA run 2's values (20,000 games at 10,000 nodes a
//! move, rounded to the nearest integer); docs/tuning.md has the run, each
//! parameter's path and the matches that took them in. The history and
//! correction entries (the six before the last) were constants until after
//! run 4 and have not been tuned yet; the last, the evaluation's material
//! scale, came after the runs and is off by default (docs/strength.md,
//! 2026-12-01).

/// One tunable parameter: its UCI name (the field's name), default and range.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

macro_rules! params {
    ($( $(#[doc = $doc:literal])* $field:ident = $default:literal, $min:literal ..= $max:literal; )*) => {
        /// The search's parameters (see the module docs).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $( $(#[doc = $doc])* pub $field: i32, )*
        }

        impl Default for Params {
            fn default() -> Self {
                Params { $( $field: $default, )* }
            }
        }

        /// Every parameter, in declaration order.
        pub const SPECS: &[Spec] = &[
            $( Spec { name: stringify!($field), default: $default, min: $min, max: $max }, )*
        ];

        impl Params {
            /// The value of the parameter called `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $( stringify!($field) => Some(self.$field), )*
                    _ => None,
                }
            }

            /// Sets the parameter called `name`; an unknown name or a value
            /// outside its range is refused and changes nothing.
            pub fn set(&mut self, name: &str, value: i32) -> Result<(), String> {
                let spec = SPECS
                    .iter()
                    .find(|s| s.name == name)
                    .ok_or_else(|| format!("unknown search parameter '{name}'"))?;
                if value < spec.min || value > spec.max {
                    return Err(format!(
                        "search parameter '{name}': {value} is out of range {}..{}",
                        spec.min, spec.max
                    ));
                }
                match name {
                    $( stringify!($field) => self.$field = value, )*
                    _ => unreachable!("every spec names a field"),
                }
                Ok(())
            }
        }
    };
}

params! {
    /// Reverse futility pruning: the deepest node, and the margin per ply.
    rfp_depth = 5, 1..=16;
    rfp_margin = 82, 20..=200;
    /// Null-move pruning: the shallowest node, the base reduction, the
    /// depth divisor that adds to it, and the eval margin per extra ply.
    nmp_depth = 3, 1..=8;
    nmp_base = 3, 1..=6;
    nmp_divisor = 4, 2..=8;
    nmp_eval_divisor = 206, 50..=500;
    /// Late-move reductions: the shallowest node, the first move number
    /// reduced, the table's base and divisor (both in hundredths), and one
    /// ply less per this much quiet history (butterfly plus continuation).
    lmr_depth = 4, 1..=6;
    lmr_moves = 3, 1..=8;
    lmr_base = 87, 0..=200;
    lmr_divisor = 208, 100..=400;
    lmr_history_divisor = 7715, 2048..=32768;
    /// Late-move reductions: this many plies less for a quiet move of a
    /// piece that attacks the enemy king's zone ([`crate::chess::moves::attacks_king_zone`]).
    lmr_king_zone = 0, 0..=3;
    /// Late-move reductions: this many plies less for every later move of
    /// a node whose quiet table move was singular-extended (Stockfish
    /// 15.1's `singularQuietLMR`): the node is one where a single move
    /// stands out, so the rest are searched closer to full depth.
    lmr_singular_quiet = 0, 0..=2;
    /// Late-move reductions of noisy moves: one ply less per this much capture history.
    lmr_capture_divisor = 3911, 1024..=16384;
    /// Re-search after a reduced search beat alpha: one ply deeper when it
    /// beat the best value by this margin (plus 2 per ply), one shallower
    /// when by less than this one.
    lmr_deeper_margin = 36, 0..=200;
    lmr_shallower_margin = 7, 0..=100;
    /// Late-move reductions in 1024ths of a ply, summed and then rounded
    /// down once (1), rather than each term rounded on its own (0, the
    /// default): the table's fraction and small history scores then count.
    /// On: −5.2 ± 14.5 in 800 games at 3+0.03 with the divisors tuned for
    /// whole plies (docs/strength.md, 2026-12-07), so off.
    lmr_fractional = 0, 0..=1;
    /// Late-move pruning: quiets beyond `lmp_base + depth^2` at shallow depth.
    lmp_depth = 8, 1..=16;
    lmp_base = 3, 0..=10;
    /// Futility pruning of quiet moves: depth limit, base and per-ply margins.
    futility_depth = 7, 1..=16;
    futility_base = 77, 0..=300;
    futility_margin = 85, 20..=300;
    /// SEE pruning: the deepest node and the thresholds per ply for captures and quiets.
    see_depth = 6, 1..=16;
    see_noisy_margin = -75, -300..=0;
    see_quiet_margin = -45, -300..=0;
    /// History pruning: quiets whose history is below `-history_prune_margin`
    /// per ply, up to this depth.
    history_prune_depth = 4, 0..=10;
    history_prune_margin = 1989, 256..=8192;
    /// Singular extensions: the shallowest node, the margin per ply below
    /// the table value, the margin for a double extension and the most
    /// double extensions on one line.
    se_depth = 8, 4..=14;
    se_margin = 2, 1..=6;
    se_double_margin = 24, 0..=100;
    se_double_limit = 6, 0..=16;
    /// Internal iterative reduction: the shallowest node without a table move.
    iir_depth = 4, 2..=10;
    /// Aspiration windows: the first depth and the initial half-width.
    aspiration_depth = 4, 1..=10;
    aspiration_delta = 25, 5..=100;
    /// Quiescence delta pruning margin.
    delta_margin = 397, 0..=1000;
    /// History at a cutoff: the move that cut gains
    /// `history_bonus_quad * d^2 + history_bonus_lin * d`, at most
    /// `history_bonus_max`; the moves tried before it lose `history_malus`
    /// percent of that.
    history_bonus_quad = 16, 0..=64;
    history_bonus_lin = 32, 0..=256;
    history_bonus_max = 1600, 400..=4000;
    history_malus = 100, 25..=200;
    /// Correction history: the weights (out of 64) of the pawn-structure
    /// average and of each side's non-pawn average in the correction.
    corr_pawn_weight = 64, 0..=192;
    corr_non_pawn_weight = 32, 0..=128;
    /// The network's evaluation scaled by the material left, with this
    /// constant (`eval::nnue::scale_by_material`); 0, the default, leaves
    /// it unscaled. At 20,000 (`eval::nnue::MATERIAL_SCALE_BASE`) it scored
    /// +20.0 ± 13.2 in 1,600 games at 10,000 nodes a move but +5.3 ± 15.9
    /// in 528 at 10+0.1 (docs/strength.md, 2026-12-01): off until a clock
    /// match shows it.
    eval_material_base = 0, 0..=40000;
    /// Quiet checks in quiescence search: 1 lets its first ply also try
    /// the quiet moves that give check (those that pass SEE), as
    /// Stockfish 15.1 does. Off (0) by default: +9.7 ± 16.0 in 1000 games
    /// at 10,000 nodes a move, for 5% more instructions a node; with
    /// `nmp_margin` +24.4 ± 17.8 at 10,000 nodes but −2.8 ± 16.6 in 498
    /// games at 10+0.1 (docs/strength.md, 2026-12-06).
    qs_checks = 0, 0..=1;
    /// Null-move pruning only when the static evaluation beats beta by
    /// this margin less 10 a ply of depth (Stockfish 15.1's condition, in
    /// Ferrum's centipawns about 110); 0, the default, asks only that it
    /// beats beta. At 110: +8.3 ± 17.4 in 800 games at 10,000 nodes a
    /// move, and level at 10+0.1 together with `qs_checks` (above).
    nmp_margin = 0, 0..=400;
    /// The static evaluation damped towards a draw as the fifty-move
    /// counter grows (as Stockfish 15.1 does): scaled by `(d - halfmoves)
    /// / d` for this `d` (200 halves it at the 100th half-move); 0, the
    /// default, leaves it undamped. At 200: −6.9 ± 13.8 in 800 games at
    /// 3+0.03 (docs/strength.md, 2026-12-07), so off.
    eval_rule50 = 0, 0..=400;
    /// Time management, not search: the soft limit's node-share factor
    /// (`TimeBudget::adjusted_soft`), `(tm_focus_base - tm_focus_slope x
    /// share) / 100`, at most `tm_focus_max / 100`, where `share` is the
    /// best move's part of the root's nodes. Under `go nodes` or `depth`
    /// (bench, SPSA) they change nothing.
    tm_focus_base = 205, 100..=400;
    tm_focus_slope = 150, 0..=300;
    tm_focus_max = 190, 100..=400;
}

impl Params {
    /// Late-move reductions are counted in `1 << lmr_shift()` parts of a
    /// ply: 1024ths under `lmr_fractional`, else whole plies.
    #[inline]
    pub fn lmr_shift(&self) -> u32 {
        if self.lmr_fractional != 0 { 10 } else { 0 }
    }

    /// The history bonus for the move that caused a cutoff at `depth`.
    #[inline]
    pub fn history_bonus(&self, depth: i32) -> i32 {
        (depth * depth * self.history_bonus_quad + self.history_bonus_lin * depth)
            .min(self.history_bonus_max)
    }

    /// The history malus for a move tried before the one that cut, given
    /// that move's `bonus`.
    #[inline]
    pub fn history_malus(&self, bonus: i32) -> i32 {
        bonus * self.history_malus / 100
    }
}

/// Whether a parameter belongs to the time manager rather than the search
/// (its name starts with `tm_`): it acts only under a clock.
pub fn is_time_param(s: &Spec) -> bool {
    s.name.starts_with("tm_")
}

/// Whether the parameters are offered as UCI options: in a build with the
/// `tune` feature, or when the environment variable `FERRUM_TUNE` is set
/// (to anything but `0`).
pub fn tuning_enabled() -> bool {
    cfg!(feature = "tune") || std::env::var("FERRUM_TUNE").is_ok_and(|v| v != "0")
}

/// The parameters in OpenBench's SPSA input format, one a line:
/// `name, int, default, min, max, c_end, r_end`, with `c_end` a twentieth
/// of the range (at least 0.5) and `r_end` 0.002. The time manager's
/// parameters (`tm_*`) are left out: a tuning run at fixed nodes cannot
/// see them.
pub fn spsa_input() -> String {
    SPECS
        .iter()
        .filter(|s| !is_time_param(s))
        .map(|s| {
            let c_end = (f64::from(s.max - s.min) / 20.0).max(0.5);
            format!(
                "{}, int, {}.0, {}.0, {}.0, {:.1}, 0.002\n",
                s.name, s.default, s.min, s.max, c_end
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_match_the_defaults_and_ranges() {
        let p = Params::default();
        assert!(!SPECS.is_empty());
        for s in SPECS {
            assert_eq!(p.get(s.name), Some(s.default), "{}", s.name);
            assert!(s.min <= s.default && s.default <= s.max, "{}", s.name);
        }
    }

    #[test]
    fn history_bonus_and_malus_follow_their_parameters() {
        let mut p = Params::default();
        assert_eq!(p.history_bonus(1), 48);
        assert_eq!(p.history_bonus(5), 560);
        assert_eq!(p.history_bonus(9), 1584);
        assert_eq!(p.history_bonus(10), 1600); // capped
        assert_eq!(p.history_malus(560), 560);
        p.set("history_malus", 50).unwrap();
        p.set("history_bonus_max", 2000).unwrap();
        assert_eq!(p.history_malus(560), 280);
        assert_eq!(p.history_bonus(10), 1920);
        assert_eq!(p.history_bonus(11), 2000);
    }

    #[test]
    fn set_checks_name_and_range() {
        let mut p = Params::default();
        p.set("rfp_margin", 120).unwrap();
        assert_eq!(p.rfp_margin, 120);
        let before = p;
        assert!(p.set("rfp_margin", 10_000).is_err());
        assert!(p.set("no_such_param", 1).is_err());
        assert_eq!(p, before);
    }

    #[test]
    fn spsa_lines_have_seven_fields() {
        let text = spsa_input();
        let searched: Vec<&Spec> = SPECS.iter().filter(|s| !is_time_param(s)).collect();
        assert!(
            searched.len() < SPECS.len(),
            "the tm_ parameters are left out"
        );
        assert_eq!(text.lines().count(), searched.len());
        assert!(!text.contains("tm_"));
        for (line, s) in text.lines().zip(searched) {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[0], s.name);
            assert_eq!(fields[1], "int");
            assert_eq!(fields[2].parse::<f64>().unwrap(), f64::from(s.default));
        }
    }
}
