# CatBoost (pip's catboost wheel, one thread: thread_count=1) training a binary
# classifier on a seeded synthetic data set (numpy draws it: 30000 rows, 30 numeric
# features and 3 categorical ones of 50 levels; 24000 train, 6000 validate), one boosting
# iteration per unit, each printed by CatBoost's own verbose=1 log ("i: learn: ... test:
# ..."). Every iteration grows one oblivious (symmetric) tree of the same depth on the
# same data, with ordered target statistics for the categorical features, so the cost
# per unit should stay about constant in both strata (controls), the deeper trees
# costing more per unit:
#   depth=6: 64-leaf oblivious trees.
#   depth=10: 1024-leaf oblivious trees.
corpus_pip_catboost=(catboost==1.2.10 numpy==2.4.6 pandas==3.1.1 python-dateutil==4.0.0
    scipy==1.17.1 matplotlib==3.11.2 plotly==7.1.0 narwhals==2.29.0 graphviz==0.21 six==1.17.0)

run_catboost() {
    cat >"$DRIVERS/catboost_train.py" <<'EOF'
"""CatBoost training a binary classifier with verbose=1 (one log line per iteration),
one thread, on a seeded synthetic set: 30000 rows of 30 Gaussian features and 3
categorical features (50 levels each), labels from a linear term, an interaction and one
categorical level, plus logistic noise; 24000 rows train, 6000 are the eval set.
argv: depth iterations seed."""
import sys
import numpy as np
import pandas as pd
from catboost import CatBoostClassifier, Pool

depth, iterations, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
n, f = 30000, 30
X = rng.standard_normal((n, f))
cat = rng.integers(0, 50, (n, 3))
logit = (X[:, :10] @ rng.standard_normal(10) * 0.5 + np.sin(X[:, 0] * X[:, 1]) * 2
         + (cat[:, 0] % 7 == 3) * 1.5)
y = (logit + rng.logistic(size=n) > 0).astype(int)
df = pd.DataFrame(X, columns=[f"x{i}" for i in range(f)])
cats = [f"c{k}" for k in range(3)]
for k, name in enumerate(cats):
    df[name] = cat[:, k].astype(str)
train = Pool(df.iloc[:24000], y[:24000], cat_features=cats)
valid = Pool(df.iloc[24000:], y[24000:], cat_features=cats)
model = CatBoostClassifier(iterations=iterations, depth=depth, learning_rate=0.05,
                           thread_count=1, random_seed=seed, verbose=1,
                           allow_writing_files=False)
model.fit(train, eval_set=valid)
EOF
    local v
    v=$(pyver catboost catboost)
    record catboost "gradient boosting (oblivious trees)" "$v" "pip:catboost" \
        "constant (control): one depth-6 oblivious tree per iteration on the same data" \
        "depth=6" '^\d+:\s+learn: ' 15 150 natural -- \
        "$PY" "$DRIVERS/catboost_train.py" 6 @N@ '{rep}'
    record catboost "gradient boosting (oblivious trees)" "$v" "pip:catboost" \
        "constant (control): one depth-10 oblivious tree per iteration on the same data" \
        "depth=10" '^\d+:\s+learn: ' 3 30 natural -- \
        "$PY" "$DRIVERS/catboost_train.py" 10 @N@ '{rep}'
}
