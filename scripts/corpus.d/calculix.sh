# CalculiX (Debian's calculix-ccx, /usr/bin/ccx, one thread: OMP_NUM_THREADS=1, its SPOOLES
# direct solver on 1 cpu) solving a geometrically nonlinear static problem: a steel
# cantilever (10 x 1 x 1, C3D8 hexahedra, clamped at one end) bent by a transverse tip
# load large enough to deflect it far (NLGEOM), applied in N equal increments (*STATIC,
# DIRECT). Each increment is solved by Newton iterations (each a stiffness assembly and
# a SPOOLES factorisation); ccx prints `convergence` when an increment has converged:
# that line is the unit. The input (mesh, Young's modulus and load +-10% by seed) is
# generated per seed before the runs, each run in its own folder under $INPUTS/calculix/
# (ccx writes its .dat/.frd/.sta files next to its input).
#   elements=640,increments=20: 40 x 4 x 4 elements, the load in 20 increments;
#   elements=2160,increments=12: 60 x 6 x 6 elements, the load in 12 increments.
# The system's size is fixed, but the number of Newton iterations per increment changes
# as the beam bends (the first increments, far from the deformed shape, take more; the
# stiffening, rotated beam takes fewer or more), so the cost per unit changes.
corpus_apt_calculix=(calculix-ccx)

run_calculix() {
    cat >"$DRIVERS/calculix_beam.py" <<'EOF'
"""Writes a CalculiX input OUT/beam.inp: a 10 x 1 x 1 C3D8 cantilever (NX x NY x NZ
elements), clamped at x = 0, a tip load in -z in INCS equal increments with NLGEOM;
modulus and load +-10% from the seed. argv: nx ny nz incs seed out."""
import random, sys
nx, ny, nz, incs, seed = (int(a) for a in sys.argv[1:6])
out = sys.argv[6]
rng = random.Random(seed)
L, W, H = 10.0, 1.0, 1.0
def nid(i, j, k):
    return 1 + i + (nx + 1) * (j + (ny + 1) * k)
lines = ["*NODE"]
for k in range(nz + 1):
    for j in range(ny + 1):
        for i in range(nx + 1):
            lines.append(f"{nid(i, j, k)}, {L * i / nx:.6f}, {W * j / ny:.6f}, {H * k / nz:.6f}")
lines.append("*ELEMENT, TYPE=C3D8, ELSET=EALL")
e = 1
for k in range(nz):
    for j in range(ny):
        for i in range(nx):
            n = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                 nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
            lines.append(f"{e}, " + ", ".join(map(str, n)))
            e += 1
lines.append("*NSET, NSET=FIX")
lines += [str(nid(0, j, k)) for k in range(nz + 1) for j in range(ny + 1)]
lines.append("*NSET, NSET=TIP")
lines += [str(nid(nx, j, k)) for k in range(nz + 1) for j in range(ny + 1)]
modulus = 210000.0 * rng.uniform(0.9, 1.1)
load = -2000.0 * rng.uniform(0.9, 1.1) / ((ny + 1) * (nz + 1))
lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", f"{modulus:.1f}, 0.3",
          "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", "*BOUNDARY", "FIX, 1, 3",
          "*STEP, NLGEOM, INC=1000", "*STATIC, DIRECT", f"{1.0 / incs}, 1.0",
          "*CLOAD", f"TIP, 3, {load:.4f}", "*NODE PRINT, NSET=TIP", "U", "*END STEP"]
with open(out + "/beam.inp", "w") as f:
    f.write("\n".join(lines) + "\n")
EOF
    local v
    v="CalculiX $(dpkg-query -W -f='${Version}' calculix-ccx)"
    local -A mesh=([640]="40 4 4" [2160]="60 6 6") incs=([640]=20 [2160]=12) \
        probe=([640]=4 [2160]=3)
    local elements seed dir
    for elements in 640 2160; do
        for seed in 1 2 3 4 5 6 7; do
            dir=$INPUTS/calculix/e$elements-$seed
            rm -rf "$dir"
            mkdir -p "$dir"
            # shellcheck disable=SC2086
            "$PY" "$DRIVERS/calculix_beam.py" ${mesh[$elements]} "${incs[$elements]}" "$seed" "$dir"
        done
        record calculix "structural mechanics (nonlinear finite elements)" "$v" "apt:calculix-ccx" \
            "changes: each unit is one load increment of the same nonlinear cantilever, its Newton iterations (each an assembly and a factorisation) varying as the beam bends" \
            "elements=$elements,increments=${incs[$elements]}" '^\s*convergence\s*$' \
            "${probe[$elements]}" "${incs[$elements]}" natural -- \
            env -C "$INPUTS/calculix/e$elements-{rep}" stdbuf -oL /usr/bin/ccx -i beam
    done
}
