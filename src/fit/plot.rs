//! `--plot`: per stratum, per-unit cost against unit index.
//!
//! Points are the measured per-unit costs of each run (an interval's duration
//! divided by its units, drawn at its last unit; the first interval includes
//! startup). The line is the chosen form's c(i) at the stratum's mean level (for
//! run-length rows, where each point is a whole run's average, the line is the
//! projected average P(N)/N instead); the
//! band is that line scaled by `upper(N) / predicted(N)` and its inverse, i.e.
//! where a run of N units would lie per unit at the bound. The x axis extends to
//! `--units` when given. PNG or SVG by the file's extension; the font is the
//! embedded DejaVu Sans (no fontconfig), registered before drawing.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::FitReport;
use crate::atomic::{write_file_with, IfExists};
use crate::error::{Error, Origin, Result};
use crate::projection::Projector;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Panels drawn at most (the first strata in order).
pub const MAX_PANELS: usize = 36;
/// Points drawn at most per panel (evenly thinned beyond).
const MAX_POINTS: usize = 4000;

fn register() -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| Error::Failed("the embedded font could not be loaded".into()))
}

/// The plot's format from its file name: `png` or `svg`, else bad input.
pub fn check_path(path: &Path) -> Result<&'static str> {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("png") => Ok("png"),
        Some("svg") => Ok("svg"),
        _ => Err(Error::input(
            Origin::Argument("--plot".into()),
            None,
            format!(
                "`{}`: expected a file name ending in .png or .svg",
                path.display()
            ),
        )),
    }
}

/// Draws the plot into `path` (`.png` or `.svg`), atomically
/// ([`crate::atomic`]): an existing file is never left half-drawn.
pub fn draw(report: &FitReport, path: &Path) -> Result<()> {
    let ext = check_path(path)?;
    register()?;
    let panels = report.strata.len().clamp(1, MAX_PANELS);
    let cols = (panels as f64).sqrt().ceil() as u32;
    let rows = (panels as u32).div_ceil(cols);
    let size = (720 * cols, 440 * rows);
    let fail = |e: String| Error::Failed(format!("cannot draw {}: {e}", path.display()));
    // The encoders open the file by its path; the temporary path keeps the
    // extension, by which the PNG encoder chooses its format.
    write_file_with(path, IfExists::Replace, |_, tmp| {
        if ext == "png" {
            let root = BitMapBackend::new(tmp, size).into_drawing_area();
            draw_on(report, &root, rows as usize, cols as usize).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        } else {
            let root = SVGBackend::new(tmp, size).into_drawing_area();
            draw_on(report, &root, rows as usize, cols as usize).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
    })
}

fn draw_on<DB: DrawingBackend>(
    report: &FitReport,
    root: &DrawingArea<DB, Shift>,
    rows: usize,
    cols: usize,
) -> std::result::Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((rows, cols));
    let conf = report.options.confidence;
    for (k, area) in areas
        .iter()
        .enumerate()
        .take(report.strata.len().min(MAX_PANELS))
    {
        let model = &report.model.strata[k];
        let sr = &report.strata[k];
        let horizon = model.projection.probe_units;
        let proj = Projector::new(&model.projection);
        let x_max = report.options.units.unwrap_or(horizon).max(horizon).max(2);
        // Sample the curve at up to 300 unit indices.
        let step = (x_max / 300).max(1);
        let xs: Vec<u64> = (1..=x_max).step_by(step as usize).chain([x_max]).collect();
        let level = model.mean_level();
        let run_length = sr.points.iter().all(|r| r.len() <= 1);
        let mut running = 0.0f64;
        let mut line = Vec::with_capacity(xs.len());
        let mut band_hi = Vec::with_capacity(xs.len());
        let mut band_lo = Vec::with_capacity(xs.len());
        for &x in &xs {
            let bounds = proj.project_fast(x, conf);
            let (pred, upper) = (bounds.predicted_s, bounds.upper_s);
            let ratio = (upper / pred).max(1.0);
            running = running.max(ratio);
            // Run-length rows measure a run's average per-unit cost, so their
            // curve is the average P(N)/N; unit rows show the marginal c(N).
            let c = if run_length {
                pred / x as f64
            } else {
                proj.unit_cost(x as f64) * level
            };
            line.push((x as f64, c));
            band_hi.push((x as f64, c * ratio));
            band_lo.push((x as f64, c / ratio));
        }
        let thin = |v: &Vec<(u64, f64)>| -> Vec<(f64, f64)> {
            let total: usize = sr.points.iter().map(Vec::len).sum();
            let every = total.div_ceil(MAX_POINTS).max(1);
            v.iter()
                .step_by(every)
                .map(|&(u, c)| (u as f64, c))
                .collect()
        };
        let runs: Vec<Vec<(f64, f64)>> = sr.points.iter().map(thin).collect();
        let all_y = runs
            .iter()
            .flatten()
            .map(|p| p.1)
            .chain(band_hi.iter().map(|p| p.1))
            .chain(band_lo.iter().map(|p| p.1));
        let (mut y_lo, mut y_hi) = (f64::MAX, 0.0f64);
        for y in all_y {
            if y.is_finite() {
                y_lo = y_lo.min(y);
                y_hi = y_hi.max(y);
            }
        }
        // Keep a slow first unit from squashing the rest: cap at 3x the band.
        let band_top = band_hi.iter().map(|p| p.1).fold(0.0, f64::max);
        y_hi = y_hi.min(3.0 * band_top).max(band_top);
        let pad = (y_hi - y_lo).max(y_hi * 0.05) * 0.08;
        let y_range = (y_lo - pad).max(0.0)..(y_hi + pad);
        let caption = format!(
            "{}: {} (runner-up {}), {} run(s)",
            sr.stratum,
            model.form(),
            model.runner_up().map(|f| f.name()).unwrap_or("-"),
            model.runs
        );
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..(x_max as f64 * 1.02), y_range)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("unit index")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc(if run_length {
                "average per-unit cost of a run (s)"
            } else {
                "per-unit cost (s)"
            })
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| e.to_string())?;
        let band: Vec<(f64, f64)> = band_hi
            .iter()
            .cloned()
            .chain(band_lo.iter().rev().cloned())
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.15))))
            .map_err(|e| e.to_string())?
            .label(format!("band at {:.0}% (per unit)", conf * 100.0))
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 15, y + 5)], BLUE.mix(0.15).filled())
            });
        for (r, pts) in runs.iter().enumerate() {
            let color = Palette99::pick(r).mix(0.8);
            let s = chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 2, color.filled())))
                .map_err(|e| e.to_string())?;
            if r == 0 {
                s.label("measured, one colour per run")
                    .legend(move |(x, y)| Circle::new((x + 7, y), 3, color.filled()));
            }
        }
        chart
            .draw_series(LineSeries::new(line, BLUE.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(format!("{} fit", model.form()))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], BLUE.stroke_width(2)));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        let _ = running;
    }
    Ok(())
}
