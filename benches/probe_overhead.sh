#!/usr/bin/env bash
# The cost of `calib probe` for a chatty command: wall time of
#   calib probe -- CMD      vs      CMD
# for a CMD that prints LINES lines (default 2,000,000; one in 1,000 is a unit
# marker, the rest look like a training log), with the output going to a file
# (the common case under Slurm, where --output is a file) and to /dev/null.
# Runs alternate (direct, calib, direct, ...) to share any drift; the script
# prints the median of RUNS runs of each and their ratio. Goal: ratio <= 1.01.
#
# Usage: benches/probe_overhead.sh [LINES] [RUNS]
#   CARGO_TARGET_DIR (default target/) decides where the release build goes.
set -euo pipefail

LINES=${1:-2000000}
RUNS=${2:-9}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

(cd "$ROOT" && cargo build --release --quiet)
CALIB=$TARGET/release/calib
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The command: awk, block-buffered like most programs writing to a file or pipe.
CMD=(awk -v n="$LINES" 'BEGIN {
  for (i = 1; i <= n; i++) {
    if (i % 1000 == 0) printf "step %d\n", i / 1000
    else printf "loss=%.6f lr=%.6f sample=%d\n", 1.0 / i, 0.001 * i, i
  }
}')

now() { echo "${EPOCHREALTIME/./}"; } # microseconds (bash >= 5)

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

bench() { # $1 = where the output goes
  local sink=$1 direct=() probed=() t0 t1 i
  for ((i = 0; i < RUNS; i++)); do
    t0=$(now); "${CMD[@]}" >"$sink"; t1=$(now)
    direct+=($((t1 - t0)))
    rm -rf "$WORK/timings"
    t0=$(now)
    "$CALIB" probe --allow-login --progress plain --show-units 0 -s bench=overhead \
      --out "$WORK/timings" -- "${CMD[@]}" >"$sink" 2>"$WORK/calib.err"
    t1=$(now)
    probed+=($((t1 - t0)))
  done
  local md mp
  md=$(printf '%s\n' "${direct[@]}" | median)
  mp=$(printf '%s\n' "${probed[@]}" | median)
  local units
  units=$(($(wc -l <"$WORK"/timings/*.csv) - 2))
  awk -v md="$md" -v mp="$mp" -v sink="$sink" -v runs="$RUNS" -v lines="$LINES" -v units="$units" 'BEGIN {
    printf "%-10s %d lines (%d units), median of %d: direct %.3f s, calib probe %.3f s, ratio %.4f (%+.2f%%)\n",
      sink, lines, units, runs, md / 1e6, mp / 1e6, mp / md, 100 * (mp / md - 1)
  }'
}

# Output to a file must match byte for byte.
"${CMD[@]}" >"$WORK/direct.out"
"$CALIB" probe --allow-login --progress plain -s bench=check --out "$WORK/check" -- "${CMD[@]}" \
  >"$WORK/probed.out" 2>/dev/null
cmp -s "$WORK/direct.out" "$WORK/probed.out" || { echo "pass-through differs" >&2; exit 1; }

echo "calib probe overhead ($(nproc) CPUs, $(uname -sr))"
bench "$WORK/out.log"
bench /dev/null
