# CVXPY (pip's cvxpy, with the solver it picks by default for these problems, OSQP for
# a QP; one thread) solving a series of convex problems, one solve per unit, data drawn
# from the seed with numpy. Two kinds of series:
#   problem=lasso: a lasso regularisation path on one fixed 800 x 200 regression: unit i
#     sets the penalty parameter to the i-th of N log-spaced values (from the largest
#     useful one down 1000-fold) and re-solves: the problem is compiled once (DPP
#     parameter, cached; the first unit carries it) and OSQP is warm-started, so the
#     cost per unit stays about the same size, changing with the iterations that each
#     penalty needs (no trend expected beyond that).
#   problem=huber: Huber regression refitted on data that keep arriving: unit i adds 300
#     rows (50 features, heavy-tailed t(2) noise) and builds and solves the problem anew
#     on all 300*i rows: canonicalisation and the solve both grow with the rows, so the
#     cost per unit grows (seen to be faster than linear: about quadratic).
corpus_pip_cvxpy=(cvxpy==1.9.3 osqp==1.1.3 clarabel==0.11.1 scs==3.3.1 numpy==2.4.6
    scipy==1.17.1)

run_cvxpy() {
    cat >"$DRIVERS/cvxpy_series.py" <<'EOF'
"""CVXPY solving a series of problems with its default solver, one per unit (data from
numpy's seeded generator). lasso: one 4*SIZE x SIZE regression (10% of the true
coefficients nonzero, Gaussian noise), its penalty a cvxpy Parameter set at unit i to
lmax * 10**(-3*i/units), re-solved. huber: each unit adds SIZE rows (50 features, t(2)
noise) and solves the Huber regression (M = 1) on all the rows so far, built anew.
Prints the solver's name and iterations. argv: problem (lasso|huber) units size seed."""
import sys
import numpy as np
import cvxpy as cp

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
if kind == "lasso":
    m, n = 4 * size, size
    A = rng.standard_normal((m, n))
    truth = rng.standard_normal(n) * (rng.random(n) < 0.1)
    b = A @ truth + 0.5 * rng.standard_normal(m)
    x, lam = cp.Variable(n), cp.Parameter(nonneg=True)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(A @ x - b) + lam * cp.norm1(x)))
    lmax = 2 * np.abs(A.T @ b).max()
    for i in range(1, units + 1):
        lam.value = lmax * 10 ** (-3 * i / units)
        prob.solve()
        st = prob.solver_stats
        print(f"lasso {i} lambda {lam.value:.4g} nonzeros {(np.abs(x.value) > 1e-6).sum()} "
              f"{st.solver_name} iterations {st.num_iters}", flush=True)
else:
    p = 50
    w = rng.standard_normal(p)
    Xs, ys = [], []
    for i in range(1, units + 1):
        X = rng.standard_normal((size, p))
        Xs.append(X)
        ys.append(X @ w + rng.standard_t(2, size))
        Xa, ya = np.vstack(Xs), np.concatenate(ys)
        beta = cp.Variable(p)
        prob = cp.Problem(cp.Minimize(cp.sum(cp.huber(Xa @ beta - ya, 1.0))))
        prob.solve()
        st = prob.solver_stats
        print(f"huber {i} rows {len(ya)} {st.solver_name} iterations {st.num_iters}", flush=True)
EOF
    local v
    v=$(pyver cvxpy cvxpy)
    record cvxpy "convex optimisation (modelling layer)" "$v" "pip:cvxpy" \
        "changes, no trend: one warm-started re-solve of the same compiled lasso per penalty on the path" \
        "problem=lasso" '^lasso \d+ lambda ' 3 60 natural -- \
        "$PY" "$DRIVERS/cvxpy_series.py" lasso @N@ 200 '{rep}'
    record cvxpy "convex optimisation (modelling layer)" "$v" "pip:cvxpy" \
        "grows, faster than linearly: unit i builds and solves a Huber regression on 300i rows" \
        "problem=huber" '^huber \d+ rows ' 3 15 natural -- \
        "$PY" "$DRIVERS/cvxpy_series.py" huber @N@ 300 '{rep}'
}
