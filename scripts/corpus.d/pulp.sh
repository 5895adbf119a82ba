# PuLP (pip's pulp: a Python modelling layer, solving with the CBC 2.10.3 binary its
# wheel bundles, PULP_CBC_CMD, one thread, no log) building and solving one model per
# unit, data from the seed (Python's random). PuLP writes each model as an MPS file,
# runs cbc on it and reads the solution back, so a unit is PuLP's modelling and file
# round trip plus CBC's solve. Two kinds of series:
#   model=transport: unit i builds a transportation LP of n = 20*i sources by n sinks
#     (n^2 variables, supplies exceeding the demands) and solves it: modelling and
#     simplex both grow with n^2 and more, so the cost per unit grows steeply (about
#     cubically in i).
#   model=pmedian: unit i builds a 5-median MIP on 60 random points in the unit square
#     (60 binary sites, 3600 assignment variables, 3600 linking constraints) and solves
#     it to optimality: the same size every unit, each instance its own branch and
#     bound, so the cost per unit changes from instance to instance with no trend.
corpus_pip_pulp=(pulp==3.3.2)

run_pulp() {
    cat >"$DRIVERS/pulp_series.py" <<'EOF'
"""PuLP building and solving (PULP_CBC_CMD: its bundled CBC, threads 1, msg off) one
model per unit, data from Python's seeded random. transport: n = SIZE*i sources and
sinks, demands 40-140, supplies 20-80 plus the mean demand, costs 1-100. pmedian: SIZE
uniform points, choose 5 medians minimising the total distance (binary sites, assignment
in [0, 1], x <= y links). Prints the status and objective. argv: model units size seed."""
import random, sys
import pulp

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
solver = pulp.PULP_CBC_CMD(msg=False, threads=1)
for i in range(1, units + 1):
    if kind == "transport":
        n = size * i
        dem = [rng.randint(40, 140) for _ in range(n)]
        sup = [rng.randint(20, 80) + sum(dem) / n for _ in range(n)]
        c = [[rng.randint(1, 100) for _ in range(n)] for _ in range(n)]
        prob = pulp.LpProblem("transport", pulp.LpMinimize)
        x = [[pulp.LpVariable(f"x_{a}_{b}", lowBound=0) for b in range(n)] for a in range(n)]
        prob += pulp.lpSum(c[a][b] * x[a][b] for a in range(n) for b in range(n))
        for a in range(n):
            prob += pulp.lpSum(x[a]) <= sup[a]
        for b in range(n):
            prob += pulp.lpSum(x[a][b] for a in range(n)) >= dem[b]
    else:
        n = size
        pts = [(rng.random(), rng.random()) for _ in range(n)]
        d = [[((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5 for q in pts] for p in pts]
        prob = pulp.LpProblem("pmedian", pulp.LpMinimize)
        y = [pulp.LpVariable(f"y{j}", cat="Binary") for j in range(n)]
        x = [[pulp.LpVariable(f"x_{a}_{b}", lowBound=0, upBound=1) for b in range(n)]
             for a in range(n)]
        prob += pulp.lpSum(d[a][b] * x[a][b] for a in range(n) for b in range(n))
        for a in range(n):
            prob += pulp.lpSum(x[a]) == 1
            for b in range(n):
                prob += x[a][b] <= y[b]
        prob += pulp.lpSum(y) == 5
    prob.solve(solver)
    print(f"model {i} {kind} n {n} status {pulp.LpStatus[prob.status]} "
          f"objective {pulp.value(prob.objective):.4f}", flush=True)
EOF
    local v
    v="$(pyver pulp pulp) (CBC 2.10.3, bundled)"
    record pulp "mathematical programming (modelling layer)" "$v" "pip:pulp" \
        "grows steeply: unit i models and solves a transportation LP of 20i x 20i, about cubic in i" \
        "model=transport" '^model \d+ transport ' 4 16 natural -- \
        "$PY" "$DRIVERS/pulp_series.py" transport @N@ 20 '{rep}'
    record pulp "mathematical programming (modelling layer)" "$v" "pip:pulp" \
        "changes: one same-size 5-median MIP on 60 random points per unit, each its own tree (no trend)" \
        "model=pmedian" '^model \d+ pmedian ' 3 60 natural -- \
        "$PY" "$DRIVERS/pulp_series.py" pmedian @N@ 60 '{rep}'
}
