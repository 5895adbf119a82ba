//! `calib fit --plot`: per stratum, the time being budgeted and what it is
//! made of, in two panels side by side.
//!
//! - Left, **cumulative time against units**: each probe run as measured (its
//!   elapsed time at each recorded unit, the first interval including
//!   startup), and the projection of a new run of n units for every n up to
//!   `--units` (or the longest probe when no `--units` is given): predicted,
//!   the band from it up to the upper bound at the fit's confidence, and the
//!   measured cost (the slowest run projected). Every figure comes from
//!   [`StratumModel::project`], the code behind `calib budget` and the table's
//!   columns, so the right end of the band is the table's `upper` at N. A
//!   projected time is positive and non-decreasing in n, so the band is too.
//! - Right, **per-unit cost against unit index**: each interval's duration
//!   divided by its units, drawn at its last unit, and the centre's c(i)
//!   at the median run's pace (for run-length rows, where each point is a whole
//!   run's average, the projected average predicted(n)/n instead). No band:
//!   the bound is on a run's total, which the left panel shows.
//!
//! Colours, font and the atomic write are [`crate::plot`]'s.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{FitReport, StratumReport};
use crate::calibrate::Table;
use crate::error::Result;
use crate::model::StratumModel;
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::plot::{self, Figure, TimeUnit};

/// Strata drawn at most (the first in order).
pub const MAX_PANELS: usize = 36;

/// The fewest characters of a stratum's name its caption keeps, however
/// narrow the cell.
const MIN_STRATUM_CHARS: usize = 16;

/// Measured points drawn at most per panel (evenly thinned beyond, each
/// run's last point kept).
const MAX_POINTS: usize = 4000;
/// Run lengths at which the projection is sampled (besides the probe's end
/// and the last).
const SAMPLES: u64 = 160;
/// One stratum's two panels, pixels.
const CELL: (u32, u32) = (1280, 460);

/// The projection of a new run of `units` units (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectionPoint {
    pub units: u64,
    pub predicted_s: f64,
    /// The measured cost: the slowest observed run, projected.
    pub floor_s: f64,
    pub upper_s: f64,
}

/// The projection of a new run of the stratum for run lengths from 1 to
/// `last`, at about [`SAMPLES`] evenly spaced lengths that always include the
/// longest probe (when within `last`) and `last` itself: the band of the
/// cumulative panel. Each point is [`StratumModel::project`] at its length, the
/// projection `calib budget` sizes `--time` from.
pub fn projection_curve(
    model: &StratumModel,
    last: u64,
    confidence: f64,
    table: &Table,
) -> Vec<ProjectionPoint> {
    let last = last.max(1);
    let steps = SAMPLES.min(last);
    let mut lengths: Vec<u64> = (0..=steps)
        .map(|k| 1 + (last - 1) * k / steps.max(1))
        .chain(std::iter::once(model.probe_units()).filter(|&h| h <= last))
        .collect();
    lengths.sort_unstable();
    lengths.dedup();
    lengths
        .into_iter()
        .map(|units| {
            let b = model.project(units, confidence, table);
            ProjectionPoint {
                units,
                predicted_s: b.predicted_s,
                floor_s: b.floor_s,
                upper_s: b.upper_s,
            }
        })
        .collect()
}

/// A run's elapsed time at each of its measured units, from its per-unit
/// points (each interval's per-unit cost times its units, summed): the rows
/// as recorded.
pub fn cumulative(points: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut done = (0u64, 0.0f64);
    points
        .iter()
        .map(|&(unit, cost)| {
            done = (unit, done.1 + cost * unit.saturating_sub(done.0) as f64);
            done
        })
        .collect()
}

/// Draws the figure into `path` (`.png` or `.svg`), replacing a file there
/// atomically ([`crate::plot::write`]).
pub fn draw(report: &FitReport, table: &Table, path: &Path) -> Result<()> {
    plot::check_path(path, "--plot")?;
    let strata = &report.model.strata[..report.model.strata.len().min(MAX_PANELS)];
    let curves: Vec<Vec<ProjectionPoint>> = strata
        .iter()
        .map(|m| {
            let horizon = m.probe_units().max(1);
            let last = report.options.units.unwrap_or(horizon).max(horizon);
            projection_curve(m, last, report.options.confidence, table)
        })
        .collect();
    plot::write(&FitFigure { report, curves }, path, "--plot")
}

struct FitFigure<'a> {
    report: &'a FitReport,
    /// Per stratum drawn, [`projection_curve`] up to the last length shown.
    curves: Vec<Vec<ProjectionPoint>>,
}

impl FitFigure<'_> {
    fn panels(&self) -> usize {
        self.report.strata.len().clamp(1, MAX_PANELS)
    }

    /// Columns of cells: each cell is two panels wide, so fewer than a square.
    fn columns(&self) -> usize {
        ((self.panels() as f64 / 2.0).sqrt().round() as usize).max(1)
    }
}

impl Figure for FitFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let cols = self.columns();
        let rows = self.panels().div_ceil(cols);
        (CELL.0 * cols as u32, CELL.1 * rows as u32)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        let cols = self.columns();
        let rows = self.panels().div_ceil(cols);
        let cells = root.split_evenly((rows, cols));
        let report = self.report;
        for (k, cell) in cells.iter().enumerate().take(self.panels()) {
            let (Some(model), Some(measured), Some(curve)) = (
                report.model.strata.get(k),
                report.strata.get(k),
                self.curves.get(k),
            ) else {
                break;
            };
            draw_stratum(report, model, measured, curve, cell)?;
        }
        Ok(())
    }
}

/// The runs' legend entry: one swatch per run colour (the runs themselves are
/// drawn unlabelled, each in its own colour), in both panels.
fn legend_runs<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    label: &str,
    count: usize,
) -> std::result::Result<(), String> {
    chart
        .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
        .map_err(text_err)?
        .label(label)
        .legend(move |(x, y)| plot::run_swatches((x, y), count));
    Ok(())
}

fn text_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Every run's points thinned to [`MAX_POINTS`] in all, each run's last kept.
fn thinned(runs: &[Vec<(u64, f64)>]) -> Vec<Vec<(u64, f64)>> {
    let total: usize = runs.iter().map(Vec::len).sum();
    let every = total.div_ceil(MAX_POINTS).max(1);
    runs.iter()
        .map(|run| {
            run.iter()
                .enumerate()
                .filter(|(i, _)| i % every == 0 || i + 1 == run.len())
                .map(|(_, &p)| p)
                .collect()
        })
        .collect()
}

fn draw_stratum<DB: DrawingBackend>(
    report: &FitReport,
    model: &StratumModel,
    measured: &StratumReport,
    curve: &[ProjectionPoint],
    cell: &DrawingArea<DB, Shift>,
) -> std::result::Result<(), String> {
    let confidence = report.options.confidence;
    let horizon = model.probe_units().max(1);
    let last = curve.last().map_or(horizon, |p| p.units);
    let runs = measured.points.len();
    let details = format!(
        ": {}, {} probed up to {} units{}",
        model.form_name(),
        crate::output::count(model.runs as u64, "run", "runs"),
        horizon,
        match report.options.units {
            Some(n) => format!(", projected to {n}"),
            None => String::new(),
        }
    );
    // About 10 pixels per character at 18 points: a longer caption would run
    // into the next cell's. The stratum gives way, keeping its beginning.
    let fits = cell.dim_in_pixel().0 as usize / 10;
    let stratum = measured.stratum.to_string();
    let room = fits
        .saturating_sub(details.chars().count())
        .max(MIN_STRATUM_CHARS);
    let caption = format!("{}{details}", plot::shortened(&stratum, room));
    let body = cell
        .titled(&caption, ("sans-serif", 18))
        .map_err(text_err)?;
    let width = body.dim_in_pixel().0;
    let (left, right) = body.split_horizontally(width * 54 / 100);
    let runs_label = if runs > plot::RUNS.len() {
        format!(
            "measured runs, each one colour ({} colours in turn)",
            plot::RUNS.len()
        )
    } else {
        "measured runs, each one colour".to_string()
    };
    draw_cumulative(&left, measured, curve, horizon, confidence, &runs_label)?;
    draw_per_unit(&right, model, measured, curve, last, &runs_label)
}

/// The left panel: cumulative time against units.
fn draw_cumulative<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    measured: &StratumReport,
    curve: &[ProjectionPoint],
    horizon: u64,
    confidence: f64,
    runs_label: &str,
) -> std::result::Result<(), String> {
    let Some(end) = curve.last().copied() else {
        return Ok(());
    };
    let runs: Vec<Vec<(u64, f64)>> = thinned(
        &measured
            .points
            .iter()
            .map(|p| cumulative(p))
            .collect::<Vec<_>>(),
    );
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let top_s = curve
        .iter()
        .map(|p| finite(p.upper_s).max(finite(p.floor_s)))
        .chain(runs.iter().flatten().map(|p| finite(p.1)))
        .fold(0.0, f64::max)
        .max(1e-9);
    let unit = TimeUnit::for_largest(top_s);
    let y = |s: f64| unit.of(s);
    let x_max = end.units as f64 * 1.02;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max, 0.0..y(top_s) * 1.06)
        .map_err(text_err)?;
    chart
        .configure_mesh()
        .x_desc(if end.units > horizon {
            "units done (dashed: the longest probe; beyond it, extrapolated)"
        } else {
            "units done"
        })
        .y_desc(format!("time since the run started ({})", unit.symbol))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|v| plot::tick(*v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(text_err)?;

    // The runs' entry first in the legend; they are drawn last, on top.
    legend_runs(&mut chart, runs_label, runs.len())?;

    // The band, from the predicted time up to the upper bound.
    let band: Vec<(f64, f64)> = curve
        .iter()
        .map(|p| (p.units as f64, y(p.upper_s)))
        .chain(
            curve
                .iter()
                .rev()
                .map(|p| (p.units as f64, y(p.predicted_s))),
        )
        .collect();
    let band_style = plot::UPPER.mix(0.2);
    chart
        .draw_series(std::iter::once(Polygon::new(band, band_style.filled())))
        .map_err(text_err)?
        .label(format!(
            "up to the upper bound at {}: {} at {}",
            percent_as_given(confidence),
            human_duration(end.upper_s),
            end.units
        ))
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], band_style.filled()));
    chart
        .draw_series(LineSeries::new(
            curve.iter().map(|p| (p.units as f64, y(p.upper_s))),
            plot::UPPER.stroke_width(1),
        ))
        .map_err(text_err)?;

    // The probe's end: what lies right of it is extrapolated.
    if end.units > horizon {
        chart
            .draw_series(DashedLineSeries::new(
                [(horizon as f64, 0.0), (horizon as f64, y(top_s) * 1.06)],
                4,
                4,
                plot::UPPER.mix(0.6).stroke_width(1),
            ))
            .map_err(text_err)?;
    }

    chart
        .draw_series(LineSeries::new(
            curve.iter().map(|p| (p.units as f64, y(p.predicted_s))),
            plot::PREDICTED.stroke_width(2),
        ))
        .map_err(text_err)?
        .label(format!(
            "predicted: {} at {}",
            human_duration(end.predicted_s),
            end.units
        ))
        .legend(|(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], plot::PREDICTED.stroke_width(2))
        });
    chart
        .draw_series(DashedLineSeries::new(
            curve.iter().map(|p| (p.units as f64, y(p.floor_s))),
            6,
            4,
            plot::MEASURED.stroke_width(2),
        ))
        .map_err(text_err)?
        .label(format!(
            "measured cost (slowest run projected): {} at {}",
            human_duration(end.floor_s),
            end.units
        ))
        .legend(|(x, y)| plot::dashed_glyph((x, y), plot::MEASURED));
    for (k, run) in runs.iter().enumerate() {
        let colour = plot::run_colour(k);
        let line: Vec<(f64, f64)> = run.iter().map(|&(u, t)| (u as f64, y(t))).collect();
        chart
            .draw_series(LineSeries::new(line.clone(), colour.stroke_width(2)))
            .map_err(text_err)?;
        // A marker per row while rows are few enough to tell apart; one row
        // per run (run lengths) is nothing but markers.
        let radius = if run.len() <= 1 { 4 } else { 2 };
        if run.len() <= 120 {
            chart
                .draw_series(
                    line.into_iter()
                        .map(|p| Circle::new(p, radius, colour.filled())),
                )
                .map_err(text_err)?;
        }
    }
    chart
        .configure_series_labels()
        .legend_area_size(plot::SWATCHES_WIDTH)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(text_err)
}

/// The right panel: per-unit cost against unit index.
fn draw_per_unit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    model: &StratumModel,
    measured: &StratumReport,
    curve: &[ProjectionPoint],
    last: u64,
    runs_label: &str,
) -> std::result::Result<(), String> {
    let run_length = measured.points.iter().all(|r| r.len() <= 1);
    // Run-length rows measure a run's average per-unit cost, so their curve is
    // the projected average predicted(n)/n; unit rows show the marginal c(i).
    let line: Vec<(f64, f64)> = if run_length {
        curve
            .iter()
            .map(|p| (p.units as f64, p.predicted_s / p.units as f64))
            .collect()
    } else {
        curve
            .iter()
            .map(|p| (p.units as f64, model.unit_cost_s(p.units)))
            .collect()
    };
    let runs = thinned(&measured.points);
    let values = || {
        runs.iter()
            .flatten()
            .map(|p| p.1)
            .chain(line.iter().map(|p| p.1))
            .filter(|v| v.is_finite())
    };
    let lowest = values().fold(f64::INFINITY, f64::min);
    let highest = values().fold(0.0, f64::max);
    // Keep a slow first unit from squashing the rest: at most 3x the curve.
    let line_top = line.iter().map(|p| p.1).fold(0.0, f64::max);
    let highest = highest.min(3.0 * line_top).max(line_top).max(1e-9);
    let lowest = if lowest.is_finite() { lowest } else { 0.0 };
    let unit = TimeUnit::for_largest(highest);
    let y = |s: f64| unit.of(s);
    let pad = (highest - lowest).max(highest * 0.05);
    // Room above the points for the legend.
    let y_range = y((lowest - 0.1 * pad).max(0.0))..y(highest + 0.45 * pad);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..last as f64 * 1.02, y_range)
        .map_err(text_err)?;
    chart
        .configure_mesh()
        .x_desc("unit index")
        .y_desc(if run_length {
            format!("average per-unit cost of a run ({})", unit.symbol)
        } else {
            format!("per-unit cost ({})", unit.symbol)
        })
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|v| plot::tick(*v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(text_err)?;
    for (k, run) in runs.iter().enumerate() {
        let colour = plot::run_colour(k);
        let radius = if run.len() <= 1 { 4 } else { 2 };
        chart
            .draw_series(
                run.iter()
                    .map(|&(u, c)| Circle::new((u as f64, y(c)), radius, colour.filled())),
            )
            .map_err(text_err)?;
    }
    legend_runs(&mut chart, runs_label, runs.len())?;
    chart
        .draw_series(LineSeries::new(
            line.into_iter().map(|(x, c)| (x, y(c))),
            plot::PREDICTED.stroke_width(2),
        ))
        .map_err(text_err)?
        .label(if run_length {
            format!("{} fit: predicted / units", model.form_name())
        } else {
            format!("{} fit at the median run's pace", model.form_name())
        })
        .legend(|(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], plot::PREDICTED.stroke_width(2))
        });
    chart
        .configure_series_labels()
        .legend_area_size(plot::SWATCHES_WIDTH)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(text_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_sums_each_interval_at_its_own_length() {
        // Rows at units 1, 2 and 5: 10 s, then 4 s, then 3 units of 2 s.
        let points = [(1, 10.0), (2, 4.0), (5, 2.0)];
        assert_eq!(cumulative(&points), [(1, 10.0), (2, 14.0), (5, 20.0)]);
    }

    #[test]
    fn thinning_keeps_each_runs_last_point() {
        let run: Vec<(u64, f64)> = (1..=5_000).map(|u| (u, 1.0)).collect();
        let thin = thinned(&[run.clone(), run]);
        assert!(thin.iter().map(Vec::len).sum::<usize>() <= MAX_POINTS + 2);
        assert!(thin.iter().all(|r| r.last() == Some(&(5_000, 1.0))));
    }
}
