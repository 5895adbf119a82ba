#!/usr/bin/env bash
# Benchmark of `calib fit` on 1,000,000 unit rows (100 strata x 10 runs x 1,000
# units), against the time polars takes merely to read the same CSV.
#
#   benches/fit_bench.sh [WORKDIR]
#
# Builds release binaries (the polars example needs `--features polars`: ~8 min
# cold), generates the table with calib's deterministic generator
# (examples/synth_data.rs, seed 2026), then times each step 5 times and reports
# the median wall time, then the CPU time of each (load-independent). Uses
# $CARGO_TARGET_DIR when set.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
runs=5

cargo build --release --bin calib --example synth_data --example fit_phases
cargo build --release --features polars --example polars_read

csv="$work/bench-1M.csv"
"$target/release/examples/synth_data" --bench "$csv" 100 10 1000
ls -l "$csv"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_it() { # prints wall seconds of "$@"
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}

fit_times=$(for _ in $(seq $runs); do time_it "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json"; done | median)
read_times=$(for _ in $(seq $runs); do time_it "$target/release/examples/polars_read" "$csv"; done | median)
echo "phases of calib fit (one run):"
"$target/release/examples/fit_phases" "$csv"
"$target/release/examples/polars_read" "$csv"
printf 'calib fit (read + fit + table + model file), median of %d: %.3f s\n' "$runs" "$fit_times"
printf 'polars CSV read only, median of %d:                         %.3f s\n' "$runs" "$read_times"
printf 'ratio fit / polars read: %.2f (goal: <= 2)\n' "$(echo "$fit_times / $read_times" | bc -l)"
# CPU time (user + sys) does not depend on how busy the machine is.
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
fit_cpu=$(cpu "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json")
read_cpu=$(cpu "$target/release/examples/polars_read" "$csv")
printf 'CPU seconds (user + sys): calib fit %s, polars read %s, ratio %.2f\n' "$fit_cpu" "$read_cpu" "$(echo "$fit_cpu / $read_cpu" | bc -l)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
