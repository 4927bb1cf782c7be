//! Time management: turns the clock of a `go` command into a soft limit
//! (do not start another iteration past it) and a hard limit (stop the
//! search at once), and adapts the soft limit to how settled the search is.

use std::time::Duration;

use super::params::Params;

/// The side to move's clock as `go` gives it, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Remaining time; may be zero or negative (then move at once).
    pub time: i64,
    /// Increment per move.
    pub inc: i64,
    /// Moves until the next time control, if any.
    pub movestogo: Option<u32>,
}

/// Moves the engine plans for when the time control has no `movestogo`.
const DEFAULT_MOVES_TO_GO: i64 = 25;
/// The most moves ahead a `movestogo` spreads the time over.
const MAX_MOVES_TO_GO: i64 = 50;
/// The soft limit, in percent of a move's share of the clock (before the
/// search's own scaling, [`TimeBudget::adjusted_soft`]). Against 60, 75
/// scored +21.7 ± 16.0 in 576 games at 3+0.03 and +14.4 ± 14.6 in 652 at
/// 10+0.1 (docs/strength.md, 2026-11-30): at 60 the engine ended its games
/// with more than a quarter of its clock unused. 90 read −12.3 ± 24.6
/// against 75 at 3+0.03.
const SOFT_PERCENT: i64 = 75;

/// Soft and hard limits of one search, in milliseconds from its start
/// (from `ponderhit` when pondering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: u64,
    pub hard: u64,
    /// Whether the soft limit adapts to the search (a game clock), or is
    /// used as it is (`movetime`).
    pub adaptive: bool,
}

impl TimeBudget {
    /// A fixed time per move (`go movetime`): both limits are the time less
    /// the overhead.
    pub fn fixed(movetime: u64, overhead: u64) -> TimeBudget {
        let t = movetime.saturating_sub(overhead).max(1);
        TimeBudget {
            soft: t,
            hard: t,
            adaptive: false,
        }
    }

    /// The budget for a clock, less `overhead` (the `Move Overhead` option)
    /// for each move the engine must still make before the next control.
    pub fn from_clock(clock: Clock, overhead: u64) -> TimeBudget {
        let overhead = overhead as i64;
        let mtg = clock.movestogo.map_or(DEFAULT_MOVES_TO_GO, |m| {
            (m as i64).clamp(1, MAX_MOVES_TO_GO)
        });
        // Keep an overhead in hand for every move still to play.
        let time = (clock.time - overhead * mtg.min(10)).max(0);
        if time == 0 {
            return TimeBudget {
                soft: 0,
                hard: 0,
                adaptive: true,
            };
        }
        let inc = clock.inc.max(0);
        let base = time / mtg + inc * 3 / 4;
        let cap = if mtg == 1 { time * 85 / 100 } else { time / 2 };
        let hard = (base * 3).min(cap).max(1);
        let soft = (base * SOFT_PERCENT / 100).min(hard).max(1);
        TimeBudget {
            soft: soft as u64,
            hard: hard as u64,
            adaptive: true,
        }
    }

    /// The soft limit scaled by how unsettled the search is: more time
    /// when the best move keeps changing or the score drops, less when the
    /// best move is stable and took most of the nodes. Never past the hard
    /// limit. A fixed budget (`movetime`) is not scaled.
    pub fn adjusted_soft(
        &self,
        stability: u32,
        score_drop: i32,
        best_move_nodes: f64,
        p: &Params,
    ) -> Duration {
        if !self.adaptive {
            return Duration::from_millis(self.soft);
        }
        let stable = match stability {
            0 => 1.6,
            1 => 1.3,
            2 => 1.1,
            3 => 1.0,
            4 => 0.9,
            _ => 0.8,
        };
        let drop = 1.0 + (score_drop.clamp(0, 100) as f64) / 150.0;
        // The best move's share of the root's nodes: 1.9 when it took a
        // tenth or less, 0.55 when it took them all. Steeper than the 1.6 to
        // 0.7 before (1.7 - share): +10.2 ± 12.2 at 3+0.03 and +6.3 ± 16.7
        // at 10+0.1 (docs/strength.md, 2026-12-07).
        // (`tm_focus_*` in [`Params`]: 2.05, 1.5 and 1.9.)
        let focus = ((f64::from(p.tm_focus_base)
            - f64::from(p.tm_focus_slope) * best_move_nodes.clamp(0.0, 1.0))
            / 100.0)
            .min(f64::from(p.tm_focus_max) / 100.0);
        let ms = (self.soft as f64 * stable * drop * focus).min(self.hard as f64);
        Duration::from_millis(ms as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_or_negative_time_moves_at_once() {
        for t in [0, -50] {
            let b = TimeBudget::from_clock(
                Clock {
                    time: t,
                    inc: 0,
                    movestogo: None,
                },
                10,
            );
            assert_eq!(
                b,
                TimeBudget {
                    soft: 0,
                    hard: 0,
                    adaptive: true
                }
            );
        }
    }

    #[test]
    fn limits_stay_inside_the_clock() {
        for time in [1, 20, 100, 1000, 10_000, 600_000] {
            for inc in [0, 10, 100, 1000] {
                for mtg in [None, Some(1), Some(2), Some(40), Some(300)] {
                    let c = Clock {
                        time,
                        inc,
                        movestogo: mtg,
                    };
                    let b = TimeBudget::from_clock(c, 10);
                    assert!(b.soft <= b.hard, "{c:?} {b:?}");
                    assert!((b.hard as i64) < time.max(1), "{c:?} {b:?}");
                    let adj = b.adjusted_soft(0, 100, 0.0, &Params::default());
                    assert!(adj.as_millis() as u64 <= b.hard);
                }
            }
        }
    }

    #[test]
    fn soft_limit_is_three_quarters_of_a_moves_share() {
        // 10+0.1 less 10 overheads of 10 ms: a 25th of 9,900 ms plus three
        // quarters of the increment is 471 ms, three quarters of it 353.
        let b = TimeBudget::from_clock(
            Clock {
                time: 10_000,
                inc: 100,
                movestogo: None,
            },
            10,
        );
        assert_eq!((b.soft, b.hard), (353, 1413));
    }

    #[test]
    fn last_move_before_control_uses_most_of_the_time() {
        let b = TimeBudget::from_clock(
            Clock {
                time: 10_000,
                inc: 0,
                movestogo: Some(1),
            },
            10,
        );
        assert!(b.hard >= 8000 && b.hard < 10_000, "{b:?}");
    }

    #[test]
    fn node_share_scales_the_soft_limit_from_0_55_to_1_9() {
        // Stability 3 and no score drop leave the best move's share of the
        // root's nodes as the only factor: 2.05 - 1.5 x share, at most 1.9.
        // (Milliseconds are truncated, so each value may read 1 ms low.)
        let b = TimeBudget {
            soft: 1000,
            hard: 5000,
            adaptive: true,
        };
        let ms = |share: f64| b.adjusted_soft(3, 0, share, &Params::default()).as_millis();
        assert!((549..=550).contains(&ms(1.0)), "{}", ms(1.0));
        assert!((1299..=1300).contains(&ms(0.5)), "{}", ms(0.5));
        assert!((1899..=1900).contains(&ms(0.1)), "{}", ms(0.1));
        assert!((1899..=1900).contains(&ms(0.0)), "{}", ms(0.0));
        // Never past the hard limit, however unsettled.
        let tight = TimeBudget { hard: 1500, ..b };
        assert_eq!(
            tight
                .adjusted_soft(0, 100, 0.0, &Params::default())
                .as_millis(),
            1500
        );
    }

    #[test]
    fn node_share_factor_follows_its_parameters() {
        let b = TimeBudget {
            soft: 1000,
            hard: 5000,
            adaptive: true,
        };
        let mut p = Params::default();
        // A flat factor of 1: the share no longer matters.
        p.set("tm_focus_base", 100).unwrap();
        p.set("tm_focus_slope", 0).unwrap();
        for share in [0.0, 0.5, 1.0] {
            let ms = b.adjusted_soft(3, 0, share, &p).as_millis();
            assert!((999..=1000).contains(&ms), "{share} {ms}");
        }
        // 2.4 - 2 x share, at most 2.2.
        p.set("tm_focus_base", 240).unwrap();
        p.set("tm_focus_slope", 200).unwrap();
        p.set("tm_focus_max", 220).unwrap();
        let ms = |share: f64| b.adjusted_soft(3, 0, share, &p).as_millis();
        assert!((399..=400).contains(&ms(1.0)), "{}", ms(1.0));
        assert!((1399..=1400).contains(&ms(0.5)), "{}", ms(0.5));
        assert!((2199..=2200).contains(&ms(0.0)), "{}", ms(0.0));
    }

    #[test]
    fn movetime_is_exact_less_overhead() {
        assert_eq!(
            TimeBudget::fixed(1000, 10),
            TimeBudget {
                soft: 990,
                hard: 990,
                adaptive: false
            }
        );
        // However settled the search, movetime is used in full.
        let b = TimeBudget::fixed(1000, 10);
        assert_eq!(
            b.adjusted_soft(9, 0, 1.0, &Params::default()),
            Duration::from_millis(990)
        );
    }
}
