package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// A git status that fails is not "clean": the status says the index may be
// stale and why (issue 11.10).
func TestStatusWhenGitStatusFails(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	sum, err := index.New(db, hashing()).Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gitIndex := filepath.Join(repo, ".git", "index")
	data, err := os.ReadFile(gitIndex)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gitIndex, data[:20], 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := db.RepositoryByRoot(ctx, sum.Repository)
	if err != nil {
		t.Fatal(err)
	}
	st, err := index.RepoStatus(ctx, db, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Stale || !strings.Contains(st.StaleReason, "cannot tell whether") {
		t.Fatalf("status with a corrupt git index: stale %v (%q); want stale, saying it cannot tell", st.Stale, st.StaleReason)
	}
}

// Once the working tree has been indexed, a later edit is stale until it is
// indexed too (issue 14.5): the status used to call any uncommitted change
// fresh after a working-tree run. RepoFreshness (the TUI's, from stored
// totals) agrees with it after every run.
func TestStatusSeesEditsAfterWorkingTreeIndex(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	ix := index.New(db, hashing())
	status := func(what string) index.Status {
		t.Helper()
		rec, err := db.RepositoryByRoot(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		st, err := index.RepoStatus(ctx, db, rec)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		// The TUI's status line says the same without counting: the totals the
		// runs kept by delta are the counted ones.
		fr, err := index.RepoFreshness(ctx, db, rec)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if fr.Stale != st.Stale || fr.StaleReason != st.StaleReason || fr.StaleFiles != st.StaleFiles ||
			fr.Files != st.Files || fr.Symbols != st.Symbols || fr.PendingEmbedding != st.PendingEmbedding {
			t.Fatalf("%s: freshness %+v differs from the status %+v", what, fr, st)
		}
		if totals, ok, err := db.ReadRepoTotals(ctx, rec.ID); err != nil || !ok || totals.Edges != st.Edges {
			t.Fatalf("%s: stored totals %+v (%v, %v), status counts %d edges", what, totals, ok, err, st.Edges)
		}
		return st
	}
	wantStale := func(what string, n int, reason string) {
		t.Helper()
		st := status(what)
		if !st.Stale || st.StaleFiles != n || !strings.Contains(st.StaleReason, reason) {
			t.Fatalf("%s: stale %v, %d files (%q); want stale, %d files, saying %q", what, st.Stale, st.StaleFiles, st.StaleReason, n, reason)
		}
	}
	wantFresh := func(what string) {
		t.Helper()
		if st := status(what); st.Stale {
			t.Fatalf("%s: stale (%s), want fresh", what, st.StaleReason)
		}
	}
	run := func(wt bool) {
		t.Helper()
		if _, err := ix.Index(ctx, repo, index.Options{WorkingTree: wt}); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(p, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(p)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig, err := os.ReadFile(filepath.Join(repo, "billing", "refund.go"))
	if err != nil {
		t.Fatal(err)
	}

	run(false)
	wantFresh("indexed at HEAD")
	edit("billing/refund.go", string(orig)+"\nfunc Edited() {}\n")
	wantStale("edited", 1, "1 file with uncommitted changes not indexed (billing/refund.go)")
	run(true)
	wantFresh("working tree indexed")
	edit("billing/refund.go", string(orig)+"\nfunc EditedAgain() {}\n")
	wantStale("edited again", 1, "1 file changed since indexed (billing/refund.go)")
	edit("billing/new.go", "package billing\n")
	wantStale("a new file", 2, "billing/new.go")
	run(true)
	wantFresh("indexed again")
	edit("billing/refund.go", string(orig)) // back to the commit: git status no longer lists it
	wantStale("reverted", 1, "billing/refund.go")
	if err := os.Remove(filepath.Join(repo, "billing", "new.go")); err != nil {
		t.Fatal(err)
	}
	wantStale("reverted and the new file deleted", 2, "billing/new.go")
	run(false)
	wantFresh("clean, indexed at HEAD")
}
