//! The timings reader (`calib fit`'s files) on any bytes: no panic, and a
//! refusal is bad input (exit status 2). The reader takes paths, so each input
//! goes through one file of this process, rewritten every time.

#![no_main]

use calib::timings::{read_timings, IngestOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("calib-fuzz-{}.csv", std::process::id()));
    std::fs::write(&path, data).expect("write the input file");
    if let Err(e) = read_timings(&[path], &IngestOptions::default()) {
        assert_eq!(e.exit_code(), 2, "{e}");
    }
});
