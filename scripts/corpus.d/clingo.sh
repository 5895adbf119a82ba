# clingo: the answer-set solver clingo (Debian's gringo package, /usr/bin/clingo: the
# gringo grounder and the clasp solver in one) solving multi-shot: a graph grows step by
# step and is coloured anew after each step. Per unit, clingo's embedded Python main
# loop (its own `#script (python)`, the standard multi-shot control) adds BATCH nodes,
# each joined to DEG distinct earlier nodes drawn by a seeded generator, as facts; the
# grounder grounds only the new part (a choice of one of K colours per new node, one
# constraint per new edge), and clasp solves the whole program so far, keeping what it
# learnt in earlier steps. The progress line (SAT/UNSAT) is printed after each solve.
# Cost grows: grounding is per step and the same size, but each solve assigns every
# node of the graph so far (i x BATCH), propagating over all its edges. Two kinds:
# colors=3 (3 colours, DEG 2) and colors=4 (4 colours, DEG 3, a denser graph). One
# solver thread (-t 1). clingo exits 10/20 (satisfiable/unsatisfiable, of the last
# step): the `sh -c` makes those 0, as for MiniSat.

corpus_apt_clingo=(gringo)

run_clingo() {
    cat >"$DRIVERS/clingo_colour.lp" <<'EOF'
% clingo multi-shot graph colouring: step t adds `batch` nodes, each with `deg` edges
% to distinct earlier nodes (seeded), grounds them, and solves the whole program.
% Constants (-c): batch, units, deg, seed, k (colours).
#script (python)
import random
import clingo

def main(prg):
    batch, units, deg, seed = (prg.get_const(c).number for c in ("batch", "units", "deg", "seed"))
    rng = random.Random(seed)
    n = 0
    prg.ground([("base", [])])
    for t in range(1, units + 1):
        facts = []
        for _ in range(batch):
            n += 1
            facts.append(f"node({n},{t}).")
            for v in rng.sample(range(1, n), min(deg, n - 1)):
                facts.append(f"edge({v},{n},{t}).")
        prg.add(f"facts{t}", [], " ".join(facts))
        prg.ground([(f"facts{t}", []), ("step", [clingo.Number(t)])])
        res = prg.solve()
        print(f"step {t} nodes {n} {'SAT' if res.satisfiable else 'UNSAT'}", flush=True)
#end.
#program base.
col(1..k).
#program step(t).
1 { color(N,C) : col(C) } 1 :- node(N,t).
:- edge(U,V,t), color(U,C), color(V,C).
EOF
    local v
    v=$(/usr/bin/clingo --version | sed -n 's/^clingo version \([0-9.]*\).*/clingo \1/p')
    local -A full=([3]=30 [4]=24) probe=([3]=3 [4]=8) batch=([3]=1500 [4]=1000) deg=([3]=2 [4]=3)
    local k
    for k in 3 4; do
        record clingo "answer-set programming (multi-shot)" "$v" "apt:gringo" \
            "grows: each step grounds BATCH new nodes (the same size) and solves the whole graph so far anew" \
            "colors=$k" '^step \d+ nodes ' "${probe[$k]}" "${full[$k]}" natural -- \
            sh -c "/usr/bin/clingo $DRIVERS/clingo_colour.lp -q -t 1 -c k=$k -c deg=${deg[$k]} -c batch=${batch[$k]} -c units=@N@ -c seed={rep}; s=\$?; [ \$s = 10 ] || [ \$s = 20 ] || [ \$s = 30 ] || exit \$s"
    done
}
