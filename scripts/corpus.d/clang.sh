# Clang (Debian's clang 14, /usr/bin/clang and /usr/bin/clang++, single-threaded as a
# compiler is) compiling generated translation units at -O2 to object files, a new
# compiler process per unit; the driver only writes the source (drawn by the seed) and
# prints a line when the compiler is done. Two kinds of work:
#   lang=c: unit i compiles a new C file of 24 functions (loops over an array with a
#     switch of arithmetic cases, constants drawn by the seed and the unit): the same
#     amount of code each unit, so the cost per unit should stay about constant (a
#     control).
#   lang=cxx: unit i compiles a C++17 file that instantiates std::map<Key, std::vector>
#     (insertion, iteration) for i distinct key types: every instantiation is new code
#     for the optimiser, so the cost grows about linearly with i, over the fixed cost of
#     parsing <map> and <vector>.
corpus_apt_clang=(clang)

run_clang() {
    cat >"$DRIVERS/clang_units.py" <<'EOF'
"""Clang (Debian's clang 14) compiling one generated translation unit per unit at -O2 to
an object file: `c` writes a new C file of FUNCS functions (seeded constants), `cxx` a
C++17 file instantiating std::map<K_j, std::vector<double>> for i key types K_j. The
object file's size is printed with the unit. The driver's loop is Python's (standard
library only); on the TERM that ends a probe at K units it exits through
`subprocess.run`, which ends and reaps the compiler it started (in the same process
group, it gets the TERM too). argv: lang funcs units seed workdir."""
import os, random, signal, subprocess, sys

# A probe stopped at its K units gets TERM: exit at once, through subprocess.run.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

lang, funcs, units, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(work, exist_ok=True)
rng = random.Random(seed)


def c_source():
    out = ["#include <stdint.h>", ""]
    for f in range(funcs):
        a, b, c = rng.randint(3, 97), rng.randint(3, 97), rng.randint(2, 9)
        out.append(f"""uint64_t f{f}(const uint32_t *x, int n, uint64_t s) {{
    uint64_t acc = s ^ {a}u;
    for (int i = 0; i < n; i++) {{
        uint32_t v = x[i] * {b}u + (uint32_t)acc;
        switch ((v >> {c}) & 7) {{
        case 0: acc += v * {a}u; break;
        case 1: acc ^= (uint64_t)v << {c}; break;
        case 2: acc = acc * {b}u + v; break;
        case 3: acc -= v / {c}u; break;
        case 4: for (int j = 0; j < {c}; j++) acc += (v >> j) & {a}u; break;
        default: acc = (acc << 1) | (acc >> 63); break;
        }}
    }}
    return acc;
}}""")
    out.append("uint64_t run(const uint32_t *x, int n) {\n    uint64_t s = 0;")
    out += [f"    s = f{f}(x, n, s);" for f in range(funcs)]
    out.append("    return s;\n}")
    return "\n".join(out) + "\n"


def cxx_source(i):
    out = ["#include <map>", "#include <vector>", ""]
    for j in range(i):
        m = rng.randint(3, 97)
        out.append(f"struct K{j} {{ int v; bool operator<(const K{j}& o) const {{ return v < o.v; }} }};")
        out.append(f"""double g{j}(int n) {{
    std::map<K{j}, std::vector<double>> m;
    for (int i = 0; i < n; i++) m[K{j}{{i % {m}}}].push_back(i * {j + 1}.5);
    double s = 0;
    for (auto& [k, v] : m) s += v.size() * k.v;
    return s;
}}""")
    return "\n".join(out) + "\n"


for i in range(1, units + 1):
    if lang == "c":
        src, cc = os.path.join(work, "unit.c"), ["/usr/bin/clang", "-std=c11"]
        text = c_source()
    else:
        src, cc = os.path.join(work, "unit.cpp"), ["/usr/bin/clang++", "-std=c++17"]
        text = cxx_source(i)
    with open(src, "w") as fh:
        fh.write(text)
    obj = os.path.join(work, "unit.o")
    subprocess.run([*cc, "-O2", "-c", src, "-o", obj], check=True)
    print(f"compile {i} lines {text.count(chr(10))} object {os.path.getsize(obj)}", flush=True)
EOF

    local v
    v=$(/usr/bin/clang --version | head -1 | sed 's/^Debian //')
    record clang "compiler (C and C++)" "$v" "apt:clang" \
        "constant (control): one new C file of 24 functions compiled at -O2 per unit" \
        "funcs=24,lang=c" '^compile \d+ lines ' 5 40 natural -- \
        "$PY" "$DRIVERS/clang_units.py" c 24 @N@ '{rep}' "$INPUTS/clang-c-{rep}"
    record clang "compiler (C and C++)" "$v" "apt:clang" \
        "grows: unit i compiles at -O2 a C++ file instantiating std::map and std::vector for i key types" \
        "lang=cxx,types=grow" '^compile \d+ lines ' 3 14 natural -- \
        "$PY" "$DRIVERS/clang_units.py" cxx 0 @N@ '{rep}' "$INPUTS/clang-cxx-{rep}"
}
