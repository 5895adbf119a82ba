# gdal: GDAL's gdal_grid (Debian's gdal-bin, /usr/bin/gdal_grid) interpolating scattered
# points onto a raster, again and again as the survey grows. The input is a seeded set
# of BATCH x N points (x, y and an elevation: a smooth surface plus noise) in one CSV
# file with an OGR VRT over it, written before the runs by a Python script of the venv's
# standard library. Per unit, the driver (standard library only) runs gdal_grid once on
# the first i x BATCH points (OGR's own `-where "id <= n"` filter over the whole file)
# and writes a Float32 GeoTIFF; one progress line after each. Two kinds:
# algorithm=invdist (inverse distance to a power over all points, 200 x 200 cells):
# every cell weighs every selected point, so cost grows linearly with i, over a fixed
# part (GDAL's start-up, reading and filtering the CSV, writing the raster);
# algorithm=linear (Delaunay triangulation of the points, then linear interpolation
# in its triangles, 400 x 400 cells): triangulating grows as n log n, the per-cell part
# stays the same, so cost grows slowly over a large fixed part. One thread
# (GDAL_NUM_THREADS=1).

corpus_apt_gdal=(gdal-bin)

run_gdal() {
    cat >"$DRIVERS/gdal_points.py" <<'EOF'
"""Writes gdal_grid's input: ROWS seeded points (id, x, y, z) on a 1000 x 1000 square,
z a smooth surface plus Gaussian noise, as PATH.csv with its column types (PATH.csvt)
and an OGR VRT (PATH.vrt, layer `pts`) that makes them point geometries.
argv: rows seed path."""
import math, os, random, sys

rows, seed, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
ax, ay = rng.uniform(80, 200), rng.uniform(60, 160)
with open(path + ".csv", "w") as f:
    f.write("id,x,y,z\n")
    for k in range(1, rows + 1):
        x, y = rng.uniform(0, 1000), rng.uniform(0, 1000)
        z = 100 * math.sin(x / ax) * math.cos(y / ay) + 0.05 * x + rng.gauss(0, 5)
        f.write(f"{k},{x:.3f},{y:.3f},{z:.3f}\n")
with open(path + ".csvt", "w") as f:
    f.write('"Integer","Real","Real","Real"\n')
with open(path + ".vrt", "w") as f:
    f.write(f"""<OGRVRTDataSource>
  <OGRVRTLayer name="pts">
    <SrcDataSource>{path}.csv</SrcDataSource>
    <SrcLayer>{os.path.basename(path)}</SrcLayer>
    <GeometryType>wkbPoint</GeometryType>
    <GeometryField encoding="PointFromColumns" x="x" y="y" z="z"/>
  </OGRVRTLayer>
</OGRVRTDataSource>
""")
EOF
    cat >"$DRIVERS/gdal_regrid.py" <<'EOF'
"""GDAL's gdal_grid (Debian's, /usr/bin/gdal_grid) run once per unit on the first
i x BATCH points of a seeded survey (OGR's -where filter), interpolating them with
ALGORITHM onto a raster written as a GeoTIFF (one thread: GDAL_NUM_THREADS 1). The
driver's loop is Python's (standard library only); on the TERM that ends a probe at K
units it exits through `subprocess.run`, which ends and reaps the gdal_grid it started.
argv: algorithm batch units vrt out."""
import signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

algorithm, batch, units = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
vrt, out = sys.argv[4], sys.argv[5]
ALG = {"invdist": (["-a", "invdist:power=2.0:smoothing=1.0"], 200),
       "linear": (["-a", "linear"], 400)}
alg, side = ALG[algorithm]
for i in range(1, units + 1):
    n = i * batch
    subprocess.run(["/usr/bin/gdal_grid", "--config", "GDAL_NUM_THREADS", "1", "-q",
                    "-l", "pts", "-where", f"id <= {n}", *alg,
                    "-txe", "0", "1000", "-tye", "0", "1000", "-outsize", str(side), str(side),
                    "-ot", "Float32", "-of", "GTiff", vrt, out], check=True)
    print(f"grid {i} points {n} cells {side * side}", flush=True)
EOF
    local v
    v=$(/usr/bin/gdal_grid --version | sed 's/^GDAL \([0-9.]*\),.*/GDAL \1/')
    local -A full=([invdist]=16 [linear]=30) probe=([invdist]=4 [linear]=2) \
        batch=([invdist]=500 [linear]=2000) growth=(
        [invdist]="grows linearly: every cell weighs all i x BATCH points, over a fixed part (start-up, reading the CSV, writing the raster)"
        [linear]="grows slowly: Delaunay triangulation of i x BATCH points (n log n) over a large fixed part (400 x 400 cells interpolated, start-up, I/O)")
    local alg seed
    for alg in invdist linear; do
        for seed in 1 2 3 4 5 6 7; do
            "$PY" "$DRIVERS/gdal_points.py" $((batch[$alg] * full[$alg])) "$seed" \
                "$INPUTS/gdal-points-$alg-$seed"
        done
        record gdal "geospatial raster interpolation" "$v" "apt:gdal-bin" "${growth[$alg]}" \
            "algorithm=$alg" '^grid \d+ points ' "${probe[$alg]}" "${full[$alg]}" natural -- \
            "$PY" "$DRIVERS/gdal_regrid.py" "$alg" "${batch[$alg]}" @N@ \
            "$INPUTS/gdal-points-$alg-{rep}.vrt" "$INPUTS/gdal-grid-$alg.tif"
    done
}
