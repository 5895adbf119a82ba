//! What the figures of `calib fit --plot` ([`crate::fit::plot`]) and `calib
//! budget --plot` ([`crate::budget::plot`]) share: the file format, the font,
//! the palette, the time axis and the atomic write.
//!
//! The palette is Okabe and Ito's, chosen to stay distinguishable with the
//! common colour-vision deficiencies; its yellow is left out (faint on white).
//! Each role keeps one colour in both figures: black the central projection,
//! vermillion the measured cost, grey the band up to the upper bound, blue the
//! partition caps, bluish green the chosen `--time`; runs take the remaining
//! colours in turn. The font is the embedded DejaVu Sans (no fontconfig on a
//! login node), registered before drawing.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::atomic::{write_file_with, IfExists};
use crate::error::{Error, Origin, Result};

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// A colour of the palette (red, green, blue).
pub type Rgb = RGBColor;

/// Okabe–Ito black: the central projection (predicted).
pub const PREDICTED: RGBColor = RGBColor(0, 0, 0);
/// Okabe–Ito vermillion: the measured cost (the slowest run's projection).
pub const MEASURED: RGBColor = RGBColor(213, 94, 0);
/// A neutral grey: the band and its edge, the upper bound.
pub const UPPER: RGBColor = RGBColor(100, 100, 100);
/// Okabe–Ito blue: the partition caps.
pub const CAP: RGBColor = RGBColor(0, 114, 178);
/// Okabe–Ito bluish green: the chosen `--time`.
pub const TIME: RGBColor = RGBColor(0, 158, 115);
/// Okabe–Ito reddish purple: strata given no usable time.
pub const REFUSED: RGBColor = RGBColor(204, 121, 167);

/// Colours of the runs, in turn: Okabe–Ito orange, sky blue, bluish green,
/// reddish purple, blue. None is a role colour of the fit's figure.
pub const RUNS: [RGBColor; 5] = [
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(0, 114, 178),
];

/// The colour of run `k` (0-based): the run colours in turn.
pub(crate) fn run_colour(k: usize) -> RGBColor {
    RUNS[k % RUNS.len()]
}

/// A figure's file format, from the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

/// The format of the figure `flag` (`--plot`) asks for, from its extension:
/// `.png` or `.svg`, anything else bad input (checked before any work).
pub fn check_path(path: &Path, flag: &str) -> Result<Format> {
    match path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .as_deref()
    {
        Some("png") => Ok(Format::Png),
        Some("svg") => Ok(Format::Svg),
        _ => Err(Error::input(
            Origin::Argument(flag.into()),
            None,
            format!(
                "`{}`: expected a file name ending in .png or .svg",
                path.display()
            ),
        )),
    }
}

/// Checks, before any work or write, that the figure `flag` names can be
/// written: its format is known ([`check_path`]), and its folder is there
/// and the target a regular file or nothing
/// ([`crate::atomic::check_replaceable`]). A command that writes other files
/// first (`calib fit -o`, `calib budget --script-dir`) then leaves them as
/// they were when the figure is refused.
pub fn check_target(path: &Path, flag: &str) -> Result<()> {
    check_path(path, flag)?;
    crate::atomic::check_replaceable(path)
}

/// Something drawn on a drawing area of any backend (PNG or SVG).
pub(crate) trait Figure {
    /// Width and height, pixels.
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String>;
}

/// Draws `figure` into `path` (`.png` or `.svg`), atomically
/// ([`crate::atomic`]): an existing file is replaced whole, never left
/// half-drawn, as the model file is.
pub(crate) fn write(figure: &impl Figure, path: &Path, flag: &str) -> Result<()> {
    let format = check_path(path, flag)?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| Error::Failed("the embedded font could not be loaded".into()))?;
    let size = figure.size();
    let fail = |e: String| Error::Failed(format!("cannot draw {}: {e}", path.display()));
    // The encoders open the file by its path; the temporary path keeps the
    // extension, by which the PNG encoder chooses its format.
    write_file_with(path, IfExists::Replace, |_, tmp| match format {
        Format::Png => {
            let root = BitMapBackend::new(tmp, size).into_drawing_area();
            root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
            figure.draw(&root).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
        Format::Svg => {
            let root = SVGBackend::new(tmp, size).into_drawing_area();
            root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
            figure.draw(&root).map_err(fail)?;
            root.present().map_err(|e| fail(e.to_string()))
        }
    })
}

/// A time axis in the unit that suits its largest value, so that the ticks
/// fall on round numbers of it (`2 h`, not `7200 s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TimeUnit {
    /// Seconds per unit of the axis.
    pub seconds: f64,
    /// The unit's symbol, for the axis title.
    pub symbol: &'static str,
}

impl TimeUnit {
    /// Hours from 2 h on, minutes from 2 min on, else seconds.
    pub fn for_largest(seconds: f64) -> TimeUnit {
        let (seconds, symbol) = if seconds >= 7_200.0 {
            (3_600.0, "h")
        } else if seconds >= 120.0 {
            (60.0, "min")
        } else {
            (1.0, "s")
        };
        TimeUnit { seconds, symbol }
    }

    /// `seconds` in this unit.
    pub fn of(self, seconds: f64) -> f64 {
        seconds / self.seconds
    }
}

/// Ticks of a logarithmic axis over `lo..hi` (both > 0): 1, 2 and 5 times the
/// powers of ten within it, so that a range of a decade or two still reads.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return ticks;
    }
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if v >= lo && v <= hi {
                ticks.push(v);
            }
        }
        decade *= 10.0;
    }
    ticks
}

/// `text` cut to at most `max_chars` characters, the cut marked with `…`: a
/// label longer than its place would run into its neighbours'.
pub(crate) fn shortened(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// A tick label: as few decimals as tell the ticks apart (`2`, `2.5`, `0.25`).
pub(crate) fn tick(value: f64) -> String {
    crate::output::trimmed(value, 6)
}

/// A legend glyph that shows the run colours in use side by side, for the
/// entry "each run one colour": the first `runs` of [`RUNS`] (all of them
/// when there are more runs, the colours then repeating).
pub(crate) fn run_swatches<'a, DB: DrawingBackend + 'a>(
    at: (i32, i32),
    runs: usize,
) -> impl IntoDynElement<'a, DB, (i32, i32)> {
    let dot = |k: usize| {
        let colour = if k < runs {
            RUNS[k].to_rgba()
        } else {
            TRANSPARENT
        };
        Circle::new((3 + k as i32 * SWATCH_STEP, 0), 3, colour.filled())
    };
    EmptyElement::at(at) + dot(0) + dot(1) + dot(2) + dot(3) + dot(4)
}

// `run_swatches` composes one dot per run colour.
const _: () = assert!(RUNS.len() == 5);

/// A legend glyph for a dashed line of `colour`: two dashes.
pub(crate) fn dashed_glyph<'a, DB: DrawingBackend + 'a>(
    at: (i32, i32),
    colour: RGBColor,
) -> impl IntoDynElement<'a, DB, (i32, i32)> {
    let dash = |x0: i32| PathElement::new(vec![(x0, 0), (x0 + 7, 0)], colour.stroke_width(2));
    EmptyElement::at(at) + dash(0) + dash(11)
}

/// Pixels between the centres of two swatches.
const SWATCH_STEP: i32 = 8;

/// The width of a legend's glyph area that holds the run swatches.
pub(crate) const SWATCHES_WIDTH: u32 = RUNS.len() as u32 * SWATCH_STEP as u32 + 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_unit_follows_the_largest_value() {
        assert_eq!(TimeUnit::for_largest(30.0).symbol, "s");
        assert_eq!(TimeUnit::for_largest(600.0).symbol, "min");
        assert_eq!(TimeUnit::for_largest(6.0 * 3600.0).of(6.0 * 3600.0), 6.0);
    }

    #[test]
    fn log_ticks_are_one_two_five_within_the_range() {
        assert_eq!(log_ticks(1.5, 60.0), [2.0, 5.0, 10.0, 20.0, 50.0]);
        assert!(log_ticks(0.0, 1.0).is_empty());
    }

    #[test]
    fn a_shortened_label_fits_and_says_it_was_cut() {
        assert_eq!(shortened("dataset=Y", 40), "dataset=Y");
        let long = "d=".to_string() + &"é".repeat(3000);
        let cut = shortened(&long, 40);
        assert_eq!(cut.chars().count(), 40);
        assert!(cut.starts_with("d=éé") && cut.ends_with('…'), "{cut}");
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.25), "0.25");
        // A log axis in hours reaches seconds.
        assert_eq!(tick(0.0002), "0.0002");
    }

    #[test]
    fn the_palette_has_no_faint_colour_and_runs_avoid_the_role_colours() {
        // Relative luminance below that of the Okabe–Ito yellow, which is
        // too faint on white for points.
        let luminance =
            |c: &RGBColor| 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
        let yellow = luminance(&RGBColor(240, 228, 66));
        for c in RUNS
            .iter()
            .chain([&PREDICTED, &MEASURED, &UPPER, &CAP, &TIME])
        {
            assert!(luminance(c) < 0.85 * yellow, "{c:?}");
        }
        for c in &RUNS {
            assert!(![PREDICTED, MEASURED, UPPER].contains(c), "{c:?}");
        }
    }
}
