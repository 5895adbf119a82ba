# REBOUND (pip; N-body gravitational dynamics, one thread) integrating a planetary
# system from initial orbits drawn from the seed; one sim.integrate(t_i) call per unit,
# to the next output time, after which the driver prints a line (time, bodies left,
# relative energy error).
#   integrator=ias15,bodies=41: a star and 40 planetary embryos (3e-5 to 3e-4 solar
#     masses, radius 0.002 AU, semi-major axes 0.8-1.6 AU, nearly circular and
#     coplanar), direct gravity between all bodies, direct collision search with
#     merging; IAS15 (15th order, adaptive step). Each unit integrates 2 orbits at
#     1 AU. The cost per unit changes: the step shrinks in close encounters, and the
#     cost falls as embryos merge (fewer bodies, O(N^2) forces) and the system spreads.
#   integrator=whfast,bodies=207: a star, 6 planets (widely spaced, 0.5-2 x 1e-4 solar
#     masses) and 200 massless test particles (2-20 AU), WHFast (symplectic, fixed step
#     0.05); each unit integrates 100 time units (2000 steps of the same cost): about
#     constant per unit (a control).
corpus_pip_rebound=(rebound==5.2.2 numpy==2.4.6)

run_rebound() {
    cat >"$DRIVERS/rebound_nbody.py" <<'EOF'
"""REBOUND N-body integration, one output interval per unit. argv: integrator units
seed (ias15: 40 merging embryos, 2 orbits per unit; whfast: 6 planets and 200 test
particles, 100 time units per unit). The loop is Python's: TERM ends the process at
once."""
import sys
import numpy as np
import rebound
kind, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
TAU = 2 * np.pi
sim = rebound.Simulation()
sim.add(m=1.0)
if kind == "ias15":
    sim.integrator = "ias15"
    for _ in range(40):
        sim.add(m=rng.uniform(3e-5, 3e-4), a=rng.uniform(0.8, 1.6), e=rng.uniform(0, 0.1),
                inc=rng.uniform(0, 0.05), Omega=rng.uniform(0, TAU),
                omega=rng.uniform(0, TAU), f=rng.uniform(0, TAU), r=2e-3)
    sim.collision = "direct"
    sim.collision_resolve = "merge"
    interval = 2 * TAU
else:
    sim.integrator = "whfast"
    for k in range(6):
        sim.add(m=1e-4 * rng.uniform(0.5, 2), a=1.6 ** k, e=rng.uniform(0, 0.05),
                f=rng.uniform(0, TAU))
    for _ in range(200):
        sim.add(m=0, a=rng.uniform(2, 20), e=rng.uniform(0, 0.2), f=rng.uniform(0, TAU),
                inc=rng.uniform(0, 0.1))
    sim.N_active = 7
    sim.dt = 0.05
    interval = 100.0
sim.move_to_com()
e0 = sim.energy()
for i in range(1, units + 1):
    sim.integrate(i * interval)
    print(f"output {i} t {sim.t:.1f} bodies {sim.N} dE {abs((sim.energy() - e0) / e0):.2e}",
          flush=True)
EOF
    local v
    v=$(pyver rebound rebound)
    record rebound "celestial mechanics (N-body)" "$v" "pip:rebound" \
        "changes: 2 orbits of 40 merging embryos per unit with an adaptive step; encounters slow it, mergers (fewer bodies) speed it up" \
        "integrator=ias15,bodies=41" '^output \d+ t ' 3 45 natural -- \
        "$PY" "$DRIVERS/rebound_nbody.py" ias15 @N@ '{rep}'
    record rebound "celestial mechanics (N-body)" "$v" "pip:rebound" \
        "constant (control): 2000 fixed WHFast steps of 6 planets and 200 test particles per unit" \
        "integrator=whfast,bodies=207" '^output \d+ t ' 10 30 natural -- \
        "$PY" "$DRIVERS/rebound_nbody.py" whfast @N@ '{rep}'
}
