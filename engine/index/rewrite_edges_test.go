package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// bulkFixture is a git repository of three copies of the fixture (210 files,
// enough for a first load to defer the edge indexes, and names defined in
// several directories, so that many edges are ambiguous).
func bulkFixture(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "bulk")
	for _, d := range []string{"a", "b", "c"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(indextest.FixtureDir())); err != nil {
			t.Fatal(err)
		}
		if d != "a" { // one module of each path: which of three copies a Go import names is not decided
			mod := filepath.Join(root, d, "go.mod")
			if err := os.WriteFile(mod, []byte("module example.com/"+d+"\n\ngo 1.22\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	indextest.Git(t, root, "init", "-q", "-b", "main")
	indextest.Git(t, root, "add", "-A")
	indextest.Git(t, root, "commit", "-q", "-m", "bulk")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestFirstLoadEdgeRewriteEqualsUpdate: a first load of a database, which
// writes its edges once more with their decisions (resolve_rewrite.go),
// leaves the rows the update of the decisions leaves; so do two first loads
// of one database at once, each of which may find the other's edges and
// update instead.
func TestFirstLoadEdgeRewriteEqualsUpdate(t *testing.T) {
	root := bulkFixture(t)
	ctx := context.Background()
	load := func(opts index.Options) ([]string, bool) {
		db := pgtest.Open(t)
		var rewrote bool
		index.ReportEdgeRewrite(&opts, &rewrote)
		sum, err := index.New(db, hashing()).Index(ctx, root, opts)
		if err != nil {
			t.Fatal(err)
		}
		return indextest.Rows(t, db, sum.RepositoryID), rewrote
	}
	rewritten, rewrote := load(index.Options{})
	if !rewrote {
		t.Fatal("the first load did not rewrite its edges")
	}
	var keep index.Options
	index.KeepEdgeUpdate(&keep)
	updated, rewrote := load(keep)
	if rewrote {
		t.Fatal("the first load told to update its edges rewrote them")
	}
	if d := indextest.DiffRows(rewritten, updated, 20); d != "" {
		t.Fatalf("rewritten edges differ from updated ones:\n%s", d)
	}

	// Two first loads into one database at once: a clone of the tree beside it.
	other := filepath.Join(t.TempDir(), "other")
	indextest.Git(t, filepath.Dir(other), "clone", "-q", root, other)
	db := pgtest.Open(t)
	ids := make([]int64, 2)
	var g errgroup.Group
	for i, dir := range []string{root, other} {
		g.Go(func() error {
			sum, err := index.New(db, hashing()).Index(ctx, dir, index.Options{})
			ids[i] = sum.RepositoryID
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if d := indextest.DiffRows(indextest.Rows(t, db, id), updated, 20); d != "" {
			t.Fatalf("repository %d of two loaded at once differs from a clean index:\n%s", i, d)
		}
	}
}

// TestFirstLoadEdgeIndexes: a first load defers every edge index but the
// primary key (pg.DB.DeferEdgeIndexes); a resolution in SQL starts with the
// ones its steps look edges up by, and the run ends with all of them, as
// does one resolved in memory.
func TestFirstLoadEdgeIndexes(t *testing.T) {
	root := bulkFixture(t)
	ctx := context.Background()
	edgeIndexes := func(db *pg.DB) []string {
		rows, err := db.Pool.Query(ctx, `SELECT indexname FROM pg_indexes WHERE tablename = 'edges' ORDER BY indexname`)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	var all []string
	for _, where := range []string{"memory", "sql"} {
		db := pgtest.Open(t)
		if all == nil {
			all = edgeIndexes(db)
		}
		var opts index.Options
		index.ResolveIn(&opts, where)
		var atPass []string
		index.AtSQLPass(&opts, func() { atPass = edgeIndexes(db) })
		if _, err := index.New(db, hashing()).Index(ctx, root, opts); err != nil {
			t.Fatal(err)
		}
		if got := edgeIndexes(db); !slices.Equal(got, all) {
			t.Errorf("%s: edge indexes after the first load %v, want %v", where, got, all)
		}
		want := []string{"edges_file_idx", "edges_pkey", "edges_source_idx", "edges_target_idx"}
		if where == "sql" && !slices.Equal(atPass, want) {
			t.Errorf("edge indexes as the resolution in SQL started: %v, want %v", atPass, want)
		}
		if where == "memory" && atPass != nil {
			t.Errorf("a resolution in memory went through the SQL pass's start (indexes %v)", atPass)
		}
	}
	if len(all) < 8 {
		t.Fatalf("a fresh database has edge indexes %v: the check compares too few", all)
	}
}

// TestStoppedFirstLoadIsRepaired: a first load holds its reference edges
// apart until its full pass writes them with their decisions (edgespool.go).
// Stopped between two files or at any report after the load (the phase
// boundaries, the pass), the next run brings the database to a clean
// index's rows: the files written before the stop carry no blob id, so that
// run writes them again with their edges.
func TestStoppedFirstLoadIsRepaired(t *testing.T) {
	root := bulkFixture(t)
	ctx := context.Background()
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 1)
	reports := 0
	opts.Progress = func(index.Progress) { reports++ }
	db := pgtest.Open(t)
	sum, err := index.New(db, hashing()).Index(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Edges == 0 {
		t.Fatal("the fixture has no edges")
	}
	clean := indextest.Rows(t, db, sum.RepositoryID)
	stops := []int{reports / 3, 2 * reports / 3}
	for n := max(1, reports-11); n < reports; n++ {
		stops = append(stops, n)
	}
	for _, n := range stops {
		stopThenRepair(t, pgtest.Open(t), root, n, reports, clean)
	}
}

// stopThenRepair indexes root into db stopped at progress report n (of
// reports), then runs again and compares the repository with clean's rows.
func stopThenRepair(t *testing.T, db *pg.DB, root string, n, reports int, clean []string) {
	t.Helper()
	sopts, sctx, at := stopAt(n)
	if _, err := index.New(db, hashing()).Index(sctx, root, sopts); err == nil {
		t.Fatalf("the load told to stop at report %d of %d finished", n, reports)
	} else if !errors.Is(context.Cause(sctx), errStopped) {
		t.Fatalf("the load stopped at report %d: %v", n, err)
	}
	sum, err := index.New(db, hashing()).Index(context.Background(), root, index.Options{})
	if err != nil {
		t.Fatalf("the run after stopping at report %d (%s): %v", n, at(), err)
	}
	if d := indextest.DiffRows(indextest.Rows(t, db, sum.RepositoryID), clean, 20); d != "" {
		t.Fatalf("the load stopped at report %d (%s), then run again: %s", n, at(), d)
	}
}

// TestOneMoreRepositoryHoldsItsEdges: the first load of a repository into a
// database that holds another's edges holds its reference edges too, and
// writes them once with their decisions (edgespool.go): the rows equal a
// clean index's, also when that load is stopped and run again.
func TestOneMoreRepositoryHoldsItsEdges(t *testing.T) {
	root := bulkFixture(t)
	other := filepath.Join(t.TempDir(), "other")
	indextest.Git(t, filepath.Dir(other), "clone", "-q", root, other)
	ctx := context.Background()
	withOther := func() *pg.DB {
		db := pgtest.Open(t)
		if _, err := index.New(db, hashing()).Index(ctx, other, index.Options{}); err != nil {
			t.Fatal(err)
		}
		return db
	}
	clean := func() []string {
		db := pgtest.Open(t)
		sum, err := index.New(db, hashing()).Index(ctx, root, index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return indextest.Rows(t, db, sum.RepositoryID)
	}()

	db := withOther()
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 1)
	reports := 0
	opts.Progress = func(index.Progress) { reports++ }
	var held bool
	index.ReportHeldEdges(&opts, &held)
	sum, err := index.New(db, hashing()).Index(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !held {
		t.Fatal("one more repository's first load did not hold its edges")
	}
	if d := indextest.DiffRows(indextest.Rows(t, db, sum.RepositoryID), clean, 20); d != "" {
		t.Fatalf("one more repository differs from a clean index:\n%s", d)
	}
	for _, n := range []int{reports / 2, reports - 3, reports - 1} {
		stopThenRepair(t, withOther(), root, n, reports, clean)
	}
}
