#!/usr/bin/env python3
"""A real CPU workload whose per-generation cost grows with accumulated state.

Each generation evaluates every member of a population (a fixed amount of
arithmetic per member) and then adds new members, so generation i costs about
a + b*i: the shape of the seed's evolutionary run (140 s -> 204 s per
generation). Prints `generation <i>` when a generation finishes, flushed.

usage: growing_population.py GENERATIONS [--start N] [--growth K] [--work W] [--seed S]
"""
import argparse
import random
import sys


def evaluate(member, work):
    x = member
    for _ in range(work):
        x = (x * 1103515245 + 12345) % 2147483648
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("generations", type=int)
    p.add_argument("--start", type=int, default=200)
    p.add_argument("--growth", type=int, default=20)
    p.add_argument("--work", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    rng = random.Random(a.seed)
    population = [rng.randrange(1 << 30) for _ in range(a.start)]
    for g in range(1, a.generations + 1):
        scores = [evaluate(m, a.work) for m in population]
        best = max(scores)
        population.extend(rng.randrange(1 << 30) ^ best for _ in range(a.growth))
        print(f"generation {g} population {len(population)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
