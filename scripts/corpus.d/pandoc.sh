# pandoc (Debian's, /usr/bin/pandoc, one capability: +RTS -N1) converting generated
# Markdown documents (sections of paragraphs with emphasis, code and links, a bullet
# list, a pipe table and a display formula each, drawn by the seed), a new pandoc
# process per unit. Two kinds of work:
#   doc=grow: unit i converts to standalone HTML5 (MathML, a table of contents) the
#     document of the first 4 x i sections: each unit reads, parses and writes a document
#     4 sections longer than the last, so the cost grows about linearly with i.
#   doc=fixed: unit i converts to DOCX a new document of 40 sections: the same size each
#     unit, the text changing, so the cost per unit should stay about constant (a
#     control).
corpus_apt_pandoc=(pandoc)

run_pandoc() {
    cat >"$DRIVERS/pandoc_docs.py" <<'EOF'
"""pandoc (Debian's, one capability: +RTS -N1) converting generated Markdown, one pandoc
process per unit: `grow` converts to standalone HTML5 (MathML, a table of contents) the
first PER x i sections of the seed's document, `fixed` converts to DOCX a new document
of PER sections per unit. A section is a heading, 4 paragraphs of 60 words with
emphasis, code and a link, a bullet list, a 5-row pipe table and a display formula,
drawn by the seed. The output's size is printed with the unit. The driver's loop is
Python's (standard library only); on the TERM that ends a probe at K units it exits
through `subprocess.run`, which ends and reaps the pandoc it started (in the same
process group, it gets the TERM too). argv: kind per units seed workdir."""
import os, random, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

kind, per, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(work, exist_ok=True)
W = """alpha beta gamma delta river mountain system kernel budget probe walltime cluster
node queue signal memory cache thread vector matrix harbour lantern compass journey
harvest meadow whisper echo canyon glacier silver golden quiet gentle bright heavy
narrow distant sudden careful simple strange ancient modern famous hidden""".split()
rng = random.Random(seed)


def sentence(n):
    s = " ".join(rng.choice(W) for _ in range(n))
    return s[0].upper() + s[1:] + "."


def section(k):
    out = [f"## Section {k}: {rng.choice(W)} {rng.choice(W)}", ""]
    for p in range(4):
        t = sentence(60).split()
        t[3], t[7], t[10] = f"**{t[3]}**", f"*{t[7]}*", f"`{t[10]}`"
        t[12] = f"[{t[12]}](https://example.org/{k}/{p})"
        out += [" ".join(t), ""]
    out += [f"- {sentence(8)}" for _ in range(3)] + [""]
    out += ["| value | word | count |", "|---:|---|---:|"]
    out += [f"| {rng.random():.4f} | {rng.choice(W)} | {rng.randint(1, 999)} |" for _ in range(5)]
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    out += ["", f"$$x_{{{k}}} = \\frac{{{a}}}{{y + {b}}} + \\sum_{{j=1}}^{{{k + 1}}} j^{{{a}}}$$", ""]
    return "\n".join(out)


sections = []
for i in range(1, units + 1):
    if kind == "grow":
        sections += [section(len(sections) + 1) for _ in range(per)]
        out = os.path.join(work, "doc.html")
    else:
        sections = [section(k + 1) for k in range(per)]
        out = os.path.join(work, "doc.docx")
    text = f"---\ntitle: Document {seed}.{i}\n---\n\n" + "\n".join(sections)
    args = (["-t", "html5", "-s", "--mathml", "--toc"] if kind == "grow" else ["-t", "docx"])
    subprocess.run(["/usr/bin/pandoc", "+RTS", "-N1", "-RTS", "--quiet", "-f", "markdown",
                    *args, "-o", out], input=text.encode(), check=True)
    print(f"doc {i} sections {len(sections)} bytes {os.path.getsize(out)}", flush=True)
EOF

    local v
    v=$(/usr/bin/pandoc --version | head -1)
    record pandoc "document conversion" "$v" "apt:pandoc" \
        "grows: unit i converts anew a document 4 sections longer than the last (to HTML5)" \
        "doc=grow,per=4" '^doc \d+ sections ' 4 24 natural -- \
        "$PY" "$DRIVERS/pandoc_docs.py" grow 4 @N@ '{rep}' "$INPUTS/pandoc-grow-{rep}"
    record pandoc "document conversion" "$v" "apt:pandoc" \
        "constant (control): one new 40-section document converted to DOCX per unit" \
        "doc=fixed,sections=40" '^doc \d+ sections ' 10 20 natural -- \
        "$PY" "$DRIVERS/pandoc_docs.py" fixed 40 @N@ '{rep}' "$INPUTS/pandoc-fixed-{rep}"
}
