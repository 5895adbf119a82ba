# gnuplot: gnuplot (Debian's gnuplot-nox, /usr/bin/gnuplot) rendering frame after frame
# of a dataset that grows. The data file (a seeded random walk in 4 columns, BATCH x N
# rows, written before the runs by a Python script of the venv's standard library) is
# the input; the loop is gnuplot's own (`do for`): frame i reads again the first
# i x BATCH rows of the file and renders a 2 x 2 multiplot of them with the pngcairo
# terminal (a line plot, a scatter plot, a histogram binned with `smooth frequency`,
# and a cubic-spline smoothing with `smooth csplines`), writes the PNG, and prints one
# progress line. Cost grows linearly with i (parsing, binning, sorting for the spline
# and drawing i x BATCH points), over a fixed part per frame (the axes, the text, the
# PNG encoding of a fixed-size image). gnuplot is single-threaded; stdout to the pipe
# under `stdbuf -oL`.

corpus_apt_gnuplot=(gnuplot-nox)

run_gnuplot() {
    cat >"$DRIVERS/gp_walk.py" <<'EOF'
"""Writes gnuplot's input: ROWS rows of a seeded 2-D random walk (index, x, y, and an
exponential draw), one row a line. argv: rows seed path."""
import random, sys

rows, seed, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
x = y = 0.0
with open(path, "w") as f:
    for k in range(rows):
        x += rng.gauss(0, 1)
        y += rng.gauss(0, 1) + 0.01 * x
        f.write(f"{k} {x:.4f} {y:.4f} {rng.expovariate(1.0):.4f}\n")
EOF
    cat >"$DRIVERS/gp_frames.gp" <<'EOF'
# gnuplot: frame i renders a 2 x 2 multiplot of the first i x batch rows of datafile
# to outfile (pngcairo), then prints one progress line on stdout.
# gnuplot -e "batch=...; units=...; datafile='...'; outfile='...'" gp_frames.gp
set print "-"
set terminal pngcairo size 960,720 font ",9"
do for [i=1:units] {
    n = i * batch
    set output outfile
    set multiplot layout 2,2 title sprintf("frame %d: %d points", i, n)
    unset key
    plot datafile every ::0::(n-1) using 1:2 with lines lw 1
    plot datafile every ::0::(n-1) using 2:3 with points pt 7 ps 0.2
    set boxwidth 0.1
    plot datafile every ::0::(n-1) using (0.1*floor($4/0.1)):(1) smooth frequency with boxes
    plot datafile every ::0::(n-1) using 1:3 smooth csplines
    unset multiplot
    unset output
    print sprintf("frame %d points %d", i, n)
}
EOF
    local v
    v=$(/usr/bin/gnuplot --version | sed 's/^gnuplot \([0-9.]*\) patchlevel \([0-9]*\).*/gnuplot \1.\2/')
    local -A full=([1000]=40 [10000]=12) probe=([1000]=4 [10000]=4)
    local batch seed
    for batch in 1000 10000; do
        for seed in 1 2 3 4 5 6 7; do
            "$PY" "$DRIVERS/gp_walk.py" $((batch * full[$batch])) "$seed" \
                "$INPUTS/gnuplot-walk-$batch-$seed.dat"
        done
        record gnuplot "scientific plotting" "$v" "apt:gnuplot-nox" \
            "grows linearly: frame i reads and draws i x BATCH points in four panels, over a fixed per-frame part" \
            "batch=$batch" '^frame \d+ points ' "${probe[$batch]}" "${full[$batch]}" natural -- \
            stdbuf -oL /usr/bin/gnuplot -e "batch=$batch; units=@N@; datafile='$INPUTS/gnuplot-walk-$batch-{rep}.dat'; outfile='$INPUTS/gnuplot-frame-$batch.png'" \
            "$DRIVERS/gp_frames.gp"
    done
}
