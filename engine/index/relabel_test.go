package index_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// revisions maps path -> "file revision/symbol revisions" for the given paths.
func revisions(t *testing.T, db *pg.DB, paths ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	rows, err := db.Pool.Query(context.Background(), `SELECT f.path, f.revision || '/' ||
		coalesce((SELECT string_agg(DISTINCT sf.revision, ',') FROM symbols s
			JOIN files sf ON sf.repository_id = s.repository_id AND sf.id = s.file_id
			WHERE s.repository_id = f.repository_id AND s.file_id = f.id), '')
		FROM files f WHERE f.path = ANY ($1)`, paths)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, r string
		if err := rows.Scan(&p, &r); err != nil {
			t.Fatal(err)
		}
		out[p] = r
	}
	return out
}

// TestCommitRelabelsWorkingTreeRows: a file indexed from disk and then
// committed as it was is not rewritten, but its rows carry the commit from
// then on, whether the next run lists the commit or the working tree; a
// reset --soft that takes the commit away makes them working-tree again.
func TestCommitRelabelsWorkingTreeRows(t *testing.T) {
	for _, workingTree := range []bool{false, true} {
		db := pgtest.Open(t)
		repo := fixtureRepo(t)
		ctx := context.Background()
		ix := index.New(db, hashing())
		writeFile(t, filepath.Join(repo, "cart/wishlist.go"), "package cart\n\n// Wishlist keeps items for later.\ntype Wishlist struct{ Items []string }\n")
		if _, err := ix.Index(ctx, repo, index.Options{WorkingTree: true}); err != nil {
			t.Fatal(err)
		}
		first := git(t, repo, "rev-parse", "HEAD")
		if got := revisions(t, db, "cart/wishlist.go")["cart/wishlist.go"]; got != "working-tree/working-tree" {
			t.Fatalf("new file before the commit: %s", got)
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", "wishlist")
		head := git(t, repo, "rev-parse", "HEAD")
		sum, err := ix.Index(ctx, repo, index.Options{WorkingTree: workingTree})
		if err != nil {
			t.Fatal(err)
		}
		if sum.FilesIndexed != 0 {
			t.Errorf("working tree %v: %d files rewritten after a commit of indexed content", workingTree, sum.FilesIndexed)
		}
		got := revisions(t, db, "cart/wishlist.go", "cart/cart.go")
		if got["cart/wishlist.go"] != head+"/"+head || got["cart/cart.go"] != first+"/"+first {
			t.Errorf("working tree %v: revisions after the commit %v; want wishlist at %s, cart still at %s", workingTree, got, head, first)
		}
		git(t, repo, "reset", "-q", "--soft", "HEAD~1")
		if _, err := ix.Index(ctx, repo, index.Options{WorkingTree: true}); err != nil {
			t.Fatal(err)
		}
		if got := revisions(t, db, "cart/wishlist.go")["cart/wishlist.go"]; got != "working-tree/working-tree" {
			t.Errorf("working tree %v: after reset --soft: %s", workingTree, got)
		}
	}
}
