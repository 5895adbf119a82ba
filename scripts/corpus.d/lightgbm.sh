# LightGBM (pip's wheel, one thread: num_threads=1, deterministic) training a binary
# classifier (63 leaves, bagging 0.8, feature fraction 0.8) on a seeded synthetic data
# set of 32000 x 40 (numpy draws it, nonlinear labels), one boosting round per unit,
# each logged by LightGBM's own log_evaluation(1) with its validation log-loss
# (8000 held-out rows). Two kinds of boosting:
#   boosting=gbdt: each round fits one tree to the gradients and adds it to the cached
#     scores: the same work every round, so the cost per unit should stay about constant
#     (a control; trees may get shallower as the gradients flatten).
#   boosting=dart: each round drops a random tenth of the trees so far (skipped half the
#     time) and must take their contributions out of the scores and put them back
#     rescaled: the work per round grows with the number of trees, so the cost per unit
#     grows about linearly with i, with noise from the random drops.
corpus_pip_lightgbm=(lightgbm==4.7.0 numpy==2.4.6 scipy==1.17.1)

run_lightgbm() {
    cat >"$DRIVERS/lightgbm_rounds.py" <<'EOF'
"""LightGBM training a binary classifier round by round on a seeded synthetic data set
(numpy draws it: 40000 x 40 Gaussian features, labels from a linear term plus two
interactions and logistic noise; 32000 rows train, 8000 validate), one thread; LightGBM's
own log_evaluation(1) prints each round's validation log-loss ("[i] valid_0's
binary_logloss: ..."). argv: boosting (gbdt|dart) rounds seed."""
import sys
import numpy as np
import lightgbm as lgb

boosting, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
n, f = 40000, 40
X = rng.standard_normal((n, f))
w = rng.standard_normal(f)
logit = X @ w * 0.5 + np.sin(X[:, 0] * X[:, 1]) * 2 + (X[:, 2] > 0.5) * X[:, 3]
y = (logit + rng.logistic(size=n) > 0).astype(int)
train = lgb.Dataset(X[:32000], y[:32000])
valid = lgb.Dataset(X[32000:], y[32000:], reference=train)
params = dict(objective="binary", boosting=boosting, num_leaves=63, learning_rate=0.05,
              num_threads=1, deterministic=True, force_col_wise=True, seed=seed,
              bagging_fraction=0.8, bagging_freq=1, feature_fraction=0.8, verbose=-1,
              drop_rate=0.1, skip_drop=0.5)
lgb.train(params, train, num_boost_round=rounds, valid_sets=[valid],
          callbacks=[lgb.log_evaluation(1)])
EOF
    local v
    v=$(pyver lightgbm lightgbm)
    record lightgbm "gradient boosting" "$v" "pip:lightgbm" \
        "constant (control): one 63-leaf tree per round on the same bagged data, scores cached" \
        "boosting=gbdt" '^\[\d+\]\s+valid_0' 10 100 natural -- \
        "$PY" "$DRIVERS/lightgbm_rounds.py" gbdt @N@ '{rep}'
    record lightgbm "gradient boosting" "$v" "pip:lightgbm" \
        "grows about linearly: each DART round drops and rescales a tenth of all trees so far" \
        "boosting=dart" '^\[\d+\]\s+valid_0' 30 90 natural -- \
        "$PY" "$DRIVERS/lightgbm_rounds.py" dart @N@ '{rep}'
}
