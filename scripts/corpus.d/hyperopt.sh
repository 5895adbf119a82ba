# Hyperopt (pip's hyperopt) minimising a Rosenbrock function of DIMS variables (each
# uniform on [-5, 5]) with its Tree-structured Parzen Estimator (tpe.suggest: 20
# random start-up trials, then each suggestion refits the "good" and "bad" Parzen
# densities of every parameter on all past trials and scores 24 candidates), seeded
# (rstate). The objective costs microseconds and prints one line per trial, so the cost
# of a unit is hyperopt's own (suggestion and bookkeeping of its Trials): it grows with
# the trials so far, about linearly in i, in both strata, with more parameters to
# model per suggestion at dims=12.
corpus_pip_hyperopt=(hyperopt==0.3.0 numpy==2.4.6 scipy==1.17.1 networkx==3.6.1
    cloudpickle==3.1.3 tqdm==4.70.1)

run_hyperopt() {
    cat >"$DRIVERS/hyperopt_tpe.py" <<'EOF'
"""Hyperopt's fmin with tpe.suggest on a Rosenbrock function of DIMS uniform(-5, 5)
parameters, rstate seeded, no progress bar; the objective prints one line per trial
(its number and value). argv: dims trials seed."""
import sys
import numpy as np
from hyperopt import Trials, fmin, hp, tpe

dims, trials, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
space = [hp.uniform(f"x{i}", -5, 5) for i in range(dims)]
count = 0


def objective(x):
    global count
    count += 1
    value = sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(dims - 1))
    print(f"trial {count} value {value:.6g}", flush=True)
    return value


fmin(objective, space, algo=tpe.suggest, max_evals=trials, trials=Trials(),
     rstate=np.random.default_rng(seed), show_progressbar=False)
EOF
    local v
    v=$(pyver hyperopt hyperopt)
    record hyperopt "hyperparameter search (TPE)" "$v" "pip:hyperopt" \
        "grows: each TPE suggestion refits its Parzen densities on all past trials" \
        "dims=4" '^trial \d+ value ' 40 800 natural -- \
        "$PY" "$DRIVERS/hyperopt_tpe.py" 4 @N@ '{rep}'
    record hyperopt "hyperparameter search (TPE)" "$v" "pip:hyperopt" \
        "grows: each TPE suggestion refits its Parzen densities on all past trials" \
        "dims=12" '^trial \d+ value ' 25 250 natural -- \
        "$PY" "$DRIVERS/hyperopt_tpe.py" 12 @N@ '{rep}'
}
