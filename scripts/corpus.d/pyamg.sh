# PyAMG (pip's pyamg, algebraic multigrid on SciPy sparse matrices, one thread) solving
# the 2-D Poisson equation (5-point Laplacian, pyamg.gallery.poisson) with a
# smoothed-aggregation hierarchy (max_coarse 50), right-hand side drawn from the seed.
# Two kinds of run:
#   mode=cycles: one 500 x 500 grid (250000 unknowns); the hierarchy is built once (in
#     unit 1), then each unit is one stationary V-cycle (ml.solve without acceleration,
#     no tolerance reached; its callback prints the residual, one more matrix product):
#     the same sparse products and smoothing sweeps on every level each cycle, so the
#     cost per unit should stay about constant (a control).
#   mode=grids: unit i builds a hierarchy for a grid of (50i) x (50i) and solves to a
#     relative residual of 1e-8 with conjugate gradients preconditioned by it: work
#     linear in the unknowns (2500 i^2) with a near-constant iteration count, so the cost
#     per unit grows about quadratically in i.
corpus_pip_pyamg=(pyamg==5.4.1 numpy==2.4.6 scipy==1.17.1)

run_pyamg() {
    cat >"$DRIVERS/pyamg_poisson.py" <<'EOF'
"""PyAMG smoothed aggregation on the 2-D Poisson problem, right-hand sides from numpy's
seeded generator. cycles: a SIZE x SIZE grid, one hierarchy, UNITS stationary V-cycles
(ml.solve, accel None, tol 1e-300, maxiter UNITS), the callback printing each cycle's
residual norm. grids: unit i solves a (SIZE*i) x (SIZE*i) grid anew (hierarchy, then CG
preconditioned by it to tol 1e-8) and prints unknowns, levels and iterations.
argv: mode units size seed."""
import sys
import numpy as np
import pyamg

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
if kind == "cycles":
    A = pyamg.gallery.poisson((size, size), format="csr")
    ml = pyamg.smoothed_aggregation_solver(A, max_coarse=50)
    b = rng.standard_normal(A.shape[0])
    done = 0

    def report(x):
        global done
        done += 1
        print(f"cycle {done} residual {np.linalg.norm(b - A @ x):.4e}", flush=True)

    ml.solve(b, tol=1e-300, maxiter=units, callback=report, accel=None)
else:
    for i in range(1, units + 1):
        n = size * i
        A = pyamg.gallery.poisson((n, n), format="csr")
        b = rng.standard_normal(A.shape[0])
        ml = pyamg.smoothed_aggregation_solver(A, max_coarse=50)
        res = []
        ml.solve(b, tol=1e-8, residuals=res, accel="cg")
        print(f"grid {i} unknowns {A.shape[0]} levels {len(ml.levels)} iterations {len(res) - 1}",
              flush=True)
EOF
    local v
    v=$(pyver pyamg pyamg)
    record pyamg "sparse linear solvers (algebraic multigrid)" "$v" "pip:pyamg" \
        "constant (control): one V-cycle on the same 500x500 Poisson hierarchy per unit (the setup in unit 1)" \
        "mode=cycles" '^cycle \d+ residual ' 4 60 natural -- \
        "$PY" "$DRIVERS/pyamg_poisson.py" cycles @N@ 500 '{rep}'
    record pyamg "sparse linear solvers (algebraic multigrid)" "$v" "pip:pyamg" \
        "grows about quadratically: unit i sets up and solves a Poisson grid of (50i)^2 unknowns" \
        "mode=grids" '^grid \d+ unknowns ' 2 6 natural -- \
        "$PY" "$DRIVERS/pyamg_poisson.py" grids @N@ 50 '{rep}'
}
