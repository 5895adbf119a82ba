//! Parquet input (with the `polars` feature): the table is read with polars and
//! handed to the same validating CSV reader as every other input, so a Parquet
//! file gets exactly the same checks and messages. Line numbers in messages
//! count the header as line 1: row k of the table is line k + 1.

use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Origin, Result};

/// Reads a Parquet file and renders it as CSV bytes with a header.
pub(crate) fn parquet_as_csv(path: &Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
    let bad = |e: PolarsError| {
        Error::input(
            Origin::file(path),
            None,
            format!("not a readable Parquet file: {e}"),
        )
    };
    let mut df = ParquetReader::new(file).finish().map_err(bad)?;
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf)
        .include_header(true)
        .finish(&mut df)
        .map_err(bad)?;
    Ok(buf)
}
