# gensim (pip's gensim, its compiled word2vec routines, one worker thread: workers=1)
# training Word2Vec embeddings (100 dimensions, window 5, negative sampling 5, frequent
# words subsampled) on a synthetic corpus drawn from the seed: words of a 20000-word
# vocabulary with Zipf-like frequencies (p ~ 1/rank^1.05), in sentences of 20. gensim's
# own INFO log ends each epoch with "EPOCH e: training on ... took ..s", and each such
# line is a unit (its in-epoch PROGRESS lines, printed by the clock, are not units).
# Every epoch passes over the same corpus with the same vocabulary, so the cost per unit
# should stay about constant in both strata (controls; the first unit also carries the
# corpus's generation and the vocabulary scan):
#   arch=cbow: CBOW on 400000 words (averaged context predicts the word).
#   arch=skipgram: skip-gram on 150000 words (the word predicts each context word: more
#     updates per word).
corpus_pip_gensim=(gensim==4.4.0 numpy==2.4.6 scipy==1.17.1 smart_open==9.0.2 wrapt==2.5.2)

run_gensim() {
    cat >"$DRIVERS/gensim_w2v.py" <<'EOF'
"""gensim Word2Vec (vector_size 100, window 5, min_count 2, workers 1, seeded) on a
corpus of WORDS words drawn by numpy's seeded generator from a 20000-word vocabulary,
p(rank r) ~ 1/r^1.05, cut into sentences of 20; gensim's INFO log (message only) goes
to stderr, one "EPOCH e: training on" line per epoch. argv: sg (0|1) epochs seed words."""
import logging, sys
import numpy as np
from gensim.models import Word2Vec

sg, epochs, seed, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
V = 20000
p = 1.0 / np.arange(1, V + 1) ** 1.05
words = np.array([f"w{i}" for i in range(V)])[rng.choice(V, n, p=p / p.sum())]
sentences = [list(words[i:i + 20]) for i in range(0, n, 20)]
logging.basicConfig(format="%(message)s", level=logging.INFO)
Word2Vec(sentences, vector_size=100, window=5, min_count=2, sg=sg, workers=1,
         epochs=epochs, seed=seed)
EOF
    local v
    v=$(pyver gensim gensim)
    record gensim "word embeddings (NLP)" "$v" "pip:gensim" \
        "constant (control): one CBOW epoch over the same 400000-word corpus per unit" \
        "arch=cbow" '^EPOCH \d+: training on ' 3 25 natural -- \
        "$PY" "$DRIVERS/gensim_w2v.py" 0 @N@ '{rep}' 400000
    record gensim "word embeddings (NLP)" "$v" "pip:gensim" \
        "constant (control): one skip-gram epoch over the same 150000-word corpus per unit" \
        "arch=skipgram" '^EPOCH \d+: training on ' 3 15 natural -- \
        "$PY" "$DRIVERS/gensim_w2v.py" 1 @N@ '{rep}' 150000
}
