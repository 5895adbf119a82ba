# HDBSCAN (pip's hdbscan, the scikit-learn-contrib implementation; one core:
# core_dist_n_jobs=1) clustering one fresh seeded data set per unit: points in 8
# dimensions from 12 Gaussian clusters of different spreads (numpy draws them), with
# min_cluster_size 25 (its defaults otherwise: Boruvka's minimum spanning tree over a
# kd-tree of mutual reachability distances, then the condensed cluster tree). Two
# kinds of series:
#   points=fixed: every unit clusters 10000 new points: the same size every unit, so
#     the cost per unit should stay about constant (a control), moved by each draw.
#   points=growing: unit i clusters 4000*i new points: Boruvka's spanning tree costs
#     about n log n, so the cost per unit grows a little faster than linearly in i.
corpus_pip_hdbscan=(hdbscan==0.8.44 scikit-learn==1.9.1 numpy==2.4.6 scipy==1.17.1
    joblib==1.6.0 threadpoolctl==3.8.0)

run_hdbscan() {
    cat >"$DRIVERS/hdbscan_series.py" <<'EOF'
"""HDBSCAN(min_cluster_size=25, core_dist_n_jobs=1).fit on one fresh data set per unit:
SIZE points (fixed) or SIZE*i points (growing) in 8 dimensions, from 12 Gaussian
clusters with centres uniform in [-20, 20]^8 and spreads uniform in [0.5, 2], drawn by
numpy's seeded generator; prints the points and the clusters found.
argv: mode (fixed|growing) units size seed."""
import sys
import numpy as np
import hdbscan

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
for i in range(1, units + 1):
    n = size * i if kind == "growing" else size
    centres = rng.uniform(-20, 20, (12, 8))
    spread = rng.uniform(0.5, 2.0, 12)
    labels = rng.integers(0, 12, n)
    X = centres[labels] + rng.standard_normal((n, 8)) * spread[labels, None]
    found = hdbscan.HDBSCAN(min_cluster_size=25, core_dist_n_jobs=1).fit(X).labels_
    print(f"clustering {i} points {n} clusters {found.max() + 1} noise {(found < 0).sum()}",
          flush=True)
EOF
    local v
    # The module has no __version__: the installed distribution's.
    v=$("$PY" -c 'from importlib.metadata import version; print("hdbscan " + version("hdbscan"))')
    record hdbscan "density-based clustering" "$v" "pip:hdbscan" \
        "constant (control): one HDBSCAN fit of 10000 fresh points per unit" \
        "points=fixed" '^clustering \d+ points ' 3 30 natural -- \
        "$PY" "$DRIVERS/hdbscan_series.py" fixed @N@ 10000 '{rep}'
    record hdbscan "density-based clustering" "$v" "pip:hdbscan" \
        "grows a little faster than linearly: unit i fits HDBSCAN to 4000i fresh points (Boruvka, n log n)" \
        "points=growing" '^clustering \d+ points ' 3 12 natural -- \
        "$PY" "$DRIVERS/hdbscan_series.py" growing @N@ 4000 '{rep}'
}
