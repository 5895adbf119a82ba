# igraph (pip's python-igraph wheel, its C core) on a scale-free graph that grows by
# preferential attachment (Barabasi-Albert, 4 edges per new vertex, grown from the last
# unit's graph with start_from; igraph's default random numbers, Python's random module
# seeded by the seed). Per unit, the graph grows by BATCH vertices, then igraph analyses
# all of it anew:
#   algo=leiden: Leiden community detection (modularity, igraph's default 2 iterations):
#     about linear in the edges, so the cost per unit grows about linearly with i.
#   algo=betweenness: exact betweenness centrality of every vertex (Brandes: one
#     breadth-first search per vertex), O(vertices x edges): the cost per unit grows
#     about quadratically with i.
corpus_pip_igraph=(igraph==1.0.0 texttable==1.7.2)

run_igraph() {
    cat >"$DRIVERS/igraph_grow.py" <<'EOF'
"""igraph analysing a growing scale-free graph: unit i grows the graph by BATCH vertices
(Barabasi-Albert, m=4, from the previous unit's graph: start_from), then runs, on the
whole graph, Leiden community detection (algo=leiden: modularity objective, igraph's
default iterations) or exact betweenness centrality (algo=betweenness), and prints the
graph's size and the result. Random numbers: igraph's default (Python's random module),
seeded. argv: algo units batch seed."""
import random, sys
import igraph as ig

algo, units, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(seed)
g = None
for i in range(1, units + 1):
    g = ig.Graph.Barabasi(batch, m=4) if g is None else \
        ig.Graph.Barabasi(g.vcount() + batch, m=4, start_from=g)
    if algo == "leiden":
        c = g.community_leiden(objective_function="modularity")
        r = f"communities {len(c)} modularity {c.modularity:.4f}"
    else:
        b = g.betweenness(directed=False)
        r = f"max_betweenness {max(b):.0f}"
    print(f"graph {i} vertices {g.vcount()} edges {g.ecount()} {r}", flush=True)
EOF
    local v
    v=$(pyver igraph igraph)
    record igraph "graph analysis (networks)" "$v" "pip:igraph" \
        "grows about linearly: each unit adds 3000 vertices and reruns Leiden on the whole graph" \
        "algo=leiden" '^graph \d+ vertices ' 4 20 natural -- \
        "$PY" "$DRIVERS/igraph_grow.py" leiden @N@ 3000 '{rep}'
    record igraph "graph analysis (networks)" "$v" "pip:igraph" \
        "grows about quadratically: each unit adds 200 vertices and recomputes exact betweenness (one BFS per vertex)" \
        "algo=betweenness" '^graph \d+ vertices ' 4 20 natural -- \
        "$PY" "$DRIVERS/igraph_grow.py" betweenness @N@ 200 '{rep}'
}
