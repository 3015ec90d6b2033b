#!/usr/bin/env bash
# ranker.sh rebuilds spelunk's learned fusion (engine/search/learned.go) from
# train/ranker-repos.tsv: clones each repository at its commit into the cache,
# turns its last COMMITS qualifying commits into history queries with the
# ranker's inputs (`spelunk eval history --fusion rrf --features`), then fits
# the model (internal/train/ranker), printing each repository's figures when
# the others trained it, and writes OUT. `make train-ranker` runs it.
#
# Needs: Go, git and network access to github.com; nothing else (no Python).
#   SPELUNK_TRAIN_CACHE (default ~/.cache/spelunk/train)  COMMITS=300
#   OUT=engine/search/rankmodel.json  BIN=bin/spelunk
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${SPELUNK_TRAIN_CACHE:-$HOME/.cache/spelunk/train}/ranker
commits=${COMMITS:-300}
out=${OUT:-engine/search/rankmodel.json}
bin=$(realpath "${BIN:-bin/spelunk}")
mkdir -p "$cache/repos" "$cache/features"
files=()
while IFS=$'\t' read -r name slug commit; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	dir="$cache/repos/$name"
	if [[ ! -d "$dir/.git" ]]; then
		git clone --quiet "https://github.com/$slug" "$dir"
	fi
	git -C "$dir" checkout --quiet "$commit"
	feat="$cache/features/$name.jsonl"
	if [[ ! -s "$feat" ]]; then
		printf 'ranker: %s, %s commits (%s)\n' "$slug" "$commits" "$(date +%H:%M:%S)" >&2
		(cd "$dir" && "$bin" --cache off eval history --commits "$commits" --fusion rrf \
			--features "$feat.tmp" >"$cache/features/$name.txt")
		mv "$feat.tmp" "$feat"
	fi
	files+=("$feat")
done <train/ranker-repos.tsv
go run ./internal/train/ranker -out "$out" "${files[@]}"
