# GLPK (Debian's glpk-utils, /usr/bin/glpsol) solving a series of MathProg models, a new
# glpsol process per unit; the instances' data are drawn by glpsol itself (MathProg's
# Uniform, seeded by --seed SEED*1000+i), so the driver only writes a two-line data file
# (the sizes) and relays the line the model prints after its solve. Two kinds of work:
#   kind=mip: unit i solves to optimality (branch and cut, GLPK's defaults) one random
#     capacitated facility-location MIP of the same size (25 sites, 60 customers): the
#     same size class every unit, but the branch-and-bound tree of each instance is its
#     own, so the cost per unit changes from instance to instance (heavy-tailed), with no
#     trend.
#   kind=lp: unit i solves (primal simplex, GLPK's defaults) a random transportation LP
#     of n = 20*i sources by n sinks, n^2 variables: the problem grows with i and the
#     simplex's iterations and their cost grow with it, so the cost per unit grows
#     steeply (polynomially, about cubically in i).
corpus_apt_glpk=(glpk-utils)

run_glpk() {
    cat >"$DRIVERS/glpk_cfl.mod" <<'EOF'
/* Capacitated facility location, random data drawn by glpsol (--seed). */
param nf integer > 0;
param nc integer > 0;
set F := 1..nf;
set C := 1..nc;
param x{F} := Uniform(0, 100);
param y{F} := Uniform(0, 100);
param u{C} := Uniform(0, 100);
param v{C} := Uniform(0, 100);
param d{C} := round(Uniform(5, 35));
param cap{F} := round(Uniform(100, 300));
param open{F} := round(Uniform(300, 700));
param cost{i in F, j in C} := sqrt((x[i]-u[j])^2 + (y[i]-v[j])^2) * d[j] / 10;
var z{F} binary;
var s{F, C} >= 0, <= 1;
minimize total: sum{i in F} open[i]*z[i] + sum{i in F, j in C} cost[i,j]*s[i,j];
s.t. serve{j in C}: sum{i in F} s[i,j] = 1;
s.t. capacity{i in F}: sum{j in C} d[j]*s[i,j] <= cap[i]*z[i];
s.t. link{i in F, j in C}: s[i,j] <= z[i];
solve;
printf "sites %d customers %d open %d objective %.2f\n", nf, nc, sum{i in F} z[i], total;
end;
EOF
    cat >"$DRIVERS/glpk_transport.mod" <<'EOF'
/* Transportation LP, n sources by n sinks, random data drawn by glpsol (--seed); the
   supplies exceed the demands by construction, so every instance is feasible. */
param n integer > 0;
set S := 1..n;
set D := 1..n;
param demand{D} := round(Uniform(40, 140));
param supply{S} := round(Uniform(20, 80)) + (sum{j in D} demand[j]) / n;
param c{S, D} := round(Uniform(1, 100));
var x{S, D} >= 0;
minimize cost: sum{i in S, j in D} c[i,j]*x[i,j];
s.t. outflow{i in S}: sum{j in D} x[i,j] <= supply[i];
s.t. inflow{j in D}: sum{i in S} x[i,j] >= demand[j];
solve;
printf "sources %d sinks %d objective %.1f\n", n, n, cost;
end;
EOF
    cat >"$DRIVERS/glpk_series.sh" <<'EOF'
#!/bin/sh
# glpsol solving one MathProg model per unit: unit i writes the sizes to a data file
# (kind=mip: 25 sites and 60 customers every unit; kind=lp: n = STEP*i) and runs
# glpsol --seed SEED*1000+i, then prints "solve i" and the model's own result line.
# argv: kind units step seed workdir
kind=$1 units=$2 step=$3 seed=$4 work=$5
mkdir -p "$work"
d=$(dirname "$0")
i=1
while [ "$i" -le "$units" ]; do
    if [ "$kind" = mip ]; then
        printf 'data;\nparam nf := 25;\nparam nc := 60;\nend;\n' >"$work/data.dat"
        model=$d/glpk_cfl.mod
    else
        printf 'data;\nparam n := %d;\nend;\n' $((step * i)) >"$work/data.dat"
        model=$d/glpk_transport.mod
    fi
    out=$(glpsol -m "$model" -d "$work/data.dat" --seed $((seed * 1000 + i))) || exit 1
    line=$(printf '%s\n' "$out" | grep -E '^(sites|sources) ')
    [ -n "$line" ] || { printf '%s\n' "$out" >&2; exit 1; }
    echo "solve $i $line"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/glpk_series.sh"

    local v
    v=$(glpsol --version | head -1 | sed 's/^GLPSOL--GLPK LP\/MIP Solver /GLPK /')
    record glpk "mathematical programming (MIP, LP)" "$v" "apt:glpk-utils" \
        "changes: one same-size random facility-location MIP per unit, each its own branch-and-bound tree (heavy-tailed, no trend)" \
        "kind=mip" '^solve \d+ sites ' 4 36 natural -- \
        "$DRIVERS/glpk_series.sh" mip @N@ 0 '{rep}' "$INPUTS/glpk-work-mip-{rep}"
    record glpk "mathematical programming (MIP, LP)" "$v" "apt:glpk-utils" \
        "grows steeply: unit i solves a transportation LP of 20i x 20i by the simplex, about cubic in i" \
        "kind=lp" '^solve \d+ sources ' 4 14 natural -- \
        "$DRIVERS/glpk_series.sh" lp @N@ 20 '{rep}' "$INPUTS/glpk-work-lp-{rep}"
}
