# Bowtie 2 (Debian's, /usr/bin/bowtie2, one thread: -p 1) aligning simulated short reads
# to a generated genome. Per seed: a 2 Mb random genome (base composition 30/20/20/30,
# one piece in ten a mutated copy of an earlier piece, so some reads map to several
# places), indexed once with bowtie2-build before the runs, and reads sampled from it
# (either strand, 1% substitutions, 0.15% deletions and 0.15% insertions, 5% random
# reads that map nowhere), cut beforehand into batch files of the same number of reads.
# Unit i runs bowtie2 anew on batch i (loading the index, then seeding and extending each
# read) and prints its overall alignment rate. Two modes:
#   mode=end-to-end: 100 bp reads, 3,000 a batch, --end-to-end --sensitive (the default);
#   mode=local: 150 bp reads, 1,000 a batch, --local --very-sensitive-local (more seeds
#     per read, soft-clipped local alignment).
# Every batch is the same number of reads of the same kind on the same index, so the cost
# per unit should stay about constant (a control), the reads' repeats and errors making
# it wobble; each unit also loads the index anew (a new process).
corpus_apt_bowtie2=(bowtie2)

run_bowtie2() {
    cat >"$DRIVERS/bowtie2_sim.py" <<'EOF'
"""Inputs for the Bowtie 2 runs, deterministic from the seed.
  bowtie2_sim.py genome BP SEED FASTA
      a random genome of BP bases (30/20/20/30 ACGT; one piece in ten a copy of an
      earlier piece with 2% of its bases redrawn)
  bowtie2_sim.py reads FASTA LEN BATCHES PER SEED DIR
      BATCHES files DIR/bNNNN.fq of PER reads of LEN bases each, sampled from FASTA
      (either strand; 1% substitutions, 0.15% deletions, 0.15% insertions; 5% random)"""
import os, random, sys

comp = str.maketrans("ACGT", "TGCA")

if sys.argv[1] == "genome":
    size, seed, path = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    parts, total = [], 0
    while total < size:
        if parts and rng.random() < 0.1:
            s = list(rng.choice(parts))
            for _ in range(len(s) // 50):
                s[rng.randrange(len(s))] = rng.choice("ACGT")
            piece = "".join(s)
        else:
            piece = "".join(rng.choices("ACGT", weights=(3, 2, 2, 3), k=rng.randint(500, 5000)))
        parts.append(piece)
        total += len(piece)
    g = "".join(parts)[:size]
    with open(path, "w") as f:
        f.write(">chr1\n")
        for i in range(0, size, 80):
            f.write(g[i:i + 80] + "\n")
else:
    fasta, rl, batches, per, seed, out = (sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                                         int(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
    g = "".join(line.strip() for line in open(fasta) if not line.startswith(">"))
    rng = random.Random(seed * 7919 + rl)
    os.makedirs(out, exist_ok=True)
    n = 0
    for b in range(1, batches + 1):
        with open(os.path.join(out, f"b{b:04d}.fq"), "w") as f:
            for _ in range(per):
                if rng.random() < 0.05:
                    read = "".join(rng.choices("ACGT", k=rl))
                else:
                    p = rng.randrange(len(g) - rl - 20)
                    bases = []
                    for c in g[p:p + rl + 20]:
                        u = rng.random()
                        if u < 0.01:
                            bases.append(rng.choice("ACGT"))
                        elif u < 0.0115:
                            continue
                        elif u < 0.013:
                            bases += [c, rng.choice("ACGT")]
                        else:
                            bases.append(c)
                    read = "".join(bases)[:rl]
                    if rng.random() < 0.5:
                        read = read.translate(comp)[::-1]
                n += 1
                f.write(f"@r{n}\n{read}\n+\n{'I' * len(read)}\n")
EOF

    cat >"$DRIVERS/bowtie2_batches.sh" <<'EOF'
#!/bin/sh
# Bowtie 2 (one thread) on one batch file per unit: unit i aligns DIR/b000i.fq to the
# index INDEX, the SAM output discarded, and prints the overall alignment rate.
# argv: mode (end-to-end|local) units index dir
mode=$1 units=$2 index=$3 dir=$4
case $mode in
    local) opts="--local --very-sensitive-local" ;;
    *) opts="--end-to-end --sensitive" ;;
esac
i=1
while [ "$i" -le "$units" ]; do
    f=$(printf '%s/b%04d.fq' "$dir" "$i")
    # shellcheck disable=SC2086
    rate=$(/usr/bin/bowtie2 -p 1 $opts -x "$index" -U "$f" -S /dev/null 2>&1 |
        sed -n 's/ overall alignment rate$//p')
    [ -n "$rate" ] || exit 1
    echo "batch $i mode $mode aligned $rate"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/bowtie2_batches.sh"

    local v seed
    v="Bowtie 2 $(/usr/bin/bowtie2 --version 2>/dev/null | sed -n 's/^.*bowtie2-align-s version \([0-9.]*\)$/\1/p' | head -1)"
    local -A len=([end-to-end]=100 [local]=150) per=([end-to-end]=3000 [local]=1000)
    local -A probe=([end-to-end]=3 [local]=5) full=([end-to-end]=50 [local]=30)
    for seed in 1 2 3 4 5 6 7; do
        "$PY" "$DRIVERS/bowtie2_sim.py" genome 2000000 "$seed" "$INPUTS/bt2-genome-$seed.fa"
        /usr/bin/bowtie2-build --threads 1 -q "$INPUTS/bt2-genome-$seed.fa" "$INPUTS/bt2-index-$seed"
    done
    local mode
    for mode in end-to-end local; do
        for seed in 1 2 3 4 5 6 7; do
            rm -rf "$INPUTS/bt2-reads-$mode-$seed"
            "$PY" "$DRIVERS/bowtie2_sim.py" reads "$INPUTS/bt2-genome-$seed.fa" "${len[$mode]}" \
                "${full[$mode]}" "${per[$mode]}" "$seed" "$INPUTS/bt2-reads-$mode-$seed"
        done
        record bowtie2 "short-read alignment (genomics)" "$v" "apt:bowtie2" \
            "constant (control): one batch of the same number of simulated reads aligned by a new bowtie2 process per unit" \
            "mode=$mode" '^batch \d+ mode ' "${probe[$mode]}" "${full[$mode]}" natural -- \
            "$DRIVERS/bowtie2_batches.sh" "$mode" @N@ "$INPUTS/bt2-index-{rep}" \
            "$INPUTS/bt2-reads-$mode-{rep}"
    done
}
