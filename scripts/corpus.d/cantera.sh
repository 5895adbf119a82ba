# Cantera (pip; chemical kinetics, thermodynamics and transport, with the mechanisms it
# ships: GRI-Mech 3.0 for methane, 53 species; h2o2.yaml for hydrogen, 10 species; one
# thread) solving combustion problems, one per unit; the driver prints a line after each.
#   problem=ignition,mech=gri30: unit i integrates (CVODES, stiff BDF) a constant-pressure
#     reactor of methane/air at 10 atm from a new initial state drawn from the seed
#     (1000-1400 K, equivalence ratio 0.5-2.0) for 50 ms, through its ignition: a
#     problem of the same size each unit, the solver's steps varying with how stiff the
#     state's ignition is, so the cost per unit should be about constant, with wobble.
#   problem=flame,mech=h2o2: unit i solves a freely propagating, 1-D premixed
#     hydrogen/air flame (Newton with time-stepping, adaptive grid refinement) at the
#     i-th equivalence ratio of a sweep from 0.5 to 3.0 (jittered by the seed); the first
#     is solved from scratch (auto), each later one by continuation from the last
#     solution, so the cost changes: unit 1 is heavy, the later ones lighter, each
#     depending on how far the flame moved and how much the grid is refined.
corpus_pip_cantera=(cantera==3.2.0 numpy==2.4.6 ruamel.yaml==0.19.1 typing_extensions==4.16.0)

run_cantera() {
    cat >"$DRIVERS/cantera_combustion.py" <<'EOF'
"""Cantera, one combustion problem per unit. argv: problem units seed (problem ignition:
a GRI-Mech 3.0 methane/air constant-pressure reactor, a new initial state per unit,
integrated 50 ms; problem flame: a hydrogen/air 1-D free flame per unit along an
equivalence-ratio sweep, by continuation). The loop is Python's: TERM ends the process
at once."""
import sys
import numpy as np
import cantera as ct
problem, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
AIR = {"O2": 1.0, "N2": 3.76}
if problem == "ignition":
    gas = ct.Solution("gri30.yaml")
    for i in range(1, units + 1):
        T0, phi = rng.uniform(1000, 1400), rng.uniform(0.5, 2.0)
        gas.set_equivalence_ratio(phi, "CH4", AIR)
        gas.TP = T0, 10 * ct.one_atm
        reactor = ct.IdealGasConstPressureReactor(gas, clone=False)
        net = ct.ReactorNet([reactor])
        net.advance(0.05)
        print(f"ignition {i} T0 {T0:.0f} phi {phi:.2f} T {reactor.T:.0f}", flush=True)
else:
    gas = ct.Solution("h2o2.yaml")
    phis = np.linspace(0.5, 3.0, units) + rng.uniform(-0.02, 0.02, units)
    gas.set_equivalence_ratio(phis[0], "H2", AIR)
    gas.TP = 300, ct.one_atm
    flame = ct.FreeFlame(gas, width=0.03)
    flame.set_refine_criteria(ratio=3, slope=0.1, curve=0.2)
    for i, phi in enumerate(phis, 1):
        gas.set_equivalence_ratio(phi, "H2", AIR)
        gas.TP = 300, ct.one_atm
        flame.inlet.Y = gas.Y
        flame.solve(loglevel=0, auto=(i == 1))
        print(f"flame {i} phi {phi:.3f} speed {flame.velocity[0]:.4f} "
              f"points {flame.flame.n_points}", flush=True)
EOF
    local v
    v=$(pyver cantera cantera)
    record cantera "chemical kinetics (combustion)" "$v" "pip:cantera" \
        "constant (control), wobbly: each unit integrates one methane/air ignition (53 species) from a new initial state; solver steps vary with its stiffness" \
        "problem=ignition,mech=gri30" '^ignition \d+ ' 3 60 natural -- \
        "$PY" "$DRIVERS/cantera_combustion.py" ignition @N@ '{rep}'
    record cantera "chemical kinetics (combustion)" "$v" "pip:cantera" \
        "changes: unit 1 solves a 1-D hydrogen flame from scratch, each later unit by continuation along an equivalence-ratio sweep (lighter, varying with the grid refinement)" \
        "problem=flame,mech=h2o2" '^flame \d+ ' 4 40 natural -- \
        "$PY" "$DRIVERS/cantera_combustion.py" flame @N@ '{rep}'
}
