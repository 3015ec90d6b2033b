#!/usr/bin/env bash
# subset.sh SRC DST PATHSPEC...: a small repository for `make soak` (docs/BENCHMARKS.md
# "Incremental equals clean") from a clone of a public one: DST is a clone of SRC (never
# changed) whose branch soak holds only PATHSPEC's files (tests, docs and fixtures left out),
# in two commits, so that the soak's branch switches (to HEAD~1) stay small too.
# The manifest of what make soak was run on is repos.tsv beside this script.
set -euo pipefail
src=$1 dst=$2; shift 2
git clone -q --no-hardlinks "$src" "$dst"
cd "$dst"
export GIT_AUTHOR_DATE=2025-06-01T10:00:00Z GIT_COMMITTER_DATE=2025-06-01T10:00:00Z
g() { git -c user.name=spelunk -c user.email=spelunk@example.com -c commit.gpgsign=false "$@"; }
g checkout -q --orphan soak
git rm -rq --cached .
mapfile -t files < <(git ls-files --others -- "$@" | sort)
(( ${#files[@]} > 2 )) || { echo "subset.sh: $* names ${#files[@]} files" >&2; exit 1; }
git add -- "${files[@]:2}"
g commit -qm "soak subset of $(basename "$src"), less two files"
git add -- "${files[@]:0:2}"
g commit -qm "soak subset of $(basename "$src")"
git clean -fdxq
echo "$dst: $(git ls-files | wc -l) files, $(git ls-files | xargs cat | wc -l) lines"
