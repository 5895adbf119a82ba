# GNU bc (Debian's, /usr/bin/bc -l, its own arbitrary-precision decimal arithmetic)
# computing a transcendental function to ever more digits, a new bc process per unit:
# unit i evaluates the function at the seed's argument to a scale of i x STEP decimal
# digits. bc's series (Taylor for e^x after halving the argument, a Taylor series after
# argument reduction for arctan) need more terms as the scale grows, and each term's
# multiplications and divisions cost more with more digits (bc multiplies in quadratic
# time), so the cost per unit grows steeply, about as the scale to the power 2.5-3.
#   fn=atan: a(x), x = 0.2 + seed/10, STEP = 100 digits.
#   fn=exp: e(x), x = 1.3 + seed x 0.4, STEP = 60 digits.
corpus_apt_bc=(bc)

run_bc() {
    cat >"$DRIVERS/bc_digits.sh" <<'EOF'
#!/bin/sh
# GNU bc evaluating FN at the seed's argument to i*STEP decimal digits for unit i.
# argv: fn step units seed
fn=$1 step=$2 units=$3 seed=$4
case $fn in
atan) expr="a(0.2 + $seed / 10)" ;;
exp) expr="e(1.3 + $seed * 0.4)" ;;
esac
i=1
while [ "$i" -le "$units" ]; do
    scale=$((i * step))
    tail=$(echo "scale=$scale; $expr" | BC_LINE_LENGTH=0 bc -l | tail -c 9)
    echo "digits $i $fn scale $scale ends $tail"
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/bc_digits.sh"

    local v
    v=$(/usr/bin/bc --version | head -1)
    record bc "arbitrary-precision arithmetic" "$v" "apt:bc" \
        "grows steeply: unit i computes arctan to i x 100 digits (about scale^2.5 or more)" \
        "fn=atan,step=100" '^digits \d+ atan ' 4 20 natural -- \
        "$DRIVERS/bc_digits.sh" atan 100 @N@ '{rep}'
    record bc "arbitrary-precision arithmetic" "$v" "apt:bc" \
        "grows steeply: unit i computes exp to i x 60 digits (about scale^2.5 or more)" \
        "fn=exp,step=60" '^digits \d+ exp ' 3 24 natural -- \
        "$DRIVERS/bc_digits.sh" exp 60 @N@ '{rep}'
}
