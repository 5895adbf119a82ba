# healpy (pip; HEALPix pixelisations of the sphere and their spherical-harmonic
# transforms, the C++ library under it; one thread: OMP_NUM_THREADS=1) simulating and
# analysing full-sky maps as in cosmic-microwave-background work: each unit draws a
# Gaussian random map from an angular power spectrum C_l = 1/(l + 10)^2 (synfast: an
# inverse transform), then estimates its spectrum back (anafast with one Jacobi
# iteration: forward, inverse and forward transforms again); seeds from the seed. The
# driver prints a line after each map.
#   nside=256,lmax=767: a new map of 786432 pixels per unit: the same transforms each
#     unit, so the cost should be about constant (a control).
#   nside=grow,lmax=2nside: unit i works at nside = 16 (i + 1) (up to 272 at i = 16):
#     a transform costs about nside^3 (pixels times multipoles), so the cost grows
#     steeply with i.
corpus_pip_healpy=(healpy==1.20.1 astropy==8.0.2 pyerfa==2.0.1.5 numpy==2.4.6)

run_healpy() {
    cat >"$DRIVERS/healpy_maps.py" <<'EOF'
"""healpy, one simulated full-sky map and its power spectrum per unit. argv: mode units
seed (mode fixed: nside 256, lmax 767; mode grow: unit i at nside 16 (i + 1), lmax
2 nside). The loop is Python's: TERM ends the process at once."""
import sys
import numpy as np
import healpy as hp
mode, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
np.random.seed(seed)
for i in range(1, units + 1):
    if mode == "fixed":
        nside, lmax = 256, 767
    else:
        nside = 16 * (i + 1)
        lmax = 2 * nside
    ell = np.arange(lmax + 1)
    cl = 1.0 / (ell + 10.0) ** 2
    sky = hp.synfast(cl, nside, lmax=lmax)
    cl_hat = hp.anafast(sky, lmax=lmax, iter=1)
    print(f"map {i} nside {nside} lmax {lmax} C2 {cl_hat[2]:.4e}", flush=True)
EOF
    local v
    v=$(pyver healpy healpy)
    record healpy "cosmology (spherical-harmonic transforms)" "$v" "pip:healpy" \
        "constant (control): each unit synthesises and analyses a new nside=256 full-sky map" \
        "nside=256,lmax=767" '^map \d+ nside ' 4 20 natural -- \
        "$PY" "$DRIVERS/healpy_maps.py" fixed @N@ '{rep}'
    record healpy "cosmology (spherical-harmonic transforms)" "$v" "pip:healpy" \
        "grows steeply (about as nside^3): unit i synthesises and analyses a map at nside = 16 (i + 1)" \
        "nside=grow,lmax=2nside" '^map \d+ nside ' 4 16 natural -- \
        "$PY" "$DRIVERS/healpy_maps.py" grow @N@ '{rep}'
}
