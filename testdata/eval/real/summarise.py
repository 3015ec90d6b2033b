#!/usr/bin/env python3
"""Summarise make eval-real: one table per split, micro-averaged over queries.

usage: summarise.py MANIFEST OUTDIR SPLIT
"""
import json
import os
import sys

QUERY_METRICS = ["hit@1", "hit@5", "mrr@10"]
HISTORY_METRICS = ["file@1", "file@5", "file@10", "function@5", "mrr"]


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main():
    manifest, outdir, want = sys.argv[1], sys.argv[2], sys.argv[3]
    splits = {}
    for line in open(manifest):
        if not line.strip() or line.startswith("#"):
            continue
        name, _slug, _commit, split = line.rstrip("\n").split("\t")[:4]
        if want in ("all", split):
            splits.setdefault(split, []).append(name)
    for split, names in splits.items():
        queries, history, graph_sets = {}, {}, []
        for name in names:
            rep = load(os.path.join(outdir, name + ".queries.json"))
            for row in (rep or {}).get("results", []):
                if row["config"].startswith("graph") and row["kind"] == "graph" and "precision" in row:
                    graph_sets.append((name + " " + row["config"], row["n"], row["precision"], row["recall"]))
                key = (row["config"], row["kind"])
                acc = queries.setdefault(key, {"n": 0, **{m: 0.0 for m in QUERY_METRICS}})
                acc["n"] += row["n"]
                for m in QUERY_METRICS:
                    acc[m] += row[m] * row["n"]
            rep = load(os.path.join(outdir, name + ".history.json"))
            for row in (rep or {}).get("results", []):
                acc = history.setdefault(row["config"], {"n": 0, "function_n": 0, **{m: 0.0 for m in HISTORY_METRICS}})
                acc["n"] += row["n"]
                acc["function_n"] += row.get("function_n") or 0
                for m in HISTORY_METRICS:
                    weight = row.get("function_n") or 0 if m.startswith("function") else row["n"]
                    acc[m] += (row.get(m) or 0) * weight
        print(f"\n## {split}: {', '.join(names)}\n")
        print("| config | kind | n | " + " | ".join(QUERY_METRICS) + " |")
        print("|---|---|---|" + "---|" * len(QUERY_METRICS))
        for (cfg, kind), acc in sorted(queries.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            if acc["n"] == 0:
                continue
            cells = " | ".join(f"{acc[m] / acc['n']:.3f}" for m in QUERY_METRICS)
            print(f"| {cfg} | {kind} | {acc['n']} | {cells} |")
        if graph_sets:
            # Per repository: each figure is micro-averaged over its links.
            print("\n| graph answers as sets | n | precision | recall |")
            print("|---|---|---|---|")
            for name, n, p, r in graph_sets:
                print(f"| {name} | {n} | {p:.3f} | {r:.3f} |")
        if history:
            print("\n| history config | n | " + " | ".join(HISTORY_METRICS) + " |")
            print("|---|---|" + "---|" * len(HISTORY_METRICS))
            for cfg, acc in history.items():
                cells = []
                for m in HISTORY_METRICS:
                    d = acc["function_n"] if m.startswith("function") else acc["n"]
                    cells.append(f"{acc[m] / d:.3f}" if d else "-")
                print(f"| {cfg} | {acc['n']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
