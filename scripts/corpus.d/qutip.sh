# QuTiP (pip; quantum dynamics of open systems, SciPy's sparse algebra and ODE solvers,
# one thread) evolving a driven, damped Jaynes-Cummings model: a cavity (30 Fock
# states) coupled to a two-level atom, both leaking (cavity and atomic decay), the cavity
# driven, from a coherent state (mean 4 photons) with the atom in its ground state; the
# atom's detuning and the coupling are drawn from the seed. The driver prints the mean
# photon number after each unit.
#   solver=mesolve,dim=60: the Lindblad master equation for the 60 x 60 density matrix
#     (a 3600-component ODE, Adams method, adaptive steps), one MESolver.step(t) call
#     per unit, each 10 time units further on from the last state: the same equation
#     every unit; the adaptive steps follow the dynamics (fast Rabi oscillations
#     decaying as the field relaxes), so the cost per unit should be about constant,
#     perhaps falling as the state settles.
#   solver=mcsolve,ntraj=10: a new batch per unit of 10 quantum-jump (Monte Carlo)
#     trajectories of the 60-dimensional state over 50 time units (serial map, seeds
#     from the seed and the unit): the same work every unit, jumps at random, so the cost
#     per unit should be about constant (a control).
corpus_pip_qutip=(qutip==5.3.1 scipy==1.17.1 numpy==2.4.6 packaging==26.4)

run_qutip() {
    cat >"$DRIVERS/qutip_jc.py" <<'EOF'
"""QuTiP, a driven, damped Jaynes-Cummings model (30 Fock states x 2 levels). argv: mode
units seed (mode me: one MESolver.step of 10 time units per unit; mode mc: a batch of
10 mcsolve trajectories over 50 time units per unit). The loop is Python's: TERM ends
the process at once."""
import sys
import numpy as np
import qutip as qt
mode, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
NC = 30
a = qt.tensor(qt.destroy(NC), qt.qeye(2))
sm = qt.tensor(qt.qeye(NC), qt.destroy(2))
wc, wa, g = 1.0, 1.0 + rng.uniform(-0.05, 0.05), rng.uniform(0.04, 0.06)
H = (wc * a.dag() * a + wa * sm.dag() * sm + g * (a.dag() * sm + a * sm.dag())
     + 0.05 * (a + a.dag()))
c_ops = [np.sqrt(0.01) * a, np.sqrt(0.002) * sm]
psi0 = qt.tensor(qt.coherent(NC, 2.0), qt.basis(2, 0))
n_op = a.dag() * a
if mode == "me":
    solver = qt.MESolver(H, c_ops, options={"method": "adams", "atol": 1e-8, "rtol": 1e-6,
                                            "nsteps": 100000})
    solver.start(qt.ket2dm(psi0), 0.0)
    for i in range(1, units + 1):
        rho = solver.step(i * 10.0)
        print(f"window {i} t {i * 10.0:.0f} photons {qt.expect(n_op, rho):.4f}", flush=True)
else:
    times = np.linspace(0, 50, 51)
    for i in range(1, units + 1):
        result = qt.mcsolve(H, psi0, times, c_ops, e_ops=[n_op], ntraj=10,
                            seeds=seed * 1000 + i,
                            options={"map": "serial", "progress_bar": False})
        print(f"batch {i} trajectories 10 photons {result.expect[0][-1]:.4f}", flush=True)
EOF
    local v
    v=$(pyver qutip qutip)
    record qutip "quantum dynamics (open systems)" "$v" "pip:qutip" \
        "about constant, perhaps falling: each unit integrates the same master equation 10 time units further, adaptive steps following the relaxing dynamics" \
        "solver=mesolve,dim=60" '^window \d+ t ' 5 25 natural -- \
        "$PY" "$DRIVERS/qutip_jc.py" me @N@ '{rep}'
    record qutip "quantum dynamics (open systems)" "$v" "pip:qutip" \
        "constant (control): each unit runs a new batch of 10 quantum-jump trajectories over the same time span" \
        "solver=mcsolve,ntraj=10" '^batch \d+ trajectories ' 2 20 natural -- \
        "$PY" "$DRIVERS/qutip_jc.py" mc @N@ '{rep}'
}
