# GNU awk (Debian's gawk 5.2, /usr/bin/gawk) analysing a generated web-server access log
# (IP, timestamp, method, URL, status, bytes, latency; made by gawk itself from the
# seed before the runs), a new gawk process per unit: per line it counts the client IPs,
# parses the request with a regular expression (match with capture groups) and sums the
# bytes per URL path, counts methods and statuses, keeps the latency; at the end it
# sorts the latencies (asort) for the median and 99th percentile and finds the top path.
#   lines=grow: unit i analyses the first i x 2000 lines: each unit reads, parses and
#     sorts more than the last, so the cost grows about linearly with i (a little more
#     for the sort, and the arrays outgrowing the caches).
#   lines=chunk: unit i analyses the i-th distinct block of 20000 lines: the same amount
#     of log per unit, so the cost per unit should stay about constant (a control).
corpus_apt_gawk=(gawk)

run_gawk() {
    cat >"$DRIVERS/gawk_log.awk" <<'EOF'
# Per-line counts and sums of an access log, then the latency percentiles and top path.
{
    ip[$1]++
    match($0, /"([A-Z]+) (\/api\/v[0-9]\/([a-z]+)\/[0-9]+) /, m)
    path[m[2]] += $(NF - 1); kind[m[3]]++; meth[m[1]]++
    status[$(NF - 2)]++
    lat[NR] = $NF
}
END {
    n = asort(lat)
    top = 0; for (u in path) if (path[u] > top) { top = path[u]; tu = u }
    printf "log %d rows %d ips %d paths %d p50 %.3f p99 %.3f top %s\n", unit, NR, length(ip),
        length(path), lat[int(n * 0.5)], lat[int(n * 0.99)], tu
}
EOF
    cat >"$DRIVERS/gawk_units.sh" <<'EOF'
#!/bin/sh
# GNU awk analysing, per unit, a part of LOG: `grow` the first i*LINES lines, `chunk`
# lines (i-1)*LINES+1 .. i*LINES. argv: mode lines units log
mode=$1 lines=$2 units=$3 log=$4
i=1
while [ "$i" -le "$units" ]; do
    if [ "$mode" = grow ]; then
        head -n $((i * lines)) "$log"
    else
        tail -n +$(((i - 1) * lines + 1)) "$log" | head -n "$lines"
    fi | gawk -v unit="$i" -f "$(dirname "$0")/gawk_log.awk"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/gawk_units.sh"

    local v seed
    v=$(/usr/bin/gawk --version | head -1 | cut -d, -f1)
    for seed in 1 2 3 4 5 6 7; do
        /usr/bin/gawk -v seed="$seed" -v n=400000 'BEGIN {
            srand(seed); split("GET GET GET POST PUT DELETE", M, " ")
            split("200 200 200 200 304 404 500 301", S, " ")
            for (i = 1; i <= n; i++) {
                ip = sprintf("10.%d.%d.%d", int(rand() * 4), int(rand() * 64), int(rand() * 250))
                url = sprintf("/api/v%d/%s/%d", 1 + int(rand() * 3), (rand() < 0.5 ? "items" : "users"),
                    int(rand() ^ 3 * 5000))
                printf "%s - - [%d] \"%s %s HTTP/1.1\" %s %d %.3f\n", ip, 1700000000 + i * 3,
                    M[1 + int(rand() * 6)], url, S[1 + int(rand() * 8)],
                    int(200 + rand() * rand() * 50000), rand() * rand() * 2 } }' \
            >"$INPUTS/gawk-log-$seed"
    done
    record gawk "text processing (awk)" "$v" "apt:gawk" \
        "grows: unit i parses, aggregates and sorts anew the first i x 2000 lines of a log" \
        "lines=grow,per=2000" '^log \d+ rows ' 3 20 natural -- \
        "$DRIVERS/gawk_units.sh" grow 2000 @N@ "$INPUTS/gawk-log-{rep}"
    record gawk "text processing (awk)" "$v" "apt:gawk" \
        "constant (control): one distinct block of 20000 log lines parsed and aggregated per unit" \
        "lines=chunk,per=20000" '^log \d+ rows ' 5 20 natural -- \
        "$DRIVERS/gawk_units.sh" chunk 20000 @N@ "$INPUTS/gawk-log-{rep}"
    rm -f "$INPUTS"/gawk-log-?
}
