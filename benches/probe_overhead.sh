#!/usr/bin/env bash
# The cost of `calib probe` for a chatty command: wall time of
#   calib probe -- CMD      vs      CMD
# for a CMD that prints LINES lines (default 2,000,000; one in 1,000 is a unit
# marker, the rest look like a training log), with the output going to a file
# (the common case under Slurm, where --output is a file) and to /dev/null.
# Runs alternate (direct, calib, direct, ...) to share any drift; the script
# prints the median of RUNS runs of each and their ratio, for wall time and for
# CPU time (user + sys of the whole process tree, which other load on a shared
# machine disturbs much less than wall time). `CMD | cat` is shown as the floor
# of any pass-through through a pipe. Goal: wall ratio <= 1.01.
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

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One timed run: appends "wall cpu" (seconds; cpu = user + sys of the whole
# process tree) to $1, runs the rest with stdout to $SINK.
timed() {
  local log=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >"$SINK" 2>>"$WORK/calib.err"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$WORK/time" >>"$log"
}

bench() { # $1 = where the output goes
  SINK=$1
  : >"$WORK/direct.t"; : >"$WORK/probed.t"; : >"$WORK/cat.t"
  local i
  for ((i = 0; i < RUNS; i++)); do
    timed "$WORK/direct.t" "${CMD[@]}"
    rm -rf "$WORK/timings"
    timed "$WORK/probed.t" "$CALIB" probe --allow-login --progress plain --show-units 0 \
      -s bench=overhead --out "$WORK/timings" -- "${CMD[@]}"
    timed "$WORK/cat.t" bash -c '"$@" | cat' bash "${CMD[@]}"
  done
  local dw pw dc pc cw cc units
  dw=$(cut -d' ' -f1 "$WORK/direct.t" | median); pw=$(cut -d' ' -f1 "$WORK/probed.t" | median)
  dc=$(cut -d' ' -f2 "$WORK/direct.t" | median); pc=$(cut -d' ' -f2 "$WORK/probed.t" | median)
  cw=$(cut -d' ' -f1 "$WORK/cat.t" | median); cc=$(cut -d' ' -f2 "$WORK/cat.t" | median)
  units=$(($(wc -l <"$WORK"/timings/*.csv) - 2))
  awk -v dw="$dw" -v pw="$pw" -v dc="$dc" -v pc="$pc" -v cw="$cw" -v cc="$cc" -v sink="$2" -v runs="$RUNS" \
    -v lines="$LINES" -v units="$units" 'BEGIN {
    printf "%s: %d lines (%d units), medians of %d runs\n", sink, lines, units, runs
    printf "  wall: direct %.3f s, calib probe %.3f s, ratio %.4f (%+.2f%%)\n", dw, pw, pw / dw, 100 * (pw / dw - 1)
    printf "  cpu:  direct %.3f s, calib probe %.3f s, ratio %.4f (%+.2f%%)\n", dc, pc, pc / dc, 100 * (pc / dc - 1)
    printf "  reference, CMD | cat (the cost of any pipe): wall %.3f s (%+.2f%%), cpu %.3f s (%+.2f%%)\n", cw, 100 * (cw / dw - 1), cc, 100 * (cc / dc - 1)
  }'
}

# Output to a file must match byte for byte.
"${CMD[@]}" >"$WORK/direct.out"
"$CALIB" probe --allow-login --progress plain -s bench=check --out "$WORK/check" -- "${CMD[@]}" \
  >"$WORK/probed.out" 2>/dev/null
cmp -s "$WORK/direct.out" "$WORK/probed.out" || { echo "pass-through differs" >&2; exit 1; }

echo "calib probe overhead ($(nproc) CPUs, $(uname -sr), load: $(cut -d' ' -f1-3 /proc/loadavg))"
bench "$WORK/out.log" "to a file"
bench /dev/null "to /dev/null"
