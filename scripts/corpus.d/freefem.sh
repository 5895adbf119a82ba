# FreeFEM (Debian's freefem++, /usr/bin/FreeFem++-nw, no graphics; sequential, direct
# sparse solver UMFPACK) running finite-element scripts in its own language: each script
# loops and prints a line (`cout`) after each unit. Parameters come on the command line
# (ARGV); the seed drives FreeFEM's own random numbers (randinit).
#   problem=navier-stokes,mesh=40: the lid-driven cavity (unit square, 40 x 40 mesh,
#     Taylor-Hood P2/P1, viscosity 0.0025 +- 20% by seed), implicit in time with the
#     method of characteristics (convect), dt = 0.05: each unit is one time step, which
#     assembles and factorises anew (init=0) the same Stokes-like system, so the cost
#     per unit should be about constant (a control).
#   problem=poisson-adapt,sources=5: a Poisson problem (P2) with 5 Gaussian sources at
#     random places, on a mesh that FreeFEM adapts (adaptmesh, metric from the
#     solution's Hessian) after each solve, its error target shrinking 0.8x per unit:
#     unit i solves on the mesh adapted at unit i-1 and adapts it again, the mesh growing
#     about 1.25x per unit, so the cost grows geometrically.
corpus_apt_freefem=(freefem++)

run_freefem() {
    cat >"$DRIVERS/freefem_cavity.edp" <<'EOF'
// Lid-driven cavity, Navier-Stokes by characteristics, one time step per unit.
// argv (last three): units seed n
int units = atoi(ARGV[ARGV.n - 3]);
int seed = atoi(ARGV[ARGV.n - 2]);
int n = atoi(ARGV[ARGV.n - 1]);
randinit(seed);
real nu = 0.0025 * (0.8 + 0.4 * randreal1());
mesh Th = square(n, n);
fespace Xh(Th, P2);
fespace Mh(Th, P1);
Xh u1 = 0, u2 = 0, v1, v2, up1, up2;
Mh p, q;
real dt = 0.05;
real alpha = 1 / dt;
problem NS([u1, u2, p], [v1, v2, q], solver=UMFPACK, init=0)
    = int2d(Th)(alpha * (u1 * v1 + u2 * v2)
                + nu * (dx(u1) * dx(v1) + dy(u1) * dy(v1) + dx(u2) * dx(v2) + dy(u2) * dy(v2))
                - p * q * 1e-8 - p * dx(v1) - p * dy(v2) - dx(u1) * q - dy(u2) * q)
    + int2d(Th)(-alpha * convect([up1, up2], -dt, up1) * v1
                - alpha * convect([up1, up2], -dt, up2) * v2)
    + on(3, u1 = 1, u2 = 0) + on(1, 2, 4, u1 = 0, u2 = 0);
for (int i = 1; i <= units; i++) {
    up1 = u1;
    up2 = u2;
    NS;
    cout << "step " << i << " t " << i * dt << " min u1 " << u1[].min << endl;
}
EOF
    cat >"$DRIVERS/freefem_adapt.edp" <<'EOF'
// Poisson with 5 random Gaussian sources, mesh adapted after each solve, error target
// shrinking 0.8x per unit. argv (last two): units seed
int units = atoi(ARGV[ARGV.n - 2]);
int seed = atoi(ARGV[ARGV.n - 1]);
randinit(seed);
real[int] cx(5), cy(5);
for (int k = 0; k < 5; k++) {
    cx[k] = 0.1 + 0.8 * randreal1();
    cy[k] = 0.1 + 0.8 * randreal1();
}
func f = exp(-200 * ((x - cx[0])^2 + (y - cy[0])^2)) + exp(-200 * ((x - cx[1])^2 + (y - cy[1])^2))
       + exp(-200 * ((x - cx[2])^2 + (y - cy[2])^2)) + exp(-200 * ((x - cx[3])^2 + (y - cy[3])^2))
       + exp(-200 * ((x - cx[4])^2 + (y - cy[4])^2));
mesh Th = square(10, 10);
fespace Vh(Th, P2);
Vh u, v;
real err = 0.05;
for (int i = 1; i <= units; i++) {
    solve Poisson(u, v, solver=UMFPACK)
        = int2d(Th)(dx(u) * dx(v) + dy(u) * dy(v)) - int2d(Th)(f * v) + on(1, 2, 3, 4, u = 0);
    Th = adaptmesh(Th, u, err=err, nbvx=1000000);
    u = u;
    cout << "adapt " << i << " err " << err << " triangles " << Th.nt << endl;
    err = err * 0.8;
}
EOF
    local v
    v="FreeFEM $(dpkg-query -W -f='${Version}' freefem++)"
    record freefem "finite elements (PDE scripting)" "$v" "apt:freefem++" \
        "constant (control): one Navier-Stokes time step of the same 40 x 40 P2/P1 cavity per unit, the system assembled and factorised anew" \
        "problem=navier-stokes,mesh=40" '^step \d+ t ' 3 30 natural -- \
        stdbuf -oL /usr/bin/FreeFem++-nw -v 0 -ns "$DRIVERS/freefem_cavity.edp" @N@ '{rep}' 40
    record freefem "finite elements (PDE scripting)" "$v" "apt:freefem++" \
        "grows geometrically: each unit solves on the last adapted mesh and adapts it to a 0.8x error target (about 1.25x the triangles per unit)" \
        "problem=poisson-adapt,sources=5" '^adapt \d+ err ' 4 20 natural -- \
        stdbuf -oL /usr/bin/FreeFem++-nw -v 0 -ns "$DRIVERS/freefem_adapt.edp" @N@ '{rep}'
}
