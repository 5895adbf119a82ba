# zstd (Debian's, /usr/bin/zstd, one thread: --single-thread) on the machine's own text
# files (Perl and Python sources, C headers, documentation), shuffled by seed, 24 MB each.
# Two kinds of work:
#   mode=chunks: unit i compresses, at level 19 (a new zstd process each), the i-th
#     distinct 1 MB chunk of the input: the same amount of data each unit, its content
#     changing, so the cost per unit should stay about constant (a control, with
#     content-driven wobble).
#   mode=train: unit i trains a dictionary (zstd's COVER algorithm, fixed k and d, no
#     parameter search) on the first i x 20 samples (4 KB files cut from the input), then
#     compresses those samples with it: each unit trains anew on more samples, so the cost
#     grows with i (COVER's suffix sort and segment scoring are at least linear in the
#     samples' bytes).
corpus_apt_zstd=(zstd)

run_zstd() {
    cat >"$DRIVERS/zstd_chunks.sh" <<'EOF'
#!/bin/sh
# zstd (one thread) compressing a new same-size chunk of one input per unit: unit i
# compresses bytes [(i-1)*CHUNK, i*CHUNK) of INPUT at LEVEL. argv: level units chunk input
level=$1 units=$2 chunk=$3 input=$4
i=1
while [ "$i" -le "$units" ]; do
    size=$(tail -c +$(((i - 1) * chunk + 1)) "$input" | head -c "$chunk" |
        zstd --single-thread -q "-$level" -c | wc -c)
    echo "chunk $i level $level compressed $size"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/zstd_chunks.sh"

    cat >"$DRIVERS/zstd_train.sh" <<'EOF'
#!/bin/sh
# zstd (one thread) training a dictionary on ever more samples: unit i trains (COVER,
# k=200 d=8, no parameter search, a 112 KB dictionary) on the first i*PER sample files
# of SAMPLEDIR, then compresses those samples with the dictionary at level 3.
# argv: per units sampledir workdir
per=$1 units=$2 dir=$3 work=$4
mkdir -p "$work"
ls "$dir" | sort >"$work/all"
i=1
while [ "$i" -le "$units" ]; do
    head -n $((i * per)) "$work/all" | sed "s|^|$dir/|" >"$work/list"
    xargs zstd --single-thread -q --train-cover=k=200,d=8 --maxdict=112640 \
        -o "$work/dict" -f <"$work/list" 2>/dev/null
    size=$(xargs cat <"$work/list" | wc -c)
    packed=$(xargs zstd --single-thread -q -3 -D "$work/dict" -c <"$work/list" | wc -c)
    echo "train $i samples $((i * per)) bytes $size packed $packed"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/zstd_train.sh"

    local v seed
    v=$(zstd --version | sed -n 's/.* v\([0-9.]*\),.*/zstd \1/p')
    for seed in 1 2 3 4 5 6 7; do
        find /usr/share/perl5 /usr/include /usr/lib/python3* /usr/share/doc -type f -size +1k \
            \( -name '*.p[ym]' -o -name '*.h' -o -name '*.txt' -o -name '*.html' -o -name copyright \) \
            2>/dev/null | sort | shuf --random-source=<(yes "zstd$seed") |
            xargs cat 2>/dev/null | head -c 24000000 >"$INPUTS/zstd-input-$seed" || true
        rm -rf "$INPUTS/zstd-samples-$seed"
        mkdir -p "$INPUTS/zstd-samples-$seed"
        head -c 3000000 "$INPUTS/zstd-input-$seed" |
            split -b 4096 -a 4 -d - "$INPUTS/zstd-samples-$seed/s"
    done
    record zstd "compression (dictionary training)" "$v" "apt:zstd" \
        "constant (control): one distinct 1 MB chunk at level 19 per unit, the cost following its content" \
        "level=19,mode=chunks" '^chunk \d+ level ' 5 20 natural -- \
        "$DRIVERS/zstd_chunks.sh" 19 @N@ 1000000 "$INPUTS/zstd-input-{rep}"
    record zstd "compression (dictionary training)" "$v" "apt:zstd" \
        "grows: unit i trains a COVER dictionary anew on i x 20 samples and compresses them with it" \
        "mode=train,per=20" '^train \d+ samples ' 4 30 natural -- \
        "$DRIVERS/zstd_train.sh" 20 @N@ "$INPUTS/zstd-samples-{rep}" "$INPUTS/zstd-work-{rep}"
}
