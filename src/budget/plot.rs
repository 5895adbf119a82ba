//! `calib budget --plot`: the campaign in one figure.
//!
//! Strata along the x axis (in the budget's order), time on a logarithmic y
//! axis (a campaign's strata and the partition caps span minutes to days).
//! Per stratum: the range from the measured cost (the slowest run projected)
//! to the upper bound, with its ends and the predicted time marked, and the
//! chosen `--time`; the caps of the partitions in play as horizontal lines
//! labelled with their names (partitions of one cap share a line). A stratum
//! given no usable time says so in place: `over_cap` with the segments it
//! needs, `unsupported` with no `--time`. The legend is drawn beside the
//! chart with the same glyphs as the marks.
//!
//! Colours, font and the atomic write are [`crate::plot`]'s.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Budget, Status, StratumBudget};
use crate::error::Result;
use crate::output::percent_as_given;
use crate::plot::{self, Figure, TimeUnit};
use crate::slurm::time::format_minutes;

/// Strata drawn at most (the first in order); the title says when more exist.
pub const MAX_STRATA: usize = 80;
/// Horizontal pixels per stratum.
const PER_STRATUM: u32 = 84;
/// The legend's column, pixels.
const LEGEND_WIDTH: u32 = 300;
/// Label characters kept of a long stratum name.
const MAX_LABEL_CHARS: usize = 40;

/// Draws the campaign into `path` (`.png` or `.svg`), replacing a file there
/// atomically ([`crate::plot::write`]), as `calib fit --plot` does.
pub fn draw(budget: &Budget, path: &Path) -> Result<()> {
    plot::write(&BudgetFigure::new(budget), path, "--plot")
}

/// What the figure shows of one stratum, seconds; `None` where there is
/// nothing to draw (a time not given, a projection that is not finite).
#[derive(Debug, Clone, PartialEq)]
pub struct StratumMarks {
    pub stratum: String,
    pub floor_s: Option<f64>,
    pub predicted_s: Option<f64>,
    pub upper_s: Option<f64>,
    /// The `--time` a task asks for: `ok` and `rounded_down` only.
    pub time_s: Option<f64>,
    /// What is written over the stratum instead of, or beside, its time.
    pub status: Option<String>,
}

impl StratumMarks {
    pub fn of(s: &StratumBudget) -> StratumMarks {
        let positive = |v: f64| (v.is_finite() && v > 0.0).then_some(v);
        let p = &s.projection;
        let decision = &s.decision;
        let status = match decision.status {
            Status::Ok => None,
            Status::RoundedDown => Some("rounded_down".to_string()),
            Status::OverCap => Some(match decision.segments {
                Some(n) => format!(
                    "over_cap: {n} x {}",
                    format_minutes(decision.segment_minutes())
                ),
                None => "over_cap".to_string(),
            }),
            Status::Unsupported => Some("unsupported: no --time".to_string()),
        };
        StratumMarks {
            stratum: s.stratum.clone(),
            floor_s: positive(p.floor_s),
            predicted_s: positive(p.predicted_s),
            upper_s: positive(p.upper_s),
            time_s: matches!(decision.status, Status::Ok | Status::RoundedDown)
                .then(|| decision.time_s() as f64),
            status,
        }
    }

    fn values(&self) -> impl Iterator<Item = f64> {
        [self.floor_s, self.predicted_s, self.upper_s, self.time_s]
            .into_iter()
            .flatten()
    }
}

/// One horizontal line: a cap and the partitions that have it.
#[derive(Debug, Clone, PartialEq)]
pub struct CapLine {
    pub limit_s: f64,
    pub partitions: Vec<String>,
}

/// The finite caps in play, one line per distinct cap (ascending), and the
/// partitions without a limit.
pub fn cap_lines(budget: &Budget) -> (Vec<CapLine>, Vec<String>) {
    let mut lines: Vec<CapLine> = Vec::new();
    let mut unlimited = Vec::new();
    for cap in &budget.caps {
        if !cap.limit_s.is_finite() {
            unlimited.push(cap.partition.clone());
        } else if let Some(line) = lines.iter_mut().find(|l| l.limit_s == cap.limit_s) {
            line.partitions.push(cap.partition.clone());
        } else {
            lines.push(CapLine {
                limit_s: cap.limit_s,
                partitions: vec![cap.partition.clone()],
            });
        }
    }
    lines.sort_by(|a, b| a.limit_s.total_cmp(&b.limit_s));
    (lines, unlimited)
}

struct BudgetFigure<'a> {
    budget: &'a Budget,
    marks: Vec<StratumMarks>,
    caps: Vec<CapLine>,
    unlimited: Vec<String>,
}

impl<'a> BudgetFigure<'a> {
    fn new(budget: &'a Budget) -> Self {
        let marks = budget
            .strata
            .iter()
            .take(MAX_STRATA)
            .map(StratumMarks::of)
            .collect();
        let (caps, unlimited) = cap_lines(budget);
        BudgetFigure {
            budget,
            marks,
            caps,
            unlimited,
        }
    }

    fn labels(&self) -> Vec<String> {
        self.marks
            .iter()
            .map(|m| {
                crate::plot::shortened(crate::stratum::display_name(&m.stratum), MAX_LABEL_CHARS)
            })
            .collect()
    }

    /// Whether the stratum names are written vertically (they would overlap
    /// side by side), and the height of their label area.
    fn label_layout(&self) -> (bool, u32) {
        let longest = self
            .labels()
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0) as u32;
        // About 7 pixels per character at 12 points.
        let width = longest * 7;
        if width + 8 > PER_STRATUM {
            (true, width + 24)
        } else {
            (false, 40)
        }
    }

    /// Pixels right of the plot for the caps' names.
    fn cap_label_width(&self) -> u32 {
        self.caps
            .iter()
            .map(|c| cap_label(c).chars().count() as u32 * 7 + 16)
            .max()
            .unwrap_or(12)
    }

    /// The y range, seconds: every mark and every finite cap, with room
    /// around them (a factor, the axis being logarithmic).
    fn y_range_s(&self) -> (f64, f64) {
        let values = || {
            self.marks
                .iter()
                .flat_map(StratumMarks::values)
                .chain(self.caps.iter().map(|c| c.limit_s))
        };
        let lo = values().fold(f64::INFINITY, f64::min);
        let hi = values().fold(0.0, f64::max);
        if lo.is_finite() && hi > 0.0 {
            (lo / 1.6, hi * 1.6)
        } else {
            (60.0, 86_400.0)
        }
    }
}

fn text_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Figure for BudgetFigure<'_> {
    fn size(&self) -> (u32, u32) {
        let (_, label_height) = self.label_layout();
        let chart =
            (PER_STRATUM * self.marks.len().max(1) as u32 + 120).max(520) + self.cap_label_width();
        (chart + LEGEND_WIDTH, 560 + label_height)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        let budget = self.budget;
        let shown = if budget.strata.len() > self.marks.len() {
            format!(
                "the first {} of {} strata",
                self.marks.len(),
                budget.strata.len()
            )
        } else {
            crate::output::count(self.marks.len() as u64, "stratum", "strata")
        };
        // The run length, when every stratum has the same (a grid may size
        // each its own).
        let units = match budget.strata.first().map(|s| s.units) {
            Some(n) if budget.strata.iter().all(|s| s.units == n) => {
                format!(", {n} units per run")
            }
            _ => String::new(),
        };
        let title = format!(
            "calib budget: {shown}{units}, upper bound at {}",
            percent_as_given(budget.confidence),
        );
        let body = root.titled(&title, ("sans-serif", 17)).map_err(text_err)?;
        let width = body.dim_in_pixel().0;
        let (chart_area, legend_area) = body.split_horizontally(width - LEGEND_WIDTH);
        self.draw_chart(&chart_area)?;
        self.draw_legend(&legend_area)
    }
}

impl BudgetFigure<'_> {
    fn draw_chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        let (lo_s, hi_s) = self.y_range_s();
        let unit = TimeUnit::for_largest(hi_s / 1.6);
        let y = |s: f64| unit.of(s);
        let (vertical, label_height) = self.label_layout();
        let labels = self.labels();
        // Stratum i at x = i.
        let n = self.marks.len().max(1);
        let (x_lo, x_hi) = (-0.5, n as f64 - 0.5);
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .margin_right(self.cap_label_width())
            .x_label_area_size(label_height)
            .y_label_area_size(64)
            .build_cartesian_2d(
                x_lo..x_hi,
                (y(lo_s)..y(hi_s))
                    .log_scale()
                    .with_key_points(plot::log_ticks(y(lo_s), y(hi_s))),
            )
            .map_err(text_err)?;
        // The strata's names are drawn below by hand: plotters places its x
        // labels where its ticks fall, not at each stratum, and centres a
        // rotated label on its tick, half of it over the plot.
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .label_style(("sans-serif", 13))
            .y_desc(format!("time of one task ({}, log scale)", unit.symbol))
            .y_label_formatter(&|v| plot::tick(*v))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
            .draw()
            .map_err(text_err)?;

        let (bx, by) = area.get_base_pixel();
        for (i, label) in labels.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64, y(lo_s)));
            let style = TextStyle::from(("sans-serif", 12).into_font());
            let (at, style) = if vertical {
                let style = style
                    .transform(FontTransform::Rotate90)
                    .pos(Pos::new(HPos::Left, VPos::Center));
                ((px - bx, py - by + 8), style)
            } else {
                (
                    (px - bx, py - by + 8),
                    style.pos(Pos::new(HPos::Center, VPos::Top)),
                )
            };
            area.draw(&Text::new(label.clone(), at, style))
                .map_err(text_err)?;
        }

        // The caps first, under the strata's marks.
        for cap in &self.caps {
            let at = y(cap.limit_s);
            chart
                .draw_series(DashedLineSeries::new(
                    [(x_lo, at), (x_hi, at)],
                    8,
                    5,
                    cap_style(),
                ))
                .map_err(text_err)?;
            // Named right of the plot, where no stratum is drawn: in pixels of
            // this area, from the backend's.
            let (px, py) = chart.backend_coord(&(x_hi, at));
            area.draw(&Text::new(
                cap_label(cap),
                (px - bx + 6, py - by),
                ("sans-serif", 12)
                    .into_font()
                    .color(&plot::CAP)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(text_err)?;
        }

        for (i, m) in self.marks.iter().enumerate() {
            let x = || i as f64;
            if let (Some(floor), Some(upper)) = (m.floor_s, m.upper_s) {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x(), y(floor)), (x(), y(upper))],
                        range_style(),
                    )))
                    .map_err(text_err)?;
            }
            // The time under the markers, which stay visible on it.
            if let Some(time) = m.time_s {
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x(), y(time))) + time_bar(),
                    ))
                    .map_err(text_err)?;
                // The time as --time reads, right of its bar.
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x(), y(time)))
                            + Text::new(
                                format_minutes((time / 60.0).round() as u64),
                                (20, 0),
                                ("sans-serif", 11)
                                    .into_font()
                                    .color(&plot::TIME)
                                    .pos(Pos::new(HPos::Left, VPos::Center)),
                            ),
                    ))
                    .map_err(text_err)?;
            }
            if let Some(upper) = m.upper_s {
                chart
                    .draw_series(std::iter::once(upper_mark((x(), y(upper)))))
                    .map_err(text_err)?;
            }
            if let Some(predicted) = m.predicted_s {
                chart
                    .draw_series(std::iter::once(predicted_mark((x(), y(predicted)))))
                    .map_err(text_err)?;
            }
            if let Some(floor) = m.floor_s {
                chart
                    .draw_series(std::iter::once(measured_mark((x(), y(floor)))))
                    .map_err(text_err)?;
            }
            if let Some(status) = &m.status {
                // Above the stratum's highest mark, or mid-height without one.
                let top = m.values().fold(f64::NAN, f64::max);
                let at = if top.is_finite() {
                    y(top) * 1.12
                } else {
                    y((lo_s * hi_s).sqrt())
                };
                let colour = match status.as_str() {
                    "rounded_down" => plot::TIME,
                    _ => plot::REFUSED,
                };
                chart
                    .draw_series(std::iter::once(Text::new(
                        status.clone(),
                        (x(), at),
                        ("sans-serif", 12)
                            .into_font()
                            .color(&colour)
                            .pos(Pos::new(HPos::Center, VPos::Bottom)),
                    )))
                    .map_err(text_err)?;
            }
        }
        Ok(())
    }

    fn draw_legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        // One row per mark, its glyph drawn as in the chart.
        let at = |row: i32| (22, 40 + 24 * row);
        area.draw(&measured_mark(at(0))).map_err(text_err)?;
        area.draw(&predicted_mark(at(1))).map_err(text_err)?;
        area.draw(&upper_mark(at(2))).map_err(text_err)?;
        let (x, y) = at(3);
        area.draw(&PathElement::new(
            vec![(x, y - 9), (x, y + 9)],
            range_style(),
        ))
        .map_err(text_err)?;
        area.draw(&(EmptyElement::at(at(4)) + time_bar()))
            .map_err(text_err)?;
        let (x, y) = at(5);
        for dash in [x - 14, x + 2] {
            area.draw(&PathElement::new(
                vec![(dash, y), (dash + 10, y)],
                cap_style(),
            ))
            .map_err(text_err)?;
        }
        let mut texts = vec![
            "measured cost (slowest run)".to_string(),
            "predicted".to_string(),
            format!(
                "upper bound at {}",
                percent_as_given(self.budget.confidence)
            ),
            "from measured cost to upper bound".to_string(),
            "--time chosen".to_string(),
            "partition cap (named)".to_string(),
        ];
        if !self.unlimited.is_empty() {
            texts.push(format!("no limit: {}", self.unlimited.join(", ")));
        }
        let font =
            TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        for (row, text) in texts.into_iter().enumerate() {
            let (_, y) = at(row as i32);
            area.draw(&Text::new(text, (44, y), font.clone()))
                .map_err(text_err)?;
        }
        Ok(())
    }
}

/// A cap line's name: its partitions and the cap as `--time` reads.
fn cap_label(cap: &CapLine) -> String {
    format!(
        "{}: {}",
        cap.partitions.join(", "),
        format_minutes((cap.limit_s / 60.0).floor() as u64)
    )
}

/// The range from the measured cost to the upper bound: a wide grey bar.
fn range_style() -> ShapeStyle {
    plot::UPPER.mix(0.35).stroke_width(8)
}

/// A cap's line (dashed in the chart).
fn cap_style() -> ShapeStyle {
    plot::CAP.stroke_width(1)
}

/// The measured cost: a vermillion dot.
fn measured_mark<C>(at: C) -> Circle<C, i32> {
    Circle::new(at, 5, plot::MEASURED.filled())
}

/// The predicted time: a black cross.
fn predicted_mark<C>(at: C) -> Cross<C, i32> {
    Cross::new(at, 5, plot::PREDICTED.stroke_width(2))
}

/// The upper bound: a grey triangle.
fn upper_mark<C>(at: C) -> TriangleMarker<C, i32> {
    TriangleMarker::new(at, 6, plot::UPPER.filled())
}

/// The chosen `--time`: a wide bluish-green bar, in pixels around the point
/// it is attached to (`EmptyElement::at(point) + time_bar()`).
fn time_bar() -> PathElement<(i32, i32)> {
    PathElement::new(vec![(-16, 0), (16, 0)], plot::TIME.stroke_width(4))
}
