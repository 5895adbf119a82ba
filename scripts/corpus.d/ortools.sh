# Google OR-Tools (pip's ortools wheel, one search worker) solving a series of generated
# instances, one per unit, data from the seed. Two kinds of work:
#   solver=cpsat: unit i builds and solves to proven optimality, with CP-SAT
#     (num_workers=1), one random 8-jobs x 8-machines job-shop scheduling instance
#     (durations 1-20, machine orders shuffled), minimising the makespan: the same size
#     class every unit, each instance its own search (branches, cuts, restarts), so the
#     cost per unit changes from instance to instance with no trend.
#   solver=routing: unit i solves a TSP of 25*i random cities with the routing library
#     (PATH_CHEAPEST_ARC first solution, then its default local search to a local
#     optimum, no metaheuristic; distances as a matrix on the C++ side): the
#     neighbourhoods grow with the cities, so the cost per unit grows steeply
#     (about cubically in i).
corpus_pip_ortools=(ortools==9.15.6755 protobuf==6.33.6 absl-py==2.5.1 immutabledict==4.3.1
    numpy==2.4.6 pandas==3.1.1 python-dateutil==4.0.0)

run_ortools() {
    cat >"$DRIVERS/ortools_series.py" <<'EOF'
"""OR-Tools solving one generated instance per unit (seeded Python random). cpsat: a
SIZE x SIZE job-shop (durations 1-20, each job visiting the machines in a shuffled
order) to proven optimality with CP-SAT, one worker, random_seed SEED*1000+i; prints
the makespan, status and branches. routing: a TSP of SIZE*i uniform cities on a
10000 x 10000 square (Euclidean distances, integer, as a transit matrix) with
PATH_CHEAPEST_ARC and the routing library's default local search; prints the tour
length. argv: kind (cpsat|routing) units size seed."""
import random, sys
from ortools.constraint_solver import pywrapcp, routing_enums_pb2
from ortools.sat.python import cp_model

kind, units, size, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
for i in range(1, units + 1):
    if kind == "cpsat":
        jobs = [[(m, rng.randint(1, 20)) for m in rng.sample(range(size), size)]
                for _ in range(size)]
        horizon = sum(d for job in jobs for _, d in job)
        mdl = cp_model.CpModel()
        ends, per_machine = [], [[] for _ in range(size)]
        for job in jobs:
            prev = None
            for m, d in job:
                s, e = mdl.new_int_var(0, horizon, ""), mdl.new_int_var(0, horizon, "")
                per_machine[m].append(mdl.new_interval_var(s, d, e, ""))
                if prev is not None:
                    mdl.add(s >= prev)
                prev = e
            ends.append(prev)
        for ivs in per_machine:
            mdl.add_no_overlap(ivs)
        makespan = mdl.new_int_var(0, horizon, "makespan")
        mdl.add_max_equality(makespan, ends)
        mdl.minimize(makespan)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed * 1000 + i
        status = solver.solve(mdl)
        print(f"jobshop {i} jobs {size} machines {size} makespan {solver.objective_value:.0f} "
              f"{solver.status_name(status)} branches {solver.num_branches}", flush=True)
    else:
        n = size * i
        pts = [(rng.randint(0, 10000), rng.randint(0, 10000)) for _ in range(n)]
        mat = [[int(((x[0] - y[0]) ** 2 + (x[1] - y[1]) ** 2) ** 0.5) for y in pts] for x in pts]
        manager = pywrapcp.RoutingIndexManager(n, 1, 0)
        routing = pywrapcp.RoutingModel(manager)
        routing.SetArcCostEvaluatorOfAllVehicles(routing.RegisterTransitMatrix(mat))
        params = pywrapcp.DefaultRoutingSearchParameters()
        params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PATH_CHEAPEST_ARC
        sol = routing.SolveWithParameters(params)
        print(f"tour {i} cities {n} length {sol.ObjectiveValue()}", flush=True)
EOF
    local v
    v=$(pyver ortools ortools)
    record ortools "combinatorial optimisation (CP-SAT, routing)" "$v" "pip:ortools" \
        "changes: one same-size random 8x8 job-shop solved to optimality per unit, each its own search (no trend)" \
        "solver=cpsat" '^jobshop \d+ jobs ' 3 60 natural -- \
        "$PY" "$DRIVERS/ortools_series.py" cpsat @N@ 8 '{rep}'
    record ortools "combinatorial optimisation (CP-SAT, routing)" "$v" "pip:ortools" \
        "grows steeply: unit i routes a TSP of 25i cities to a local optimum, about cubic in i" \
        "solver=routing" '^tour \d+ cities ' 4 11 natural -- \
        "$PY" "$DRIVERS/ortools_series.py" routing @N@ 25 '{rep}'
}
