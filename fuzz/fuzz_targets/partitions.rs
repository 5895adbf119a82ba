//! The partition parser (`--partitions`) on any text: no panic, a refusal is
//! bad input (exit status 2), and what it accepts can be selected from.

#![no_main]

use calib::error::Origin;
use calib::slurm::partitions::parse_partitions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_partitions(&text, &Origin::Argument("--partitions".into())) {
        Ok(list) => {
            let _ = list.families();
            if let Err(e) = list.select(None) {
                assert_eq!(e.exit_code(), 2, "{e}");
            }
        }
        Err(e) => assert_eq!(e.exit_code(), 2, "{e}"),
    }
});
