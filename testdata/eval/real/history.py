#!/usr/bin/env python3
"""History localisation (`spelunk eval history`) on the repositories of one
split of the real-code set: per repository, hybrid / lexical / dense file@1,
file@5, file@10 and function@5 from one run (so the comparison is same-run),
and the hybrid - lexical margins the model issue asks about.

  python3 testdata/eval/real/history.py SPLIT [--commits 150] [--bin bin/spelunk] [-- eval history flags]
         [--only NAME,NAME] [--out DIR] [--label L]

The embedder is whatever spelunk picks (SPELUNK_EMBEDDER, SPELUNK_CODE_MODEL).
"""
import argparse, json, os, subprocess, sys

from queries import manifest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("split")
    ap.add_argument("--commits", type=int, default=150)
    ap.add_argument("--bin", default="bin/spelunk")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="/tmp/spelunk-eval-real")
    ap.add_argument("--label", default="history")
    a, extra = ap.parse_known_args()  # e.g. -- --fusion learned (adds hybrid-rrf beside hybrid)
    extra = [x for x in extra if x != "--"]
    repos = os.environ.get("SPELUNK_REAL_REPOS", "/work/repos")
    only = set(filter(None, a.only.split(",")))
    os.makedirs(a.out, exist_ok=True)
    print(f"{'repository':14} {'n':>4}  {'hybrid @1/@5/@10':18} {'lexical @1/@5/@10':18} {'dense @1/@5/@10':18} "
          f"{'fn@5 h/l':10} {'margin @1/@5':12}")
    for name, slug, commit, part, _ in manifest(a.split):
        if only and name not in only:
            continue
        d = os.path.join(repos, name)
        if not os.path.isdir(os.path.join(d, ".git")):
            print(f"skip {slug}: not at {d}", file=sys.stderr)
            continue
        r = subprocess.run([a.bin, "eval", "history", "--repo", d, "--commits", str(a.commits), "--json"] + extra,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{slug}: failed: {r.stderr.strip()[-300:]}", file=sys.stderr)
            continue
        rep = json.loads(r.stdout)
        with open(os.path.join(a.out, f"{name}.{a.label}.json"), "w") as f:
            json.dump(rep, f)
        c = {x["config"]: x for x in rep["results"]}
        fmt = lambda x: f"{x['file@1']:.2f}/{x['file@5']:.2f}/{x['file@10']:.2f}"
        h, l, dn = c["hybrid"], c["lexical"], c["dense"]
        print(f"{name:14} {h['n']:4d}  {fmt(h):18} {fmt(l):18} {fmt(dn):18} "
              f"{h['function@5']:.2f}/{l['function@5']:.2f}  {h['file@1']-l['file@1']:+.2f}/{h['file@5']-l['file@5']:+.2f}",
              flush=True)
        if "hybrid-rrf" in c:
            x = c["hybrid-rrf"]
            print(f"{'':14} {'':4}  hybrid fused by RRF {fmt(x)}, fn@5 {x['function@5']:.2f}; "
                  f"ranker − RRF @1/@5 {h['file@1']-x['file@1']:+.2f}/{h['file@5']-x['file@5']:+.2f}", flush=True)


if __name__ == "__main__":
    main()
