//! `calib calibrate`: the calibration table from programs' probes and the full
//! runs that followed, and how the calibrated bound does on them. The method
//! lives in `crate::calibrate`.

use std::io::Write;
use std::path::PathBuf;

use crate::calibrate::cases::{all_cases, program_dirs, read_program, StratumRuns};
use crate::calibrate::report::{summarise, trials, Method, Summary};
use crate::calibrate::{table, Anchor, Calibration, Form, CHOSEN, FORM};

/// The kernel widths (in ln(N/K)) the report compares.
const CANDIDATE_WIDTHS: [f64; 3] = [0.35, 0.7, 1.4];
use crate::error::Result;
use crate::output;

pub const LONG_ABOUT: &str = "\
Build the calibration table from probes and the full runs that followed

Each DIR is one program: a folder with probe/ and full/ inside (the corpus's layout), \
or a campaign's timings folder, whose runs stopped by --units are its probes and whose \
runs that reached the stratum's largest unit count are its full runs; or a folder of \
such programs. Every probe and full run it did not see is a case: the full run's time \
over the centre the probe projects. -o writes the cases as CSV.

The report judges the calibrated bound leave-one-program-out: each program's recorded \
probes are budgeted with a factor from the other programs' cases, against its full \
runs; --held-out programs are budgeted with every case instead. Beside it, the mean \
rate x N and that x 1.5 on the same probes.";

const AFTER_HELP: &str = "\
Examples:
  calib calibrate data/traces data/validation* -o calibration.csv
  calib calibrate data/traces --held-out data/heldout-1";

/// Arguments of `calib calibrate`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct CalibrateArgs {
    /// Program folders, or folders of them.
    #[arg(required = true, value_name = "DIR")]
    pub programs: Vec<PathBuf>,

    /// Write the table of cases (CSV) to FILE.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Judge these programs with every case (a held-out set).
    #[arg(long, value_name = "DIR", num_args = 1..)]
    pub held_out: Vec<PathBuf>,

    /// Confidence levels to report, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.9,0.99",
        value_name = "Q"
    )]
    pub confidence: Vec<f64>,
}

/// The strata of the programs `dirs` name ([`program_dirs`]).
fn programs(dirs: &[PathBuf]) -> Result<Vec<StratumRuns>> {
    let mut out = Vec::new();
    for p in program_dirs(dirs) {
        let (strata, warnings) = read_program(&p)?;
        for w in &warnings {
            output::warn(w);
        }
        out.extend(strata);
    }
    Ok(out)
}

fn share(k: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        output::percent(k as f64 / n as f64, 1)
    }
}

fn row(out: &mut dyn Write, what: &str, s: &Summary) -> std::io::Result<()> {
    writeln!(
        out,
        "| {what} | {}/{} ({}, 95% {:.1}-{:.1}%) | {} | {}/{} |",
        s.covered,
        s.budgeted,
        share(s.covered, s.budgeted),
        100.0 * s.interval.0,
        100.0 * s.interval.1,
        s.median_headroom.map_or("-".into(), |h| format!("{h:.2}x")),
        s.refused,
        s.strata
    )
}

pub fn run(args: &CalibrateArgs) -> Result<i32> {
    let corpus = programs(&args.programs)?;
    let held_out = programs(&args.held_out)?;
    // The candidates the constants were chosen among, judged on the corpus
    // only; a held-out set is judged with the chosen method alone.
    let mut candidates = Vec::new();
    for form in [Form::Power, Form::Linear] {
        for anchor in [Anchor::Centre, Anchor::Slowest] {
            for bandwidth in CANDIDATE_WIDTHS {
                for recorded_only in [false, true] {
                    candidates.push(Method::Calibrated {
                        form,
                        how: Calibration {
                            anchor,
                            bandwidth,
                            recorded_only,
                        },
                    });
                }
            }
        }
    }
    let baselines = [Method::MeanRate(1.0), Method::MeanRate(1.5)];
    candidates.extend(baselines);
    let mut chosen = vec![Method::Calibrated {
        form: FORM,
        how: CHOSEN,
    }];
    chosen.extend(baselines);
    let tables = [Form::Power, Form::Linear].map(|f| (f, all_cases(&corpus, f)));
    if let Some(path) = &args.out {
        let chosen_table = if FORM == Form::Power {
            &tables[0].1
        } else {
            &tables[1].1
        };
        let bytes = table::write(chosen_table)?;
        crate::atomic::write_file(path, &bytes, crate::atomic::IfExists::Replace)?;
    }
    let count = |s: &[StratumRuns]| {
        let mut names: Vec<&str> = s.iter().map(|x| x.program.as_str()).collect();
        names.dedup();
        names.len()
    };
    output::write_table(|out| {
        writeln!(
            out,
            "corpus: {} programs, {} strata; cases: {} (power), {} (linear)",
            count(&corpus),
            corpus.len(),
            tables[0].1.len(),
            tables[1].1.len()
        )?;
        let judged: [(&str, &[StratumRuns], bool, &[Method]); 2] = [
            (
                "leave-one-program-out on the corpus",
                &corpus,
                true,
                &candidates,
            ),
            ("held-out programs, every case", &held_out, false, &chosen),
        ];
        for (title, strata, lopo, methods) in judged {
            if strata.is_empty() {
                continue;
            }
            writeln!(
                out,
                "\n## {title} ({} programs, {} strata)",
                count(strata),
                strata.len()
            )?;
            for &q in &args.confidence {
                writeln!(out, "\n### stated {q}\n")?;
                writeln!(
                    out,
                    "| method, probes | runs covered | median headroom | strata refused |"
                )?;
                writeln!(out, "|---|---|---|---|")?;
                for &method in methods {
                    let cases = match method {
                        Method::Calibrated {
                            form: Form::Power, ..
                        } => &tables[0].1,
                        _ => &tables[1].1,
                    };
                    let all = trials(strata, cases, method, q, lopo);
                    for (class, keep) in
                        [("all", None), ("growth", Some(true)), ("flat", Some(false))]
                    {
                        let chosen = all.iter().filter(|t| {
                            keep.is_none_or(|g| t.group.is_some_and(|x| x.growth == g))
                        });
                        row(
                            out,
                            &format!("{}, {class}", method.name()),
                            &summarise(chosen),
                        )?;
                    }
                    let refused: Vec<String> = all
                        .iter()
                        .filter(|t| t.covered.is_none())
                        .map(|t| format!("{} {}", t.program, t.stratum))
                        .collect();
                    if !refused.is_empty() && matches!(method, Method::Calibrated { .. }) {
                        writeln!(out, "| refused: {} | | | |", refused.join("; "))?;
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(0)
}
