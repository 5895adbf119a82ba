#!/usr/bin/env bash
# Benchmark of `calib resume` against the number of killed tasks in one
# array: 5,000 and 20,000 tasks of the demo's slow stratum, each killed at
# unit 5 (its timings and sacct's TIMEOUT row), resumed from the demo's
# probes; wall seconds and peak memory of each. The time should grow in
# proportion to the tasks (it grew with their square: 20,000 tasks took
# 24.1 s, 2026-12-02).
#
#   benches/resume_tasks.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked --bin calib
for n in 5000 20000; do
  awk -v n="$n" 'BEGIN {
    print "run,stratum,unit,elapsed_s,job_id,end"
    for (i = 0; i < n; i++) {
      for (u = 1; u <= 5; u++) printf "k%d,dataset=Y,%d,%d,9_%d,\n", i, u, 20 + 390 * u, i
      printf "k%d,dataset=Y,5,2000,9_%d,signal:TERM\n", i, i
    }
  }' >"$work/killed-$n.csv"
  awk -v n="$n" 'BEGIN {
    print "JobID|JobIDRaw|JobName|Partition|State|ExitCode|Elapsed|ElapsedRaw|Timelimit|TimelimitRaw|NodeList|Start|End|Comment"
    for (i = 0; i < n; i++)
      printf "9_%d|%d|calib-dataset-Y|b1|TIMEOUT|0:0|00:33:20||00:33:00||node1|2026-11-20T10:00:00|2026-11-20T11:00:00|calib stratum=dataset=Y\n", i, 10000 + i
  }' >"$work/sacct-$n.txt"
  /usr/bin/time -f "$n killed tasks: %e s wall, %M KB peak" "$target/release/calib" resume data/spread-20.csv \
    --timings "$work/killed-$n.csv" --sacct "@$work/sacct-$n.txt" --units 100 \
    --partitions @data/campaign/partitions-narval.txt --script job.sh >/dev/null
done
