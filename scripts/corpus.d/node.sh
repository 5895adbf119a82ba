# Node.js (the machine's nodejs 20, V8 11; /usr/bin/node) running a JavaScript workload in
# one process, one thread of V8 (--single-threaded: no background compilation or
# concurrent/parallel GC tasks; --v8-pool-size=0: no platform worker threads). Each unit
# does the same temporary work (builds 100000 small records from a seeded generator,
# serialises them with JSON.stringify, parses them back and aggregates them: JIT-compiled
# code and young-generation garbage collection) and prints one line.
#   heap=flat: nothing outlives its unit: after the first units (JIT warm-up) the cost
#     per unit should stay about constant (a control).
#   heap=grow: each unit also keeps 100000 new records in a Map that lives to the end:
#     the live heap grows by tens of MB per unit, and the old-generation mark-compact
#     collections, which trace all of it, come more often and take longer, so the cost
#     per unit grows, in jumps where a major collection falls.
# Node is not a Debian package on this machine (nodejs 20 from NodeSource's repackaging,
# already installed); install is given as apt:nodejs.
corpus_apt_node=(nodejs)

run_node() {
    cat >"$DRIVERS/node_heap.js" <<'EOF'
// V8 workload: per unit, the same temporary work (100000 records built, serialised,
// parsed back and aggregated); in `grow` mode each unit also keeps BATCH records in a
// Map for the rest of the run. Park-Miller generator seeded by SEED.
// argv: mode batch units seed
const [mode, batch, units, seed] = [process.argv[2], +process.argv[3], +process.argv[4], +process.argv[5]];
let x = (seed * 2654435761) % 2147483647 || 1;
const rnd = () => (x = (x * 16807) % 2147483647) / 2147483647;
const kept = new Map();
for (let i = 1; i <= units; i++) {
  const tmp = [];
  for (let k = 0; k < 100000; k++) {
    tmp.push({ id: k, name: "n" + Math.floor(rnd() * 1e6), v: rnd(), tags: [rnd() < 0.5 ? "a" : "b", "t" + (k % 17)] });
  }
  const back = JSON.parse(JSON.stringify(tmp));
  let s = 0;
  for (const r of back) s += r.v * r.tags.length;
  if (mode === "grow") {
    for (let k = 0; k < batch; k++) kept.set(i * batch + k, { name: "k" + k, v: rnd(), xs: [rnd(), rnd(), rnd()] });
  }
  const mb = process.memoryUsage().heapUsed / 1048576;
  console.log(`unit ${i} ${mode} kept ${kept.size} heap_mb ${mb.toFixed(1)} sum ${s.toFixed(2)}`);
}
EOF

    local v
    v="Node.js $(/usr/bin/node --version | sed 's/^v//') (V8 $(/usr/bin/node -p process.versions.v8))"
    record node "JavaScript engine (V8 JIT and garbage collector)" "$v" "apt:nodejs" \
        "constant (control): the same temporary allocation, JSON and aggregation work per unit, nothing retained" \
        "heap=flat,records=100000" '^unit \d+ flat kept ' 3 30 natural -- \
        /usr/bin/node --v8-pool-size=0 --single-threaded "$DRIVERS/node_heap.js" flat 0 @N@ '{rep}'
    record node "JavaScript engine (V8 JIT and garbage collector)" "$v" "apt:nodejs" \
        "grows, in jumps: the same temporary work per unit while the live heap grows by 100000 records, major GCs tracing all of it" \
        "heap=grow,records=100000" '^unit \d+ grow kept ' 2 20 natural -- \
        /usr/bin/node --v8-pool-size=0 --single-threaded "$DRIVERS/node_heap.js" grow 100000 @N@ '{rep}'
}
