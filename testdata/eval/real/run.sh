#!/usr/bin/env bash
# make eval-real: the real-code benchmark (testdata/eval/real/README.md).
# For the repositories of the manifest found under $SPELUNK_REAL_REPOS (default
# /work/repos) at the manifest's commit, runs the hand-written queries
# (queries.py: `spelunk eval` per repository, one table per tag) and the history
# localisation (history.py: `spelunk eval history`, hybrid against lexical in the
# same run), keeping the JSON reports in $OUT (default /tmp/spelunk-eval-real).
# Repositories that are absent are listed and skipped: CI has none, and nothing
# here is needed by `make test`.
#   SPLIT=tune|heldout|fresh|all (default all)   COMMITS=150   HISTORY=1   BIN=bin/spelunk
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${BIN:-bin/spelunk}")
out=${OUT:-/tmp/spelunk-eval-real}
split=${SPLIT:-all}
python3 "$here/queries.py" "$split" --bin "$bin" --out "$out"
if [[ "${HISTORY:-1}" == 1 ]]; then
	(cd "$here" && python3 history.py "$split" --bin "$bin" --out "$out" --commits "${COMMITS:-150}")
fi
