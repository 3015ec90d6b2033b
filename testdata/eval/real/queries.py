#!/usr/bin/env python3
"""Runs the hand-written queries of one split of the real-code set and prints
micro-averaged hit@1 / hit@5 / MRR@10 per query tag (name, literal, lay, graph)
and configuration (hybrid, lexical, dense, ...).

  python3 testdata/eval/real/queries.py SPLIT [--bin bin/spelunk] [--out DIR]
         [--models DIR] [-- extra spelunk eval flags, e.g. --weights dense=0.5]

The embedder is whatever spelunk picks (SPELUNK_EMBEDDER, --embedder in the
extra flags); with --models, DIR/NAME.bin (spelunk model learn) for each
repository that has one. Repositories are looked for under $SPELUNK_REAL_REPOS (default
/work/repos) at the manifest's commit; absent ones are skipped with a note.
Each repository's report is kept as OUT/<name>.<label>.json.
"""
import argparse, json, os, subprocess, sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def manifest(split):
    for line in open(os.path.join(HERE, "manifest.tsv")):
        if not line.strip() or line.startswith("#"):
            continue
        name, slug, commit, part, lang, queries = line.rstrip("\n").split("\t")
        if split in ("all", part):
            yield name, slug, commit, part, queries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("split")
    ap.add_argument("--bin", default="bin/spelunk")
    ap.add_argument("--out", default="/tmp/spelunk-eval-real")
    ap.add_argument("--label", default="queries")
    ap.add_argument("--models", default="",
                    help="a directory of per-repository models (NAME.bin, from spelunk model learn): "
                         "each repository that has one is searched with it (SPELUNK_CODE_MODEL)")
    a, a.extra = ap.parse_known_args()
    a.extra = [x for x in a.extra if x != "--"]
    repos = os.environ.get("SPELUNK_REAL_REPOS", "/work/repos")
    os.makedirs(a.out, exist_ok=True)
    # (tag, config) -> [n, hit1, hit5, rr]
    agg = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for name, slug, commit, part, qfile in manifest(a.split):
        d = os.path.join(repos, name)
        if not os.path.isdir(os.path.join(d, ".git")):
            print(f"skip {slug}: not at {d}", file=sys.stderr)
            continue
        head = subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        if head != commit:
            print(f"skip {slug}: {d} is at {head[:12]}, not {commit[:12]}", file=sys.stderr)
            continue
        qpath = os.path.join(HERE, qfile)
        cmd = [a.bin, "eval", "--repo", d, "--queries", qpath, "--json", "--per-query"] + a.extra
        env = dict(os.environ)
        if a.models and os.path.exists(os.path.join(a.models, name + ".bin")):
            env["SPELUNK_CODE_MODEL"] = os.path.join(a.models, name + ".bin")
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            print(f"{slug}: spelunk eval failed: {r.stderr.strip()[-500:]}", file=sys.stderr)
            continue
        rep = json.loads(r.stdout)
        with open(os.path.join(a.out, f"{name}.{a.label}.json"), "w") as f:
            json.dump(rep, f)
        tags = {}
        for line in open(qpath):
            q = json.loads(line)
            tags[q["id"]] = (q.get("tags") or [q["kind"]])[0]
        for pq in rep.get("per_query", []):
            tag = tags.get(pq.get("id"), "?")
            for cfg, rank in (pq.get("ranks") or {}).items():
                s = agg[(tag, cfg)]
                s[0] += 1
                if rank and rank > 0:
                    s[1] += rank == 1
                    s[2] += rank <= 5
                    s[3] += 1.0 / rank if rank <= 10 else 0
        print(f"{slug}: done", file=sys.stderr)
    print(f"split {a.split}  {' '.join(a.extra)}{'  models ' + a.models if a.models else ''}")
    print(f"{'tag':8} {'config':16} {'n':>4} {'hit@1':>6} {'hit@5':>6} {'MRR':>6}")
    for (tag, cfg), (n, h1, h5, rr) in sorted(agg.items()):
        print(f"{tag:8} {cfg:16} {n:4d} {h1/n:6.2f} {h5/n:6.2f} {rr/n:6.2f}")


if __name__ == "__main__":
    main()
