#!/usr/bin/env bash
# Benchmark of calib's main job on a campaign of 100 strata x 10 runs x 100
# units (100,000 unit rows): `calib fit -o` then `calib budget` of a 1000-unit
# run per stratum against a 5-bucket partition list, each timed 5 times; the
# medians of wall time and of CPU time (user + sys, which depends less on how
# busy the machine is), and their sum (the goal: under 1 s together).
#
#   benches/fit_budget.sh [WORKDIR]
#
# Builds the release binary and the generator example; the table is calib's
# deterministic generator's (examples/synth_data.rs, seed 2026). Uses
# $CARGO_TARGET_DIR when set.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
runs=5
calib="$target/release/calib"

cargo build --release --locked --bin calib --example synth_data
csv="$work/campaign.csv"
"$target/release/examples/synth_data" --bench "$csv" 100 10 100
printf 'b1 3:00:00\nb2 12:00:00\nb3 1-00:00:00\nb4 3-00:00:00\nb5 7-00:00:00\n' >"$work/partitions.txt"
cat "$csv" >/dev/null # into the page cache

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
fit=("$calib" fit "$csv" -o "$work/model.json")
budget=("$calib" budget --model "$work/model.json" --units 1000 --partitions "@$work/partitions.txt")
"${fit[@]}" >/dev/null 2>&1
code=0; "${budget[@]}" >/dev/null 2>&1 || code=$?
[[ $code == 0 || $code == 3 ]] || { echo "calib budget failed ($code)" >&2; exit 1; }

fit_wall=$(for _ in $(seq $runs); do wall "${fit[@]}"; done | median)
budget_wall=$(for _ in $(seq $runs); do wall "${budget[@]}"; done | median)
fit_cpu=$(for _ in $(seq $runs); do cpu "${fit[@]}"; done | median)
budget_cpu=$(for _ in $(seq $runs); do cpu "${budget[@]}"; done | median)
echo "$(wc -l <"$csv") lines, $(du -h "$csv" | cut -f1)"
printf 'calib fit -o, median of %d:    %.3f s wall, %.3f s CPU\n' "$runs" "$fit_wall" "$fit_cpu"
printf 'calib budget, median of %d:    %.3f s wall, %.3f s CPU\n' "$runs" "$budget_wall" "$budget_cpu"
printf 'together:                     %.3f s wall, %.3f s CPU (goal: under 1 s)\n' \
  "$(echo "$fit_wall + $budget_wall" | bc -l)" "$(echo "$fit_cpu + $budget_cpu" | bc -l)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
