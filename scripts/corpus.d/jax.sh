# JAX (pip's jax and jaxlib, XLA on the CPU, one thread: XLA_FLAGS
# --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1) training a small
# network from scratch with a jit-compiled SGD step (value_and_grad), one epoch per
# unit, data drawn from the seed (jax.random). Two kinds of network:
#   model=mlp: a 64-256-256-10 ReLU perceptron on 8192 fixed rows in minibatches of 128,
#     reshuffled each epoch: the step is compiled once (in unit 1), then every epoch
#     runs the same compiled step 64 times, so the cost per unit should stay about
#     constant (a control).
#   model=rnn: a tanh recurrent network (64 hidden units, lax.scan over time) learning a
#     running normalised sum, with a length curriculum: epoch i trains on 256 fresh
#     sequences of length 20*i in batches of 32; each new length is a new shape, so JAX
#     traces and XLA compiles the step anew every epoch, and the scan is i times longer:
#     the cost per unit grows about linearly with i, over a per-unit compile.
corpus_pip_jax=(jax==0.10.2 jaxlib==0.10.2 ml_dtypes==0.7.0 opt_einsum==3.4.0 numpy==2.4.6
    scipy==1.17.1)

run_jax() {
    cat >"$DRIVERS/jax_epochs.py" <<'EOF'
"""JAX (CPU, one thread) training from scratch with a jit-compiled SGD step, one epoch
per unit, printing the epoch's mean loss. model=mlp: 64-256-256-10 ReLU perceptron,
cross-entropy, lr 0.05, batches of 128, on 8192 fixed rows (labels from a random tanh
layer plus noise), reshuffled each epoch. model=rnn: tanh RNN (64 hidden, lax.scan),
squared error to the running sum over sqrt(t), lr 0.01; epoch i draws 256 sequences of
length 20*i, batches of 32 (a new shape, so a new compile, each epoch).
argv: model epochs seed."""
import os, sys
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
import jax
import jax.numpy as jnp

jax.config.update("jax_platforms", "cpu")
kind, epochs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
key = jax.random.PRNGKey(seed)
def init(key, sizes):
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        key, k = jax.random.split(key)
        ps.append((jax.random.normal(k, (a, b)) * (2 / a) ** 0.5, jnp.zeros(b)))
    return ps
if kind == "mlp":
    n, d = 8192, 64
    k1, k2, k3, key = jax.random.split(key, 4)
    X = jax.random.normal(k1, (n, d)); W = jax.random.normal(k2, (d, 10))
    y = jnp.argmax(jnp.tanh(X @ W) + 0.3 * jax.random.normal(k3, (n, 10)), 1)
    params = init(key, [d, 256, 256, 10])
    def forward(ps, x):
        for w, b in ps[:-1]: x = jax.nn.relu(x @ w + b)
        w, b = ps[-1]; return x @ w + b
    def loss(ps, x, t):
        return -jnp.mean(jax.nn.log_softmax(forward(ps, x))[jnp.arange(len(t)), t])
    @jax.jit
    def step(ps, x, t):
        l, g = jax.value_and_grad(loss)(ps, x, t)
        return jax.tree.map(lambda p, q: p - 0.05 * q, ps, g), l
    for ep in range(1, epochs + 1):
        key, k = jax.random.split(key)
        perm = jax.random.permutation(k, n)
        tot = 0.0
        for b in range(0, n, 128):
            idx = perm[b:b + 128]
            params, l = step(params, X[idx], y[idx]); tot += float(l)
        print(f"epoch {ep} rows {n} loss {tot / (n // 128):.4f}", flush=True)
else:
    h = 64
    key, k = jax.random.split(key)
    Wx, Wh, Wo = [jax.random.normal(kk, s) * 0.1 for kk, s in zip(jax.random.split(k, 3), [(1, h), (h, h), (h, 1)])]
    params = (Wx, Wh, Wo)
    def loss(ps, xs, ts):
        Wx, Wh, Wo = ps
        def cell(hs, x):
            hs = jnp.tanh(x[:, None] @ Wx + hs @ Wh); return hs, hs @ Wo
        _, out = jax.lax.scan(cell, jnp.zeros((xs.shape[1], h)), xs)
        return jnp.mean((out[..., 0] - ts) ** 2)
    @jax.jit
    def step(ps, xs, ts):
        l, g = jax.value_and_grad(loss)(ps, xs, ts)
        return jax.tree.map(lambda p, q: p - 0.01 * q, ps, g), l
    for ep in range(1, epochs + 1):
        L = 20 * ep
        key, k = jax.random.split(key)
        xs = jax.random.normal(k, (L, 256))
        ts = jnp.cumsum(xs, 0) / jnp.sqrt(jnp.arange(1, L + 1))[:, None]
        tot = 0.0
        for b in range(0, 256, 32):
            params, l = step(params, xs[:, b:b + 32], ts[:, b:b + 32]); tot += float(l)
        print(f"epoch {ep} seq_len {L} loss {tot / 8:.4f}", flush=True)
EOF
    local v
    v=$(pyver jax jax)
    record jax "neural network training (XLA)" "$v" "pip:jax" \
        "constant (control): one epoch of a jit-compiled MLP step over the same 8192 rows per unit" \
        "model=mlp" '^epoch \d+ rows ' 3 30 natural -- \
        "$PY" "$DRIVERS/jax_epochs.py" mlp @N@ '{rep}'
    record jax "neural network training (XLA)" "$v" "pip:jax" \
        "grows about linearly, over a fixed part: epoch i recompiles the step for sequences of length 20i and scans them" \
        "model=rnn" '^epoch \d+ seq_len ' 3 12 natural -- \
        "$PY" "$DRIVERS/jax_epochs.py" rnn @N@ '{rep}'
}
