package watch

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestBranchSwitchMatchesClean: a branch switch (files added, removed,
// renamed and edited, moving the graph) followed by the watcher leaves every
// row a clean index of the new HEAD has — files, symbols, edges with their
// targets, confidence and candidates, postings, vectors — compared with a
// clone of the new HEAD indexed under another repository key in the same
// database; and the same on the way back. Each switch is one run.
func TestBranchSwitchMatchesClean(t *testing.T) {
	root, mainHead, switchHead := indextest.Branches(t)
	db := pgtest.Open(t)
	w := start(t, db, root, Options{Debounce: patienceUnit})
	waitRuns(t, w.rec, 1)
	for _, to := range []struct{ ref, head string }{{indextest.SwitchBranch, switchHead}, {"main", mainHead}} {
		before := len(waitRuns(t, w.rec, 1))
		git(t, root, "checkout", "-q", to.ref)
		waitFor(t, "the switch to "+to.ref+" followed", func() bool {
			c, wt := commitOf(t, db, root)
			return c == to.head && !wt
		}, w.rec)
		runs := writing(waitRuns(t, w.rec, before+1)[before:])
		if len(runs) != 1 || runs[0].Paths != nil {
			t.Errorf("the switch to %s took %d runs; want one of the whole tree; events:\n%s", to.ref, len(runs), w.rec)
		}
		requireCleanClone(t, db, root, to.head)
	}
}

// requireCleanClone fails unless db's index of root holds the rows a clean
// index of a clone of root at head makes under another repository key.
func requireCleanClone(t *testing.T, db *pg.DB, root, head string) {
	t.Helper()
	clone := indextest.CloneAt(t, root, head)
	clean, err := index.New(db, hashing()).Index(context.Background(), clone, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, want := indextest.Rows(t, db, repoIDOf(t, db, root)), indextest.Rows(t, db, clean.RepositoryID)
	if d := indextest.DiffRows(got, want, 60); d != "" {
		t.Fatalf("at %s the watched index differs from a clean one (%d vs %d rows): %s", head, len(got), len(want), d)
	}
}

// commitOf is lastCommit of root's repository, with others in the database.
func commitOf(t testing.TB, db *pg.DB, root string) (commit string, workingTree bool) {
	t.Helper()
	err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(last_commit, ''), working_tree FROM repositories
		WHERE root = $1`, root).Scan(&commit, &workingTree)
	if err != nil {
		t.Fatal(err)
	}
	return commit, workingTree
}

func repoIDOf(t testing.TB, db *pg.DB, root string) int64 {
	t.Helper()
	var id int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT id FROM repositories WHERE root = $1`, root).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
