# GNU Bison (Debian's bison 3.8, /usr/bin/bison) generating LALR(1) parsers in C for
# generated context-free grammars, a new bison process per unit; the driver writes the
# grammar (drawn by the seed and the unit: NT nonterminals, each with 3-6 alternatives of
# 1-4 symbols, half of them nonterminals, over NT/2 tokens; highly ambiguous, its
# conflicts resolved by Bison's defaults, warnings off) and prints a line when bison is
# done. Bison builds the LR(0) automaton, computes the LALR lookaheads, resolves the
# conflicts and writes the tables and the parser.
#   grammar=grow: unit i's grammar has i x 30 nonterminals: the automaton's states and
#     the lookahead sets both grow with the grammar, so the cost per unit grows faster
#     than linearly with i (about quadratically in trial runs of the driver).
#   grammar=fixed: every unit a new grammar of 200 nonterminals: the same size class
#     each unit, so the cost per unit should stay about constant (a control; each
#     grammar's automaton differs in size).
corpus_apt_bison=(bison)

run_bison() {
    cat >"$DRIVERS/bison_grammars.py" <<'EOF'
"""GNU Bison generating an LALR(1) parser per unit for a generated grammar: `grow` has
i x NT nonterminals for unit i, `fixed` NT for every unit; each grammar new, drawn by
the seed and the unit. The parser's size is printed with the unit. The driver's loop is
Python's (standard library only); on the TERM that ends a probe at K units it exits
through `subprocess.run`, which ends and reaps the bison it started (in the same process
group, it gets the TERM too). argv: kind nt units seed workdir."""
import os, random, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

kind, nt, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(work, exist_ok=True)


def grammar(r, rng):
    toks = [f"T{k}" for k in range(max(8, r // 2))]
    out = ["%token " + " ".join(toks), "%%", "start: s0 ;"]
    for k in range(r):
        alts = []
        for _ in range(rng.randint(2, 5)):
            syms = [f"s{rng.randrange(r)}" if rng.random() < 0.5 else rng.choice(toks)
                    for _ in range(rng.randint(1, 4))]
            alts.append(" ".join(syms))
        alts.append(rng.choice(toks))
        out.append(f"s{k}: " + "\n  | ".join(alts) + " ;")
    out.append("%%")
    return "\n".join(out) + "\n"


y, c = os.path.join(work, "g.y"), os.path.join(work, "g.c")
for i in range(1, units + 1):
    r = i * nt if kind == "grow" else nt
    with open(y, "w") as fh:
        fh.write(grammar(r, random.Random(seed * 1000 + i)))
    subprocess.run(["/usr/bin/bison", "-Wnone", "-o", c, y], check=True)
    print(f"parser {i} nonterminals {r} bytes {os.path.getsize(c)}", flush=True)
EOF

    local v
    v=$(/usr/bin/bison --version | head -1 | sed 's/^bison (GNU Bison) /GNU Bison /')
    record bison "parser generator (LALR)" "$v" "apt:bison" \
        "grows faster than linearly: unit i generates the LALR(1) parser of a grammar of i x 30 nonterminals" \
        "grammar=grow,nt=30" '^parser \d+ nonterminals ' 4 16 natural -- \
        "$PY" "$DRIVERS/bison_grammars.py" grow 30 @N@ '{rep}' "$INPUTS/bison-grow-{rep}"
    record bison "parser generator (LALR)" "$v" "apt:bison" \
        "constant (control): one new grammar of 200 nonterminals per unit" \
        "grammar=fixed,nt=200" '^parser \d+ nonterminals ' 3 30 natural -- \
        "$PY" "$DRIVERS/bison_grammars.py" fixed 200 @N@ '{rep}' "$INPUTS/bison-fixed-{rep}"
}
