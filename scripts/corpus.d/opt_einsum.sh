# opt_einsum (pip's opt_einsum, pure Python) finding contraction orders for random
# tensor networks, one network per unit, drawn from the seed: every tensor has 3
# indices, each index shared by two tensors (a random 3-regular multigraph, no self
# loops), index sizes 2-8, a scalar result. contract_path only plans (no contraction);
# the cost per unit is its search. Two kinds of search:
#   optimize=dp: the exact dynamic programme over connected subnetworks (with its cost
#     cap) on a network of 10+i tensors: the subnetworks it must consider multiply with
#     each added tensor, so the cost per unit grows about geometrically with i, by jumps
#     that depend on each network.
#   optimize=random_greedy: 128 randomised greedy trials (random-greedy-128, each trial
#     seeded by its number) on a network of 60 tensors: the same size every unit, so
#     the cost per unit should stay about constant, moved by each network.
corpus_pip_opt_einsum=(opt_einsum==3.4.0)

run_opt_einsum() {
    cat >"$DRIVERS/opt_einsum_paths.py" <<'EOF'
"""opt_einsum.contract_path (shapes only: planning, no contraction) on one random
tensor network per unit, drawn by Python's seeded random: a 3-regular multigraph of
tensors (half-edges paired at random, redrawn if a tensor would pair with itself),
each edge an index of size 2-8, no output index. optimize dp: 10+i tensors at unit i;
random-greedy-128: 60 tensors. Prints the tensors and the planned cost.
argv: optimize (dp|random-greedy-128) units seed."""
import random, sys
import opt_einsum as oe

kind, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
symbols = [oe.get_symbol(k) for k in range(400)]


def network(n):
    while True:
        half = [t for t in range(n) for _ in range(3)]
        rng.shuffle(half)
        pairs = list(zip(half[::2], half[1::2]))
        if all(a != b for a, b in pairs):
            break
    terms, sizes = [[] for _ in range(n)], {}
    for k, (a, b) in enumerate(pairs):
        terms[a].append(symbols[k])
        terms[b].append(symbols[k])
        sizes[symbols[k]] = rng.randint(2, 8)
    return ",".join("".join(t) for t in terms) + "->", [tuple(sizes[c] for c in t) for t in terms]


for i in range(1, units + 1):
    n = 10 + i if kind == "dp" else 60
    eq, shapes = network(n)
    _, info = oe.contract_path(eq, *shapes, shapes=True, optimize=kind)
    print(f"network {i} tensors {n} planned_flops {float(info.opt_cost):.4e}", flush=True)
EOF
    local v
    v=$(pyver opt_einsum opt_einsum)
    record opt_einsum "tensor-network contraction planning" "$v" "pip:opt_einsum" \
        "grows about geometrically, by jumps: unit i plans a network of 10+i tensors by exact dynamic programming" \
        "optimize=dp" '^network \d+ tensors ' 6 18 natural -- \
        "$PY" "$DRIVERS/opt_einsum_paths.py" dp @N@ '{rep}'
    record opt_einsum "tensor-network contraction planning" "$v" "pip:opt_einsum" \
        "constant (control): 128 randomised greedy trials on a 60-tensor network per unit" \
        "optimize=random_greedy" '^network \d+ tensors ' 3 25 natural -- \
        "$PY" "$DRIVERS/opt_einsum_paths.py" random-greedy-128 @N@ '{rep}'
}
