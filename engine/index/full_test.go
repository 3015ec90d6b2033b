package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
)

// TestFullKeepsServing: while a full run rewrites the repository, every file and
// its symbols stay visible; files gone from the repository are deleted; the result
// is re-embedded from scratch and equals a clean index.
func TestFullKeepsServing(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	searcher := search.New(db, first.RepositoryID, hashing())
	git(t, repo, "rm", "-q", "js/lib/money.js")
	git(t, repo, "commit", "-q", "-m", "drop money.js")
	var files int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM files WHERE path <> 'js/lib/money.js'`).Scan(&files); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	checks := 0
	var problems []string
	opts := index.Options{Full: true, Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 3)
	opts.Progress = func(p index.Progress) {
		if p.Phase != "indexing" || p.FilesDone == 0 || p.FilesDone >= p.FilesTotal {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		var n, refund int
		err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM files WHERE path <> 'js/lib/money.js'),
			(SELECT count(*) FROM symbols WHERE name = 'IssueRefund')`).Scan(&n, &refund)
		checks++
		if err != nil || n != files || refund != 1 {
			problems = append(problems, fmt.Sprintf("after %d of %d files: %d of %d files, %d IssueRefund (%v)",
				p.FilesDone, p.FilesTotal, n, files, refund, err))
		}
		// What a person sees: a search finds it, as before the run.
		resp, err := searcher.Search(ctx, "IssueRefund", search.Options{})
		if err != nil || len(resp.Results) == 0 || resp.Results[0].Name != "IssueRefund" {
			var got []string
			if resp != nil {
				for _, r := range resp.Results[:min(3, len(resp.Results))] {
					got = append(got, r.QualifiedName)
				}
			}
			problems = append(problems, fmt.Sprintf("after %d of %d files: search IssueRefund: %v, first results %v",
				p.FilesDone, p.FilesTotal, err, got))
		}
	}
	sum, err := ix.Index(ctx, repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if checks < 3 {
		t.Fatalf("only %d checks during the run: the test proves nothing", checks)
	}
	if len(problems) > 0 {
		t.Fatalf("during the full run the old rows did not serve:\n%s", strings.Join(problems, "\n"))
	}
	if sum.FilesDeleted != 1 || sum.FilesUnchanged != 0 || sum.Embedded != sum.Symbols {
		t.Fatalf("full run %+v: want every file rewritten and re-embedded, money.js deleted", sum)
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("full run differs from a clean index:\n%s", diffLines(a, b))
	}
}

// bigRepo writes n small Go files (enough for a bulk load, which may defer the HNSW
// index) into a new git repository.
func bigRepo(t *testing.T, name string, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for i := range n {
		pkg := fmt.Sprintf("p%02d", i%20)
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf("package %s\n\n// F%d is number %d of %s.\nfunc F%d(x int) int { return x + %d }\n", pkg, i, i, name, i, i)
		writeFile(t, filepath.Join(dir, pkg, fmt.Sprintf("f%d.go", i)), src)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "generated")
	return mustReal(t, dir)
}

// TestVectorIndexStays: the HNSW index and the postings indexes are deferred, and
// the edges compacted (or rewritten), only for the first load (of the model; of the
// database); a full rebuild of that repository and the load of a second one
// keep them in place (dropping them stalled every search of the shared table).
func TestVectorIndexStays(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	ix := index.New(db, hashing())
	indexName := "symbol_embeddings_" + pg.ModelIndexName(hashing().Name())
	exists := func() bool {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE indexname = ANY ($1)`,
			[]string{indexName, "postings_term_idx"}).Scan(&n); err != nil {
			t.Error(err)
		}
		return n == 2
	}
	// run indexes dir and reports whether the indexes were dropped during the load.
	run := func(dir string, full bool) (deferred, missing bool) {
		opts := index.Options{Full: full, Workers: 1, ProgressEvery: time.Nanosecond}
		postings, compacted := false, false
		opts.Progress = func(p index.Progress) {
			// The builds run beside the resolution: one Phase may name two steps.
			deferred = deferred || strings.Contains(p.Phase, "building the vector index")
			postings = postings || strings.Contains(p.Phase, "building the postings index")
			compacted = compacted || strings.Contains(p.Phase, "compacting the edges")
			if p.Phase == "indexing" && p.FilesDone > 0 && p.FilesDone%50 == 0 && !exists() {
				missing = true
			}
		}
		var rewrote bool // instead of compacted (resolve_rewrite.go)
		index.ReportEdgeRewrite(&opts, &rewrote)
		if _, err := ix.Index(ctx, dir, opts); err != nil {
			t.Fatal(err)
		}
		compacted = compacted || rewrote
		if !exists() {
			t.Fatalf("%s: no vector index or postings key after the run", dir)
		}
		if postings != deferred || compacted != deferred {
			t.Fatalf("%s: vector index deferred %v, postings key %v, edges compacted %v: want all or none here",
				dir, deferred, postings, compacted)
		}
		return deferred, missing
	}

	first := bigRepo(t, "first", 220)
	if deferred, missing := run(first, false); !deferred || !missing {
		t.Fatalf("first load of the model: deferred %v, dropped %v; want the index built after the load", deferred, missing)
	}
	if deferred, missing := run(first, true); deferred || missing {
		t.Fatal("a full rebuild dropped the vector index its own old vectors are searched through")
	}
	if deferred, missing := run(bigRepo(t, "second", 220), false); deferred || missing {
		t.Fatal("loading a second repository dropped the vector index the first one is searched through")
	}
}

// A full run that is interrupted leaves no old row passing for current: the next
// run, full or not, redoes every file the full run did not reach.
func TestInterruptedFullRedoesTheRest(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(context.Background(), repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := index.Options{Full: true, Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 3)
	reached := 0
	opts.Progress = func(p index.Progress) {
		if p.Phase == "indexing" && p.FilesDone >= 3 && reached == 0 {
			reached = p.FilesDone
			cancel()
		}
	}
	if _, err := ix.Index(ctx, repo, opts); err == nil {
		t.Fatal("the interrupted full run reported success")
	}
	next, err := ix.Index(context.Background(), repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := first.FilesIndexed + first.SkippedNow
	if redone := next.FilesIndexed + next.SkippedNow; redone < total-reached-3 || redone == 0 {
		t.Fatalf("after a full run interrupted at %d of %d files the next run redid %d (%+v)", reached, total, redone, next)
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("after the interrupted full run and a normal one the index differs from a clean one:\n%s", diffLines(a, b))
	}
}
