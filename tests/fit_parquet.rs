//! Parquet input (built with `--features polars`): the same rows as CSV give the
//! same model, and Parquet files in a folder are picked up.
#![cfg(feature = "polars")]

use std::io::Write;

use calib::fit::{fit_timings, FitOptions};
use calib::timings::{read_timings, IngestOptions};
use polars::prelude::*;

#[test]
fn parquet_and_csv_give_the_same_fit() {
    let (csv, _) = calib::synth::trend_case(30, 2, 9);
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("t.csv");
    std::fs::File::create(&csv_path)
        .unwrap()
        .write_all(csv.as_bytes())
        .unwrap();
    let mut df = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(csv_path.clone()))
        .unwrap()
        .finish()
        .unwrap();
    let sub = dir.path().join("pq");
    std::fs::create_dir(&sub).unwrap();
    let pq_path = sub.join("t.parquet");
    ParquetWriter::new(std::fs::File::create(&pq_path).unwrap())
        .finish(&mut df)
        .unwrap();
    let from_csv = read_timings(&[csv_path], &IngestOptions::default()).unwrap();
    let from_pq = read_timings(&[sub], &IngestOptions::default()).unwrap();
    assert_eq!(from_csv.runs.len(), from_pq.runs.len());
    let a = fit_timings(&from_csv, &FitOptions::default()).unwrap();
    let b = fit_timings(&from_pq, &FitOptions::default()).unwrap();
    let (pa, pb) = (
        a.model.strata[0].project(100, 0.99),
        b.model.strata[0].project(100, 0.99),
    );
    assert!((pa.predicted_s - pb.predicted_s).abs() < 1e-6 * pa.predicted_s);
    assert!((pa.upper_s - pb.upper_s).abs() < 1e-6 * pa.upper_s);
}
