# LAMMPS (Debian's, /usr/bin/lmp, one MPI rank without mpirun, one OpenMP thread) on a
# Lennard-Jones fluid of 4,000 atoms (fcc lattice, 10 x 10 x 10 cells, cutoff 2.5 sigma,
# neighbour lists rebuilt when atoms have moved), in LJ units; the seed draws the initial
# velocities. A unit is one thermo line (step, then four numbers), printed every EVERY
# steps from step 0 (unit 1 is the set-up: lattice, neighbour lists, step 0). Two kinds:
#   kind=melt: LAMMPS' own melt example, the crystal at density 0.8442 started at T=3.0
#     and integrated (NVE) for 3,000 steps, a thermo line every 100: once it has melted
#     (in the first few hundred steps), every block of 100 steps does the same pair and
#     neighbour-list work on the same atoms at the same density, so the cost per unit
#     should stay about constant (a control).
#   kind=compress: the crystal at density 0.3, at T=1.5 (Nose-Hoover), is squeezed
#     steadily (fix deform, each side to 0.7 of its length over 8,000 steps) to density
#     0.87, a thermo line every 200 steps: the atoms stay the same, but each one's
#     neighbours within the cutoff grow with the density, about 2.9 times from first to
#     last, so the pair and neighbour-list work per step should grow with the unit.
# LAMMPS writes no log file (-log none) and flushes each thermo line (thermo_modify
# flush yes), under stdbuf -oL; it ends by itself after the last thermo line.
corpus_apt_lammps=(lammps)

run_lammps() {
    cat >"$DRIVERS/lammps_melt.in" <<'EOF'
# LJ melt (after LAMMPS' examples/melt/in.melt). Variables: seed, every, steps.
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 10 0 10 0 10
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 ${seed} loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 2 delay 0 check yes
fix 1 all nve
thermo_style custom step temp pe ke press
thermo ${every}
thermo_modify flush yes
run ${steps}
EOF

    cat >"$DRIVERS/lammps_compress.in" <<'EOF'
# LJ fluid compressed from density 0.3 to 0.87 at T=1.5. Variables: seed, every, steps.
units lj
atom_style atomic
lattice fcc 0.3
region box block 0 10 0 10 0 10
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.5 ${seed} loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 2 delay 0 check yes
fix 1 all nvt temp 1.5 1.5 0.5
fix 2 all deform 1 x scale 0.7 y scale 0.7 z scale 0.7 remap x
thermo_style custom step density temp pe press
thermo ${every}
thermo_modify flush yes
run ${steps}
EOF

    local v
    v=$(/usr/bin/lmp -h | sed -n 's/^Large-scale Atomic\/Molecular Massively Parallel Simulator - \(.*\)$/LAMMPS \1/p' | head -1)
    # A thermo line: the step, then the four quantities of thermo_style.
    local re='^\s*\d+(\s+-?\d+(\.\d+)?(e[-+]?\d+)?){4}\s*$'
    record lammps "molecular dynamics (Lennard-Jones)" "$v" "apt:lammps" \
        "constant (control): 100 NVE steps of the same melted fluid per unit" \
        "kind=melt" "$re" 5 31 natural -- \
        stdbuf -oL /usr/bin/lmp -nocite -log none -in "$DRIVERS/lammps_melt.in" \
        -var seed '{rep}' -var every 100 -var steps 3000
    record lammps "molecular dynamics (Lennard-Jones)" "$v" "apt:lammps" \
        "grows: 200 steps per unit of a fluid compressed steadily, the neighbours per atom growing with its density" \
        "kind=compress" "$re" 10 41 natural -- \
        stdbuf -oL /usr/bin/lmp -nocite -log none -in "$DRIVERS/lammps_compress.in" \
        -var seed '{rep}' -var every 200 -var steps 8000
}
