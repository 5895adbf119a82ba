# argon2 (Debian's argon2 CLI, the reference implementation of the Argon2 password hash,
# /usr/bin/argon2, -p 1: one lane, one thread) hashing one password per unit with
# Argon2id, a new argon2 process each; the password and salt are drawn from the seed and
# the unit. Argon2 is memory-hard: it fills a block matrix of the given memory and makes
# ITERATIONS passes over it, each block depending on earlier, data-dependently chosen
# ones, so its cost is memory bandwidth and latency as much as arithmetic.
#   mem=64M: 64 MiB, 3 passes per unit: the same work per unit, so the cost per unit
#     should stay about constant (a control).
#   mem=grow: unit i uses i x 8 MiB, 2 passes: the cost grows about linearly with i (a
#     little faster once the matrix no longer fits the caches).
corpus_apt_argon2=(argon2)

run_argon2() {
    cat >"$DRIVERS/argon2_hashes.sh" <<'EOF'
#!/bin/sh
# argon2 (one lane) hashing one password per unit with Argon2id: `fixed` uses MIB MiB
# for every unit, `grow` i*MIB MiB for unit i; PASSES iterations.
# argv: mode mib passes units seed
mode=$1 mib=$2 passes=$3 units=$4 seed=$5
i=1
while [ "$i" -le "$units" ]; do
    if [ "$mode" = grow ]; then kib=$((i * mib * 1024)); else kib=$((mib * 1024)); fi
    hash=$(printf 'pass-%s-%s' "$seed" "$i" | argon2 "salt-$seed-$i" -id -t "$passes" -k "$kib" -p 1 -e)
    echo "hash $i mem_kib $kib ${hash##*\$}"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/argon2_hashes.sh"

    local v
    v="argon2 $(dpkg-query -W -f='${Version}' argon2) (Argon2id, version 19)"
    record argon2 "password hashing (memory-hard)" "$v" "apt:argon2" \
        "constant (control): one Argon2id hash of 64 MiB, 3 passes, per unit" \
        "mem=64M,passes=3" '^hash \d+ mem_kib ' 4 16 natural -- \
        "$DRIVERS/argon2_hashes.sh" fixed 64 3 @N@ '{rep}'
    record argon2 "password hashing (memory-hard)" "$v" "apt:argon2" \
        "grows: unit i hashes with i x 8 MiB, 2 passes (linear in i, steeper past the caches)" \
        "mem=grow,passes=2" '^hash \d+ mem_kib ' 2 20 natural -- \
        "$DRIVERS/argon2_hashes.sh" grow 8 2 @N@ '{rep}'
}
