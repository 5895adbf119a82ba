#!/usr/bin/env bash
# Memory and time of calib on many strata: `calib fit -o` and `calib budget`
# on tables of 10,000, 100,000 and 1,000,000 strata (2 runs x 3 units each,
# calib's deterministic generator, examples/synth_data.rs, seed 2026), each run
# once under GNU time: peak resident memory (max RSS) and wall time. A grid of
# a million cells is far past any campaign; the point is that memory grows
# linearly, per stratum, and stays within a workstation.
#
#   benches/many_strata.sh [WORKDIR] [LARGEST]     # LARGEST: 1000000 by default
#
# Needs /usr/bin/time (Debian: time). Uses $CARGO_TARGET_DIR when set. The
# model of a million strata (about 1.9 GB) is over the size calib budget reads
# from a model file (256 MiB), so budget is timed on the timings themselves,
# as `calib budget timings/` reads them.
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
largest="${2:-1000000}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }

cargo build --release --locked --bin calib --example synth_data
calib="$target/release/calib"

measure() { # label, then the command: prints "label: max RSS, wall"
  local label=$1 report
  shift
  report=$(/usr/bin/time -f '%M %e' "$@" 2>&1 >/dev/null | tail -1)
  read -r kb wall <<<"$report"
  awk -v l="$label" -v kb="$kb" -v w="$wall" -v n="$strata" \
    'BEGIN { printf "%-8s %9d strata: max RSS %7.0f MB (%5.1f KB a stratum), %6.1f s\n", l, n, kb / 1024, kb / n, w }'
}

for strata in 10000 100000 1000000; do
  (( strata <= largest )) || break
  csv="$work/strata-$strata.csv"
  "$target/release/examples/synth_data" --bench "$csv" "$strata" 2 3 2>/dev/null
  measure fit "$calib" fit "$csv" -o "$work/model-$strata.json"
  measure budget "$calib" budget "$csv" --units 5 --partitions "short 1:00:00"
  rm -f "$csv" "$work/model-$strata.json"
done
