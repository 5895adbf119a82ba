# COIN-OR CBC (Debian's coinor-cbc, /usr/bin/cbc, one thread: -threads 0) solving a
# series of random 0-1 multidimensional knapsack MIPs to proven optimality, a new cbc
# process per unit (its defaults: preprocessing, cuts, heuristics, branch and bound with
# Clp). The instances (5 knapsack constraints, weights 1-1000, capacities half the total
# weight, profits correlated with the weights) are written in LP format before the
# runs, one per unit and seed; the driver only runs cbc on unit i's file and prints its
# objective and node count. The same size class every unit, but each instance's tree is
# its own, so the cost per unit changes from instance to instance (heavy-tailed), with
# no trend; the larger size class (items=40) has the heavier tail.
corpus_apt_cbc=(coinor-cbc)

run_cbc() {
    cat >"$DRIVERS/cbc_mkp_gen.py" <<'EOF'
"""A random 0-1 multidimensional knapsack in LP format (maximise): ITEMS items, M
constraints, weights uniform 1-1000, capacities half each row's total, profit of an
item the mean of its weights plus uniform 1-500. argv: items m seed path."""
import random, sys

n, m, seed, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
w = [[rng.randint(1, 1000) for _ in range(n)] for _ in range(m)]
p = [sum(w[i][j] for i in range(m)) // m + rng.randint(1, 500) for j in range(n)]
with open(path, "w") as f:
    f.write("Maximize\n obj: " + " + ".join(f"{p[j]} x{j}" for j in range(n)) + "\nSubject To\n")
    for i in range(m):
        f.write(f" c{i}: " + " + ".join(f"{w[i][j]} x{j}" for j in range(n))
                + f" <= {sum(w[i]) // 2}\n")
    f.write("Binary\n " + " ".join(f"x{j}" for j in range(n)) + "\nEnd\n")
EOF
    cat >"$DRIVERS/cbc_series.sh" <<'EOF'
#!/bin/sh
# cbc (one thread) solving one MIP file per unit: unit i solves DIR/PREFIX-i.lp to
# optimality and prints "mip i", the objective and the nodes. argv: units dir prefix
units=$1 dir=$2 prefix=$3
i=1
while [ "$i" -le "$units" ]; do
    out=$(cbc "$dir/$prefix-$i.lp" -threads 0 -solve) || exit 1
    obj=$(printf '%s\n' "$out" | sed -n 's/^Objective value: *\([-0-9.]*\).*/\1/p')
    nodes=$(printf '%s\n' "$out" | sed -n 's/^Enumerated nodes: *\([0-9]*\).*/\1/p')
    printf '%s\n' "$out" | grep -q '^Result - Optimal solution found' ||
        { printf '%s\n' "$out" >&2; exit 1; }
    echo "mip $i objective $obj nodes $nodes"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/cbc_series.sh"

    local v items seed i
    v="CBC $(cbc -quit 2>&1 | sed -n "s/^Version: *\([0-9.]*\).*/\1/p" | head -1)"
    local -A probe=([25]=2 [40]=2) full=([25]=8 [40]=4)
    for items in 25 40; do
        for seed in 1 2 3 4 5 6 7; do
            mkdir -p "$INPUTS/cbc-mkp$items-$seed"
            for ((i = 1; i <= full[$items]; i++)); do
                "$PY" "$DRIVERS/cbc_mkp_gen.py" "$items" 5 $((seed * 1000 + i)) \
                    "$INPUTS/cbc-mkp$items-$seed/mkp-$i.lp"
            done
        done
        record cbc "mathematical programming (MIP)" "$v" "apt:coinor-cbc" \
            "changes: one same-size random multidimensional knapsack solved to optimality per unit, each its own tree (heavy-tailed, no trend)" \
            "items=$items" '^mip \d+ objective ' "${probe[$items]}" "${full[$items]}" natural -- \
            "$DRIVERS/cbc_series.sh" @N@ "$INPUTS/cbc-mkp$items-{rep}" mkp
    done
}
