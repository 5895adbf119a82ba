#!/usr/bin/env bash
# Benchmark of `calib fit` on 1,000,000 unit rows (100 strata x 10 runs x 1,000
# units): absolute times, and beside them two floors no reader of the table can
# beat: copying its bytes (`cat FILE > /dev/null`) and counting its lines
# (`wc -l`), both from the page cache. A floor is not a competitor: neither
# parses a number, checks a row or fits anything; the ratio says how much of
# fit's time is more than moving the bytes.
#
#   benches/fit_bench.sh [WORKDIR]
#
# Builds the release binary and two examples (the lean build, no extra
# feature), generates the table with calib's deterministic generator
# (examples/synth_data.rs, seed 2026), then times each step 5 times and reports
# the median wall time, then the CPU time of each (load-independent). Uses
# $CARGO_TARGET_DIR when set.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
runs=5

cargo build --release --locked --bin calib --example synth_data --example fit_phases

csv="$work/bench-1M.csv"
"$target/release/examples/synth_data" --bench "$csv" 100 10 1000
ls -l "$csv"
cat "$csv" >/dev/null # into the page cache, for every reader alike

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_it() { # prints wall seconds of "$@"
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}
median_of() { for _ in $(seq $runs); do time_it "$@"; done | median; }

fit_times=$(median_of "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json")
cat_times=$(median_of cat "$csv")
wc_times=$(median_of wc -l "$csv")
echo "phases of calib fit (one run):"
"$target/release/examples/fit_phases" "$csv"
printf 'calib fit (read + fit + table + model file), median of %d: %.3f s\n' "$runs" "$fit_times"
printf 'floor: cat FILE > /dev/null, median of %d:                  %.3f s\n' "$runs" "$cat_times"
printf 'floor: wc -l FILE, median of %d:                            %.3f s\n' "$runs" "$wc_times"
printf 'ratio fit / wc -l: %.1f (a floor, not a goal)\n' "$(echo "$fit_times / $wc_times" | bc -l)"
# CPU time (user + sys) depends much less than wall time on how busy the machine is.
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
fit_cpu=$(cpu "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json")
printf 'CPU seconds (user + sys) of calib fit: %s\n' "$fit_cpu"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
