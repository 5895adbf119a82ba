#!/usr/bin/env bash
# Benchmark of `calib fit` on 1,000,000 unit rows (100 strata x 10 runs x 1,000
# units): absolute times, beside polars' CSV read of the same file (the goal:
# calib fit within 2.5x of it), and two floors no reader of the table can
# beat: copying its bytes (`cat FILE > /dev/null`) and counting its lines
# (`wc -l`), both from the page cache. A floor is not a competitor: neither
# parses a number, checks a row or fits anything; the ratio says how much of
# fit's time is more than moving the bytes.
#
#   benches/fit_bench.sh [WORKDIR]
#
# Polars is timed inside Python (benches/polars_read.py: the read alone,
# one warm-up, then the median), with the first python that imports polars of
# $CALIB_BENCH_PYTHON, the notebook's venv (<target dir>/notebook-venv, made
# by scripts/notebook) and python3. Without one, the script says so and
# reports calib's times and the floors only.
#
# Builds the release binary and the generator example (the lean build, no extra
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

cargo build --release --locked --bin calib --example synth_data

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

# The python with polars, if any (see above).
polars_python=""
for candidate in "${CALIB_BENCH_PYTHON:-}" "$target/notebook-venv/bin/python" python3; do
  if [[ -n $candidate ]] && "$candidate" -c 'import polars' >/dev/null 2>&1; then
    polars_python="$candidate"
    break
  fi
done

fit_times=$(median_of "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json")
cat_times=$(median_of cat "$csv")
wc_times=$(median_of wc -l "$csv")
printf 'calib fit (read + fit + table + model file), median of %d: %.3f s\n' "$runs" "$fit_times"
if [[ -n $polars_python ]]; then
  # A failing read (a polars too old for the file, say) is reported, not fatal.
  polars_out=$("$polars_python" benches/polars_read.py "$csv" "$runs") || polars_out=""
  if [[ -n $polars_out ]]; then
    read -r polars_wall polars_cpu polars_rows polars_threads <<<"$polars_out"
    printf 'polars %s read_csv (%s rows, %s threads), median of %d: %.3f s\n' \
      "$("$polars_python" -c 'import polars; print(polars.__version__)')" "$polars_rows" "$polars_threads" "$runs" "$polars_wall"
  else
    echo "polars: $polars_python benches/polars_read.py failed (above); polars not timed"
    polars_python=""
  fi
else
  echo "polars: no python with polars found (tried \$CALIB_BENCH_PYTHON, $target/notebook-venv/bin/python, python3);"
  echo "        set CALIB_BENCH_PYTHON to one, or run scripts/notebook to make the venv; polars not timed"
fi
printf 'floor: cat FILE > /dev/null, median of %d:                  %.3f s\n' "$runs" "$cat_times"
printf 'floor: wc -l FILE, median of %d:                            %.3f s\n' "$runs" "$wc_times"
printf 'ratio fit / wc -l: %.1f (a floor, not a goal)\n' "$(echo "$fit_times / $wc_times" | bc -l)"
if [[ -n $polars_python ]]; then
  printf 'ratio fit / polars read (wall): %.2f (goal: at most 2.5)\n' "$(echo "$fit_times / $polars_wall" | bc -l)"
fi
# CPU time (user + sys) depends much less than wall time on how busy the machine is.
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
fit_cpu=$(for _ in $(seq $runs); do cpu "$target/release/calib" fit "$csv" --units 2000 -o "$work/model.json"; done | median)
printf 'CPU seconds (user + sys) of calib fit, median of %d: %s\n' "$runs" "$fit_cpu"
if [[ -n $polars_python ]]; then
  printf 'CPU seconds (user + sys) of polars read, median: %s\n' "$polars_cpu"
  printf 'ratio fit / polars read (CPU): %.2f\n' "$(echo "$fit_cpu / $polars_cpu" | bc -l)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
