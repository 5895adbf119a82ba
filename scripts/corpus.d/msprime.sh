# msprime (pip; population genetics: the coalescent with recombination, Hudson's
# algorithm, then mutations on the resulting tree sequence, stored with tskit; one
# thread) simulating the genealogies of a sample from a population of 10000 diploids
# (recombination and mutation rates 1e-8 per base per generation), seeds from the seed;
# the driver prints a line (trees, segregating sites) after each simulated data set.
#   mode=replicates,samples=500: msprime's own replicate loop (num_replicates=N): each
#     unit is a new independent 2 Mb genealogy of 500 samples plus its mutations: the
#     same model each unit, so the cost should be about constant, wobbling with the
#     random genealogy (a control).
#   mode=grow,samples=200: unit i simulates anew a genome of i Mb for 200 samples: the
#     trees and sites grow linearly with i and the work per event with the number of
#     ancestral segments, so the cost grows faster than linearly.
corpus_pip_msprime=(msprime==1.4.4 tskit==1.0.3 demes==0.2.3 newick==1.11.0 numpy==2.4.6
    jsonschema==4.26.0 attrs==26.1.0 ruamel.yaml==0.19.1)

run_msprime() {
    cat >"$DRIVERS/msprime_sims.py" <<'EOF'
"""msprime coalescent simulations, one data set per unit. argv: mode units seed (mode
replicates: N replicates of 2 Mb for 500 samples; mode grow: unit i is i Mb for 200
samples). The loop is Python's: TERM ends the process at once."""
import sys
import msprime
mode, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if mode == "replicates":
    reps = msprime.sim_ancestry(samples=500, population_size=10_000,
                                sequence_length=2_000_000, recombination_rate=1e-8,
                                random_seed=seed, num_replicates=units)
    for i, ts in enumerate(reps, 1):
        mts = msprime.sim_mutations(ts, rate=1e-8, random_seed=seed * 1000 + i)
        print(f"replicate {i} trees {ts.num_trees} sites {mts.num_sites}", flush=True)
else:
    for i in range(1, units + 1):
        ts = msprime.sim_ancestry(samples=200, population_size=10_000,
                                  sequence_length=i * 1_000_000, recombination_rate=1e-8,
                                  random_seed=seed * 1000 + i)
        mts = msprime.sim_mutations(ts, rate=1e-8, random_seed=seed * 1000 + i)
        print(f"genome {i} length {i} Mb trees {ts.num_trees} sites {mts.num_sites}",
              flush=True)
EOF
    local v
    v=$(pyver msprime msprime)
    record msprime "population genetics (coalescent simulation)" "$v" "pip:msprime" \
        "constant (control), wobbly: each unit is a new independent 2 Mb genealogy of 500 samples and its mutations" \
        "mode=replicates,samples=500" '^replicate \d+ trees ' 4 80 natural -- \
        "$PY" "$DRIVERS/msprime_sims.py" replicates @N@ '{rep}'
    record msprime "population genetics (coalescent simulation)" "$v" "pip:msprime" \
        "grows faster than linearly: unit i simulates anew an i Mb genome of 200 samples" \
        "mode=grow,samples=200" '^genome \d+ length ' 3 12 natural -- \
        "$PY" "$DRIVERS/msprime_sims.py" grow @N@ '{rep}'
}
