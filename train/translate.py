#!/usr/bin/env python3
"""Learns a translation from words people write to the code tokens that mean
the same, from the mined pairs: for a query word q and a code token c, how much
more often c is in the code of a pair whose text says q than in code at large
(a positive PMI, shrunk towards 0 for rare co-occurrences). The lexical
channel adds each question word's best translations as weighted extra terms.

  python3 train/translate.py --data PREFIX --vocab DIR/vocab.txt --out expand.tsv
        [--top 3] [--min-count 20] [--min-score 0.25]

Only words that are not already the code token itself are kept, and only
translations into tokens seen in code. Output: "word<TAB>tok:score,tok:score",
sorted by word (the engine looks words up by binary search).
"""
import argparse, sys

import numpy as np
import scipy.sparse as sp

from finetune import load_ragged


def ragged(prefix, side, n_vocab):
    """The pairs' side as a presence matrix (pairs x vocabulary)."""
    ids, starts, ends = load_ragged(prefix, side)
    rows = np.repeat(np.arange(len(ends)), ends - starts)
    m = sp.csr_matrix((np.ones(len(ids), dtype=np.float32), (rows, ids)), shape=(len(ends), n_vocab))
    m.sum_duplicates()
    m.data[:] = 1  # presence, not counts
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--min-count", type=int, default=20)
    ap.add_argument("--min-score", type=float, default=0.25)
    ap.add_argument("--shrink", type=float, default=20.0)
    a = ap.parse_args()
    vocab = open(a.vocab, encoding="utf-8").read().split("\n")[:-1]
    V = len(vocab)
    Q = ragged(a.data, "q", V)
    C = ragged(a.data, "c", V)
    n = Q.shape[0]
    qn = np.asarray(Q.sum(0)).ravel()
    cn = np.asarray(C.sum(0)).ravel()
    co = (Q.T @ C).tocsr()  # pairs whose text has q and whose code has c
    co.eliminate_zeros()
    out = []
    for q in range(V):
        lo, hi = co.indptr[q], co.indptr[q + 1]
        if hi == lo or qn[q] < a.min_count:
            continue
        cs, k = co.indices[lo:hi], co.data[lo:hi]
        keep = (k >= a.min_count) & (cs != q)
        if not keep.any():
            continue
        cs, k = cs[keep], k[keep]
        # P(c | q in text) against P(c in code), in bits, shrunk by k/(k+s).
        pmi = np.log2((k / qn[q]) / (cn[cs] / n)) * (k / (k + a.shrink))
        # Scaled to (0, 1]: 1 is "c is in the code whenever q is in the text"
        # and c is rare; a common c (self, return value names) scores low.
        score = pmi / np.log2(n / cn[cs])
        order = np.argsort(-score)[: a.top]
        row = [(vocab[cs[i]], float(score[i])) for i in order if score[i] >= a.min_score]
        if row:
            out.append((vocab[q], row))
    out.sort()
    with open(a.out, "w", encoding="utf-8") as f:
        for w, row in out:
            f.write(w + "\t" + ",".join(f"{t}:{s:.2f}" for t, s in row) + "\n")
    print(f"translate: {len(out)} words with translations", file=sys.stderr)


if __name__ == "__main__":
    main()
