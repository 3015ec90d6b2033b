"""Commit-subject expansion, measured before building it (issue 10, section 2.4).

For each definition, the subjects of the commits whose diff hunks name it (git's
funcname context) form a small document; lay questions are ranked against those
documents alone with BM25. Usage: commit_subjects.py REPO QUERIES.jsonl [COMMITS]
Prints, per repository, how many lay questions rank a gold definition first / in
the top 5 from commit subjects alone.
"""
import sys, json, re, subprocess, math, collections
repo, qfile = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
attrs = "/tmp/proto/attrs"
open(attrs, "w").write("*.py diff=python\n*.go diff=golang\n")
out = subprocess.run(["git", "-C", repo, "-c", "core.attributesFile="+attrs, "log", "-p", "-U0", "--no-merges",
    "--format=COMMIT %s", "-n", str(N)], capture_output=True).stdout.decode("utf-8", "replace")
docs = collections.defaultdict(list)
subj = None; path = None
name_re = re.compile(r'(?:def|func|function|class|interface|type|const|let|var)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)|^\s*(?:async\s+|static\s+|public\s+|private\s+|export\s+)*([A-Za-z_$][\w$]*)\s*\(')
for line in out.split("\n"):
    if line.startswith("COMMIT "):
        subj = line[7:]; continue
    if line.startswith("+++ "):
        path = line[6:] if line.startswith("+++ b/") else None; continue
    if line.startswith("@@") and path and subj:
        ctx = line.split("@@", 2)[-1]
        m = name_re.search(ctx)
        if m:
            nm = m.group(1) or m.group(2)
            docs[(path, nm)].append(subj)
STOP = set("the a an of to in is it and or for on with how does do what when where which why that this be by as are from if its my me i at not can into out".split())
def words(s):
    s = re.sub(r'([a-z])([A-Z])', r'\1 \2', s)
    return [w for w in re.findall(r'[a-z0-9]+', s.lower()) if w not in STOP and len(w) > 1]
D = {k: collections.Counter(w for s in set(v) for w in words(s)) for k, v in docs.items()}
df = collections.Counter(w for c in D.values() for w in c)
n = len(D); avg = sum(sum(c.values()) for c in D.values()) / max(n, 1)
def bm25(q):
    qs = set(words(q)); res = []
    for k, c in D.items():
        L = sum(c.values()); s = 0
        for w in qs:
            if w in c:
                idf = math.log(1 + (n - df[w] + .5) / (df[w] + .5))
                s += idf * c[w] * 2.2 / (c[w] + 1.2 * (.25 + .75 * L / avg))
        if s > 0: res.append((s, k))
    res.sort(reverse=True); return res
h1 = h5 = tot = 0; cov = 0
for line in open(qfile):
    q = json.loads(line)
    if "lay" not in q.get("tags", []): continue
    tot += 1
    gold = {(e["path"], e["symbol"]) for e in q["expect"]}
    if any(g in D for g in gold): cov += 1
    r = [k for _, k in bm25(q["query"])[:5]]
    if r and r[0] in gold: h1 += 1
    if any(k in gold for k in r): h5 += 1; print("  hit5:", q["id"])
print(f"{repo}: defs with subjects {n}, lay {tot}, gold covered {cov}, h1 {h1}, h5 {h5}")
