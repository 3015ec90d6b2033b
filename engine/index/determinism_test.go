package index_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// withConfidenceFixture adds the typed-call fixture to a copy of the fixture
// repository, so both are indexed together.
func withConfidenceFixture(t *testing.T) string {
	repo := fixtureRepo(t)
	files := map[string]string{
		"py/more.py":   "from shapes import B\n\nclass D(B):\n    pass\n\ndef use(d: D):\n    d.close()\n",
		"py/caller.py": "def poke(x):\n    x.frob()\n",
		"py/zeta.py":   "class Z:\n    def frob(self):\n        pass\n",
	}
	for p, s := range confidenceFixture {
		files[p] = s
	}
	commitFiles(t, repo, files)
	return repo
}

// TestDeterministicGraph: symbol ids depend on which of the parallel writers
// commits first, the graph must not. Four indexes of the same commit with parallel
// writers, each into its own database, hold the same edges with the same targets,
// confidence and candidates.
func TestDeterministicGraph(t *testing.T) {
	repo := withConfidenceFixture(t)
	ctx := context.Background()
	var first string
	// Batches of other sizes commit files in other orders, so ids rank the files
	// differently in each database (0: the default).
	for i, batch := range []int{0, 1, 2, 5} {
		db := pgtest.Open(t)
		opts := index.Options{}
		if batch > 0 {
			index.SetBatchFiles(&opts, batch)
		}
		if _, err := index.New(db, hashing()).Index(ctx, repo, opts); err != nil {
			t.Fatal(err)
		}
		snap := snapshot(t, db)
		if i == 0 {
			first = snap
			continue
		}
		if snap != first {
			t.Fatalf("index %d differs from the first:\n%s", i, diffLines(first, snap))
		}
	}
}

// TestIncrementalGraphIsClean: an incremental run over a change that moves typed
// targets (a method added on an embedding type, a base's method renamed, a file
// deleted) leaves the same graph as a clean index of the new commit.
func TestIncrementalGraphIsClean(t *testing.T) {
	repo := withConfidenceFixture(t)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := callEdges(t, db, "py/more.py", "use", "close"); render(got) != "use->B.close inferred []" {
		t.Fatalf("before the change: %s", render(got))
	}
	commitFiles(t, repo, map[string]string{
		// A candidate written after zeta.py's, so with higher ids than Z.frob here
		// and lower ones in a clean index: candidates go by path, not id.
		"py/alpha.py": "class Al:\n    def frob(self):\n        pass\n",
		// Outer's own Close now shadows the promoted B.Close.
		"go/a/outer.go": "package a\n\nfunc (Outer) Close() error { return nil }\n",
		// D's base loses close: d.close() must not become A.close.
		"py/shapes.py": "class A:\n    def close(self):\n        pass\n\nclass B:\n    def shut(self):\n        pass\n",
	})
	git(t, repo, "rm", "-q", "js/shapes.js")
	git(t, repo, "commit", "-q", "-m", "change")
	appendFile(t, filepath.Join(repo, "cart/discount.go"), "\nfunc Markdown(cents int64) int64 { return cents * 9 / 10 }\n")
	git(t, repo, "commit", "-q", "-am", "change more")
	sum, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 4 || sum.FilesDeleted != 1 {
		t.Fatalf("summary %+v: want an incremental run of 4 files and 1 deletion", sum)
	}
	if got := callEdges(t, db, "py/caller.py", "poke", "frob"); render(got) != "poke->Al.frob ambiguous [Al.frob,Z.frob]" {
		t.Errorf("untyped call after a candidate was added: %s", render(got))
	}
	if got := callEdges(t, db, "go/a/a.go", "a.Promoted", "Close"); render(got) != "a.Promoted->Outer.Close exact []" {
		t.Errorf("promoted call after the change: %s", render(got))
	}
	if got := callEdges(t, db, "py/more.py", "use", "close"); render(got) != "use-> unresolved []" {
		t.Errorf("d.close() after its base lost close: %s", render(got))
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("incremental index differs from a clean one:\n%s", diffLines(a, b))
	}
}

// TestSharesDecideAsOne: a full pass decides the edges on several connections,
// each its share of the files (resolve_parts.go). One, two and three shares of
// the same commit hold the same graph, with the Python package that re-exports
// a name (the one step that reads another edge's decision of the run) among
// the files.
func TestSharesDecideAsOne(t *testing.T) {
	repo := withConfidenceFixture(t)
	commitFiles(t, repo, srcLayoutFixture)
	ctx := context.Background()
	var first string
	for _, tc := range []struct {
		parts     int
		poolOfTwo bool
	}{{1, false}, {2, false}, {3, false}, {2, true}} {
		db := pgtest.Open(t)
		ix := index.New(db, hashing())
		if tc.poolOfTwo {
			// Two shares asked of a pool of two connections, one the run
			// lock's: one share decides, instead of waiting for ever for a
			// connection the first share holds.
			two, err := pg.Open(ctx, pg.Options{URL: db.URL, MaxConns: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer two.Close()
			ix = index.New(two, hashing())
		}
		opts := index.Options{}
		index.ResolveIn(&opts, "sql") // the fixture's size would decide it in memory
		index.SetResolveParts(&opts, tc.parts)
		run, cancel := context.WithTimeout(ctx, time.Minute)
		_, err := ix.Index(run, repo, opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		snap := snapshot(t, db)
		if tc.parts == 1 {
			first = snap
			continue
		}
		if snap != first {
			t.Fatalf("%d shares (a pool of two: %v) differ from one:\n%s", tc.parts, tc.poolOfTwo, diffLines(first, snap))
		}
	}
}

// TestPoolOfOneConnection: a run holds its lock's connection while its
// statements take others, so a pool of one connection (pool_max_conns=1)
// would wait for ever: the run says so instead.
func TestPoolOfOneConnection(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	one, err := pg.Open(ctx, pg.Options{URL: db.URL, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	run, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = index.New(one, hashing()).Index(run, fixtureRepo(t), index.Options{})
	if err == nil || !strings.Contains(err.Error(), "pool_max_conns") {
		t.Fatalf("a run on a pool of one connection: %v, want an error naming pool_max_conns", err)
	}
}
