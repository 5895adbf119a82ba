# Maxima (Debian's, /usr/bin/maxima, on GCL), one process per run: each unit draws (from
# Maxima's own random state, seeded) two dense random bivariate polynomials in x and y of
# total degree D and a quadratic one, all with integer coefficients in -9..9, multiplies
# them in Maxima's canonical rational form (rat) and factors the product over the
# integers (factor: Maxima's multivariate Hensel lifting), printing the degree, the
# product's terms and the factors found. Two kinds:
#   degree=18: D = 18 every unit (about 780 terms a product): the same size of problem
#     each unit, its coefficients new, so the cost per unit should stay about constant
#     (a control), the factoring's luck with evaluation points making it wobble;
#   degree=growing: D = 2i + 2 at unit i (6 to 42): the product's terms grow as D^2 and
#     factoring dense polynomials at least as fast as that squared, so the cost per
#     unit should grow steeply (in a trial, D = 15 took 0.2 s and D = 39 2.6 s).
corpus_apt_maxima=(maxima)

run_maxima() {
    cat >"$DRIVERS/maxima_factor.mac" <<'EOF'
/* Factoring products of random bivariate polynomials. Set before batchload:
   seed (Maxima's random state), units, degree (0: 2i + 2 at unit i). */
set_random_state(make_random_state(seed))$
rp(d) := apply("+", create_list((random(19) - 9) * x^i * y^j, i, 0, d, j, 0, d - i))$
for k thru units do (
  d: if degree = 0 then 2 * k + 2 else degree,
  p: rat(rp(d)) * rat(rp(d)) * rat(rp(2)),
  f: factor(p),
  print("factor", k, "degree", d, "terms", nterms(ratdisrep(p)),
        "factors", if op(f) = "-" then length(args(-f)) else length(args(f)))
)$
EOF

    local v
    v="Maxima $(/usr/bin/maxima --version | sed 's/^Maxima //') ($(/usr/bin/maxima --list-avail 2>/dev/null | sed -n 's/^version [0-9.]*, lisp \(.*\)$/\1/p' | head -1 | tr a-z A-Z))"
    record maxima "computer algebra (polynomial factoring)" "$v" "apt:maxima" \
        "constant (control): one product of random polynomials of the same degrees factored per unit" \
        "degree=18" '^factor \d+ degree ' 3 90 natural -- \
        /usr/bin/maxima --very-quiet \
        "--batch-string=seed: {rep}\$ units: @N@\$ degree: 18\$ batchload(\"$DRIVERS/maxima_factor.mac\")\$"
    record maxima "computer algebra (polynomial factoring)" "$v" "apt:maxima" \
        "grows steeply: unit i factors a product of random polynomials of degree 2i + 2 (terms as the degree squared)" \
        "degree=growing" '^factor \d+ degree ' 6 20 natural -- \
        /usr/bin/maxima --very-quiet \
        "--batch-string=seed: {rep}\$ units: @N@\$ degree: 0\$ batchload(\"$DRIVERS/maxima_factor.mac\")\$"
}
