# Gmsh (pip: the gmsh wheel's own libgmsh with OpenCASCADE; one thread: -nt 1,
# General.NumThreads 1) generating finite-element meshes of geometries built with its
# OpenCASCADE kernel, drawn from the seed; one mesh per unit (the model is cleared and
# built anew each time), after which the driver prints the number of elements.
#   dim=2,size=grow: unit i meshes (triangles, Frontal-Delaunay) a unit square with 6
#     random circular holes at maximum element size 0.03/sqrt(i): about i times the
#     elements of unit 1, so the cost grows at least linearly with i (the geometry is
#     new but of the same kind each unit).
#   dim=3,size=fixed: unit i meshes (tetrahedra, Delaunay, after the surface mesh) a
#     unit cube with 5 random spherical holes cut out (a boolean in OpenCASCADE) at
#     maximum element size 0.07: a new geometry of the same size class each unit, so the
#     cost should be about constant, wobbling with the holes' sizes and overlaps.
corpus_pip_gmsh=(gmsh==4.15.2 numpy==2.4.6)
# The wheel's libgmsh links the X11/OpenGL libraries of its (unused here) GUI.
corpus_apt_gmsh=(libglu1-mesa libgl1 libxrender1 libxcursor1 libxfixes3 libxext6 libxft2
    libfontconfig1 libxinerama1)

run_gmsh() {
    cat >"$DRIVERS/gmsh_meshes.py" <<'EOF'
"""Gmsh meshing one new OpenCASCADE geometry per unit. argv: mode units seed (mode
grow: 2-D square with 6 holes, element size 0.03/sqrt(i); mode fixed: 3-D cube with 5
spherical holes, element size 0.07). The loop is Python's: TERM ends the process at
once."""
import sys
import numpy as np
import gmsh
mode, units, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
gmsh.initialize(["-nt", "1"])
gmsh.option.setNumber("General.Terminal", 0)
gmsh.option.setNumber("General.NumThreads", 1)
for i in range(1, units + 1):
    gmsh.clear()
    gmsh.model.add(f"unit{i}")
    occ = gmsh.model.occ
    if mode == "grow":
        square = occ.addRectangle(0, 0, 0, 1, 1)
        holes = [(2, occ.addDisk(*rng.uniform(0.15, 0.85, 2), 0, r, r))
                 for r in rng.uniform(0.03, 0.08, 6)]
        occ.cut([(2, square)], holes)
        occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.03 / np.sqrt(i))
        dim = 2
    else:
        cube = occ.addBox(0, 0, 0, 1, 1, 1)
        holes = [(3, occ.addSphere(*rng.uniform(0.2, 0.8, 3), r))
                 for r in rng.uniform(0.05, 0.15, 5)]
        occ.cut([(3, cube)], holes)
        occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.07)
        dim = 3
    gmsh.model.mesh.generate(dim)
    _, tags, _ = gmsh.model.mesh.getElements(dim=dim)
    print(f"mesh {i} dim {dim} elements {sum(len(t) for t in tags)}", flush=True)
gmsh.finalize()
EOF
    local v
    v=$("$PY" -c 'import gmsh; print("gmsh " + gmsh.__version__)')
    record gmsh "finite-element mesh generation" "$v" "pip:gmsh" \
        "grows: unit i meshes anew a new 2-D domain with about i times the triangles of unit 1" \
        "dim=2,size=grow" '^mesh \d+ dim ' 3 12 natural -- \
        "$PY" "$DRIVERS/gmsh_meshes.py" grow @N@ '{rep}'
    record gmsh "finite-element mesh generation" "$v" "pip:gmsh" \
        "constant (control), wobbly: unit i meshes with tetrahedra a new cube with 5 random spherical holes at the same element size" \
        "dim=3,size=fixed" '^mesh \d+ dim ' 4 20 natural -- \
        "$PY" "$DRIVERS/gmsh_meshes.py" fixed @N@ '{rep}'
}
