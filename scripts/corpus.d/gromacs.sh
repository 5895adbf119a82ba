# GROMACS (Debian's, /usr/bin/gmx, mixed precision; one thread: mdrun -nt 1 -pin off)
# integrating molecular dynamics of a cubic box of SPC water (gmx solvate of GROMACS's
# own spc216.gro, OPLS-AA topology, relaxed by steepest descent: the tiled box has bad
# contacts), PME electrostatics, 0.9 nm cutoffs, Verlet lists, 2 fs steps, bonds to
# hydrogen constrained. The run input (.tpr: N x 50 steps, velocities drawn from the
# seed) is prepared with gmx grompp per seed before the runs;
# each run is one `gmx mdrun -v -stepout 50` (in its own folder under $INPUTS/gromacs/),
# whose own progress line `step S, remaining wall clock time: ...` every 50 steps
# (redrawn in place with \r) is the unit.
#   integrator=md,box=3nm: 884 waters (2652 atoms), leap-frog MD with the v-rescale
#     thermostat (300 K);
#   integrator=sd,box=4nm: 2165 waters (6495 atoms), stochastic (Langevin) dynamics at
#     300 K, friction 1/ps, its random seed drawn from the seed too.
# Every unit is the same number of steps of a system whose size does not change, so the
# cost per unit should be about constant (a control): pair-list rebuilds every few
# steps, and PME, the same each unit.
corpus_apt_gromacs=(gromacs)

run_gromacs() {
    local v
    v=$(/usr/bin/gmx --version 2>/dev/null | sed -n 's/^GROMACS version: *\(.*\)$/GROMACS \1/p' | head -1)
    local dir=$INPUTS/gromacs
    rm -rf "$dir"
    mkdir -p "$dir"
    local -A box=([md]=3 [sd]=4) full=([md]=80 [sd]=30) probe=([md]=2 [sd]=10) \
        atoms=([md]=2652 [sd]=6495)
    local integ seed
    for integ in md sd; do
        cat >"$dir/$integ.top" <<'EOF'
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spc.itp"

[ system ]
SPC water box

[ molecules ]
EOF
        /usr/bin/gmx -quiet solvate -cs spc216.gro -box "${box[$integ]}" "${box[$integ]}" \
            "${box[$integ]}" -o "$dir/$integ-solvated.gro" -p "$dir/$integ.top" >/dev/null 2>&1
        cat >"$dir/$integ-em.mdp" <<'EOF'
integrator    = steep
nsteps        = 1000
emtol         = 100
emstep        = 0.01
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 0.9
rvdw          = 0.9
EOF
        /usr/bin/gmx -quiet grompp -f "$dir/$integ-em.mdp" -c "$dir/$integ-solvated.gro" \
            -p "$dir/$integ.top" -o "$dir/$integ-em.tpr" -po "$dir/$integ-em.out.mdp" \
            -maxwarn 2 >/dev/null 2>&1
        (cd "$dir" && GMX_MAXBACKUP=-1 /usr/bin/gmx -quiet mdrun -s "$dir/$integ-em.tpr" \
            -nt 1 -pin off -deffnm "$dir/$integ-em" -c "$dir/$integ.gro" >/dev/null 2>&1)
        for seed in 1 2 3 4 5 6 7; do
            cat >"$dir/$integ-$seed.mdp" <<EOF
integrator    = $integ
dt            = 0.002
nsteps        = $((full[$integ] * 50))
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 0.9
rvdw          = 0.9
constraints   = h-bonds
tcoupl        = $([[ $integ == md ]] && echo v-rescale || echo no)
tc-grps       = System
tau-t         = $([[ $integ == md ]] && echo 0.1 || echo 1.0)
ref-t         = 300
gen-vel       = yes
gen-temp      = 300
gen-seed      = $seed
ld-seed       = $seed
nstcalcenergy = 50
nstenergy     = 50
nstlog        = 500
EOF
            /usr/bin/gmx -quiet grompp -f "$dir/$integ-$seed.mdp" -c "$dir/$integ.gro" \
                -p "$dir/$integ.top" -o "$dir/$integ-$seed.tpr" -po "$dir/$integ-$seed.out.mdp" \
                -maxwarn 2 >/dev/null 2>&1
        done
        mkdir -p "$dir/run-$integ"
        record gromacs "molecular dynamics" "$v" "apt:gromacs" \
            "constant (control): 50 MD steps of the same ${atoms[$integ]}-atom water box (PME) per unit" \
            "integrator=$integ,box=${box[$integ]}nm" '^step [1-9]\d*, remaining wall clock time' \
            "${probe[$integ]}" "${full[$integ]}" natural -- \
            env -C "$dir/run-$integ" GMX_MAXBACKUP=-1 /usr/bin/gmx -quiet mdrun \
            -s "$dir/$integ-{rep}.tpr" -nt 1 -pin off -v -stepout 50 -deffnm "$dir/run-$integ/md"
    done
}
