# IQ-TREE 2 (Debian's iqtree, /usr/bin/iqtree2, one thread: -nt 1) inferring a
# maximum-likelihood phylogeny from a DNA alignment simulated per seed before the runs
# (under $INPUTS/iqtree/: sequences evolved under Jukes-Cantor along a random binary tree,
# exponential branch lengths, mean 0.08). After its start (parsimony and BIONJ trees,
# model parameters, the initial candidate trees, in unit 1), IQ-TREE's stochastic tree
# search runs a fixed number of iterations (-n 10 N, each a random perturbation of a
# candidate tree followed by NNI hill-climbing and branch-length optimisation) and prints
# `Iteration I / LogL: ...` every 10 iterations: that line is the unit.
#   taxa=30,sites=500,model=GTR+G: 30 sequences of 500 sites, GTR with gamma rates;
#   taxa=60,sites=300,model=JC: 60 sequences of 300 sites, Jukes-Cantor.
# Every unit is 10 iterations on the same alignment, but how far each NNI search climbs
# depends on the perturbed tree, so the cost per unit should be about constant,
# wobbling (and changing a little as the candidate set settles).
corpus_apt_iqtree=(iqtree)

run_iqtree() {
    cat >"$DRIVERS/iqtree_alignment.py" <<'EOF'
"""Simulates a DNA alignment (PHYLIP) under Jukes-Cantor along a random binary tree
(lineages split at random, exponential branch lengths of mean 0.08).
argv: taxa sites seed out."""
import sys
import numpy as np
taxa, sites, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(seed)
leaves = [rng.integers(0, 4, sites)]
while len(leaves) < taxa:
    parent = leaves.pop(int(rng.integers(0, len(leaves))))
    for _ in range(2):
        p = 0.75 * (1 - np.exp(-4 * rng.exponential(0.08) / 3))
        child = parent.copy()
        m = rng.random(sites) < p
        child[m] = rng.integers(0, 4, int(m.sum()))
        leaves.append(child)
with open(out, "w") as f:
    f.write(f"{taxa} {sites}\n")
    for i, s in enumerate(leaves):
        f.write(f"t{i:03d} " + "".join("ACGT"[c] for c in s) + "\n")
EOF
    local v
    v=$(/usr/bin/iqtree2 --version 2>/dev/null | sed -n 's/^IQ-TREE multicore version \([0-9.]*\) .*/IQ-TREE \1/p' | head -1)
    local -A taxa=([gtr]=30 [jc]=60) sites=([gtr]=500 [jc]=300) model=([gtr]=GTR+G [jc]=JC) \
        full=([gtr]=20 [jc]=25) probe=([gtr]=3 [jc]=5)
    local kind seed dir
    for kind in gtr jc; do
        dir=$INPUTS/iqtree/$kind
        rm -rf "$dir"
        mkdir -p "$dir/run"
        for seed in 1 2 3 4 5 6 7; do
            "$PY" "$DRIVERS/iqtree_alignment.py" "${taxa[$kind]}" "${sites[$kind]}" "$seed" \
                "$dir/aln-$seed.phy"
        done
        record iqtree "phylogenetics (maximum likelihood)" "$v" "apt:iqtree" \
            "about constant, wobbly: each unit is 10 stochastic tree-search iterations (perturbation, NNI climb, branch lengths) on the same alignment" \
            "taxa=${taxa[$kind]},sites=${sites[$kind]},model=${model[$kind]}" \
            '^Iteration \d+ / LogL: ' "${probe[$kind]}" "${full[$kind]}" natural -- \
            stdbuf -oL /usr/bin/iqtree2 -s "$dir/aln-{rep}.phy" -m "${model[$kind]}" -nt 1 \
            -seed '{rep}' -n $((full[$kind] * 10)) -redo -pre "$dir/run/r{rep}"
    done
}
