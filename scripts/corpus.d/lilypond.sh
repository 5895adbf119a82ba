# lilypond: GNU LilyPond (Debian's, /usr/bin/lilypond) engraving a collection of piano
# pieces, one \book each, in one run. The input (a .ly file of N books, each a
# two-staff piano score of seeded random bars: notes, accidentals, rests, durations from
# sixteenths to halves; written before the runs by a Python script of the venv's
# standard library) is all LilyPond's work from there: per book it interprets the
# music, lays it out (line and page breaking), draws the systems and converts the book
# to its own PDF; LilyPond's own progress line `Converting to ...` (stderr) ends a
# unit. Two kinds: score=fixed16 (every book 16 bars: cost per unit constant, a
# control, though each book's notes differ) and score=grow4 (book i has 4 x i bars:
# interpretation, spacing and breaking grow with the length, breaking faster than
# linearly, over a fixed per-book part). LilyPond is single-threaded.

corpus_apt_lilypond=(lilypond)

run_lilypond() {
    cat >"$DRIVERS/lily_books.py" <<'EOF'
"""Writes LilyPond's input: BOOKS \\book blocks, book b a two-staff piano score of
(fixed: BARS; grow: BARS x b) seeded random 4/4 bars (notes with accidentals over two
octaves per hand, rests, durations from sixteenths to halves), each book its own PDF.
argv: kind(fixed|grow) bars books seed path."""
import random, sys

kind, bars, books, seed, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(seed)
PITCH = "c d e f g a b".split()
DUR = {1: "16", 2: "8", 4: "4", 8: "2"}

def bar(octaves):
    out, left = [], 16
    while left:
        d = rng.choice([d for d in DUR if d <= left])
        if rng.random() < 0.15:
            out.append("r" + DUR[d])
        else:
            out.append(rng.choice(PITCH) + rng.choice(["", "is", "es"]) + rng.choice(octaves) + DUR[d])
        left -= d
    return " ".join(out)

with open(path, "w") as f:
    f.write('\\version "2.24.0"\n')
    for b in range(1, books + 1):
        n = bars if kind == "fixed" else bars * b
        right = " |\n".join(bar(["'", "''"]) for _ in range(n))
        left = " |\n".join(bar(["", ","]) for _ in range(n))
        f.write(f"""\\book {{ \\bookOutputSuffix "{b}" \\header {{ title = "Study {seed}.{b}" }}
\\score {{ \\new PianoStaff <<
  \\new Staff {{ \\clef treble \\time 4/4 {right} \\bar "|." }}
  \\new Staff {{ \\clef bass \\time 4/4 {left} \\bar "|." }} >> \\layout {{ }} }} }}
""")
EOF
    local v
    v=$(/usr/bin/lilypond --version | sed -n 's/^GNU LilyPond \([0-9.]*\).*/GNU LilyPond \1/p')
    mkdir -p "$INPUTS/lily-out"
    local -A full=([fixed16]=12 [grow4]=10) probe=([fixed16]=2 [grow4]=5) growth=(
        [fixed16]="constant (control): every book is 16 bars of new notes, interpreted, laid out and converted to PDF"
        [grow4]="grows: book i has 4 x i bars; interpreting and spacing grow with the length, line and page breaking faster, over a fixed per-book part")
    local score seed
    for score in fixed16 grow4; do
        for seed in 1 2 3 4 5 6 7; do
            "$PY" "$DRIVERS/lily_books.py" "${score%%[0-9]*}" "${score##*[a-z]}" "${full[$score]}" \
                "$seed" "$INPUTS/lily-$score-$seed.ly"
        done
        record lilypond "music engraving" "$v" "apt:lilypond" "${growth[$score]}" \
            "score=$score" '^Converting to `' "${probe[$score]}" "${full[$score]}" natural -- \
            /usr/bin/lilypond -dno-point-and-click -o "$INPUTS/lily-out/$score" \
            "$INPUTS/lily-$score-{rep}.ly"
    done
}
