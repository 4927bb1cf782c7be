//! The evaluation graph of an analysed game, as SVG (drawn with `plotters`).
//!
//! One point per move: the evaluation after it from White's side, in pawns,
//! clipped to ±[`CLIP`] (mates at the clip); move numbers along the bottom;
//! inaccuracies, mistakes and blunders marked with yellow, orange and red
//! dots on the line.

use std::path::Path;

use plotters::prelude::*;

use crate::tools::analyse::{GameReport, Judgement};

/// Evaluations beyond this many pawns are drawn at it.
pub const CLIP: f64 = 8.0;

/// Writes the graph of `report` to `path`; `title` heads it.
pub fn write_svg(path: &Path, title: &str, report: &GameReport) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (960, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    // x is in moves (ply 1 is move 1, ply 2 is move 1.5, ...).
    let x_of = |ply: usize| (ply as f64 + 1.0) / 2.0;
    let last = report.moves.len().max(2);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(x_of(1)..x_of(last), -CLIP..CLIP)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("move")
        .y_desc("evaluation (pawns, White's view)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:+.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x_of(1), 0.0), (x_of(last), 0.0)],
            BLACK.mix(0.4),
        )))
        .map_err(|e| err(&e))?;
    let points: Vec<(f64, f64)> = report
        .moves
        .iter()
        .map(|m| (x_of(m.ply), m.eval.pawns(CLIP)))
        .collect();
    chart
        .draw_series(LineSeries::new(points, BLUE.stroke_width(2)))
        .map_err(|e| err(&e))?;
    for (judgement, colour) in [
        (Judgement::Inaccuracy, RGBColor(230, 190, 0)),
        (Judgement::Mistake, RGBColor(240, 120, 0)),
        (Judgement::Blunder, RED),
    ] {
        chart
            .draw_series(
                report
                    .moves
                    .iter()
                    .filter(|m| m.judgement == Some(judgement))
                    .map(|m| Circle::new((x_of(m.ply), m.eval.pawns(CLIP)), 5, colour.filled())),
            )
            .map_err(|e| err(&e))?
            .label(judgement.name())
            .legend(move |(x, y)| Circle::new((x, y), 5, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
