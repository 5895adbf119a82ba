# Redis (Debian's redis-server 7.0, one server per run on a unix socket under the corpus
# home, no persistence, one I/O thread, no jemalloc background thread) doing batches of
# work on a key that grows: each unit is one EVAL of a server-side Lua script (Redis's
# own embedded Lua, no client round trips per element) that adds BATCH pseudo-random
# elements (the Park-Miller sequence, exact in Lua's doubles, started from the seed and the unit) and
# then queries the whole key. The driver is a minimal RESP client (Python standard
# library) that sends one EVAL per unit and prints the reply.
#   struct=list: RPUSH BATCH numbers to a list, then SORT it (numerically, LIMIT 0 5):
#     SORT copies and sorts the whole list every unit, so the cost grows with i (about
#     n log n of the list's length, over a fixed cost of the pushes).
#   struct=zset: ZADD BATCH members to a sorted set, then ZCOUNT a score range: each
#     insertion is O(log n) in the skip list and the set outgrows the caches, so the cost
#     per unit should stay nearly constant, growing slowly.
corpus_apt_redis=(redis-server)

run_redis() {
    cat >"$DRIVERS/redis_batches.py" <<'EOF'
"""Redis (Debian's redis-server) serving one run on a unix socket in WORKDIR (no
persistence, one I/O thread); each unit sends one EVAL of a Lua script that adds BATCH
pseudo-random elements to one key and queries all of it: `list` RPUSHes numbers and
SORTs the whole list (LIMIT 0 5), `zset` ZADDs members and ZCOUNTs a score range. The
client is a minimal RESP client on a socket (standard library only); the reply is
printed with the unit. The server is this process's child, in the same process group:
the TERM that ends a probe at K units reaches it too (Redis exits on TERM, saving
nothing), and the driver exits at once; at the end the driver sends SHUTDOWN NOSAVE.
argv: struct batch units seed workdir."""
import os, signal, socket, subprocess, sys, time

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

struct, batch, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(work, exist_ok=True)
sock_path = os.path.join(work, "redis.sock")
if os.path.exists(sock_path):
    os.unlink(sock_path)
server = subprocess.Popen(["/usr/bin/redis-server", "--port", "0", "--unixsocket", sock_path,
                           "--save", "", "--appendonly", "no", "--dir", work, "--io-threads", "1",
                           "--jemalloc-bg-thread", "no", "--loglevel", "warning",
                           "--logfile", os.path.join(work, "redis.log")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(1000):
    try:
        conn = socket.socket(socket.AF_UNIX)
        conn.connect(sock_path)
        break
    except OSError:
        conn.close()
        time.sleep(0.01)
else:
    sys.exit("redis-server did not start")
reader = conn.makefile("rb")


def reply():
    line = reader.readline()
    kind, rest = line[:1], line[1:-2]
    if kind == b"-":
        sys.exit("redis: " + rest.decode())
    if kind in (b"+", b":"):
        return rest.decode()
    if kind == b"$":
        n = int(rest)
        return None if n < 0 else reader.read(n + 2)[:-2].decode()
    return [reply() for _ in range(int(rest))]


def call(*args):
    words = [str(a).encode() for a in args]
    conn.sendall(b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words))
    return reply()


SCRIPT = {
    "list": """local x = tonumber(ARGV[2])
for i = 1, tonumber(ARGV[1]) do
    x = (x * 16807) % 2147483647
    redis.call('RPUSH', KEYS[1], x)
end
local top = redis.call('SORT', KEYS[1], 'LIMIT', 0, 5)
return {redis.call('LLEN', KEYS[1]), top[1]}""",
    "zset": """local x = tonumber(ARGV[2])
for i = 1, tonumber(ARGV[1]) do
    x = (x * 16807) % 2147483647
    redis.call('ZADD', KEYS[1], x, 'm' .. x)
end
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCOUNT', KEYS[1], 0, 1073741824)}""",
}[struct]
for i in range(1, units + 1):
    size, value = call("EVAL", SCRIPT, 1, "k", batch, seed * 100003 + i)
    print(f"batch {i} {struct} size {size} value {value}", flush=True)
conn.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")   # no reply: the server exits
server.wait()
EOF

    local v
    v=$(/usr/bin/redis-server --version | sed 's/^Redis server v=\([0-9.]*\) .*/Redis \1/')
    record redis "in-memory database (key-value)" "$v" "apt:redis-server" \
        "grows: each unit pushes BATCH numbers to a list and SORTs the whole list (n log n)" \
        "batch=20000,struct=list" '^batch \d+ list size ' 8 40 natural -- \
        "$PY" "$DRIVERS/redis_batches.py" list 20000 @N@ '{rep}' "$INPUTS/redis-list-{rep}"
    record redis "in-memory database (key-value)" "$v" "apt:redis-server" \
        "nearly constant, growing slowly: each unit ZADDs BATCH members to a sorted set (log n each) and counts a range" \
        "batch=10000,struct=zset" '^batch \d+ zset size ' 3 60 natural -- \
        "$PY" "$DRIVERS/redis_batches.py" zset 10000 @N@ '{rep}' "$INPUTS/redis-zset-{rep}"
}
