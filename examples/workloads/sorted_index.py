#!/usr/bin/env python3
"""A real workload whose per-batch cost grows slowly with the size of an index.

Each batch inserts a fixed number of keys into a sorted list (binary search,
then a shift of the tail) and runs lookups, so the cost per batch grows with
the index: a sub-linear, accumulated-state trend like the seed's
459 -> 564 -> 678 ms per unit at 100, 1,000, 10,000 units.
Prints `step <i>` when a batch finishes, flushed.

usage: sorted_index.py BATCHES [--batch N] [--lookups N] [--seed S]
"""
import argparse
import bisect
import random
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("batches", type=int)
    p.add_argument("--batch", type=int, default=2000)
    p.add_argument("--lookups", type=int, default=20000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = random.Random(a.seed)
    index = []
    for b in range(1, a.batches + 1):
        for _ in range(a.batch):
            bisect.insort(index, rng.random())
        hits = 0
        for _ in range(a.lookups):
            i = bisect.bisect_left(index, rng.random())
            hits += i < len(index)
        print(f"step {b} size {len(index)} hits {hits}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
