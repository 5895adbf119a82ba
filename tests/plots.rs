//! The figures: `calib fit --plot` and `calib budget --plot`, run as the built
//! binary, read back as files (a PNG decodes, an SVG parses as XML) and
//! counted where SVG makes it checkable; and the band of the fit's figure,
//! tested on the function that computes its points.

mod common;

use std::collections::HashMap;
use std::path::Path;

use calib::fit::plot::{cumulative, projection_curve};
use calib::plot::{CAP, RUNS, TIME};
use common::{calib, fit_csv, stderr, stdout, write_arg};
use regex::Regex;

/// What a test reads of an SVG file: every element with its attributes, and
/// the text of every `<text>` element (trimmed).
struct Svg {
    elements: Vec<(String, HashMap<String, String>)>,
    texts: Vec<String>,
}

impl Svg {
    /// Parses `path` as XML (start and end tags must match), panicking
    /// otherwise.
    fn read(path: &Path) -> Svg {
        use quick_xml::events::Event;
        let text = std::fs::read_to_string(path).unwrap();
        let mut reader = quick_xml::Reader::from_str(&text);
        let (mut elements, mut texts) = (Vec::new(), Vec::new());
        let mut open_text: Option<String> = None;
        let mut depth = 0i32;
        loop {
            let event = reader
                .read_event()
                .unwrap_or_else(|e| panic!("{} is not XML: {e}", path.display()));
            let opens = matches!(event, Event::Start(_));
            match event {
                Event::Start(e) | Event::Empty(e) => {
                    let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
                    let attributes = e
                        .attributes()
                        .map(|a| {
                            let a = a.unwrap();
                            (
                                String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                                String::from_utf8(a.value.to_vec()).unwrap(),
                            )
                        })
                        .collect();
                    if opens {
                        depth += 1;
                        if name == "text" {
                            open_text = Some(String::new());
                        }
                    }
                    elements.push((name, attributes));
                }
                Event::Text(t) => {
                    if let Some(buffer) = open_text.as_mut() {
                        buffer.push_str(&t.decode().unwrap());
                    }
                }
                Event::GeneralRef(r) => {
                    if let Some(buffer) = open_text.as_mut() {
                        let name = r.decode().unwrap();
                        buffer.push_str(match name.as_ref() {
                            "amp" => "&",
                            "lt" => "<",
                            "gt" => ">",
                            "quot" => "\"",
                            "apos" => "'",
                            other => panic!("unexpected entity &{other};"),
                        });
                    }
                }
                Event::End(_) => {
                    depth -= 1;
                    if let Some(done) = open_text.take() {
                        texts.push(done.trim().to_string());
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(depth, 0, "{}: unclosed elements", path.display());
        assert_eq!(elements.first().map(|e| e.0.as_str()), Some("svg"));
        Svg { elements, texts }
    }

    /// Elements `name` whose `attribute` is `value`.
    fn count(&self, name: &str, attribute: &str, value: &str) -> usize {
        self.elements
            .iter()
            .filter(|(n, a)| n == name && a.get(attribute).map(String::as_str) == Some(value))
            .count()
    }

    fn texts_containing(&self, needle: &str) -> Vec<&str> {
        self.texts
            .iter()
            .filter(|t| t.contains(needle))
            .map(String::as_str)
            .collect()
    }
}

/// The colour as the SVG backend writes it.
fn hex(c: &calib::plot::Rgb) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Decodes the PNG at `path` (the whole image: a truncated file fails), and
/// returns its size and its RGB(A) pixels.
fn read_png(path: &Path) -> ((u32, u32), Vec<[u8; 3]>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    ((info.width, info.height), pixels)
}

/// The last column of the table row of `stratum` (columns are separated by
/// two spaces or more).
fn last_column(table: &str, stratum: &str) -> String {
    let row = table
        .lines()
        .find(|l| l.starts_with(&format!("{stratum} ")))
        .unwrap_or_else(|| panic!("no row for {stratum} in\n{table}"));
    let columns = Regex::new(r"\s{2,}").unwrap();
    columns.split(row.trim_end()).last().unwrap().to_string()
}

// ---------------------------------------------------------------------------
// calib fit --plot

/// The cumulative panel draws each probe run as measured (one line per run,
/// in the run colours), one band per stratum, and states at N the upper
/// bound that the table prints: the figure and the table are the same
/// projection. The PNG holds the same runs in the same colours.
#[test]
fn fit_plot_draws_each_run_and_the_band_up_to_the_tables_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = calib::synth::spread_case(15, 2);
    let timings = write_arg(dir.path(), "t.csv", &csv);
    let svg = dir.path().join("fit.svg");
    let out = calib()
        .args(["fit", &timings, "--units", "100", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    let report = fit_csv(&csv);
    let figure = Svg::read(&svg);

    // One line per run, each in a run colour; strata restart the colours.
    let runs_drawn: usize = RUNS
        .iter()
        .map(|c| figure.count("polyline", "stroke", &hex(c)))
        .sum();
    let runs: usize = report.model.strata.iter().map(|s| s.runs).sum();
    assert_eq!(runs_drawn, runs);
    for s in &report.model.strata {
        for colour in RUNS.iter().take(s.runs) {
            assert!(figure.count("polyline", "stroke", &hex(colour)) > 0);
        }
    }
    // One band per stratum.
    assert_eq!(
        figure.count("polygon", "opacity", "0.2"),
        report.strata.len()
    );
    for s in &report.strata {
        let captions = figure.texts_containing(&s.stratum);
        assert_eq!(captions.len(), 1, "{captions:?}");
        let upper = last_column(&table, &s.stratum);
        assert!(
            figure
                .texts_containing(&format!("{upper} at 100"))
                .iter()
                .any(|t| t.contains("upper bound at 60%")),
            "{upper} not in {:?}",
            figure.texts
        );
    }

    let png = dir.path().join("fit.png");
    let out = calib()
        .args(["fit", &timings, "--units", "100", "--plot"])
        .arg(&png)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ((width, height), pixels) = read_png(&png);
    assert!(width > 0 && height > 0);
    let max_runs = report.model.strata.iter().map(|s| s.runs).max().unwrap();
    for c in &RUNS[..max_runs] {
        assert!(
            pixels.contains(&[c.0, c.1, c.2]),
            "run colour {c:?} not drawn"
        );
    }
}

/// Run-length rows (one row per run) are drawn too: one marker per run, and
/// a band per stratum.
#[test]
fn fit_plot_of_run_length_rows_has_a_band() {
    let dir = tempfile::tempdir().unwrap();
    let csv = calib::synth::run_length_case(&[10, 20, 40], 2, 5);
    let timings = write_arg(dir.path(), "t.csv", &csv);
    let svg = dir.path().join("fit.svg");
    let out = calib()
        .args(["fit", &timings, "--units", "400", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let figure = Svg::read(&svg);
    assert_eq!(figure.count("polygon", "opacity", "0.2"), 1);
    assert_eq!(figure.texts_containing("workload=W").len(), 1);
}

/// A stratum's name longer than its cell is cut in its caption, so that it
/// does not run into the next cell's; the caption keeps what it says of the fit.
#[test]
fn a_long_stratum_name_is_cut_to_its_cell_in_the_fit_plot() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = calib::synth::spread_case(15, 2);
    let long = format!("dataset=Y{}", "x".repeat(3000));
    let timings = write_arg(dir.path(), "t.csv", csv.replace("dataset=Y", &long));
    let svg = dir.path().join("fit.svg");
    let out = calib()
        .args(["fit", &timings, "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let figure = Svg::read(&svg);
    let width: usize = figure.elements[0].1["width"].parse().unwrap();
    let captions = figure.texts_containing("probed up to");
    assert_eq!(captions.len(), 2, "{captions:?}");
    for caption in captions {
        // Two strata: one column of cells, as wide as the figure; about 10
        // pixels per character.
        assert!(caption.chars().count() <= width / 10, "{caption}");
    }
    let cut = figure.texts_containing("dataset=Yxxx");
    assert_eq!(cut.len(), 1);
    assert!(cut[0].contains("…: "), "{}", cut[0]);
    assert_eq!(figure.texts_containing("dataset=Z").len(), 1);
}

/// More strata than the figure draws: the first are drawn, and the warning
/// says how many of how many, so that none is left out without a word.
#[test]
fn a_fit_plot_of_more_strata_than_it_draws_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for s in 0..40 {
        for r in 0..2 {
            for u in 1..=5 {
                csv.push_str(&format!("r{r},d={s},{u},{}\n", u * 10 + r));
            }
        }
    }
    let timings = write_arg(dir.path(), "t.csv", csv);
    let svg = dir.path().join("fit.svg");
    let out = calib()
        .args(["fit", &timings, "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the first 36 of the 40 strata"),
        "{}",
        stderr(&out)
    );
    assert_eq!(Svg::read(&svg).texts_containing("probed up to").len(), 36);
}

/// The band's points: positive, non-decreasing in the run length (a band of
/// cumulative time cannot fall as a run grows), upper over predicted, at
/// every length from 1 to far beyond the probe; they include the probe's end
/// and N, and at N they are exactly the projection budget uses.
#[test]
fn the_band_is_physical_and_ends_at_the_projection_budget_uses() {
    let cases = [
        // A short probe projected far: the old per-unit band fell to about 0 here.
        calib::synth::trend_case(6, 2, 11).0,
        calib::synth::spread_case(15, 2).0,
        calib::synth::run_length_case(&[10, 20, 40], 2, 5),
    ];
    for csv in &cases {
        let report = fit_csv(csv);
        let table = calib::calibrate::Table::shipped().unwrap();
        for model in &report.model.strata {
            let horizon = model.probe_units();
            for last in [horizon, 100, 10_000] {
                let curve = projection_curve(model, last, 0.99, &table);
                assert!(curve.iter().any(|p| p.units == horizon) || last < horizon);
                assert_eq!(curve.last().unwrap().units, last);
                for p in &curve {
                    assert!(p.predicted_s.is_finite() && p.predicted_s > 0.0, "{p:?}");
                    assert!(p.upper_s >= p.predicted_s, "{p:?}");
                    assert!(p.floor_s.is_finite() && p.floor_s > 0.0, "{p:?}");
                }
                for w in curve.windows(2) {
                    assert!(w[1].units > w[0].units);
                    assert!(w[1].predicted_s >= w[0].predicted_s, "{w:?}");
                    assert!(w[1].upper_s >= w[0].upper_s, "{w:?}");
                }
                let end = curve.last().unwrap();
                let budgeted = model.project(last, 0.99, &table);
                assert_eq!(
                    (end.predicted_s, end.floor_s, end.upper_s),
                    (budgeted.predicted_s, budgeted.floor_s, budgeted.upper_s)
                );
            }
        }
    }
}

/// The measured runs of the cumulative panel are the rows as recorded: the
/// elapsed time of each row, rebuilt from the fit's per-unit points.
#[test]
fn the_runs_are_drawn_as_recorded() {
    let csv = "run,stratum,unit,elapsed_s\n\
               a,d=x,1,12.5\na,d=x,2,20\na,d=x,5,41\n\
               b,d=x,1,11\nb,d=x,3,30.5\nb,d=x,4,38\n";
    let report = fit_csv(csv);
    let rebuilt: Vec<Vec<(u64, f64)>> = report.strata[0]
        .points
        .iter()
        .map(|p| cumulative(p))
        .collect();
    let expected = [
        vec![(1, 12.5), (2, 20.0), (5, 41.0)],
        vec![(1, 11.0), (3, 30.5), (4, 38.0)],
    ];
    assert_eq!(rebuilt.len(), 2);
    for (run, want) in rebuilt.iter().zip(&expected) {
        assert_eq!(run.len(), want.len());
        for (got, want) in run.iter().zip(want) {
            assert_eq!(got.0, want.0);
            assert!((got.1 - want.1).abs() < 1e-9, "{run:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// calib budget --plot

/// A campaign of three strata measured like `calib probe` records them: one
/// of about 100 x 60 s, one of 2880 x 60 s (48 h, over a 24 h largest cap),
/// and one whose 10 units are lost in 30 s of startup (unsupported).
fn campaign(dir: &Path) -> (String, String) {
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for (s, stratum) in ["kind=fast", "kind=slow"].iter().enumerate() {
        for (r, level) in [0.99, 1.0, 1.01].iter().enumerate() {
            let mut t = 0.0;
            for unit in 1..=30u64 {
                t += 60.0
                    * level
                    * if (unit + r as u64).is_multiple_of(2) {
                        1.005
                    } else {
                        0.995
                    };
                csv.push_str(&format!("s{s}r{r},{stratum},{unit},{t:.6}\n"));
            }
        }
    }
    for r in 0..3u64 {
        let mut t = 30.0 * (1.0 + 0.01 * r as f64);
        for unit in 1..=10u64 {
            t += 0.0005 * (1.0 + 0.02 * ((r + unit) % 3) as f64);
            csv.push_str(&format!("b{r},kind=startup-bound,{unit},{t:.6}\n"));
        }
    }
    let grid = "stratum,units,tasks\nkind=fast,100,3\nkind=slow,2880,2\nkind=startup-bound,200,1\n";
    (
        write_arg(dir, "t.csv", csv),
        write_arg(dir, "grid.csv", grid),
    )
}

const PARTITIONS: &str = "short 3:00:00\nmedium 12:00:00\nlong 1-00:00:00\nquick 3:00:00\n";

/// `calib budget` of the campaign's `timings` and `grid` for [`PARTITIONS`];
/// add the output and plot arguments.
fn budget_campaign(timings: &str, grid: &str) -> std::process::Command {
    let mut command = calib();
    command.args([
        "budget",
        timings,
        "--grid",
        grid,
        "--partitions",
        PARTITIONS,
    ]);
    command
}

/// Every stratum is named, every partition labels its cap line (partitions
/// of one cap share a line), the strata given no usable time are marked as
/// such, and only the strata given a time have a --time bar. Written even
/// when budget exits 3, in PNG too.
#[test]
fn budget_plot_draws_each_stratum_against_the_named_caps() {
    let dir = tempfile::tempdir().unwrap();
    let (timings, grid) = campaign(dir.path());
    let svg = dir.path().join("budget.svg");
    let out = budget_campaign(&timings, &grid)
        .args(["--format", "json", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let strata = doc["strata"].as_array().unwrap();
    let figure = Svg::read(&svg);

    for s in strata {
        let name = s["stratum"].as_str().unwrap();
        assert_eq!(
            figure.texts.iter().filter(|t| *t == name).count(),
            1,
            "{name}"
        );
        let status = s["status"].as_str().unwrap();
        if status == "over_cap" || status == "unsupported" {
            assert_eq!(figure.texts_containing(status).len(), 1, "{status}");
        }
    }
    let statuses: Vec<&str> = strata
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert!(statuses.contains(&"over_cap") && statuses.contains(&"unsupported"));
    for partition in ["short", "medium", "long", "quick"] {
        let labels: Vec<&str> = figure
            .texts
            .iter()
            .filter(|t| t.split([' ', ',', ':']).any(|w| w == partition))
            .map(String::as_str)
            .collect();
        assert_eq!(labels.len(), 1, "{partition}: {labels:?}");
    }
    // short and quick share the 3 h line.
    assert!(figure.texts.iter().any(|t| t.starts_with("short, quick:")));
    let caps_named = figure
        .elements
        .iter()
        .filter(|(n, a)| n == "text" && a.get("fill").map(String::as_str) == Some(&hex(&CAP)))
        .count();
    assert_eq!(caps_named, 3);
    // A --time bar for each stratum given a time, and one in the legend.
    let given = strata
        .iter()
        .filter(|s| matches!(s["status"].as_str(), Some("ok" | "rounded_down")))
        .count();
    let bars = figure
        .elements
        .iter()
        .filter(|(n, a)| {
            n == "polyline"
                && a.get("stroke").map(String::as_str) == Some(&hex(&TIME))
                && a.get("stroke-width").map(String::as_str) == Some("4")
        })
        .count();
    assert_eq!(bars, given + 1);

    let png = dir.path().join("budget.png");
    let out = budget_campaign(&timings, &grid)
        .arg("--plot")
        .arg(&png)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let ((width, height), pixels) = read_png(&png);
    assert!(width > 0 && height > 0);
    assert!(pixels.contains(&[TIME.0, TIME.1, TIME.2]));
}

/// A partition without a limit has no line; the figure names it apart.
#[test]
fn budget_plot_names_a_partition_without_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (timings, grid) = campaign(dir.path());
    let svg = dir.path().join("budget.svg");
    let out = calib()
        .args(["budget", &timings, "--grid", &grid])
        .args(["--partitions", "short 3:00:00\nopen infinite\n", "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", stderr(&out));
    let figure = Svg::read(&svg);
    assert_eq!(
        figure.texts_containing("open").len(),
        1,
        "{:?}",
        figure.texts
    );
}

/// Like `calib fit --plot`, a file already there is replaced whole
/// (atomically: a temporary file renamed over it), and a name that is
/// neither .png nor .svg is refused before anything is written.
#[test]
fn budget_plot_replaces_a_file_and_refuses_a_bad_name_first() {
    let dir = tempfile::tempdir().unwrap();
    let (timings, grid) = campaign(dir.path());
    let svg = dir.path().join("budget.svg");
    std::fs::write(&svg, "not a figure").unwrap();
    let out = budget_campaign(&timings, &grid)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    Svg::read(&svg);

    let jobs = dir.path().join("jobs");
    let out = budget_campaign(&timings, &grid)
        .args(["--format", "sbatch", "--script-dir"])
        .arg(&jobs)
        .args(["--plot", "budget.jpg"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("budget.jpg"), "{}", stderr(&out));
    assert!(
        !jobs.exists(),
        "job scripts were written although --plot was bad"
    );
    assert!(!dir.path().join("budget.jpg").exists());
}

/// A --plot that names a folder that is not there, or something that is not
/// a file, is refused before anything is written: the model file of `-o`
/// keeps its content, and no job script of `--script-dir` is left behind
/// (a run again with the plot corrected would be refused, since calib never
/// overwrites a job script).
#[test]
fn a_plot_that_cannot_be_written_is_refused_before_the_model_or_job_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = calib::synth::spread_case(15, 2);
    let timings = write_arg(dir.path(), "t.csv", &csv);
    std::fs::create_dir(dir.path().join("a-folder.svg")).unwrap();
    let unwritable = [
        dir.path().join("no-such-folder/fit.svg"),
        dir.path().join("a-folder.svg"),
    ];
    for plot in &unwritable {
        let model = dir.path().join("model.json");
        std::fs::write(&model, "the model of an earlier fit").unwrap();
        let out = calib()
            .args(["fit", &timings, "--units", "100", "-o"])
            .arg(&model)
            .arg("--plot")
            .arg(plot)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(
            std::fs::read_to_string(&model).unwrap(),
            "the model of an earlier fit",
            "the model was replaced although --plot was bad"
        );
    }

    let (timings, grid) = campaign(dir.path());
    for plot in &unwritable {
        let jobs = dir.path().join("jobs");
        let out = budget_campaign(&timings, &grid)
            .args(["--format", "sbatch", "--script-dir"])
            .arg(&jobs)
            .arg("--plot")
            .arg(plot)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            !jobs.exists(),
            "job scripts were written although --plot was bad: {}",
            stderr(&out)
        );
    }
}
