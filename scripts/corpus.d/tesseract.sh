# Tesseract (Debian's tesseract-ocr 5, /usr/bin/tesseract, its LSTM engine, English
# model; one thread: OMP_THREAD_LIMIT=1) reading pages rendered from generated text.
# Per seed, the pages are made once before the runs (by the venv's Pillow, with
# Debian's DejaVu fonts): A5 at 150 dpi (874 x 1240, grey), English-like lines of
# words drawn by the seed from a fixed list of 200 (capitals, numbers and full stops
# here and there), ink of seeded greys, the page skewed by under 1 degree and lightly
# blurred. Unit i runs tesseract anew on page i (loading the model, then finding the
# layout, the lines and the words, and recognising each line) and prints the words read.
# Two layouts:
#   layout=sparse: one column of 16 lines in DejaVu Serif at 30 px (about 120 words);
#   layout=dense: two columns of 44 lines in DejaVu Sans at 17 px (about 570 words).
# Every page of a layout holds about the same amount of text, so the cost per unit
# should stay about constant (a control), the words and their lengths making it wobble.
corpus_apt_tesseract=(tesseract-ocr tesseract-ocr-eng fonts-dejavu-core)
corpus_pip_tesseract=(pillow==13.0.0)

run_tesseract() {
    cat >"$DRIVERS/ocr_pages.py" <<'EOF'
"""Pages of generated English-like text, rendered to PNG (grey, A5 at 150 dpi) for OCR.
argv: layout (sparse|dense) pages seed outdir
sparse: one column of 16 lines, DejaVu Serif 30 px; dense: two columns of 44 lines,
DejaVu Sans 17 px. Words from a fixed list, the seed and page choosing them; a slight
seeded skew (under 1 degree) and a light blur on every page."""
import os, random, sys
from PIL import Image, ImageDraw, ImageFilter, ImageFont

VOCAB = """the of and to in is was for that with as on by at from his her which this
be are had not but have they were been their one all there when who will more would
time can said about into only other some could these two may then first any new like
people also after made over years between many those under work state world great
system through where much before right should each water long little very even back
good year place well still number part government public day course such house
country against small however another while found during without point general
interest power problem important fact history family early music city light story
river morning evening market garden window station mountain village letter question
answer summer winter reason table paper money doctor church school street island
weather minute second moment silver golden quiet gentle bright heavy narrow distant
sudden careful simple strange ancient modern famous hidden open closed yellow green
purple orange crystal thunder shadow harbour lantern compass journey harvest meadow
whisper echo canyon glacier 1907 42 3.14 2026 17 365""".split()
FONTS = "/usr/share/fonts/truetype/dejavu/"
layout, pages, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
W, H, M = 874, 1240, 70
if layout == "sparse":
    font, cols, rows = ImageFont.truetype(FONTS + "DejaVuSerif.ttf", 30), 1, 16
else:
    font, cols, rows = ImageFont.truetype(FONTS + "DejaVuSans.ttf", 17), 2, 44
os.makedirs(out, exist_ok=True)
rng = random.Random(seed * 1000 + (1 if layout == "sparse" else 2))
colw = (W - 2 * M - (cols - 1) * 30) // cols
for p in range(1, pages + 1):
    img = Image.new("L", (W, H), 255)
    d = ImageDraw.Draw(img)
    for c in range(cols):
        x0 = M + c * (colw + 30)
        for r in range(rows):
            words, line = [], ""
            while True:
                w = rng.choice(VOCAB)
                if rng.random() < 0.08:
                    w = w.capitalize()
                trial = (line + " " + w).strip()
                if d.textlength(trial, font=font) > colw:
                    break
                line = trial
            if rng.random() < 0.1:
                line = line + "."
            d.text((x0, M + r * (H - 2 * M) // rows), line, font=font, fill=rng.randint(0, 60))
    img = img.rotate(rng.uniform(-0.8, 0.8), resample=Image.BICUBIC, fillcolor=255)
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    img.save(os.path.join(out, f"page{p:04d}.png"), optimize=False)
EOF

    cat >"$DRIVERS/ocr_pages.sh" <<'EOF'
#!/bin/sh
# Tesseract (one thread) on one page per unit: unit i reads DIR/page000i.png to text
# (English, automatic page segmentation) and prints the number of words read.
# argv: units dir
units=$1 dir=$2
export OMP_THREAD_LIMIT=1
i=1
while [ "$i" -le "$units" ]; do
    f=$(printf '%s/page%04d.png' "$dir" "$i")
    words=$(/usr/bin/tesseract "$f" - -l eng --psm 3 2>/dev/null | wc -w)
    [ "$words" -gt 0 ] || exit 1
    echo "page $i words $words"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/ocr_pages.sh"

    local v seed layout
    v=$(/usr/bin/tesseract --version 2>&1 | head -1)
    local -A probe=([sparse]=4 [dense]=3) full=([sparse]=24 [dense]=9)
    for layout in sparse dense; do
        for seed in 1 2 3 4 5 6 7; do
            rm -rf "$INPUTS/ocr-$layout-$seed"
            "$PY" "$DRIVERS/ocr_pages.py" "$layout" "${full[$layout]}" "$seed" "$INPUTS/ocr-$layout-$seed"
        done
        record tesseract "optical character recognition" "$v" "apt:tesseract-ocr" \
            "constant (control): one page of the same layout and about the same amount of text read by a new tesseract process per unit" \
            "layout=$layout" '^page \d+ words ' "${probe[$layout]}" "${full[$layout]}" natural -- \
            "$DRIVERS/ocr_pages.sh" @N@ "$INPUTS/ocr-$layout-{rep}"
    done
}
