# ImageMagick 6 (Debian's, /usr/bin/convert, one thread: -limit
# thread 1 and MAGICK_THREAD_LIMIT=1) on images it generates itself (plasma fractals of
# a seed that the run's seed and the unit give). Two kinds of work:
#   op=chain: each unit renders a new 400x300 plasma and runs it through the same chain
#     of operations (blur, swirl, implode, 150% resize, unsharp mask, rotation by
#     distortion, colour modulation) into a PNG file: the same work on a same-size image
#     per unit, so the cost per unit should stay about constant (a control; PNG
#     compression follows the content).
#   op=sheet: each unit renders a new 160x120 plasma tile, then lays out anew a contact
#     sheet of all the tiles so far (8 to a row), blurs and sharpens the whole
#     sheet and writes it as PNG: the sheet grows by a tile each unit, so the cost grows
#     about linearly with i.
corpus_apt_imagemagick=(imagemagick)

run_imagemagick() {
    cat >"$DRIVERS/magick_ops.py" <<'EOF'
"""ImageMagick 6 (Debian's convert, one thread) doing one unit of image work
per unit: `chain` renders a new 400x300 plasma fractal (seeded by the run's seed and the
unit) and runs it through a fixed chain of operations into a PNG; `sheet` renders a new
160x120 plasma tile, then makes a contact sheet of all the tiles so far (8 to a
row), blurs and sharpens it and writes it as PNG. The PNG's size is printed with the
unit. The driver's loop is Python's (standard library only); on the TERM that ends a
probe at K units it exits through `subprocess.run`, which ends and reaps the process it
started (in the same process group, it gets the TERM too). argv: op units seed workdir."""
import os, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

op, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.makedirs(work, exist_ok=True)
os.environ["MAGICK_THREAD_LIMIT"] = "1"
LIM = ["-limit", "thread", "1"]
tiles = []
for i in range(1, units + 1):
    s = str(seed * 1000 + i)
    out = os.path.join(work, "out.png")
    if op == "chain":
        subprocess.run(["/usr/bin/convert", *LIM, "-seed", s, "-size", "400x300", "plasma:fractal",
                        "-blur", "0x2", "-swirl", "120", "-implode", "0.3", "-resize", "150%",
                        "-unsharp", "0x1", "-distort", "SRT", str(10 + i % 40),
                        "-modulate", "110,130,95", "-quality", "90", out], check=True)
    else:
        tile = os.path.join(work, f"tile{i:03d}.png")
        subprocess.run(["/usr/bin/convert", *LIM, "-seed", s, "-size", "160x120", "plasma:fractal",
                        tile], check=True)
        tiles.append(tile)
        rows = []
        for r in range(0, len(tiles), 8):
            rows += ["(", *tiles[r:r + 8], "+append", ")"]
        subprocess.run(["/usr/bin/convert", *LIM, "-background", "gray40", *rows,
                        "-append", "-gaussian-blur", "0x1.5", "-sharpen", "0x1", out],
                       check=True)
    print(f"{op} {i} seed {s} png {os.path.getsize(out)}", flush=True)
EOF

    local v
    v=$(/usr/bin/convert -version | sed -n 's/^Version: ImageMagick \([^ ]*\) .*/ImageMagick \1/p')
    record imagemagick "image processing" "$v" "apt:imagemagick" \
        "constant (control): one new 400x300 image through the same chain of operations per unit" \
        "op=chain,size=400x300" '^chain \d+ seed ' 4 16 natural -- \
        "$PY" "$DRIVERS/magick_ops.py" chain @N@ '{rep}' "$INPUTS/magick-chain-{rep}"
    record imagemagick "image processing" "$v" "apt:imagemagick" \
        "grows: unit i lays out, filters and writes anew a contact sheet of all i tiles so far" \
        "op=sheet,tile=160x120" '^sheet \d+ seed ' 3 24 natural -- \
        "$PY" "$DRIVERS/magick_ops.py" sheet @N@ '{rep}' "$INPUTS/magick-sheet-{rep}"
}
