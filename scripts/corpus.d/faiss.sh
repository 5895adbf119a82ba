# Faiss (pip's faiss-cpu wheel, one OpenMP thread: omp_set_num_threads(1)) building a
# vector-search index that grows: unit i adds BATCH new 64-d vectors (drawn from the
# seed: a mixture of 200 Gaussian clusters) to the index and then answers 2000 fresh
# queries (10 nearest neighbours each) against everything indexed so far. Two indexes:
#   index=hnsw: IndexHNSWFlat (M 32, efConstruction 40, efSearch 64): each insertion
#     and each query walks the graph, a number of steps growing about with the log of
#     the vectors, but the graph outgrows the caches, so the cost per unit grows, slowly
#     in principle, faster where memory is the limit.
#   index=ivf: IndexIVFFlat with 256 lists (k-means trained once at the start on 20000
#     vectors, nprobe 16): adding is constant per vector, but each query scans 16 lists
#     that grow with the vectors, so the cost per unit grows about linearly with i.
corpus_pip_faiss=(faiss-cpu==1.15.1 numpy==2.4.6 packaging==26.4)

run_faiss() {
    cat >"$DRIVERS/faiss_grow.py" <<'EOF'
"""Faiss (one thread) growing an index and querying it: unit i adds BATCH vectors (64-d,
a mixture of 200 Gaussian clusters of numpy's seeded generator) and searches 2000 fresh
queries for their 10 nearest neighbours among all vectors indexed so far; prints the
index size and the queries' mean nearest distance. index=hnsw: IndexHNSWFlat(M=32,
efConstruction 40, efSearch 64). index=ivf: IndexIVFFlat(256 lists, trained at start
on 20000 vectors, nprobe 16). argv: index units batch seed."""
import sys
import numpy as np
import faiss

faiss.omp_set_num_threads(1)
kind, units, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
d = 64
centers = rng.standard_normal((200, d)).astype("float32") * 3


def draw(k):
    return (centers[rng.integers(0, 200, k)] + rng.standard_normal((k, d))).astype("float32")


if kind == "hnsw":
    index = faiss.IndexHNSWFlat(d, 32)
    index.hnsw.efConstruction = 40
    index.hnsw.efSearch = 64
else:
    index = faiss.IndexIVFFlat(faiss.IndexFlatL2(d), d, 256)
    index.train(draw(20000))
    index.nprobe = 16
for i in range(1, units + 1):
    index.add(draw(batch))
    dist, _ = index.search(draw(2000), 10)
    print(f"batch {i} vectors {index.ntotal} mean_nearest {dist[:, 0].mean():.3f}", flush=True)
EOF
    local v
    v=$(pyver faiss faiss-cpu)
    record faiss "vector similarity search" "$v" "pip:faiss-cpu" \
        "grows: each unit inserts 2000 vectors into an HNSW graph and queries it, steps about log n, more as it outgrows the caches" \
        "index=hnsw" '^batch \d+ vectors ' 4 20 natural -- \
        "$PY" "$DRIVERS/faiss_grow.py" hnsw @N@ 2000 '{rep}'
    record faiss "vector similarity search" "$v" "pip:faiss-cpu" \
        "grows about linearly: each unit adds 10000 vectors to an IVF index whose probed lists every query scans" \
        "index=ivf" '^batch \d+ vectors ' 2 24 natural -- \
        "$PY" "$DRIVERS/faiss_grow.py" ivf @N@ 10000 '{rep}'
}
