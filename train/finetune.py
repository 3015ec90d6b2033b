#!/usr/bin/env python3
"""Fine-tunes a static token table on mined (human text, code) pairs.

Both sides of a pair are embedded as spelunk's static embedder does at run
time (the sum of the rows of their distinct in-vocabulary tokens, each times
1 + ln tf, then L2-normalised) with one shared table, and trained with a
symmetric in-batch contrastive loss (InfoNCE), plus a pull towards the
distilled table so that words the pairs rarely show keep the teacher's
meaning. The norm of a row is the token's weight and is learned too.

  python3 train/finetune.py --init DISTILLED_DIR --data PREFIX --out DIR
        [--epochs 3] [--batch 1024] [--lr 0.003] [--tau 0.05] [--pull 1.0]

PREFIX is what `go run ./internal/train/encode` wrote. Pairs of the
repositories listed by --val-repos (or 2% of repositories chosen by seed) are
kept out and reported as in-batch retrieval accuracy after every epoch.
"""
import argparse, json, math, os, shutil, sys, time

import numpy as np
import torch
import torch.nn.functional as F


def load_ragged(prefix, side):
    ids = np.fromfile(f"{prefix}.{side}.u32", dtype="<u4").astype(np.int64)
    offs = np.fromfile(f"{prefix}.{side}off.u64", dtype="<u8").astype(np.int64)
    starts = np.concatenate([[0], offs[:-1]])
    return ids, starts, offs


def bags(ids, starts, ends, rows, drop=None):
    """Flattened distinct ids, their 1+ln(tf) weights and bag offsets. drop,
    when given, holds per row the ids to leave out (unless nothing would be
    left)."""
    flat, wts, offs = [], [], []
    n = 0
    for i, r in enumerate(rows):
        u, c = np.unique(ids[starts[r]:ends[r]], return_counts=True)
        if drop is not None and drop[i] is not None:
            keep = ~np.isin(u, drop[i])
            if keep.any():
                u, c = u[keep], c[keep]
        offs.append(n)
        flat.append(u)
        wts.append(1.0 + np.log(c))
        n += len(u)
    return (torch.from_numpy(np.concatenate(flat)), torch.from_numpy(np.concatenate(wts).astype(np.float32)),
            torch.tensor(offs, dtype=torch.int64))


def embed(table, b):
    flat, w, offs = b
    v = F.embedding_bag(flat, table, offs, mode="sum", per_sample_weights=w)
    return F.normalize(v, dim=1)


def repo_batches(rows, repo, batch, group, rng):
    """Batches made of groups of `group` pairs of one repository each, so the
    in-batch negatives are mostly other definitions of the same code base:
    what a question must be told apart from at search time."""
    groups = []
    for r in np.unique(repo[rows]):
        rr = rng.permutation(rows[repo[rows] == r])
        groups += [rr[i:i + group] for i in range(0, len(rr) - group + 1, group)]
    order = rng.permutation(len(groups))
    per = batch // group
    return [np.concatenate([groups[j] for j in order[i:i + per]]) for i in range(0, len(order) - per + 1, per)]


def masks(data, rows, p, rng):
    """For a fraction p of the rows, the code side's ids: the query then keeps
    only words the code does not contain, which is what a person's question
    looks like to the lexical channel when it fails."""
    ids, starts, ends = data["c"]
    return [ids[starts[r]:ends[r]] if rng.random() < p else None for r in rows]


def cap_rows(rows, repo, cap, rng):
    """At most cap pairs of each repository (a few Javadoc-heavy libraries
    would otherwise be most of the corpus)."""
    out = []
    for r in np.unique(repo[rows]):
        rr = rows[repo[rows] == r]
        out.append(rng.permutation(rr)[:cap] if len(rr) > cap else rr)
    return np.concatenate(out)


def evaluate(table, data, rows, batch):
    """Mean reciprocal rank of the right code among `batch` candidates."""
    rng = np.random.default_rng(1)
    rows = rng.permutation(rows)
    rr, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(rows) - batch + 1, batch):
            r = rows[s:s + batch]
            q = embed(table, bags(*data["q"], r))
            c = embed(table, bags(*data["c"], r))
            sim = q @ c.T
            rank = (sim > sim.diag()[:, None]).sum(1) + 1
            rr += (1.0 / rank.float()).sum().item()
            n += len(r)
    return rr / max(n, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--init", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--pull", type=float, default=1.0, help="weight of the pull towards the distilled table")
    ap.add_argument("--group", type=int, default=128, help="pairs of one repository per batch group (0: random batches)")
    ap.add_argument("--mask", type=float, default=0.5, help="fraction of queries stripped of the code's own words")
    ap.add_argument("--cap", type=int, default=4000, help="most pairs taken from one repository")
    ap.add_argument("--teach", type=float, default=0.0,
                    help="weight of the teacher loss (needs train/teach.py's targets for --data)")
    ap.add_argument("--val-repos", default="", help="comma-separated repositories kept out for validation")
    ap.add_argument("--name", default="")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    meta = json.load(open(os.path.join(a.init, "meta.json")))
    vocab = open(os.path.join(a.init, "vocab.txt"), encoding="utf-8").read().split("\n")[:-1]
    dims = meta["dims"]
    init = np.fromfile(os.path.join(a.init, "vectors.f32"), dtype="<f4").reshape(len(vocab), dims)
    dmeta = json.load(open(a.data + ".meta.json"))
    if dmeta["vocab"] != len(vocab):
        sys.exit(f"finetune: {a.data} was encoded with {dmeta['vocab']} tokens, the table has {len(vocab)}")
    data = {"q": load_ragged(a.data, "q"), "c": load_ragged(a.data, "c")}
    repo = np.fromfile(a.data + ".repo.u32", dtype="<u4")
    names = dmeta["repos"]
    rng = np.random.default_rng(a.seed)
    if a.val_repos:
        val_ids = {i for i, n in enumerate(names) if n in set(a.val_repos.split(","))}
    else:
        val_ids = set(rng.choice(len(names), max(1, len(names) // 50), replace=False).tolist())
    is_val = np.isin(repo, list(val_ids))
    train_rows, val_rows = np.nonzero(~is_val)[0], np.nonzero(is_val)[0]
    train_rows = cap_rows(train_rows, repo, a.cap, rng)
    print(f"finetune: {len(train_rows)} training pairs, {len(val_rows)} validation pairs "
          f"({len(val_ids)} repositories)", file=sys.stderr)

    teach_of = {}
    if a.teach > 0:
        trows = np.fromfile(a.data + ".teach.rows.u32", dtype="<u4")
        targets = torch.from_numpy(np.fromfile(a.data + ".teach.f16", dtype="<f2").astype(np.float32).reshape(len(trows), dims))
        teach_of = {int(r): i for i, r in enumerate(trows)}
        print(f"finetune: teacher targets for {len(trows)} pairs, weight {a.teach}", file=sys.stderr)
    e0 = torch.from_numpy(init.copy())
    table = torch.nn.Parameter(torch.from_numpy(init.copy()))
    opt = torch.optim.Adam([table], lr=a.lr)
    print(f"finetune: epoch 0 val MRR@{a.batch} {evaluate(table, data, val_rows, a.batch):.4f}", file=sys.stderr)
    for ep in range(a.epochs):
        t0 = time.time()
        if a.group:
            batches = repo_batches(train_rows, repo, a.batch, a.group, rng)
        else:
            perm = rng.permutation(train_rows)
            batches = [perm[i:i + a.batch] for i in range(0, len(perm) - a.batch + 1, a.batch)]
        steps = len(batches)
        tot = 0.0
        for s, r in enumerate(batches):
            qb, cb = bags(*data["q"], r, masks(data, r, a.mask, rng)), bags(*data["c"], r)
            q, c = embed(table, qb), embed(table, cb)
            logits = q @ c.T / a.tau
            lab = torch.arange(len(r))
            loss = (F.cross_entropy(logits, lab) + F.cross_entropy(logits.T, lab)) / 2
            touched = torch.unique(torch.cat([qb[0], cb[0]]))
            # Relative pull: rows drift only as far as the pairs justify.
            pull = ((table[touched] - e0[touched]) ** 2).sum(1).mean() / (e0[touched] ** 2).sum(1).mean()
            total = loss + a.pull * pull
            if teach_of:
                tr = [(i, teach_of[int(x)]) for i, x in enumerate(r) if int(x) in teach_of]
                if tr:
                    # The text as a whole (unmasked) placed where the teacher puts it.
                    tq = embed(table, bags(*data["q"], r[[i for i, _ in tr]]))
                    tgt = targets[[j for _, j in tr]]
                    total = total + a.teach * (1 - (tq * tgt).sum(1)).mean()
            total.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            tot += loss.item()
            if s % 50 == 0:
                print(f"\rfinetune: epoch {ep+1} step {s}/{steps} loss {tot/(s+1):.3f}", end="", file=sys.stderr)
        mrr = evaluate(table, data, val_rows, a.batch)
        print(f"\rfinetune: epoch {ep+1} loss {tot/max(steps,1):.3f} val MRR@{a.batch} {mrr:.4f} "
              f"({time.time()-t0:.0f}s)", file=sys.stderr)

    os.makedirs(a.out, exist_ok=True)
    shutil.copy(os.path.join(a.init, "vocab.txt"), os.path.join(a.out, "vocab.txt"))
    table.detach().numpy().astype("<f4").tofile(os.path.join(a.out, "vectors.f32"))
    meta["name"] = a.name or f"spelunk-code-{dims}d-v1"
    meta["source"] = f"{meta.get('source','')}; fine-tuned on {len(train_rows)} mined pairs, {a.epochs} epochs"
    json.dump(meta, open(os.path.join(a.out, "meta.json"), "w"), indent=1)
    print(f"finetune: wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
