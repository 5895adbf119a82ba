# OpenSSL (Debian's openssl 3.0, /usr/bin/openssl, one thread) generating keys and
# primes, a new openssl process per unit. Each unit is a random search: candidates are
# drawn and tested (trial division, Miller-Rabin) until one is prime, so the cost per
# unit has a constant expectation but is random, with a long right tail, unit after unit
# and run after run. OpenSSL draws its candidates from the system's random source and
# takes no seed: {rep} only numbers the runs, each run's units are different draws.
#   bits=2048,kind=rsa: one 2048-bit RSA key per unit (two 1024-bit primes): iid random
#     cost per unit, constant on average.
#   bits=768,kind=safeprime: one 768-bit safe prime p (p and (p-1)/2 both prime) per
#     unit: iid random cost per unit, constant on average, a heavier tail than RSA's.
corpus_apt_openssl=(openssl)

run_openssl() {
    cat >"$DRIVERS/openssl_primes.sh" <<'EOF'
#!/bin/sh
# OpenSSL searching for one prime object per unit: `rsa` generates a BITS-bit RSA key
# (written to WORKDIR), `safeprime` a BITS-bit safe prime. argv: kind bits units workdir
kind=$1 bits=$2 units=$3 work=$4
mkdir -p "$work"
i=1
while [ "$i" -le "$units" ]; do
    if [ "$kind" = rsa ]; then
        openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:$bits" -out "$work/key.pem" 2>/dev/null
        echo "key $i rsa bits $bits pem $(wc -c <"$work/key.pem")"
    else
        p=$(openssl prime -generate -safe -bits "$bits")
        echo "prime $i safe bits $bits digits ${#p}"
    fi
    i=$((i + 1))
done
EOF
    chmod +x "$DRIVERS/openssl_primes.sh"

    local v
    v=$(/usr/bin/openssl version | cut -d' ' -f1-2)
    record openssl "cryptography (key and prime generation)" "$v" "apt:openssl" \
        "constant on average, random per unit: each RSA key is a prime search of random length (long right tail)" \
        "bits=2048,kind=rsa" '^key \d+ rsa bits ' 2 50 natural -- \
        "$DRIVERS/openssl_primes.sh" rsa 2048 @N@ "$INPUTS/openssl-rsa-{rep}"
    record openssl "cryptography (key and prime generation)" "$v" "apt:openssl" \
        "constant on average, random per unit: each safe prime is a search of random length (heavier tail than RSA's)" \
        "bits=768,kind=safeprime" '^prime \d+ safe bits ' 4 40 natural -- \
        "$DRIVERS/openssl_primes.sh" safeprime 768 @N@ "$INPUTS/openssl-safeprime-{rep}"
}
