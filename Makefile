# spelunk — the two commands a newcomer runs are `make run` and `make test`.
# Both provision what they need (PostgreSQL, pgvector) through `make setup`, which is
# idempotent and quiet when there is nothing to do; the code model is built into the binary.

SHELL       := /bin/bash
BIN         := bin/spelunk
GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Engine packages run under the race detector; the rest run plainly.
ENGINE_PKGS := ./engine/...
OTHER_PKGS  := ./cmd/... ./tui/... ./migrations/... ./internal/...

.PHONY: all setup setup-glove build run test test-go soak bench lint tui-smoke clean eval-real train-corpus train train-ranker train-translate citus-test

all: build

setup: build
	@bash engine/pg/setup/setup-postgres.sh

# The GloVe word vectors, the embedder before the built-in code model (`--embedder glove`):
# no longer needed to run spelunk; `make test` installs them to test that provider.
setup-glove: build
	@SPELUNK_BIN=./$(BIN) sh engine/embed/fetch-glove.sh || \
		echo "setup-glove: warning: the GloVe word vectors could not be installed; their tests are skipped (see the message above)" >&2

build:
	@$(GO) build -o $(BIN) ./cmd/spelunk

# Opens the TUI on this repository: it starts the embedded cluster and indexes the
# repository (with a progress bar) the first time, while search already works.
run: setup
	@./$(BIN)

# Drives the real binary in tmux: types a query, captures the pane, checks it.
tui-smoke: build
	@bash tui/smoke.sh ./$(BIN)

# One throwaway cluster for the whole run; every test clones its own database from a
# migrated template.
test: setup setup-glove
	@bash engine/pg/setup/with-test-cluster.sh ./$(BIN) $(MAKE) --no-print-directory test-go

test-go:
	$(GO) vet ./...
	$(GO) test -race -count=1 $(ENGINE_PKGS)
	# Allocation counts mean nothing under the race detector (sync.Pool drops
	# items): those tests skip there and run here.
	$(GO) test -count=1 -run 'Allocations' ./engine/embed/
	$(GO) test -count=1 $(OTHER_PKGS)

# spelunk on a real Citus cluster (docs/OPERATIONS.md, "Scaling out on Citus"): the
# coordinator's URL in SPELUNK_CITUS_URL (citus and vector in its database on every node,
# workers added), beside the same work on one server. Not part of `make test`: CI has no
# Citus; the test is behind the citus build tag. SPELUNK_CITUS_REPOS: git repositories to
# index (default two copies of the fixture).
citus-test: build
	@test -n "$$SPELUNK_CITUS_URL" || { echo "citus-test: set SPELUNK_CITUS_URL to the Citus coordinator's URL (docs/OPERATIONS.md)" >&2; exit 2; }
	@bash engine/pg/setup/with-test-cluster.sh ./$(BIN) $(GO) test -tags citus -count=1 -v -timeout 30m -run 'TestCitusCluster|TestCitusUpgradeOfADistributedSchema' ./cmd/spelunk/

# The differential soak (docs/BENCHMARKS.md "Incremental equals clean"): SOAK_SEEDS seeds of
# SOAK_STEPS random changes, each run compared row for row with a clean index,
# a branch switch stopped at every progress report, real spelunk index processes killed, and
# the PostgreSQL server crashed under them (postmaster SIGKILL, immediate shutdown) and restarted.
# With SOAK_REPOS=DIR:DIR:... it runs TestSoakRepos instead: SOAK_TOTAL random steps (default 5000)
# over clones of those repositories (testdata/soak/subset.sh cuts small ones), at most
# SOAK_MINUTES, SOAK_PARALLEL seeds at once from seed SOAK_SEED, niced; it ends with the steps, the runs
# interrupted by kind (server crashes included), the rows that differ and the first failing seed.
SOAK_STEPS ?= 200
SOAK_SEEDS ?= 25
SOAK_REPOS ?=
SOAK_TOTAL ?= 5000
SOAK_MINUTES ?= 600
SOAK_PARALLEL ?= 1
SOAK_SEED ?= 1000
soak: setup
ifeq ($(SOAK_REPOS),)
	@bash engine/pg/setup/with-test-cluster.sh ./$(BIN) env SPELUNK_SOAK=$(SOAK_STEPS) SPELUNK_SOAK_SEEDS=$(SOAK_SEEDS) \
		$(GO) test -count=1 -timeout 12h -v -run 'TestIncrementalEqualsClean|TestInterruptedRunIsRepaired|TestKilledIndexEqualsClean|TestPostmasterKilledIndexEqualsClean|TestSoakRepos' ./engine/index/
else
	@nice -n 10 bash engine/pg/setup/with-test-cluster.sh ./$(BIN) env SPELUNK_SOAK_REPOS=$(SOAK_REPOS) SPELUNK_SOAK_STEPS=$(SOAK_TOTAL) \
		SPELUNK_SOAK_MINUTES=$(SOAK_MINUTES) SPELUNK_SOAK_PARALLEL=$(SOAK_PARALLEL) SPELUNK_SOAK_SEED=$(SOAK_SEED) \
		$(GO) test -count=1 -timeout 12h -v -run 'TestSoakRepos$$' ./engine/index/
endif

# Benchmarks against DESIGN.md §10 (figures, not pass/fail): indexing and search on
# a $GOROOT/src corpus, saved -> searchable with the watcher, memory at 50k memories,
# and the per-package hot paths.
bench: setup
	@bash engine/pg/setup/with-test-cluster.sh ./$(BIN) bash -c '\
		$(GO) test -run "^$$" -bench . -benchtime 1x -timeout 30m ./engine/benchmarks/ ./engine/watch/ && \
		$(GO) test -run "^$$" -bench . -benchtime 500x -timeout 30m ./engine/memory/ && \
		$(GO) test -run "^$$" -bench . -benchtime 2s ./engine/parse/ ./engine/embed/ ./engine/redact/ ./engine/source/ ./engine/index/ && \
		$(GO) test -run "^$$" -bench . ./tui/ ./engine/mcpserver/ ./cmd/spelunk/'

# The real-code benchmark: hand-written queries and history localisation on the
# public repositories of testdata/eval/real/manifest.tsv, where they are present
# (SPELUNK_REAL_REPOS, default /work/repos; SPLIT=tune|heldout|all). Not part of
# `make test`: CI has no network and none of those repositories.
eval-real: build
	@BIN=./$(BIN) bash testdata/eval/real/run.sh

lint:
	@test -z "$$(gofmt -l cmd engine tui migrations)" || { gofmt -l cmd engine tui migrations; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags citus ./cmd/spelunk/
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf bin

# The training corpus of the code-embedding model (train/README.md): fetch the packages of
# train/manifest.tsv from their registries, then mine text<->code pairs from them, from
# $GOROOT/src and from the local CPython standard library into $(TRAIN_CACHE)/pairs.jsonl.
# Not part of `make test`: CI has no network.
# TRAIN_HISTORY=1 adds the repositories of train/history.tsv with their history (commit
# pairs; measured, not in the shipped model's corpus: train/README.md).
TRAIN_CACHE ?= $(or $(SPELUNK_TRAIN_CACHE),$(HOME)/.cache/spelunk/train)
TRAIN_HISTORY ?= 0
# In the order the shell globs them (the order decides which copy of a duplicate pair is kept).
TRAIN_SOURCES = crates $(if $(filter 1,$(TRAIN_HISTORY)),git) go maven npm pypi
train-corpus:
	@SPELUNK_TRAIN_CACHE="$(TRAIN_CACHE)" bash train/fetch.sh train/manifest.tsv \
		$(if $(filter 1,$(TRAIN_HISTORY)),train/history.tsv) || \
		echo "train-corpus: the rows listed above are missing; mining what was fetched" >&2
	@$(GO) run ./internal/train/mine -j 2 -out "$(TRAIN_CACHE)/pairs.jsonl.tmp" \
		-src $$(for s in $(TRAIN_SOURCES); do ls -d "$(TRAIN_CACHE)/src/$$s"/* 2>/dev/null; done) \
		"$$($(GO) env GOROOT)/src" \
		"$$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
	@mv "$(TRAIN_CACHE)/pairs.jsonl.tmp" "$(TRAIN_CACHE)/pairs.jsonl"

# Rebuilds the built-in code model from train/manifest.tsv (train/README.md): corpus,
# vocabulary, distillation from the teacher, fine-tuning, packing into
# engine/embed/model/spelunk-code.bin, then the tune half's figures where the dev-set
# repositories are present. Needs python3 with torch (installed from PyPI when missing).
train:
	@SPELUNK_TRAIN_CACHE="$(TRAIN_CACHE)" TRAIN_SOURCES="$(TRAIN_SOURCES)" bash train/train.sh

# Rebuilds the learned translation of question words into code tokens (train/README.md,
# "The translation table") from the mined pairs: engine/search/translate.tsv. Go only.
train-translate:
	@test -f "$(TRAIN_CACHE)/pairs.jsonl" || $(MAKE) --no-print-directory train-corpus
	@$(GO) run ./internal/train/translate -out engine/search/translate.tsv "$(TRAIN_CACHE)/pairs.jsonl"

# Rebuilds the learned fusion from train/ranker-repos.tsv (train/README.md, "The ranker"):
# history queries of public repositories, their candidates' evidence, a pairwise fit.
train-ranker: build
	@SPELUNK_TRAIN_CACHE="$(TRAIN_CACHE)" bash train/ranker.sh
