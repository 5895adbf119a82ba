# Meep (Debian's python3-meep, the serial build, run by Debian's /usr/bin/python3, whose
# package it is; python3-matplotlib because `import meep` needs it; one thread:
# OMP_NUM_THREADS=1) solving Maxwell's equations by finite differences in the time
# domain (FDTD) with PML absorbing boundaries, in a geometry of random dielectric
# objects drawn from the seed; one sim.run(until=T) call per unit, T time units further
# on, after which the driver prints a line (with Ez at a probe point).
#   dim=2,res=20: a 16 x 8 cell (320 x 160 pixels), 20 dielectric cylinders
#     (eps 4-12), a continuous line source (Ez, frequency 0.15); 10 time units (400
#     steps) per unit;
#   dim=3,res=8: a 6 x 6 x 6 cell (48^3 voxels, no subpixel averaging), 6 dielectric
#     spheres, a Gaussian point source (Ez, frequency 0.5); 2 time units (32 steps) per
#     unit.
# Every unit is the same number of leapfrog steps over the same grid (the fields'
# values change, the work does not), so the cost per unit should be about constant
# (a control).
corpus_apt_meep=(python3-meep python3-matplotlib)

run_meep() {
    cat >"$DRIVERS/meep_fdtd.py" <<'EOF'
"""Meep FDTD, one sim.run(until=...) per unit. argv: dim units seed (dim 2: 16 x 8 cell,
resolution 20, 20 cylinders, a CW source, 10 time units per unit; dim 3: 6^3 cell,
resolution 8, 6 spheres, a Gaussian source, 2 time units per unit). The loop is
Python's: TERM ends the process at once."""
import sys
import numpy as np
import meep as mp
mp.verbosity(0)
dim, units, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
if dim == 2:
    geometry = [mp.Cylinder(radius=rng.uniform(0.2, 0.5),
                            center=mp.Vector3(rng.uniform(-6, 6), rng.uniform(-3, 3)),
                            material=mp.Medium(epsilon=rng.uniform(4, 12))) for _ in range(20)]
    sources = [mp.Source(mp.ContinuousSource(frequency=0.15), component=mp.Ez,
                         center=mp.Vector3(-7, 0), size=mp.Vector3(0, 4))]
    sim = mp.Simulation(cell_size=mp.Vector3(16, 8, 0), boundary_layers=[mp.PML(1.0)],
                        geometry=geometry, sources=sources, resolution=20)
    chunk, probe = 10, mp.Vector3(7, 0)
else:
    geometry = [mp.Sphere(radius=rng.uniform(0.3, 0.8), center=mp.Vector3(*rng.uniform(-1.5, 1.5, 3)),
                          material=mp.Medium(epsilon=rng.uniform(4, 12))) for _ in range(6)]
    sources = [mp.Source(mp.GaussianSource(frequency=0.5, fwidth=0.3), component=mp.Ez,
                         center=mp.Vector3(-2, 0, 0))]
    sim = mp.Simulation(cell_size=mp.Vector3(6, 6, 6), boundary_layers=[mp.PML(1.0)],
                        geometry=geometry, sources=sources, resolution=8, eps_averaging=False)
    chunk, probe = 2, mp.Vector3(2, 0, 0)
for i in range(1, units + 1):
    sim.run(until=chunk)
    ez = sim.get_field_point(mp.Ez, probe)
    print(f"chunk {i} t {sim.meep_time():.0f} ez {abs(ez):.6f}", flush=True)
EOF
    local v
    v="Meep $(dpkg-query -W -f='${Version}' python3-meep)"
    record meep "computational electromagnetics (FDTD)" "$v" "apt:python3-meep" \
        "constant (control): 400 FDTD steps of the same 2-D grid (320 x 160) per unit" \
        "dim=2,res=20" '^chunk \d+ t ' 2 50 natural -- \
        /usr/bin/python3 "$DRIVERS/meep_fdtd.py" 2 @N@ '{rep}'
    record meep "computational electromagnetics (FDTD)" "$v" "apt:python3-meep" \
        "constant (control): 32 FDTD steps of the same 3-D grid (48^3) per unit" \
        "dim=3,res=8" '^chunk \d+ t ' 5 25 natural -- \
        /usr/bin/python3 "$DRIVERS/meep_fdtd.py" 3 @N@ '{rep}'
}
