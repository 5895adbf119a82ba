# PostgreSQL (Debian's postgresql-15) serving one run: a fresh copy of a cluster made by
# initdb, its own server on a unix socket, fed by psql (-At, line-buffered) one batch
# per unit: an INSERT of BATCH generated rows (server-side generate_series and random(),
# seeded by setseed) into a table with a primary key and a secondary index, committed,
# then one query whose one-line answer is the unit. One backend: no parallel workers,
# no JIT; autovacuum and checkpoints run as they would.
# The server must not run as root, so it runs as Debian's `postgres` user (setpriv), its
# cluster and socket under /tmp/calib-corpus-pg (the corpus home under /root is not
# reachable to that user); psql and the driver run as the caller.
#   query=scan: the query aggregates the whole table (count, average, distinct
#     customers by hashing): a sequential scan of every row so far, so the cost grows
#     about linearly with i, over the inserts' fixed cost.
#   query=lookup: the query looks up 5000 random primary keys among the rows so far
#     (index scans): the cost per unit should stay nearly constant, growing slowly as the
#     B-trees deepen and the table outgrows the buffer cache.
corpus_apt_postgresql=(postgresql)

run_postgresql() {
    cat >"$DRIVERS/pg_batches.py" <<'EOF'
"""PostgreSQL (Debian's postgresql-15) for one run: copies the template cluster
TEMPLATE to a fresh data folder, starts its server (as the `postgres` user, on a unix
socket only, no parallel workers, no JIT) as this process's child, then runs psql
(-At, line-buffered) on a script that, per unit, inserts BATCH generated rows into
`sales` (primary key, index on the customer) in one transaction and runs one query, whose
one-line answer starting `batch I` is the unit: `scan` aggregates the whole table,
`lookup` fetches 5000 random primary keys. Everything of the server is in this process
group: the TERM that ends a probe at K units reaches psql, the backend and the
postmaster too, and this driver exits at once. At the end the server is shut down
(fast) and the data folder removed. argv: query batch units seed template rundir."""
import os, shutil, signal, subprocess, sys, time

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

query, batch, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
template, rundir = sys.argv[5], sys.argv[6]
BIN = "/usr/lib/postgresql/15/bin"
AS_PG = ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
shutil.rmtree(rundir, ignore_errors=True)
shutil.copytree(template, rundir + "/data", symlinks=True)
os.makedirs(rundir + "/sock")
subprocess.run(["chown", "-R", "postgres:postgres", rundir], check=True)
os.chmod(rundir + "/data", 0o700)
server = subprocess.Popen(AS_PG + [BIN + "/postgres", "-D", rundir + "/data", "-k", rundir + "/sock",
                                   "-c", "listen_addresses=", "-c", "max_parallel_workers_per_gather=0",
                                   "-c", "max_parallel_maintenance_workers=0", "-c", "jit=off",
                                   "-c", "logging_collector=off", "-c", "log_min_messages=warning"],
                          stdout=subprocess.DEVNULL, stderr=open(rundir + "/server.log", "w"))
PSQL = ["/usr/bin/stdbuf", "-oL", BIN + "/psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
        "-h", rundir + "/sock", "-U", "postgres", "-d", "postgres"]
for _ in range(1000):
    if subprocess.run([BIN + "/pg_isready", "-q", "-h", rundir + "/sock", "-U", "postgres"]).returncode == 0:
        break
    time.sleep(0.02)
else:
    sys.exit("postgres did not start")

sql = [f"DO $$ BEGIN PERFORM setseed({seed / 10}); END $$;",
       "CREATE TABLE sales (id bigint PRIMARY KEY, customer int NOT NULL, amount numeric(10,2) NOT NULL,"
       " placed timestamptz NOT NULL, note text NOT NULL);",
       "CREATE INDEX sales_customer ON sales (customer);"]
for i in range(1, units + 1):
    lo, hi = (i - 1) * batch + 1, i * batch
    sql.append(f"INSERT INTO sales SELECT g, (random() * 50000)::int, round((random() * 500)::numeric, 2),"
               f" timestamptz '2024-01-01' + random() * interval '365 days', md5(g::text || random()::text)"
               f" FROM generate_series({lo}, {hi}) g;")
    if query == "scan":
        sql.append(f"SELECT 'batch {i} rows ' || count(*) || ' customers ' || count(DISTINCT customer)"
                   f" || ' avg ' || round(avg(amount), 2) FROM sales;")
    else:
        sql.append(f"SELECT 'batch {i} found ' || count(*) || ' sum ' || coalesce(sum(amount), 0) FROM sales"
                   f" WHERE id IN (SELECT 1 + (random() * ({hi} - 1))::bigint FROM generate_series(1, 5000));")
try:
    psql = subprocess.run(PSQL, input="\n".join(sql).encode())
finally:
    server.send_signal(signal.SIGINT)   # fast shutdown
    server.wait()
    shutil.rmtree(rundir, ignore_errors=True)
sys.exit(psql.returncode)
EOF

    local v pgroot=/tmp/calib-corpus-pg
    v="PostgreSQL $(/usr/lib/postgresql/15/bin/postgres --version | sed 's/^.* \([0-9][0-9.]*\).*$/\1/')"
    # The template cluster: made once, copied afresh for every run.
    rm -rf "$pgroot"
    mkdir -p "$pgroot"
    chown postgres:postgres "$pgroot"
    /usr/bin/setpriv --reuid=postgres --regid=postgres --init-groups \
        /usr/lib/postgresql/15/bin/initdb -D "$pgroot/template" -U postgres --auth=trust \
        -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
    record postgresql "relational database (SQL)" "$v" "apt:postgresql" \
        "grows: each unit inserts BATCH rows, then aggregates the whole table (a scan of every row so far)" \
        "batch=20000,query=scan" '^batch \d+ rows ' 4 30 natural -- \
        "$PY" "$DRIVERS/pg_batches.py" scan 20000 @N@ '{rep}' "$pgroot/template" "$pgroot/run"
    record postgresql "relational database (SQL)" "$v" "apt:postgresql" \
        "nearly constant, growing slowly: each unit inserts BATCH rows, then looks up 5000 random primary keys" \
        "batch=20000,query=lookup" '^batch \d+ found ' 10 40 natural -- \
        "$PY" "$DRIVERS/pg_batches.py" lookup 20000 @N@ '{rep}' "$pgroot/template" "$pgroot/run"
}
