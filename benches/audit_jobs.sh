#!/usr/bin/env bash
# Benchmark of `calib audit` against the number of distinct jobs: sacct -P
# text of 25,000, 50,000 and 100,000 completed jobs, each with its own name
# (so each its own group and its own array), timed once each; wall seconds
# and peak memory. The time should grow in proportion to the jobs (it grew
# with their square: 50,000 jobs took 4.1 s, 2026-12-02).
#
#   benches/audit_jobs.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked --bin calib
for n in 25000 50000 100000; do
  file="$work/sacct-$n.txt"
  awk -v n="$n" 'BEGIN {
    print "JobID|JobIDRaw|JobName|Partition|State|ExitCode|Elapsed|ElapsedRaw|Timelimit|TimelimitRaw|NodeList|Start|End|Comment"
    for (j = 0; j < n; j++)
      printf "%d|%d|job%d|cpubase_bycore_b1|COMPLETED|0:0|00:10:00||01:00:00||node1|2026-11-20T10:00:00|2026-11-20T11:00:00|\n", 100000 + j, 100000 + j, j
  }' >"$file"
  /usr/bin/time -f "$n jobs: %e s wall, %M KB peak" "$target/release/calib" audit "@$file" >/dev/null
done
