# SAMtools (Debian's, /usr/bin/samtools, no extra threads: -@ 0) on simulated alignments
# of 150 bp single-end reads (1% errors, random strands, qualities and mapping
# qualities) to a 2 Mbp random genome, generated per seed before the runs (under
# $INPUTS/samtools/). A new samtools process per unit; the driver (a shell loop) prints a
# line after each. Two kinds of work:
#   op=sort: unit i sorts by coordinate the first i x 10000 records of an unsorted SAM
#     file (read as text from a pipe) into a BAM (level 1, to /dev/null) with 16 MB of
#     sort memory: each unit sorts anew a larger input, so the cost grows with i, at
#     least linearly (parsing, sorting, compressing), with a change once the records
#     outgrow the sort memory and samtools spills sorted blocks to temporary files and
#     merges them (after the first few units).
#   op=mpileup: unit i piles up, with per-base alignment quality (BAQ, against the
#     reference), the i-th of N equal regions of a coordinate-sorted, indexed BAM at
#     about 30x depth: the same length and depth per unit, so the cost should stay
#     about constant (a control).
corpus_apt_samtools=(samtools)

run_samtools() {
    cat >"$DRIVERS/samtools_inputs.py" <<'EOF'
"""Generates a SAM file of READS simulated 150 bp single-end alignments to a random
genome of GENOME bp (OUT.sam; in coordinate order when SORTED is 1) and the genome
(OUT.ref.fa). argv: genome_bp reads seed sorted out."""
import sys
import numpy as np
genome_bp, nreads, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
srt, out = sys.argv[4] == "1", sys.argv[5]
rng = np.random.default_rng(seed)
B = np.frombuffer(b"ACGT", dtype=np.uint8)
g = B[rng.integers(0, 4, genome_bp)]
L = 150
pos = rng.integers(0, genome_bp - L, nreads)
if srt:
    pos.sort()
with open(out + ".sam", "w") as f:
    f.write(f"@HD\tVN:1.6\tSO:{'coordinate' if srt else 'unsorted'}\n"
            f"@SQ\tSN:chr1\tLN:{genome_bp}\n")
    for start in range(0, nreads, 20000):
        p = pos[start:start + 20000]
        k = len(p)
        seq = g[p[:, None] + np.arange(L)]
        m = rng.random(seq.shape) < 0.01
        seq[m] = B[rng.integers(0, 4, int(m.sum()))]
        qual = (rng.integers(20, 41, seq.shape) + 33).astype(np.uint8)
        flag = np.where(rng.random(k) < 0.5, 16, 0)
        mapq = rng.integers(0, 61, k)
        f.write("".join(
            f"r{seed}_{start + j}\t{flag[j]}\tchr1\t{p[j] + 1}\t{mapq[j]}\t{L}M\t*\t0\t0\t"
            f"{seq[j].tobytes().decode()}\t{qual[j].tobytes().decode()}\n" for j in range(k)))
with open(out + ".ref.fa", "w") as f:
    s = g.tobytes().decode()
    f.write(">chr1\n" + "\n".join(s[i:i + 80] for i in range(0, genome_bp, 80)) + "\n")
EOF
    cat >"$DRIVERS/samtools_units.sh" <<'EOF'
#!/bin/sh
# SAMtools, one process per unit. argv: op units chunk input
#   sort:    unit i sorts the first i * CHUNK records of INPUT.sam (unsorted SAM) into
#            a level-1 BAM on /dev/null, with 16 MB of sort memory (temporary files in
#            a fresh folder);
#   mpileup: unit i piles up (BAQ on, against INPUT.ref.fa) the i-th of UNITS equal
#            regions of INPUT.bam (sorted, indexed); CHUNK is the genome's length.
op=$1 units=$2 chunk=$3 input=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 143' TERM
i=1
while [ "$i" -le "$units" ]; do
    if [ "$op" = sort ]; then
        head -n $((i * chunk + 2)) "$input.sam" |
            /usr/bin/samtools sort -@ 0 -m 16M -l 1 -T "$tmp/part" -o /dev/null - 2>/dev/null
        echo "sort $i records $((i * chunk))"
    else
        a=$(((i - 1) * chunk / units + 1)) b=$((i * chunk / units))
        n=$(/usr/bin/samtools mpileup -f "$input.ref.fa" -r "chr1:$a-$b" "$input.bam" 2>/dev/null | wc -l)
        echo "pileup $i region $a-$b positions $n"
    fi
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/samtools_units.sh"
    local v
    v=$(/usr/bin/samtools --version | head -1 | sed 's/^samtools /SAMtools /')
    mkdir -p "$INPUTS/samtools"
    local seed base
    for seed in 1 2 3 4 5 6 7; do
        base=$INPUTS/samtools/sort-$seed
        "$PY" "$DRIVERS/samtools_inputs.py" 2000000 200000 "$seed" 0 "$base"
        base=$INPUTS/samtools/pileup-$seed
        "$PY" "$DRIVERS/samtools_inputs.py" 2000000 400000 "$seed" 1 "$base"
        /usr/bin/samtools view -b -o "$base.bam" "$base.sam"
        /usr/bin/samtools index "$base.bam"
        /usr/bin/samtools faidx "$base.ref.fa"
        rm -f "$base.sam"
    done
    record samtools "sequence alignment processing (genomics)" "$v" "apt:samtools" \
        "grows: unit i sorts anew the first i x 10000 records, spilling to temporary files and merging once they outgrow the 16 MB sort memory" \
        "op=sort,chunk=10000" '^sort \d+ records ' 5 20 natural -- \
        "$DRIVERS/samtools_units.sh" sort @N@ 10000 "$INPUTS/samtools/sort-{rep}"
    record samtools "sequence alignment processing (genomics)" "$v" "apt:samtools" \
        "constant (control): unit i piles up with BAQ the i-th of N equal regions (40 kb) of one 30x BAM" \
        "op=mpileup,region_kb=40" '^pileup \d+ region ' 4 50 natural -- \
        "$DRIVERS/samtools_units.sh" mpileup @N@ 2000000 "$INPUTS/samtools/pileup-{rep}"
}
