# pari: PARI/GP (Debian's pari-gp, /usr/bin/gp), the number-theory system, factoring
# integers. Per unit, GP's own loop (a GP script; the seed through setrand) draws two
# random primes of D decimal digits each (randomprime) and factors their product with
# factor(), which, past trial division, Pollard rho and SQUFOF, runs PARI's
# self-initialising multiple-polynomial quadratic sieve (MPQS); one progress line per
# number. Two kinds: digits=48 (every unit a product of two 24-digit primes: the same
# size class, so constant in expectation, but varying with each number's sieve: how
# fast its factor base yields relations) and digits=grow (unit i: two primes of 14 + i
# digits each, 30 to 56 digits over 14 units: the sieve's cost grows
# subexponentially in the size, each unit well over the last, about x1.7 per digit of
# the primes). One thread (--default nbthreads=1); stdout to the pipe under stdbuf -oL.

corpus_apt_pari=(pari-gp)

run_pari() {
    cat >"$DRIVERS/pari_factor.gp" <<'EOF'
\\ PARI/GP: unit i factors the product of two random primes of D digits each (D fixed,
\\ or 14 + i when MODE is grow), seeded by setrand(SEED). Environment: MODE (48 or
\\ grow), UNITS, SEED.
mode = getenv("MODE"); units = eval(getenv("UNITS")); setrand(eval(getenv("SEED")));
for (i = 1, units, \
    d = if (mode == "grow", 14 + i, eval(mode) \ 2); \
    p = randomprime([10^(d-1), 10^d]); q = randomprime([10^(d-1), 10^d]); \
    f = factor(p * q); \
    if (f[1, 1] * f[2, 1] != p * q, error("bad factorisation")); \
    print("factor ", i, " digits ", #digits(p * q)));
quit
EOF
    local v
    v="PARI/GP $(/usr/bin/gp --version-short)"
    local -A full=([48]=25 [grow]=14) probe=([48]=5 [grow]=6) growth=(
        [48]="constant in expectation, varying by number: each unit factors a 48-digit semiprime with the quadratic sieve"
        [grow]="grows steeply (subexponential): unit i factors a semiprime of two (14 + i)-digit primes, each sieve well over the last")
    local digits
    for digits in 48 grow; do
        record pari "computational number theory (integer factoring)" "$v" "apt:pari-gp" \
            "${growth[$digits]}" "digits=$digits" '^factor \d+ digits ' "${probe[$digits]}" \
            "${full[$digits]}" natural -- \
            env "MODE=$digits" UNITS=@N@ 'SEED={rep}' stdbuf -oL /usr/bin/gp -q -f \
            --default nbthreads=1 "$DRIVERS/pari_factor.gp"
    done
}
