# OpenMM (pip, the CPU platform with one thread: Threads=1) integrating molecular
# dynamics with a Langevin integrator (300 K, 2 fs steps, bonds to hydrogen
# constrained), after a short energy minimisation (startup, in unit 1). One
# simulation.step(N x BLOCK) call per run; OpenMM's own StateDataReporter prints a CSV
# line (step, potential energy, temperature) every BLOCK steps: that line is the unit.
#   system=water,atoms=1503: a 2.5 nm cubic box of 501 TIP3P-FB waters (Modeller's
#     addSolvent, Amber14 force field), particle-mesh Ewald, 0.9 nm cutoff; 100 steps
#     per unit.
#   system=villin,solvent=obc: the villin headpiece (OpenMM's own test structure, 582
#     atoms, its water and ions removed) in OBC implicit solvent (Amber99SB-ILDN,
#     GBSAOBCForce), non-periodic 2 nm cutoff; 50 steps per unit.
# The seed is the integrator's random seed and that of the initial velocities. Every
# unit is the same number of steps of a system whose size does not change, so the
# cost per unit should be about constant (a control): neighbour-list rebuilds and the
# system's drift from its minimised start are all that changes.
corpus_pip_openmm=(openmm==8.6.1 numpy==2.4.6)

run_openmm() {
    cat >"$DRIVERS/openmm_md.py" <<'EOF'
"""OpenMM molecular dynamics on the CPU platform (1 thread), one StateDataReporter line
per BLOCK steps. argv: system units block seed (system water: a TIP3P-FB box, PME;
system villin: villin headpiece in OBC implicit solvent). The loop is OpenMM's:
TERM ends the process at once."""
import os, sys
import openmm as mm
from openmm import app, unit
system_name, units, block, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if system_name == "water":
    ff = app.ForceField("amber14-all.xml", "amber14/tip3pfb.xml")
    model = app.Modeller(app.Topology(), [])
    model.addSolvent(ff, boxSize=mm.Vec3(2.5, 2.5, 2.5) * unit.nanometer)
    system = ff.createSystem(model.topology, nonbondedMethod=app.PME,
                             nonbondedCutoff=0.9 * unit.nanometer, constraints=app.HBonds)
else:
    pdb = app.PDBFile(os.path.join(os.path.dirname(app.__file__), "data", "test.pdb"))
    model = app.Modeller(pdb.topology, pdb.positions)
    model.deleteWater()
    model.delete([r for r in model.topology.residues() if r.name in ("Na", "Cl", "NA", "CL")])
    ff = app.ForceField("amber99sbildn.xml", "amber99_obc.xml")
    system = ff.createSystem(model.topology, nonbondedMethod=app.CutoffNonPeriodic,
                             nonbondedCutoff=2.0 * unit.nanometer, constraints=app.HBonds)
integrator = mm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond,
                                         0.002 * unit.picoseconds)
integrator.setRandomNumberSeed(seed)
sim = app.Simulation(model.topology, system, integrator,
                     mm.Platform.getPlatformByName("CPU"), {"Threads": "1"})
sim.context.setPositions(model.positions)
sim.minimizeEnergy(maxIterations=100)
sim.context.setVelocitiesToTemperature(300 * unit.kelvin, seed)
sim.reporters.append(app.StateDataReporter(sys.stdout, block, step=True,
                                           potentialEnergy=True, temperature=True))
sim.step(units * block)
EOF
    local v
    v=$(pyver openmm openmm)
    record openmm "molecular dynamics" "$v" "pip:openmm" \
        "constant (control): 100 MD steps of the same 1503-atom water box (PME) per unit" \
        "system=water,atoms=1503" '^\d+,-?[0-9.]+,' 3 25 natural -- \
        "$PY" "$DRIVERS/openmm_md.py" water @N@ 100 '{rep}'
    record openmm "molecular dynamics" "$v" "pip:openmm" \
        "constant (control): 50 MD steps of the same 582-atom protein in implicit solvent per unit" \
        "system=villin,solvent=obc" '^\d+,-?[0-9.]+,' 6 30 natural -- \
        "$PY" "$DRIVERS/openmm_md.py" villin @N@ 50 '{rep}'
}
