# pymoo (pip's pymoo, multi-objective evolutionary optimisation) running a genetic
# algorithm generation by generation on a standard test problem, seeded; its own
# verbose display prints one table row per generation (evaluations, non-dominated
# count, and the IGD and GD indicators against the problem's known Pareto front), and
# each row is a unit. Two kinds of run:
#   algo=nsga2: NSGA-II (population 400: binary tournament, SBX crossover, polynomial
#     mutation, non-dominated sorting with crowding distance) on ZDT1 (30 variables,
#     2 objectives): the same population size every generation, so the cost per unit
#     should stay about constant (a control), drifting as the fronts merge into one
#     while the population converges.
#   algo=nsga3: NSGA-III (91 Das-Dennis reference directions, population 92) on DTLZ2
#     (12 variables, 3 objectives): the same again (a control), with reference-point
#     niching instead of crowding.
corpus_pip_pymoo=(pymoo==0.6.2 numpy==2.4.6 scipy==1.17.1 autograd==1.9.1 cma==4.5.0
    moocore==0.3.2 cffi==2.1.1 platformdirs==4.14.9 alive-progress==3.3.0 about-time==4.2.1
    graphemeu==0.7.2 Deprecated==1.3.1 wrapt==2.5.2 matplotlib==3.11.2)

run_pymoo() {
    cat >"$DRIVERS/pymoo_run.py" <<'EOF'
"""pymoo's minimize with verbose=True (one display row per generation), seeded.
algo=nsga2: NSGA2(pop_size=400) on ZDT1 (n_var 30). algo=nsga3: NSGA3 with the 91
Das-Dennis reference directions of 3 objectives (12 partitions) on DTLZ2 (n_var 12).
Stops after GENERATIONS generations. argv: algo generations seed."""
import sys
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.algorithms.moo.nsga3 import NSGA3
from pymoo.optimize import minimize
from pymoo.problems import get_problem
from pymoo.util.ref_dirs import get_reference_directions

kind, generations, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if kind == "nsga2":
    problem, algorithm = get_problem("zdt1", n_var=30), NSGA2(pop_size=400)
else:
    problem = get_problem("dtlz2", n_var=12, n_obj=3)
    algorithm = NSGA3(ref_dirs=get_reference_directions("das-dennis", 3, n_partitions=12))
minimize(problem, algorithm, ("n_gen", generations), seed=seed, verbose=True)
EOF
    local v
    v=$(pyver pymoo pymoo)
    record pymoo "multi-objective evolutionary optimisation" "$v" "pip:pymoo" \
        "constant (control): one NSGA-II generation of 400 on ZDT1 per unit, drifting as the fronts merge" \
        "algo=nsga2" '^\s*\d+ \|\s+\d+ \|' 10 150 natural -- \
        "$PY" "$DRIVERS/pymoo_run.py" nsga2 @N@ '{rep}'
    record pymoo "multi-objective evolutionary optimisation" "$v" "pip:pymoo" \
        "constant (control): one NSGA-III generation of 92 on DTLZ2 per unit" \
        "algo=nsga3" '^\s*\d+ \|\s+\d+ \|' 10 400 natural -- \
        "$PY" "$DRIVERS/pymoo_run.py" nsga3 @N@ '{rep}'
}
