"""Times polars' CSV read of one file, for benches/fit_bench.sh.

    python polars_read.py FILE RUNS

One warm-up read, then RUNS timed reads; prints the median wall seconds and
the median CPU seconds (user + sys of the process, all of polars' threads)
of the read alone, and the rows read, on one line: "WALL CPU ROWS THREADS".
"""

import statistics
import sys
import time

import polars as pl

path, runs = sys.argv[1], int(sys.argv[2])
frame = pl.read_csv(path)  # warm-up: page cache, polars' thread pool
walls, cpus = [], []
for _ in range(runs):
    c0, w0 = time.process_time(), time.perf_counter()
    frame = pl.read_csv(path)
    w1, c1 = time.perf_counter(), time.process_time()
    walls.append(w1 - w0)
    cpus.append(c1 - c0)
print(
    f"{statistics.median(walls):.4f} {statistics.median(cpus):.4f} "
    f"{frame.height} {pl.thread_pool_size()}"
)
