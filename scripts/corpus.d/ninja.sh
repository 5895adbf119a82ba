# Ninja (Debian's ninja-build 1.11, -j1) building a generated C project with GCC 12
# (Debian's cc, -O2), the way a build runs: ninja walks its build graph and starts one
# compiler per source file, then links; ninja's own status line for each finished
# compile ("[i/N] CC file.o") is the unit (the link is not one). The driver only writes
# the project (drawn by the seed) and hands over to ninja.
#   layout=lognormal: 40 independent source files whose sizes (number of functions,
#     loops over an array with a switch of arithmetic cases) are drawn from a lognormal
#     distribution: the cost per unit changes file by file, with a long right tail, and
#     has no trend.
#   layout=layered: 24 source files, file k including headers 1..k (each header 2
#     static inline functions that file k calls): each compile parses and optimises one
#     more header than the last, so the cost grows about linearly with i.
corpus_apt_ninja=(ninja-build gcc)

run_ninja() {
    cat >"$DRIVERS/ninja_project.py" <<'EOF'
"""Writes a C project (drawn by the seed) and a build.ninja for it into WORKDIR, then
execs ninja -j1 there (NINJA_STATUS "[%f/%t] ": each finished compile prints
"[i/N] CC name.o"). `lognormal`: FILES independent files whose function counts are
lognormal (median 12); `layered`: FILES files, file k including headers 1..k of 2 static
inline functions each and calling them all. Compiles with cc -O2, links the objects.
argv: layout files seed workdir."""
import math, os, random, shutil, sys

layout, files, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
rng = random.Random(seed)


def function(name, static=""):
    a, b, c = rng.randint(3, 97), rng.randint(3, 97), rng.randint(2, 9)
    return f"""{static}uint64_t {name}(const uint32_t *x, int n, uint64_t s) {{
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
}}
"""


def write(name, text):
    with open(os.path.join(work, name), "w") as fh:
        fh.write(text)


if layout == "layered":
    for j in range(1, files + 1):
        write(f"h{j}.h", f"#pragma once\n#include <stdint.h>\n"
              + "".join(function(f"h{j}_f{m}", "static inline ") for m in range(2)))
for k in range(1, files + 1):
    if layout == "lognormal":
        n = max(1, round(math.exp(rng.gauss(math.log(12), 0.8))))
        body = "#include <stdint.h>\n" + "".join(function(f"u{k}_f{m}", "static ") for m in range(n))
        calls = [f"u{k}_f{m}" for m in range(n)]
    else:
        body = "".join(f'#include "h{j}.h"\n' for j in range(1, k + 1))
        calls = [f"h{j}_f{m}" for j in range(1, k + 1) for m in range(2)]
    body += f"uint64_t unit{k}(const uint32_t *x, int n) {{\n    uint64_t s = 0;\n"
    body += "".join(f"    s = {c}(x, n, s);\n" for c in calls) + "    return s;\n}\n"
    write(f"u{k}.c", body)
main = "#include <stdint.h>\n#include <stdio.h>\n"
main += "".join(f"uint64_t unit{k}(const uint32_t *, int);\n" for k in range(1, files + 1))
main += "int main(void) {\n    uint32_t x[64];\n    for (int i = 0; i < 64; i++) x[i] = i * 2654435761u;\n"
main += "    uint64_t s = 0;\n" + "".join(f"    s ^= unit{k}(x, 64);\n" for k in range(1, files + 1))
main += '    printf("%llu\\n", (unsigned long long)s);\n    return 0;\n}\n'
write("main.c", main)
objs = [f"u{k}.o" for k in range(1, files + 1)]
ninja = ["rule cc", "  command = /usr/bin/cc -O2 -std=c11 -c $in -o $out", "  description = CC $out",
         "rule link", "  command = /usr/bin/cc $in -o $out", "  description = LINK $out", ""]
ninja += [f"build u{k}.o: cc u{k}.c" for k in range(1, files + 1)]
ninja += ["build main.o: cc main.c", "build prog: link main.o " + " ".join(objs), "default prog", ""]
write("build.ninja", "\n".join(ninja))
os.environ["NINJA_STATUS"] = "[%f/%t] "
os.execv("/usr/bin/ninja", ["ninja", "-j1", "-C", work])
EOF

    local v
    v="ninja $(/usr/bin/ninja --version) ($(/usr/bin/cc --version | head -1 | sed 's/^cc (Debian \([^)]*\)) .*/GCC \1/'))"
    record ninja "build system (C project)" "$v" "apt:ninja-build" \
        "changes, no trend: one compile per unit of a file whose size is drawn lognormal (long right tail)" \
        "files=40,layout=lognormal" '^\[\d+/\d+\] CC u\d+\.o$' 4 40 natural -- \
        "$PY" "$DRIVERS/ninja_project.py" lognormal @N@ '{rep}' "$INPUTS/ninja-lognormal-{rep}"
    record ninja "build system (C project)" "$v" "apt:ninja-build" \
        "grows: compile i includes and calls i headers of inline functions (linear in i)" \
        "files=24,layout=layered" '^\[\d+/\d+\] CC u\d+\.o$' 4 24 natural -- \
        "$PY" "$DRIVERS/ninja_project.py" layered @N@ '{rep}' "$INPUTS/ninja-layered-{rep}"
}
