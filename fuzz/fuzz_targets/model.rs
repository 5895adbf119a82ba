//! The model loader (`calib budget --model`) on any bytes: no panic, a
//! refusal is bad input (exit status 2), and what it accepts can be projected.
//! The loader takes a path, so each input goes through one file of this
//! process, rewritten every time.

#![no_main]

use calib::model::ModelFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("calib-fuzz-{}.json", std::process::id()));
    std::fs::write(&path, data).expect("write the input file");
    match ModelFile::load(&path) {
        Ok(model) => {
            for stratum in &model.strata {
                for units in [1, 100, 10_000] {
                    let _ = stratum.project(units, 0.99);
                }
            }
        }
        Err(e) => assert_eq!(e.exit_code(), 2, "{e}"),
    }
});
