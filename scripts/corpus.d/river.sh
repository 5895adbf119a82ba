# River (pip's river, online machine learning) learning from a data stream with a
# concept drift, sample by sample, through its own progressive validation
# (evaluate.iter_progressive_val_score: predict each sample, then learn it), which
# reports every BATCH samples; each report is a unit. The stream is River's own
# synthetic generator: Agrawal's loan-applicant features, labelled by his classification
# function 0 and, from the middle of the full run on (a ConceptDriftStream
# whose switch is a twentieth of the run wide), by function 4, seeded. Two learners:
#   model=hoeffding: a Hoeffding tree (grace period 100): per sample, a walk to a leaf
#     and the leaf's statistics; the tree grows as it sees more (and re-grows after the
#     drift), so the cost per unit grows slowly with i, in steps when leaves split.
#   model=arf: an adaptive random forest of 5 Hoeffding trees with ADWIN drift detectors
#     on random feature subsets, each sample weighted by Poisson(6): after the drift the
#     detectors replace trees by new (smaller) ones, so the cost per unit changes: it
#     grows with the trees, then falls and regrows after the drift (not seen by a probe
#     of the first units).
# (Importing river takes seconds: it imports scipy.stats and, being installed in the
# corpus's venv, scikit-learn; this startup falls in each run's first unit.)
corpus_pip_river=(river==0.26.1 numpy==2.4.6 scipy==1.17.1 narwhals==2.29.0)

run_river() {
    cat >"$DRIVERS/river_stream.py" <<'EOF'
"""River learning online from a drifting stream by progressive validation (its own
evaluate.iter_progressive_val_score, reporting every BATCH samples): Agrawal function 0,
drifting to Agrawal function 4 at the middle of UNITS*BATCH samples (over a twentieth
of them), all seeded. model=hoeffding: HoeffdingTreeClassifier(grace_period=100, delta=1e-5).
model=arf: ARFClassifier(n_models=5). Prints the samples seen and the accuracy so far.
argv: model units batch seed."""
import sys
from river import evaluate, forest, metrics, tree
from river.datasets import synth

kind, units, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
total = units * batch
stream = synth.ConceptDriftStream(
    stream=synth.Agrawal(classification_function=0, seed=seed),
    drift_stream=synth.Agrawal(classification_function=4, seed=seed + 100),
    position=total // 2, width=max(100, total // 20), seed=seed).take(total)
if kind == "hoeffding":
    model = tree.HoeffdingTreeClassifier(grace_period=100, delta=1e-5)
else:
    model = forest.ARFClassifier(n_models=5, seed=seed)
for i, report in enumerate(evaluate.iter_progressive_val_score(
        stream, model, metrics.Accuracy(), step=batch), 1):
    print(f"samples {report['Step']} accuracy {report['Accuracy'].get():.4f}", flush=True)
EOF
    local v
    v=$(pyver river river)
    record river "online machine learning (data streams)" "$v" "pip:river" \
        "grows slowly, in steps: a Hoeffding tree that splits leaves as it learns (and regrows after the drift)" \
        "model=hoeffding" '^samples \d+ accuracy ' 4 16 natural -- \
        "$PY" "$DRIVERS/river_stream.py" hoeffding @N@ 1000 '{rep}'
    record river "online machine learning (data streams)" "$v" "pip:river" \
        "changes: a 5-tree adaptive random forest grows, then replaces trees after the mid-run drift" \
        "model=arf" '^samples \d+ accuracy ' 3 12 natural -- \
        "$PY" "$DRIVERS/river_stream.py" arf @N@ 150 '{rep}'
}
