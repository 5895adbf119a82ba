# GNU Octave (Debian's, /usr/bin/octave-cli, no GUI, no init files; its BLAS on one thread)
# running its own preconditioned conjugate gradients (pcg, preconditioned by an
# incomplete Cholesky factor from ichol) on a 2-D diffusion problem: the 5-point
# Laplacian on the unit square with a conductivity that the seed makes patchy (8 blobs
# of up to 21 times the background) and a seeded source. Each unit is one pcg solve,
# printed with its iterations. Two modes:
#   mode=heat: implicit Euler steps of the heat equation on a fixed 180 x 180 grid
#     (32,400 unknowns; one ichol before the loop), each step a pcg solve warm-started
#     from the last, to a relative residual of 1e-10: the same matrix every unit, the
#     iterations drifting down slowly as the solution smooths (96 to 89 over 5 steps in
#     a trial), so the cost per unit should be about constant, if anything falling.
#   mode=refine: unit i builds the steady problem anew on an (8 i) x (8 i) grid, factors
#     it (ichol) and solves it with pcg to 1e-8 from zero: unknowns grow as i^2 and pcg
#     iterations about as i, so the cost per unit should grow steeply, about as i^3.
corpus_apt_octave=(octave)

run_octave() {
    cat >"$DRIVERS/octave_pcg.m" <<'EOF'
1;
% Octave: preconditioned conjugate gradients (pcg with an incomplete Cholesky
% factor, ichol) on a 2-D diffusion problem with a seeded, patchy conductivity.
% argv: mode (heat|refine) size units seed
% No workspace dump when calib stops a probe with TERM (Octave's default writes one).
sigterm_dumps_octave_core(false); sighup_dumps_octave_core(false); crash_dumps_octave_core(false);
function [M, b] = problem(n, seed, dt)
  rand("state", seed); randn("state", seed);
  h = 1 / (n + 1);
  [X, Y] = meshgrid(linspace(h, 1 - h, n));
  k = ones(n, n);
  for blob = 1:8
    c = rand(1, 2); r = 0.05 + 0.1 * rand(); amp = 20 * rand();
    k = k + amp * exp(-((X - c(1)).^2 + (Y - c(2)).^2) / r^2);
  end
  e = ones(n, 1);
  T = spdiags([-e 2*e -e], -1:1, n, n);
  A = kron(speye(n), T) + kron(T, speye(n));
  S = spdiags(sqrt(k(:)), 0, n*n, n*n);
  if dt > 0
    M = speye(n*n) + dt / h^2 * (S * A * S);
  else
    M = S * A * S / h^2;
  end
  b = exp(-((X - 0.5).^2 + (Y - 0.5).^2) / 0.02) + 0.1 * randn(n, n);
  b = b(:);
end

args = argv();
mode = args{1}; n = str2double(args{2}); units = str2double(args{3}); seed = str2double(args{4});
if strcmp(mode, "heat")
  % implicit Euler steps of the heat equation on an n x n grid, each a pcg solve
  [M, b] = problem(n, seed, 1e-3);
  L = ichol(M);
  u = zeros(n*n, 1);
  for i = 1:units
    f = u + 1e-3 * 100 * b * (1 + sin(i / 4));
    [u, flag, relres, iter] = pcg(M, f, 1e-10, 2000, L, L', u);
    printf("step %d unknowns %d pcg %d relres %.2e\n", i, n*n, iter, relres);
    fflush(stdout);
  end
else
  % the steady problem solved anew on an ever finer grid: unit i has (n*i)^2 unknowns
  for i = 1:units
    m = n * i;
    [M, b] = problem(m, seed, 0);
    L = ichol(M);
    [u, flag, relres, iter] = pcg(M, b, 1e-8, 5000, L, L');
    printf("grid %d unknowns %d pcg %d relres %.2e\n", i, m*m, iter, relres);
    fflush(stdout);
  end
end
EOF

    local v
    v="GNU Octave $(/usr/bin/octave-cli --norc -q --eval 'disp(version())' 2>/dev/null)"
    record octave "numerical linear algebra (iterative solver)" "$v" "apt:octave" \
        "constant (control): one warm-started pcg solve of the same heat-equation matrix per unit, its iterations drifting down slowly" \
        "mode=heat" '^step \d+ unknowns ' 3 60 natural -- \
        /usr/bin/octave-cli --norc -q -W "$DRIVERS/octave_pcg.m" heat 180 @N@ '{rep}'
    record octave "numerical linear algebra (iterative solver)" "$v" "apt:octave" \
        "grows steeply: unit i builds, factors and solves by pcg the problem anew on an 8i x 8i grid (about i^3)" \
        "mode=refine" '^grid \d+ unknowns ' 10 30 natural -- \
        /usr/bin/octave-cli --norc -q -W "$DRIVERS/octave_pcg.m" refine 8 @N@ '{rep}'
}
