# PyTorch (pip's torch wheel, run on the CPU with one thread: set_num_threads(1) and
# set_num_interop_threads(1)) training a small network from scratch, one epoch per unit,
# on data generated from the seed (torch's own generator). Two kinds of network:
#   model=mlp: a 3-layer perceptron (64-256-256-10, ReLU, Adam, minibatches of 128) on
#     a fixed synthetic classification set of 3000 rows, reshuffled each epoch: the same
#     forward and backward passes every epoch, so the cost per unit should stay about
#     constant (a control; the first epoch also carries torch's first-call costs).
#   model=transformer: a 2-layer Transformer encoder (d_model 64, 4 heads) learning to
#     reverse sequences of 32 tokens' vocabulary, with a length curriculum: epoch i
#     trains on 128 fresh sequences of length 8*i, so the cost per unit grows with i,
#     between linearly (the feed-forward and projection layers) and quadratically (the
#     attention).
# (torch's wheel pulls in NVIDIA's CUDA libraries, several GB, unused here; importing
# torch loads them, a startup of seconds that falls in each run's first unit.)
corpus_pip_torch=(torch==2.15.0 numpy==2.4.6 sympy==1.14.0 mpmath==1.3.0 filelock==4.3.1
    fsspec==2026.9.0)

run_torch() {
    cat >"$DRIVERS/torch_epochs.py" <<'EOF'
"""PyTorch (CPU, one thread) training a small network from scratch on data drawn from the
seed, one epoch per unit, printing the epoch's mean loss. model=mlp: 64-256-256-10
perceptron, Adam, batches of 128, on 3000 fixed rows (labels from a random tanh layer
plus noise), reshuffled per epoch. model=transformer: 2-layer TransformerEncoder
(d_model 64, 4 heads, feed-forward 128, dropout 0.1), token embedding plus sinusoidal
positions, learning to reverse sequences; epoch i draws 128 fresh sequences of length
8*i (a length curriculum), batches of 32. argv: model epochs seed."""
import sys
import torch
from torch import nn

torch.set_num_threads(1)
torch.set_num_interop_threads(1)
kind, epochs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(seed)
g = torch.Generator().manual_seed(seed)
if kind == "mlp":
    n, d = 3000, 64
    X = torch.randn(n, d, generator=g)
    W = torch.randn(d, 10, generator=g)
    y = (torch.tanh(X @ W) + 0.3 * torch.randn(n, 10, generator=g)).argmax(1)
    net = nn.Sequential(nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                        nn.Linear(256, 10))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for ep in range(1, epochs + 1):
        perm = torch.randperm(n, generator=g)
        total = 0.0
        for b in range(0, n, 128):
            idx = perm[b:b + 128]
            loss = nn.functional.cross_entropy(net(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {ep} rows {n} loss {total / n:.4f}", flush=True)
else:
    nseq, vocab, dm = 128, 32, 64
    enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(dm, 4, 128, dropout=0.1, batch_first=True), 2)
    emb, head = nn.Embedding(vocab, dm), nn.Linear(dm, vocab)
    opt = torch.optim.Adam([*enc.parameters(), *emb.parameters(), *head.parameters()], lr=1e-3)
    freq = 10000 ** (torch.arange(dm) / dm)
    for ep in range(1, epochs + 1):
        L = 8 * ep
        src = torch.randint(0, vocab, (nseq, L), generator=g)
        tgt = torch.flip(src, [1])
        posenc = torch.sin(torch.arange(L)[:, None] / freq)[None]
        total = 0.0
        for b in range(0, nseq, 32):
            out = head(enc(emb(src[b:b + 32]) + posenc))
            loss = nn.functional.cross_entropy(out.reshape(-1, vocab), tgt[b:b + 32].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {ep} seq_len {L} loss {total / (nseq // 32):.4f}", flush=True)
EOF
    local v
    v=$(pyver torch torch)
    record torch "neural network training (deep learning)" "$v" "pip:torch" \
        "constant (control): one epoch of an MLP over the same 3000 rows per unit" \
        "model=mlp" '^epoch \d+ rows ' 3 30 natural -- \
        "$PY" "$DRIVERS/torch_epochs.py" mlp @N@ '{rep}'
    record torch "neural network training (deep learning)" "$v" "pip:torch" \
        "grows, linearly to quadratically: epoch i trains a Transformer on sequences of length 8i" \
        "model=transformer" '^epoch \d+ seq_len ' 3 10 natural -- \
        "$PY" "$DRIVERS/torch_epochs.py" transformer @N@ '{rep}'
}
