# Potrace (Debian's potrace 1.16, /usr/bin/potrace, single-threaded) tracing bitmaps into
# smooth vector outlines (SVG), a new potrace process per unit: it decomposes the bitmap
# into paths along the black/white boundaries, fits optimal polygons to them and
# smooths and optimises them into Bezier curves, so its cost follows the boundary length
# and the number of paths. The bitmap is a cut of a 2000x3000 image made from the seed
# before the runs (ImageMagick: random noise, blurred, thresholded: many irregular blobs);
# the driver cuts the rows (a PBM is rows of bytes) and pipes them to potrace.
#   rows=grow: unit i traces the first i x 100 rows: each unit traces a bitmap 100 rows
#     taller than the last, so the cost grows about linearly with i.
#   rows=band: unit i traces a band of 500 rows at an offset that moves with i: the same
#     size every unit, the blobs different, so the cost per unit should stay about
#     constant (a control).
corpus_apt_potrace=(potrace imagemagick)

run_potrace() {
    cat >"$DRIVERS/potrace_cuts.py" <<'EOF'
"""Potrace (Debian's) tracing one cut of the seed's PBM bitmap per unit into SVG: `grow`
the first i x ROWS rows, `band` ROWS rows from row (i x 211) mod (height - ROWS). The
driver cuts the rows (standard library only) and pipes the PBM to potrace's standard
input; the SVG's size is printed with the unit. On the TERM that ends a probe at K units
it exits through `subprocess.run`, which ends and reaps the potrace it started (in the
same process group, it gets the TERM too). argv: mode rows units pbm workdir."""
import os, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

mode, rows, units, src, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
os.makedirs(work, exist_ok=True)
data = open(src, "rb").read()
# P4 header: magic, width, height, each a whitespace-separated token, then one byte.
fields, pos = [], 0
while len(fields) < 3:
    while data[pos:pos + 1].isspace():
        pos += 1
    start = pos
    while not data[pos:pos + 1].isspace():
        pos += 1
    fields.append(data[start:pos])
pos += 1
width, height = int(fields[1]), int(fields[2])
stride = (width + 7) // 8
svg = os.path.join(work, "out.svg")
for i in range(1, units + 1):
    if mode == "grow":
        first, count = 0, i * rows
    else:
        first, count = (i * 211) % (height - rows), rows
    body = data[pos + first * stride:pos + (first + count) * stride]
    pbm = b"P4\n%d %d\n" % (width, count) + body
    subprocess.run(["/usr/bin/potrace", "-s", "-o", svg, "-"], input=pbm, check=True)
    print(f"trace {i} {mode} rows {count} svg {os.path.getsize(svg)}", flush=True)
EOF

    local v seed
    v=$(/usr/bin/potrace --version | head -1 | sed 's/^potrace \([0-9.]*\)\..*/potrace \1/')
    for seed in 1 2 3 4 5 6 7; do
        /usr/bin/convert -limit thread 1 -seed "$seed" -size 2000x3000 xc: +noise Random \
            -colorspace gray -blur 0x1.2 -threshold 50% "$INPUTS/potrace-$seed.pbm"
    done
    record potrace "bitmap tracing (vectorisation)" "$v" "apt:potrace" \
        "grows: unit i traces anew a bitmap of i x 100 rows (linear in i)" \
        "per=100,rows=grow" '^trace \d+ grow rows ' 3 24 natural -- \
        "$PY" "$DRIVERS/potrace_cuts.py" grow 100 @N@ "$INPUTS/potrace-{rep}.pbm" "$INPUTS/potrace-grow-{rep}"
    record potrace "bitmap tracing (vectorisation)" "$v" "apt:potrace" \
        "constant (control): one 2000x500 band of different blobs traced per unit" \
        "per=500,rows=band" '^trace \d+ band rows ' 5 50 natural -- \
        "$PY" "$DRIVERS/potrace_cuts.py" band 500 @N@ "$INPUTS/potrace-{rep}.pbm" "$INPUTS/potrace-band-{rep}"
    rm -f "$INPUTS"/potrace-?.pbm
}
