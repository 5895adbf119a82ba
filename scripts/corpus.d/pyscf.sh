# PySCF (pip, one thread: lib.num_threads(1) and OMP_NUM_THREADS=1) solving the
# self-consistent field (SCF) equations of one water cluster per unit; the driver prints
# a line after each SCF has converged (with its energy and cycle count). Clusters are
# random but physical (molecules at the gas-phase geometry, randomly oriented, centres
# at least 2.7 A apart, in a sphere that grows with their number), drawn from the seed.
#   method=rhf-df,waters=grow: unit i is a density-fitted Hartree-Fock calculation
#     (6-31G basis, def2 fitting basis) of a new cluster of i waters: 13 i basis
#     functions, so the cost per unit grows steeply with i (integrals and fitting
#     tensors at least as the square, the Fock builds and diagonalisations as the cube
#     of the basis; the number of cycles varies).
#   method=b3lyp,waters=3: unit i is a Kohn-Sham DFT calculation (B3LYP, 6-31G, grid
#     level 1) of a new cluster of 3 waters: the same size every unit, so the cost should
#     be about constant (the number of SCF cycles varies with the geometry).
corpus_pip_pyscf=(pyscf==2.14.0 h5py==3.16.0 scipy==1.17.1 numpy==2.4.6)

run_pyscf() {
    cat >"$DRIVERS/pyscf_clusters.py" <<'EOF'
"""PySCF, one SCF calculation of a new water cluster per unit. argv: mode units seed
(mode grow: unit i is DF-RHF/6-31G of i waters; mode dft: B3LYP/6-31G, grid level 1, of
3 waters). The loop is Python's: TERM ends the process at once."""
import sys
import numpy as np
from pyscf import dft, gto, lib, scf
lib.num_threads(1)
mode, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
WATER = np.array([[0.0, 0.0, 0.0], [0.7572, 0.5865, 0.0], [-0.7572, 0.5865, 0.0]])
def cluster(n):
    centres = []
    while len(centres) < n:
        c = rng.uniform(-1, 1, 3) * (1.6 * n ** (1 / 3) + 1.0)
        if all(np.linalg.norm(c - d) > 2.7 for d in centres):
            centres.append(c)
    atoms = []
    for c in centres:
        q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        xyz = WATER @ q.T + c
        atoms += [("O", xyz[0]), ("H", xyz[1]), ("H", xyz[2])]
    return atoms
for i in range(1, units + 1):
    n = i if mode == "grow" else 3
    mol = gto.M(atom=cluster(n), basis="6-31g", verbose=0)
    if mode == "grow":
        mf = scf.RHF(mol).density_fit(auxbasis="def2-universal-jkfit")
    else:
        mf = dft.RKS(mol)
        mf.xc = "b3lyp"
        mf.grids.level = 1
    cycles = []
    mf.callback = lambda env: cycles.append(env["cycle"])
    e = mf.kernel()
    print(f"scf {i} waters {n} nao {mol.nao} energy {e:.6f} cycles {len(cycles)} "
          f"converged {mf.converged}", flush=True)
EOF
    local v
    v=$(pyver pyscf pyscf)
    record pyscf "quantum chemistry (SCF)" "$v" "pip:pyscf" \
        "grows steeply: unit i solves density-fitted Hartree-Fock for a new cluster of i waters (13 i basis functions); cycles vary" \
        "method=rhf-df,waters=grow" '^scf \d+ waters ' 3 7 natural -- \
        "$PY" "$DRIVERS/pyscf_clusters.py" grow @N@ '{rep}'
    record pyscf "quantum chemistry (SCF)" "$v" "pip:pyscf" \
        "constant (control): unit i solves B3LYP for a new cluster of 3 waters (39 basis functions); cycles vary with the geometry" \
        "method=b3lyp,waters=3" '^scf \d+ waters ' 3 12 natural -- \
        "$PY" "$DRIVERS/pyscf_clusters.py" dft @N@ '{rep}'
}
