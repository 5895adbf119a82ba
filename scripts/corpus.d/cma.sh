# pycma (pip's cma, the CMA-ES reference implementation in Python/numpy) minimising a
# standard test function, seeded; a callback prints one line per block of iterations
# (generations: sample lambda candidates, evaluate, update mean, step size, covariance
# and, lazily, its eigendecomposition), and each line is a unit. Two kinds of run:
#   fn=ellipsoid: a 200-d ellipsoid (cma.ff.elli), one run without restarts, 20
#     generations per unit at a constant population (lambda 19): the same work every
#     block, so the cost per unit should stay about constant (a control).
#   fn=rastrigin: a 20-d Rastrigin (cma.ff.rastrigin, multimodal) under IPOP restarts
#     (fmin2, restarts up to 9, the population doubling at each restart), 100 generations
#     per unit: the cost per generation is constant within a restart and steps up when a
#     restart doubles lambda (where the evaluations and updates, not pycma's fixed
#     Python overhead, dominate), so the cost per unit grows in jumps, at each seed's
#     own restarts.
corpus_pip_cma=(cma==4.5.0 numpy==2.4.6)

run_cma() {
    cat >"$DRIVERS/cma_blocks.py" <<'EOF'
"""pycma's fmin2 (verbose off, seed SEED) on a test function, its callback printing one
line every EVERY generations (the generations so far, lambda, best f) and stopping the
run after UNITS lines. ellipsoid: cma.ff.elli in 200-d from x0 = 3, sigma0 2, no
restarts. rastrigin: cma.ff.rastrigin in 20-d, x0 = 3, sigma0 2, IPOP (restarts=9,
incpopsize=2). argv: fn units every seed."""
import sys
import cma

fn, units, every, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
state = {"generations": 0, "units": 0}


class Done(Exception):
    pass


def report(es):
    state["generations"] += 1
    if state["generations"] % every == 0:
        state["units"] += 1
        print(f"block {state['units']} generations {state['generations']} popsize {es.popsize} "
              f"best {es.best.f:.6g}", flush=True)
        if state["units"] >= units:
            raise Done


dim, f, restarts = (200, cma.ff.elli, 0) if fn == "ellipsoid" else (20, cma.ff.rastrigin, 9)
try:
    cma.fmin2(f, dim * [3.0], 2.0, {"seed": seed, "verbose": -9, "maxfevals": 1e12,
                                    "tolfun": 1e-11, "tolx": 1e-14},
              restarts=restarts, incpopsize=2, callback=report)
except Done:
    pass
EOF
    local v
    v=$(pyver cma cma)
    record cma "evolution strategies (CMA-ES)" "$v" "pip:cma" \
        "constant (control): 20 CMA-ES generations of lambda 19 on a 200-d ellipsoid per unit" \
        "fn=ellipsoid" '^block \d+ generations ' 4 80 natural -- \
        "$PY" "$DRIVERS/cma_blocks.py" ellipsoid @N@ 20 '{rep}'
    record cma "evolution strategies (CMA-ES)" "$v" "pip:cma" \
        "grows in jumps: 100 generations per unit, the population doubling at each IPOP restart" \
        "fn=rastrigin" '^block \d+ generations ' 3 20 natural -- \
        "$PY" "$DRIVERS/cma_blocks.py" rastrigin @N@ 100 '{rep}'
}
