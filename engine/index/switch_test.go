package index_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestBranchSwitchIsClean: after a branch switch (files added, removed,
// renamed, edited) an incremental run leaves exactly the rows of a clean index
// of the new HEAD — files, symbols, edges with their decisions, postings,
// vectors — compared with a clean index of a clone under another repository
// key in the same database; and the same on the way back.
func TestBranchSwitchIsClean(t *testing.T) {
	root, mainHead, switchHead := indextest.Branches(t)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []struct{ ref, head string }{{indextest.SwitchBranch, switchHead}, {"main", mainHead}} {
		git(t, root, "checkout", "-q", to.ref)
		sum, err := ix.Index(ctx, root, index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.FilesUnchanged == 0 || sum.FilesIndexed == 0 || sum.FilesDeleted == 0 {
			t.Fatalf("to %s: %+v: want an incremental run that writes and deletes files", to.ref, sum)
		}
		requireClean(t, db, first.RepositoryID, to.head, indextest.CloneAt(t, root, to.head))
	}
}

// requireClean fails unless repository repoID of db holds the rows a clean
// index of clone (at head) makes, under another repository key of db.
func requireClean(t *testing.T, db *pg.DB, repoID int64, head, clone string) {
	t.Helper()
	clean, err := index.New(db, hashing()).Index(context.Background(), clone, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if clean.Revision != head {
		t.Fatalf("the clean index is of %s, not %s", clean.Revision, head)
	}
	got, want := indextest.Rows(t, db, repoID), indextest.Rows(t, db, clean.RepositoryID)
	if d := indextest.DiffRows(got, want, 60); d != "" {
		t.Fatalf("at %s the incremental index differs from a clean one (%d vs %d rows): %s", head, len(got), len(want), d)
	}
}
