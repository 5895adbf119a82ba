# RDKit (pip; cheminformatics; one thread: numThreads=1) generating 3-D conformers of
# peptides, one molecule per unit: the seed draws each peptide's amino-acid sequence
# (Chem.MolFromSequence, hydrogens added); RDKit embeds C conformers with ETKDG v3
# (distance geometry: bounds matrix, random coordinates, error-function minimisation,
# with torsion-angle preferences; the embedding's random seed follows the seed and the
# unit; when no conformer embeds, RDKit's fallback: again from random coordinates), then
# optimises each with the MMFF94 force field (at most 500 iterations); the driver prints
# a line after each molecule.
#   peptide=3,conformers=3: a new tripeptide (45-70 atoms) per unit, 3 conformers: the
#     same size class each unit, so the cost should be about constant, wobbling with
#     the residues drawn (a tryptophan or an arginine is larger and more flexible).
#   peptide=grow,conformers=3: unit i is a new peptide of i + 1 residues, 3 conformers:
#     the cost grows steeply with i (distance bounds and their smoothing are cubic in
#     the atoms, embedding attempts fail more often and the MMFF terms multiply as the
#     chain lengthens and gains rotatable bonds).
corpus_pip_rdkit=(rdkit==2026.9.1 numpy==2.4.6 pillow==13.0.0)
# The wheel's drawing code links libXrender and libXext.
corpus_apt_rdkit=(libxrender1 libxext6)

run_rdkit() {
    cat >"$DRIVERS/rdkit_conformers.py" <<'EOF'
"""RDKit conformer generation (ETKDG v3 + MMFF94), one peptide per unit. argv: mode
units seed conformers (mode fixed: tripeptides; mode grow: unit i has i + 1 residues).
The loop is Python's: TERM ends the process at once."""
import sys
import numpy as np
from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem
RDLogger.DisableLog("rdApp.*")
mode, units, seed, confs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
AA = list("ACDEFGHIKLMNPQRSTVWY")
for i in range(1, units + 1):
    n = i + 1 if mode == "grow" else 3
    seq = "".join(rng.choice(AA, n))
    mol = Chem.AddHs(Chem.MolFromSequence(seq))
    params = AllChem.ETKDGv3()
    params.randomSeed = seed * 1000 + i
    params.numThreads = 1
    cids = AllChem.EmbedMultipleConfs(mol, numConfs=confs, params=params)
    if len(cids) == 0:  # RDKit's own fallback: start from random coordinates
        params.useRandomCoords = True
        cids = AllChem.EmbedMultipleConfs(mol, numConfs=confs, params=params)
    if len(cids) > 0:
        AllChem.MMFFOptimizeMoleculeConfs(mol, numThreads=1, maxIters=500)
    print(f"molecule {i} sequence {seq} atoms {mol.GetNumAtoms()} conformers {len(cids)}",
          flush=True)
EOF
    local v
    v=$(pyver rdkit RDKit)
    record rdkit "cheminformatics (conformer generation)" "$v" "pip:rdkit" \
        "constant (control), wobbly: each unit embeds and MMFF-optimises 3 conformers of a new tripeptide; size varies with the residues drawn" \
        "peptide=3,conformers=3" '^molecule \d+ sequence ' 3 30 natural -- \
        "$PY" "$DRIVERS/rdkit_conformers.py" fixed @N@ '{rep}' 3
    record rdkit "cheminformatics (conformer generation)" "$v" "pip:rdkit" \
        "grows steeply: unit i embeds and MMFF-optimises 3 conformers of a new peptide of i + 1 residues" \
        "peptide=grow,conformers=3" '^molecule \d+ sequence ' 3 7 natural -- \
        "$PY" "$DRIVERS/rdkit_conformers.py" grow @N@ '{rep}' 3
}
