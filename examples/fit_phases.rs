//! Times the phases of `calib fit` on a file: read (the timings contract reader)
//! and fit (`fit_timings`), and one projection per stratum (on every core, as
//! `calib fit --units 2000` projects for its table).
//!
//! `cargo run --release --example fit_phases -- FILE.csv`

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let path = PathBuf::from(std::env::args().nth(1).expect("FILE"));
    let t0 = Instant::now();
    let timings = calib::timings::read_timings(&[path], &Default::default()).expect("read");
    let t1 = Instant::now();
    let report = calib::fit::fit_timings(&timings, &Default::default()).expect("fit");
    let t2 = Instant::now();
    let sum: f64 = report.projections(2000).iter().map(|p| p.upper_s).sum();
    let t3 = Instant::now();
    let rows: usize = timings.runs.iter().map(|r| r.points.len()).sum();
    println!(
        "rows {rows} strata {} read {:.3} s fit {:.3} s project x{} {:.3} s (checksum {sum:.0})",
        report.model.strata.len(),
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        report.model.strata.len(),
        (t3 - t2).as_secs_f64()
    );
}
