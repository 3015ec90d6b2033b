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
