# minimap2 (Debian's, /usr/bin/minimap2, one mapping thread: -t 1) aligning simulated
# reads to a simulated genome, with base-level alignment (-a, SAM to /dev/null). minimap2
# maps its input in batches of -K bases and logs `[M::worker_pipeline::...] mapped N
# sequences` on stderr after each batch: that line is the unit. Inputs are generated
# per seed before the runs (under $INPUTS/minimap2/): a 5 Mbp random genome with 300
# diverged segmental duplications (1-8 kb, 2-10% substitutions), and reads sampled from
# it, either strand:
#   reads=sr: 150 bp reads with 1% substitutions, -x sr, batches of 1.5 Mbp (10000 reads);
#   reads=ont: log-normal lengths (median 6 kb, 0.5-40 kb) with 5% substitutions, 3%
#     insertions and 3% deletions, -x map-ont, batches of 0.5 Mbp (about 75 reads).
# The index (built at startup, in unit 1) is the same for every batch and nothing
# accumulates, so the cost per batch should be about constant: seeding, chaining and
# the alignment of the same number of bases of reads of the same kind; the ONT batches
# wobble more (a few reads per batch, of random lengths, some in repeats).
corpus_apt_minimap2=(minimap2)

run_minimap2() {
    cat >"$DRIVERS/minimap2_inputs.py" <<'EOF'
"""Generates minimap2 inputs for one seed: OUT.ref.fa (a GENOME-bp random genome with
300 diverged duplicated segments) and OUT.fq (reads of KIND in exactly BATCHES batches
of BATCH_BP bases as minimap2 -K cuts them: it reads sequences until their bases reach
the batch size). argv: kind batches batch_bp genome_bp seed out."""
import sys
import numpy as np
kind, batches, batch_bp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
genome_bp, seed, out = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
B = np.frombuffer(b"ACGT", dtype=np.uint8)
COMP = bytes.maketrans(b"ACGT", b"TGCA")
rng = np.random.default_rng(seed)
g = B[rng.integers(0, 4, genome_bp)]
for _ in range(300):
    L = int(rng.integers(1000, 8000))
    a, b = (int(x) for x in rng.integers(0, genome_bp - L, 2))
    seg = g[a:a + L].copy()
    m = rng.random(L) < rng.uniform(0.02, 0.1)
    seg[m] = B[rng.integers(0, 4, int(m.sum()))]
    g[b:b + L] = seg
with open(out + ".ref.fa", "w") as f:
    s = g.tobytes().decode()
    f.write(">chr1\n" + "\n".join(s[i:i + 80] for i in range(0, genome_bp, 80)) + "\n")
with open(out + ".fq", "w") as f:
    if kind == "sr":
        L = 150
        n = batches * (batch_bp // L) - 100  # the last batch a little short
        for start in range(0, n, 20000):
            k = min(20000, n - start)
            pos = rng.integers(0, genome_bp - L, k)
            reads = g[pos[:, None] + np.arange(L)]
            m = rng.random(reads.shape) < 0.01
            reads[m] = B[rng.integers(0, 4, int(m.sum()))]
            rev = rng.random(k) < 0.5
            lines = []
            for j in range(k):
                r = reads[j].tobytes()
                if rev[j]:
                    r = r.translate(COMP)[::-1]
                lines.append(f"@r{start + j}\n{r.decode()}\n+\n{'I' * L}\n")
            f.write("".join(lines))
    else:
        i = 0
        for _ in range(batches):
            size = 0
            while size < batch_bp:
                L = int(np.clip(rng.lognormal(np.log(6000), 0.5), 500, 40000))
                a = int(rng.integers(0, genome_bp - L))
                s = g[a:a + L].copy()
                ev = rng.random(L)
                sub = ev < 0.05
                s[sub] = B[rng.integers(0, 4, int(sub.sum()))]
                rep = np.where((ev >= 0.05) & (ev < 0.08), 0, np.where(ev >= 0.97, 2, 1))
                r = np.repeat(s, rep).tobytes()
                if rng.random() < 0.5:
                    r = r.translate(COMP)[::-1]
                f.write(f"@r{i}\n{r.decode()}\n+\n{'I' * len(r)}\n")
                size += len(r)
                i += 1
EOF
    local v
    v="minimap2 $(/usr/bin/minimap2 --version)"
    mkdir -p "$INPUTS/minimap2"
    local -A preset=([sr]=sr [ont]=map-ont) batch=([sr]=1500000 [ont]=500000) \
        full=([sr]=30 [ont]=50) probe=([sr]=10 [ont]=2) \
        growth=([sr]="constant (control): each unit maps and aligns a batch of 10000 short reads (1.5 Mbp) against the same index" \
            [ont]="constant (control), wobbly: each unit maps and aligns a batch of about 75 long noisy reads (0.5 Mbp) against the same index; read lengths and repeats vary")
    local kind seed base
    for kind in sr ont; do
        for seed in 1 2 3 4 5 6 7; do
            "$PY" "$DRIVERS/minimap2_inputs.py" "$kind" "${full[$kind]}" "${batch[$kind]}" \
                5000000 "$seed" "$INPUTS/minimap2/$kind-$seed"
        done
        base=$INPUTS/minimap2/$kind-'{rep}'
        record minimap2 "read alignment (genomics)" "$v" "apt:minimap2" "${growth[$kind]}" \
            "reads=$kind" '^\[M::worker_pipeline::[0-9.*]+\] mapped \d+ sequences' \
            "${probe[$kind]}" "${full[$kind]}" natural -- \
            /usr/bin/minimap2 -t 1 -a -x "${preset[$kind]}" -K "${batch[$kind]}" -o /dev/null \
            "$base.ref.fa" "$base.fq"
    done
}
