//! Writes the example timings of `data/` (and the benchmark table) with calib's
//! deterministic generator (`calib::synth`).
//!
//! ```text
//! cargo run --example synth_data -- data/            # the seed-case files
//! cargo run --release --example synth_data -- --bench /tmp/bench.csv [strata runs units]
//! ```

use std::io::Write;
use std::path::PathBuf;

use calib::synth;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bench") {
        let path = PathBuf::from(args.get(1).expect("--bench FILE [strata runs units]"));
        let num = |i: usize, d: u64| {
            args.get(i)
                .map(|s| s.parse().expect("a number"))
                .unwrap_or(d)
        };
        let (strata, runs, units) = (num(2, 100), num(3, 10), num(4, 1000));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        synth::bench_case(&mut out, strata as usize, runs as usize, units, 2026)?;
        out.flush()?;
        eprintln!(
            "wrote {} ({strata} strata x {runs} runs x {units} units)",
            path.display()
        );
        return Ok(());
    }
    let dir = PathBuf::from(args.first().map(String::as_str).unwrap_or("data"));
    std::fs::create_dir_all(&dir)?;
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text);
    write("trend-probe-7.csv", &synth::trend_case(7, 1, 1).0)?;
    write("trend-probe-60x3.csv", &synth::trend_case(60, 3, 11).0)?;
    write("spread-20.csv", &synth::spread_case(20, 5).0)?;
    write(
        "run-length.csv",
        &synth::run_length_case(&[100, 1000], 8, 21),
    )?;
    std::fs::create_dir_all(dir.join("campaign"))?;
    write(
        "campaign/timed-out-Y.csv",
        &synth::timeout_case(8.0 * 3600.0, 41),
    )?;
    eprintln!("wrote the seed-case files into {}", dir.display());
    Ok(())
}
