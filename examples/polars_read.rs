//! The benchmark's yardstick: the time polars takes merely to read a timings CSV
//! (eager reader, all cores, the four contract columns typed up front so that
//! nothing is inferred), next to nothing else.
//!
//! `cargo run --release --features polars --example polars_read -- FILE.csv`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use polars::prelude::*;

fn main() -> PolarsResult<()> {
    let path = PathBuf::from(std::env::args().nth(1).expect("FILE.csv"));
    let mut schema = Schema::default();
    schema.with_column("run".into(), DataType::String);
    schema.with_column("stratum".into(), DataType::String);
    schema.with_column("unit".into(), DataType::UInt64);
    schema.with_column("elapsed_s".into(), DataType::Float64);
    let t0 = Instant::now();
    let df = CsvReadOptions::default()
        .with_has_header(true)
        .with_schema_overwrite(Some(Arc::new(schema)))
        .try_into_reader_with_file_path(Some(path))?
        .finish()?;
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "polars read {} rows x {} columns in {secs:.3} s",
        df.height(),
        df.width()
    );
    Ok(())
}
