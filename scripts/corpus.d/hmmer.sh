# HMMER 3 (Debian's: /usr/bin/phmmer, /usr/bin/hmmsearch, /usr/bin/hmmbuild; one thread:
# --cpu 0) searching query after query against one generated protein database. One
# program process per run reads a file of N queries and prints its report of each query,
# ending with the line `//`: that line is the unit (a single-sequence query for phmmer, a
# profile HMM for hmmsearch). Inputs are generated per seed before the runs (under
# $INPUTS/hmmer/): 200+ random "families" (ancestral sequences of 150-450 residues, with
# background amino-acid frequencies); the database is 30% family members (substitutions
# and indels at 20-70%) and 70% unrelated random sequences of 100-500 residues; each query
# is a mutated member of one family, each profile is built (hmmbuild, before the runs)
# from 5-20 ungapped members of one family.
#   tool=phmmer,db=20000: a single-sequence query against 20000 sequences per unit.
#   tool=hmmsearch,db=40000: a profile against 40000 sequences per unit.
# The database is the same for every unit and nothing accumulates between queries, so
# the cost per unit should be about constant: each query passes the whole database
# through the MSV/Viterbi/Forward filter pipeline, in time proportional to its length
# (150-450) times the database's residues, plus the few hits that reach the full
# Forward/Backward and domain stage.
corpus_apt_hmmer=(hmmer)

run_hmmer() {
    cat >"$DRIVERS/hmmer_inputs.py" <<'EOF'
"""Generates HMMER inputs for one seed: OUT.db.fa (NDB protein sequences), OUT.q.fa (NQ
query sequences) and OUT.sto (NQ Stockholm alignments, one per family, for hmmbuild).
argv: ndb nq seed out."""
import random, sys
AA = "ACDEFGHIKLMNPQRSTVWY"
FREQ = [8.25, 1.37, 5.45, 6.75, 3.86, 7.07, 2.27, 5.96, 5.84, 9.66, 2.42, 4.06, 4.70,
        3.93, 5.53, 6.56, 5.34, 6.87, 1.08, 2.92]
def rand(rng, n):
    return "".join(rng.choices(AA, FREQ, k=n))
def subst(rng, s, rate):
    return "".join(rng.choices(AA, FREQ)[0] if rng.random() < rate else c for c in s)
def mutate(rng, s, rate):
    out = []
    for c in s:
        r = rng.random()
        if r < rate * 0.8:
            out.append(rng.choices(AA, FREQ)[0])
        elif r < rate * 0.9:
            continue
        elif r < rate:
            out.append(c)
            out.append(rng.choices(AA, FREQ)[0])
        else:
            out.append(c)
    return "".join(out)
ndb, nq, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
fams = [rand(rng, rng.randint(150, 450)) for _ in range(max(nq, 200))]
with open(out + ".db.fa", "w") as f:
    for i in range(ndb):
        if rng.random() < 0.3:
            s = mutate(rng, rng.choice(fams), rng.uniform(0.2, 0.7))
        else:
            s = rand(rng, rng.randint(100, 500))
        f.write(f">s{i}\n{s}\n")
with open(out + ".q.fa", "w") as f, open(out + ".sto", "w") as g:
    for i in range(nq):
        fam = fams[i]
        f.write(f">q{i}\n{mutate(rng, fam, 0.3)}\n")
        g.write(f"# STOCKHOLM 1.0\n#=GF ID fam{i}\n")
        for j in range(rng.randint(5, 20)):
            g.write(f"m{j} {subst(rng, fam, rng.uniform(0.1, 0.5))}\n")
        g.write("//\n")
EOF
    local v
    v=$(/usr/bin/phmmer -h | sed -n 's/^# HMMER \([0-9.]*\) .*/HMMER \1/p' | head -1)
    mkdir -p "$INPUTS/hmmer"
    local -A db=([phmmer]=20000 [hmmsearch]=40000) full=([phmmer]=60 [hmmsearch]=30) \
        probe=([phmmer]=3 [hmmsearch]=10)
    local tool seed base
    for tool in phmmer hmmsearch; do
        for seed in 1 2 3 4 5 6 7; do
            base=$INPUTS/hmmer/$tool-${db[$tool]}-${full[$tool]}-$seed
            "$PY" "$DRIVERS/hmmer_inputs.py" "${db[$tool]}" "${full[$tool]}" "$seed" "$base"
            if [[ $tool == hmmsearch ]]; then
                /usr/bin/hmmbuild --cpu 0 --seed "$seed" "$base.hmm" "$base.sto" >/dev/null
            fi
        done
    done
    base=$INPUTS/hmmer/phmmer-${db[phmmer]}-${full[phmmer]}-'{rep}'
    record hmmer "protein sequence homology search" "$v" "apt:hmmer" \
        "constant (control): one query sequence against the same database per unit; wobbles with the query's length (150-450) and its hits" \
        "tool=phmmer,db=${db[phmmer]}" '^//$' "${probe[phmmer]}" "${full[phmmer]}" natural -- \
        stdbuf -oL /usr/bin/phmmer --cpu 0 --noali -E 1e-3 "$base.q.fa" "$base.db.fa"
    base=$INPUTS/hmmer/hmmsearch-${db[hmmsearch]}-${full[hmmsearch]}-'{rep}'
    record hmmer "protein sequence homology search" "$v" "apt:hmmer" \
        "constant (control): one profile HMM against the same database per unit; wobbles with the profile's length (150-450) and its hits" \
        "tool=hmmsearch,db=${db[hmmsearch]}" '^//$' "${probe[hmmsearch]}" "${full[hmmsearch]}" natural -- \
        stdbuf -oL /usr/bin/hmmsearch --cpu 0 --noali -E 1e-3 "$base.hmm" "$base.db.fa"
}
