# ghostscript: Ghostscript (Debian's, /usr/bin/gs) interpreting and rasterising a
# PostScript document page by page. The document is itself the program: a PostScript
# procedure that, for page i, seeds PostScript's own generator (`srand`, from the seed
# and i) and draws i x CURVES random Bezier curves (a third of them closed and filled,
# the rest stroked with random widths and colours), then `showpage` renders the page at
# 150 dpi to the ppmraw device (into /dev/null), and PostScript prints one progress line
# per page after it. Cost grows: page i draws i times as many curves as page 1, and
# Ghostscript's scan conversion and filling is per path (each filled curve covering a
# random, often large, area), on top of a fixed per-page cost of clearing and writing
# the page buffer. No driver beyond the .ps file: the loop is the PostScript
# interpreter's. One rendering thread (-dNumRenderingThreads=1).

corpus_apt_ghostscript=(ghostscript)

run_ghostscript() {
    cat >"$DRIVERS/gs_pages.ps" <<'EOF'
%!PS
% Ghostscript: page i draws i x CURVES seeded random Bezier curves (PostScript's own
% rand, srand'd from the seed and the page), then showpage; one progress line per page.
% Defined from the command line (-d): CURVES, UNITS, SEED.
/curves CURVES def /units UNITS def /seed SEED def
/rnd { rand 2147483647 div } bind def            % uniform in [0, 1)
/rx { rnd 612 mul } bind def /ry { rnd 792 mul } bind def
1 1 units {
  /i exch def
  seed 100003 mul i add srand
  /Helvetica findfont 10 scalefont setfont
  1 1 i curves mul {
    pop
    rnd rnd rnd setrgbcolor
    rnd 3 mul 0.2 add setlinewidth
    rx ry moveto rx ry rx ry rx ry curveto
    rnd 0.3 lt { closepath fill } { stroke } ifelse
  } for
  0 setgray 36 36 moveto (page ) show i 10 string cvs show
  showpage
  (page ) print i =only ( curves ) print i curves mul =only (\n) print flush
} for
EOF
    local v
    v="Ghostscript $(/usr/bin/gs --version)"
    local -A full=([200]=30 [800]=15) probe=([200]=3 [800]=5)
    local curves
    for curves in 200 800; do
        record ghostscript "PostScript interpretation and rasterisation" "$v" "apt:ghostscript" \
            "grows linearly: page i draws and fills i x CURVES random curves, over a fixed per-page cost" \
            "curves=$curves" '^page \d+ curves ' "${probe[$curves]}" "${full[$curves]}" natural -- \
            /usr/bin/gs -q -dSAFER -dBATCH -dNOPAUSE -dNumRenderingThreads=1 -sDEVICE=ppmraw \
            -sOutputFile=/dev/null -r150 "-dCURVES=$curves" -dUNITS=@N@ '-dSEED={rep}' \
            "$DRIVERS/gs_pages.ps"
    done
}
