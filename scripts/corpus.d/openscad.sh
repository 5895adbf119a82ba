# OpenSCAD (Debian's 2021.01, /usr/bin/openscad, command line only, one thread) building
# solid models by constructive solid geometry and exporting them to STL, a new openscad
# process per unit. The model (one .scad file, its numbers drawn by OpenSCAD's own
# rands from the unit's seed) is a 100 x 60 x 6 plate with HOLES round holes of seeded
# places, radii and depths cut out of it and 4 seeded conical bosses joined to it; the
# exact booleans are CGAL's (Nef polyhedra), then the STL is written. The driver prints
# the facets of the result. Two kinds:
#   holes=8: each unit a new plate with 8 holes: about the same model each unit, so the
#     cost per unit should stay about constant (a control), the holes' overlaps making
#     it wobble;
#   holes=growing: unit i cuts i holes: every difference is done on a polyhedron that
#     has more faces each time, so the cost per unit should grow, at least linearly
#     with i (in a trial: 12 holes 1.1 s, 24 holes 2.6 s, 40 holes 4.4 s of CPU).
corpus_apt_openscad=(openscad)

run_openscad() {
    cat >"$DRIVERS/openscad_plate.scad" <<'EOF'
// A plate with HOLES round holes and 4 conical bosses, placed and sized by SEED.
seed = 1;
holes = 8;
$fn = 24;
p = rands(0, 1, 4 * holes + 12, seed);
union() {
  difference() {
    cube([100, 60, 6]);
    for (i = [0:holes - 1])
      translate([4 + 92 * p[4 * i], 4 + 52 * p[4 * i + 1], -1 - 2 * p[4 * i + 3]])
        cylinder(h = 10, r = 1 + 3 * p[4 * i + 2]);
  }
  for (j = [0:3])
    translate([10 + 80 * p[4 * holes + 3 * j], 10 + 40 * p[4 * holes + 3 * j + 1], 5])
      cylinder(h = 4 + 6 * p[4 * holes + 3 * j + 2], r1 = 5, r2 = 3);
}
EOF

    cat >"$DRIVERS/openscad_plates.sh" <<'EOF'
#!/bin/sh
# OpenSCAD rendering one plate per unit to STL: unit i renders MODEL with seed
# SEED*1000+i and 8 holes (mode fixed) or i holes (mode growing), and prints the facets.
# argv: mode units seed workdir model
mode=$1 units=$2 seed=$3 work=$4 model=$5
mkdir -p "$work"
i=1
while [ "$i" -le "$units" ]; do
    if [ "$mode" = fixed ]; then holes=8; else holes=$i; fi
    facets=$(/usr/bin/openscad -o "$work/unit.stl" -D "seed=$((seed * 1000 + i))" \
        -D "holes=$holes" "$model" 2>&1 | sed -n 's/^ *Facets: *\([0-9]*\)$/\1/p')
    [ -n "$facets" ] || exit 1
    echo "model $i holes $holes facets $facets"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/openscad_plates.sh"

    local v
    v=$(/usr/bin/openscad --version 2>&1 | sed -n 's/^OpenSCAD version \(.*\)$/OpenSCAD \1/p' | head -1)
    record openscad "solid modelling (CSG, exact booleans)" "$v" "apt:openscad" \
        "constant (control): one new plate with 8 holes and 4 bosses rendered to STL per unit" \
        "holes=8" '^model \d+ holes ' 3 18 natural -- \
        "$DRIVERS/openscad_plates.sh" fixed @N@ '{rep}' "$INPUTS/openscad-work-fixed-{rep}" \
        "$DRIVERS/openscad_plate.scad"
    record openscad "solid modelling (CSG, exact booleans)" "$v" "apt:openscad" \
        "grows: unit i cuts i holes, each difference on a polyhedron with more faces" \
        "holes=growing" '^model \d+ holes ' 4 16 natural -- \
        "$DRIVERS/openscad_plates.sh" growing @N@ '{rep}' "$INPUTS/openscad-work-growing-{rep}" \
        "$DRIVERS/openscad_plate.scad"
}
