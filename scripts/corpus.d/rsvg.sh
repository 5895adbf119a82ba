# librsvg (Debian's rsvg-convert 2.54, Cairo underneath, one thread) rendering generated
# SVG scenes (translucent polygons with a gradient fill and coloured strokes, and
# translucent circles, drawn by the seed) to PNG, a new rsvg-convert process per unit.
#   scene=grow: unit i renders at 800x600 a scene of i x 20 polygon-circle pairs (the
#     scene of unit i-1 plus 20 new ones): every shape is parsed, tessellated and
#     composited with alpha, so the cost grows about linearly with i over a fixed start.
#   scene=zoom: the same scene of 200 pairs per run, unit i rendered at a width of
#     i x 200 pixels (aspect 4:3): the rasterising and compositing work follows the
#     pixel count, so the cost grows about quadratically with i (over the fixed parse).
corpus_apt_rsvg=(librsvg2-bin)

run_rsvg() {
    cat >"$DRIVERS/rsvg_scenes.py" <<'EOF'
"""librsvg's rsvg-convert (Debian's) rendering one generated SVG scene to PNG per unit:
`grow` renders at 800x600 the first PER x i shape pairs of the seed's scene (a
translucent gradient-filled hexagon with a coloured stroke and a translucent circle
per pair), `zoom` renders the seed's scene of PER pairs at a width of i x 200 pixels.
The PNG's size is printed with the unit. The driver's loop is Python's (standard
library only); on the TERM that ends a probe at K units it exits through
`subprocess.run`, which ends and reaps the rsvg-convert it started (in the same process
group, it gets the TERM too). argv: scene per units seed workdir."""
import os, random, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

scene, per, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(work, exist_ok=True)
rng = random.Random(seed)
HEAD = ('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600">\n'
        '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fa0"/>'
        '<stop offset="1" stop-color="#05f"/></linearGradient></defs>\n'
        '<rect width="800" height="600" fill="#fff"/>\n')


def pair():
    pts = " ".join(f"{rng.uniform(0, 800):.1f},{rng.uniform(0, 600):.1f}" for _ in range(6))
    cx, cy, r = rng.uniform(0, 800), rng.uniform(0, 600), rng.uniform(3, 40)
    return (f'<path d="M {pts} Z" fill="url(#g)" fill-opacity="0.35" stroke="#{rng.randrange(16**6):06x}"'
            f' stroke-width="{rng.uniform(0.5, 3):.1f}"/>\n'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="#{rng.randrange(16**6):06x}"'
            f' fill-opacity="0.5"/>\n')


shapes = [pair() for _ in range(per)] if scene == "zoom" else []
svg, png = os.path.join(work, "scene.svg"), os.path.join(work, "scene.png")
for i in range(1, units + 1):
    if scene == "grow":
        shapes += [pair() for _ in range(per)]
        size = []
    else:
        size = ["-w", str(200 * i), "-h", str(150 * i)]
    with open(svg, "w") as fh:
        fh.write(HEAD + "".join(shapes) + "</svg>\n")
    subprocess.run(["/usr/bin/rsvg-convert", *size, "-o", png, svg], check=True)
    print(f"render {i} shapes {2 * len(shapes)} png {os.path.getsize(png)}", flush=True)
EOF

    local v
    v=$(/usr/bin/rsvg-convert --version | sed 's/^rsvg-convert version /librsvg /')
    record rsvg "vector graphics rendering (SVG)" "$v" "apt:librsvg2-bin" \
        "grows: unit i renders anew a scene of i x 20 shape pairs (linear in i)" \
        "per=20,scene=grow" '^render \d+ shapes ' 3 20 natural -- \
        "$PY" "$DRIVERS/rsvg_scenes.py" grow 20 @N@ '{rep}' "$INPUTS/rsvg-grow-{rep}"
    record rsvg "vector graphics rendering (SVG)" "$v" "apt:librsvg2-bin" \
        "grows quadratically: unit i renders the same scene at i x 200 pixels wide (pixels grow as i squared)" \
        "per=200,scene=zoom" '^render \d+ shapes ' 3 10 natural -- \
        "$PY" "$DRIVERS/rsvg_scenes.py" zoom 200 @N@ '{rep}' "$INPUTS/rsvg-zoom-{rep}"
}
