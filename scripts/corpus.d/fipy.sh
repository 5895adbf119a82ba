# FiPy (pip, NIST's finite-volume PDE solver; SciPy's solvers: FIPY_SOLVERS=scipy, the
# default sparse LU; one thread) time-stepping a PDE on a 2-D unit square, left edge held
# at 0 and right edge at 1, from a random initial field drawn from the seed. The driver
# loop is FiPy's usual one (updateOld, then solve or sweep); it prints a line after each
# time step: that is the unit. Each step FiPy assembles the sparse system anew from its
# terms and solves it.
#   eq=diffusion,grid=120: implicit linear diffusion (dt = 1e-4) on 120 x 120 cells: one
#     assembly and one LU solve of the same-size system per step, so the cost per unit
#     should be about constant (a control).
#   eq=nonlinear,grid=60: implicit diffusion with a coefficient that depends on the
#     solution (0.1 + phi^2) plus exponential-scheme convection (velocity (1, 0.5)),
#     dt = 1e-2, on 60 x 60 cells, swept (relinearised and solved again) until the
#     residual has fallen by 1000x or 10 sweeps: the number of sweeps per step changes
#     (4-10 in a trial) as the field evolves, so the cost per unit changes irregularly.
corpus_pip_fipy=(fipy==4.0.3 scipy==1.17.1 numpy==2.4.6 matplotlib==3.11.2 typer==0.29.2
    typing_extensions==4.16.0)

run_fipy() {
    cat >"$DRIVERS/fipy_pde.py" <<'EOF'
"""FiPy time-stepping a PDE on an N x N grid, one line per time step. argv: eq n units
seed (eq diffusion: linear, dt 1e-4, one solve per step; eq nonlinear: nonlinear
diffusion-convection, dt 1e-2, swept until the residual falls 1000x, at most 10 sweeps).
The loop is Python's: TERM ends the process at once."""
import os, sys
os.environ["FIPY_SOLVERS"] = "scipy"
import numpy as np
import fipy as fp
eq_name, n, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
mesh = fp.Grid2D(nx=n, ny=n, dx=1.0 / n, dy=1.0 / n)
phi = fp.CellVariable(mesh=mesh, value=rng.random(mesh.numberOfCells), hasOld=True)
phi.constrain(0.0, mesh.facesLeft)
phi.constrain(1.0, mesh.facesRight)
if eq_name == "diffusion":
    eq = fp.TransientTerm() == fp.DiffusionTerm(coeff=1.0)
    dt = 1e-4
else:
    eq = (fp.TransientTerm() == fp.DiffusionTerm(coeff=0.1 + phi.faceValue ** 2)
          - fp.ExponentialConvectionTerm(coeff=(1.0, 0.5)))
    dt = 1e-2
for i in range(1, units + 1):
    phi.updateOld()
    if eq_name == "diffusion":
        eq.solve(var=phi, dt=dt)
        print(f"step {i} mean {float(phi.value.mean()):.6f}", flush=True)
    else:
        res0 = res = eq.sweep(var=phi, dt=dt)
        k = 1
        while res > 1e-3 * res0 and k < 10:
            res = eq.sweep(var=phi, dt=dt)
            k += 1
        print(f"step {i} sweeps {k} residual {res:.3e} mean {float(phi.value.mean()):.6f}",
              flush=True)
EOF
    local v
    v=$(pyver fipy fipy)
    record fipy "partial differential equations (finite volumes)" "$v" "pip:fipy" \
        "constant (control): one assembly and sparse LU solve of the same 120 x 120 linear diffusion system per time step" \
        "eq=diffusion,grid=120" '^step \d+ ' 3 60 natural -- \
        "$PY" "$DRIVERS/fipy_pde.py" diffusion 120 @N@ '{rep}'
    record fipy "partial differential equations (finite volumes)" "$v" "pip:fipy" \
        "changes: each time step sweeps a nonlinear convection-diffusion system until its residual falls 1000x (4-10 sweeps, varying as the field evolves)" \
        "eq=nonlinear,grid=60" '^step \d+ ' 3 30 natural -- \
        "$PY" "$DRIVERS/fipy_pde.py" nonlinear 60 @N@ '{rep}'
}
