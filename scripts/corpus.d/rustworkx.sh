# rustworkx (pip's rustworkx wheel, a Rust graph library; one thread: RAYON_NUM_THREADS=1)
# running one graph algorithm per unit on a new random graph drawn from the seed
# (rustworkx's own generators, seeded through Python's random). Two kinds of work:
#   algo=vf2: unit i draws a G(n, m) graph of 2000 nodes and 6000 edges, relabels its
#     nodes by a random permutation, and decides with VF2 (is_isomorphic) that the two
#     are isomorphic: the same size every unit, but VF2's search depends on the graph,
#     so the cost per unit changes from graph to graph with no trend.
#   algo=matching: unit i draws a G(n, m) graph of n = 500*i nodes and 5n edges with
#     random integer weights 1-1000 and finds its maximum-weight matching (Edmonds'
#     blossom algorithm, O(n^3) in the worst case): the cost per unit grows steeply,
#     about cubically in i.
corpus_pip_rustworkx=(rustworkx==0.18.1 numpy==2.4.6)

run_rustworkx() {
    cat >"$DRIVERS/rustworkx_series.py" <<'EOF'
"""rustworkx solving one graph problem per unit on a fresh seeded random graph. vf2: a
G(SIZE, 3*SIZE) graph and a copy relabelled by a random permutation, is_isomorphic.
matching: a G(SIZE*i, 5*SIZE*i) graph, edge weights uniform 1-1000, max_weight_matching.
Prints the graph's size and the result. argv: algo units size seed."""
import random, sys
import rustworkx as rx

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
for i in range(1, units + 1):
    if kind == "vf2":
        g = rx.undirected_gnm_random_graph(size, 3 * size, seed=rng.randrange(2**31))
        perm = list(range(size))
        rng.shuffle(perm)
        h = rx.PyGraph()
        h.add_nodes_from(range(size))
        h.add_edges_from_no_data([(perm[a], perm[b]) for a, b in g.edge_list()])
        print(f"pair {i} nodes {size} edges {g.num_edges()} isomorphic {rx.is_isomorphic(g, h)}",
              flush=True)
    else:
        n = size * i
        g0 = rx.undirected_gnm_random_graph(n, 5 * n, seed=rng.randrange(2**31))
        g = rx.PyGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from([(a, b, rng.randint(1, 1000)) for a, b in g0.edge_list()])
        m = rx.max_weight_matching(g, weight_fn=lambda w: w)
        print(f"graph {i} nodes {n} edges {g.num_edges()} matched {len(m)}", flush=True)
EOF
    local v
    v=$(pyver rustworkx rustworkx)
    RAYON_NUM_THREADS=1 record rustworkx "graph algorithms (isomorphism, matching)" "$v" "pip:rustworkx" \
        "changes: one same-size VF2 isomorphism test of a random graph and its relabelled copy per unit (no trend)" \
        "algo=vf2" '^pair \d+ nodes ' 2 12 natural -- \
        "$PY" "$DRIVERS/rustworkx_series.py" vf2 @N@ 2000 '{rep}'
    RAYON_NUM_THREADS=1 record rustworkx "graph algorithms (isomorphism, matching)" "$v" "pip:rustworkx" \
        "grows steeply: unit i finds a maximum-weight matching (blossom) of a random graph of 500i nodes, about cubic in i" \
        "algo=matching" '^graph \d+ nodes ' 3 11 natural -- \
        "$PY" "$DRIVERS/rustworkx_series.py" matching @N@ 500 '{rep}'
}
