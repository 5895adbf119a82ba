# RocksDB (Debian's rocksdb-tools 7.8, its own benchmark driver /usr/bin/db_bench)
# loading a fresh database on disk (400-byte values, snappy, 4 MB memtables, WAL on, no
# sync): db_bench's own progress report every INTERVAL writes ("... thread 0:
# (INTERVAL,total) ops and ...") is the unit. One foreground writer thread; RocksDB
# cannot run without a background thread for memtable flushes and compactions
# (max_background_jobs=1), so the process is pinned to one CPU (taskset -c 0), as in a
# one-core allocation, and the compactions compete with the writes as they would there.
# --seed={rep} seeds db_bench's key and value generators.
#   bench=fillrandom: random keys: every flushed file overlaps the levels below, so
#     compactions rewrite ever more data as the database grows (and stall writes when
#     level 0 fills up): the cost per unit grows, in jumps.
#   bench=fillseq: keys in order: flushed files do not overlap and move down the levels
#     without rewriting, so the cost per unit should stay nearly constant.
corpus_apt_rocksdb=(rocksdb-tools)

run_rocksdb() {
    local v
    v="RocksDB $(dpkg-query -W -f='${Version}' librocksdb7.8 | sed 's/-[^-]*$//')"
    local -A per=([fillrandom]=20000 [fillseq]=40000) probe=([fillrandom]=2 [fillseq]=10) \
        full=([fillrandom]=20 [fillseq]=30)
    local -A growth=(
        [fillrandom]="grows, in jumps: random keys make compactions rewrite ever more data as the database grows"
        [fillseq]="nearly constant: sequential keys, flushed files move down the levels without rewriting")
    local bench
    for bench in fillrandom fillseq; do
        record rocksdb "embedded key-value store (LSM tree)" "$v" "apt:rocksdb-tools" \
            "${growth[$bench]}" "bench=$bench,interval=${per[$bench]}" \
            '\.\.\. thread 0: \(\d+,\d+\) ops and' "${probe[$bench]}" "${full[$bench]}" natural -- \
            sh -c "exec taskset -c 0 stdbuf -oL -eL /usr/bin/db_bench --benchmarks=$bench \
                --db=$INPUTS/rocksdb-$bench --num=\$((@N@ * ${per[$bench]})) \
                --stats_interval=${per[$bench]} --value_size=400 --threads=1 \
                --max_background_jobs=1 --write_buffer_size=4194304 --compression_type=snappy \
                --histogram=0 --seed={rep}"
    done
    rm -rf "$INPUTS/rocksdb-fillrandom" "$INPUTS/rocksdb-fillseq"
}
