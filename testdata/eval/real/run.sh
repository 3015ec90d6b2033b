#!/usr/bin/env bash
# make eval-real: the real-code benchmark (testdata/eval/real/README.md).
# For each repository of the manifest found under $SPELUNK_REAL_REPOS (default
# /work/repos) at the manifest's commit, runs the hand-written queries
# (`spelunk eval`) and the history localisation (`spelunk eval history --baseline
# bm25`), writes the JSON reports to $OUT (default /tmp/spelunk-eval-real) and prints
# one table per split. Repositories that are absent are listed and skipped: CI has
# none, and nothing here is needed by `make test`.
#   SPLIT=tune|heldout|all (default all)   COMMITS=150   BIN=bin/spelunk
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${BIN:-bin/spelunk}
repos=${SPELUNK_REAL_REPOS:-/work/repos}
out=${OUT:-/tmp/spelunk-eval-real}
split=${SPLIT:-all}
commits=${COMMITS:-150}
mkdir -p "$out"
while IFS=$'\t' read -r name slug commit part lang queries; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	[[ "$split" != all && "$split" != "$part" ]] && continue
	dir="$repos/$name"
	if [[ ! -d "$dir/.git" ]]; then
		echo "eval-real: $slug not found at $dir (clone it at $commit to include it)" >&2
		continue
	fi
	if [[ "$(git -C "$dir" rev-parse HEAD)" != "$commit" ]]; then
		echo "eval-real: $dir is not at $commit (git -C $dir checkout $commit); skipped" >&2
		continue
	fi
	echo "eval-real: $slug ($part, $lang)" >&2
	"$bin" eval --repo "$dir" --queries "$here/$queries" --json > "$out/$name.queries.json"
	if [[ "${HISTORY:-1}" == 1 ]]; then
		"$bin" eval history --repo "$dir" --commits "$commits" --baseline bm25 --json > "$out/$name.history.json"
	fi
done < "$here/manifest.tsv"
python3 "$here/summarise.py" "$here/manifest.tsv" "$out" "$split"
